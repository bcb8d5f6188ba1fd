"""A printable 1:1 template of a game's board for its builders (``board-referee
board-template``): every cell drawn from the engine's own geometry at its real size, with its
name, the sensor under it (its index and its multiplexer input, M2.5 being multiplexer 2's
input 5) and the LED under it (its place in the chain). Glued under the playing surface, it
shows where each sensor and LED goes and which wire is which.

The SVG is sized in millimetres, so printed at 100 % it is the board. A board larger than a
sheet is cut into pages (``--page a4``) that overlap by 10 mm, each with alignment crosses.
"""

from __future__ import annotations

import argparse
import math
import textwrap
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import escape

from engine import ConfigError, Game
from firmware_bridge.commands.common import Subparsers, game_arguments, load_game
from firmware_bridge.link import catalog
from firmware_bridge.link.profile import BoardProfile
from firmware_bridge.link.protocol import Sensing
from firmware_bridge.physics.stackup import Mount, Stackup, parse_build
from firmware_bridge.referee.snapshot import CellPicture, board_picture

PAGES = {"a4": (210.0, 297.0), "a3": (297.0, 420.0), "letter": (215.9, 279.4)}
MARGIN = 10.0  # mm a printer cannot reach, kept clear on every page
OVERLAP = 10.0  # mm two neighbouring pages share
# The legend's text is 3.5 mm high; a character of it is at most this wide (DejaVu Sans, the
# widest of the usual sans-serif faces, averages 0.55 em over English text).
LEGEND_CHAR_MM = 2.1


@dataclass(frozen=True, slots=True)
class Sheet:
    name: str  # "" for a single sheet, else its row and column, e.g. "r1c2"
    svg: str


def add_parser(sub: Subparsers, common: argparse.ArgumentParser) -> None:
    board_template = sub.add_parser(
        "board-template", parents=[common],
        help="a printable 1:1 SVG of a game's board: cells, sensor and LED indexes",
    )  # fmt: skip
    game_arguments(board_template)
    board_template.add_argument("--board", help="hardware profile (default: the game's own)")
    board_template.add_argument("--cell-mm", type=float, default=None,
                                help="a cell's size in millimetres (default: the profile's "
                                "build.cell_mm, 40)")  # fmt: skip
    board_template.add_argument(
        "--page",
        choices=("a4", "a3", "letter"),
        help="cut it into pages of this size, overlapping 10 mm",
    )
    board_template.add_argument(
        "--output",
        "-o",
        default=None,
        help="the SVG file (default GAME-PROFILE.svg; pages: -r1c1 ...)",
    )
    board_template.set_defaults(handler=_cmd_board_template)


def _cmd_board_template(args: argparse.Namespace) -> int:
    game = load_game(args)
    profile = catalog.load_profile(args.board, game, catalog.config_dir(args.config_dir))
    stack = build_of(profile)
    cell_mm = args.cell_mm if args.cell_mm is not None else stack.cell / MM if stack else 40.0
    sheets = template(game, profile, cell_mm=cell_mm, page=args.page)
    written = write(sheets, args.output or f"{game.id}-{profile.id}.svg")
    names = ", ".join(str(p) for p in written)
    print(
        f"wrote {names} ({len(profile.sensor_cells)} sensors, {len(profile.led_cells)} LEDs, "
        f"cells {cell_mm:g} mm; print at 100 %)"
    )
    return 0


def _outline(cell: CellPicture, x: float, y: float, size: float) -> str:
    """The cell's shape around (x, y) in mm, as an SVG element."""
    if cell.shape == "square":
        h = size / 2
        points = [(-h, -h), (h, -h), (h, h), (-h, h)]
    elif cell.shape == "diamond":
        h = size * math.sqrt(0.5)
        points = [(0, -h), (h, 0), (0, h), (-h, 0)]
    elif cell.shape == "hex":
        r = size / math.sqrt(3)
        points = [
            (
                r * math.cos(math.pi / 6 + k * math.pi / 3),
                r * math.sin(math.pi / 6 + k * math.pi / 3),
            )
            for k in range(6)
        ]
    else:
        return (
            f'<circle cx="{x:.2f}" cy="{y:.2f}" r="{size * 0.4:.2f}" '
            f'class="cell{" blocked" if cell.blocked else ""}"/>'
        )
    text = " ".join(f"{x + px:.2f},{y + py:.2f}" for px, py in points)
    return f'<polygon points="{text}" class="cell{" blocked" if cell.blocked else ""}"/>'


MM = 1e-3


def build_of(profile: BoardProfile) -> Stackup | None:
    """How the profile's board is built (its ``build:``; None for a board the Pico does not
    read): where its LEDs and reeds go on the template comes from there."""
    return parse_build(profile) if profile.pico is not None else None


def template(
    game: Game, profile: BoardProfile, *, cell_mm: float = 40.0, page: str | None = None
) -> list[Sheet]:
    """The template's sheets: one, or the pages of ``page`` size it is cut into."""
    if not 15 <= cell_mm <= 150:
        raise ConfigError("--cell-mm must be between 15 and 150 (millimetres)")
    picture = board_picture(game)
    xs = [c.x for c in picture.cells]
    ys = [c.y for c in picture.cells]
    pad = 0.8
    left, top = min(xs) - pad, max(ys) + pad

    def at(cell: CellPicture) -> tuple[float, float]:
        return (cell.x - left) * cell_mm, (top - cell.y) * cell_mm

    width = (max(xs) - min(xs) + 2 * pad) * cell_mm
    height = (max(ys) - min(ys) + 2 * pad) * cell_mm
    small = max(2.4, cell_mm * 0.075)
    big = max(3.5, cell_mm * 0.16)
    parts: list[str] = []
    index = game.board.index
    wiring = profile.pico
    reed = wiring is not None and wiring.part.name == "reed"
    stack = build_of(profile)
    # The LED's centre from the cell's centre, along the diagonal to the top right (the
    # profile's build.led_offset_mm, which the physics check keeps clear of the largest
    # piece), scaled with the cell.
    led_offset = (stack.led_offset / stack.cell if stack else 0.4) * cell_mm
    mount = stack.mount if stack else Mount.UPRIGHT
    reed_mm = stack.sensor.body[1] / stack.cell * cell_mm if stack else 0.35 * cell_mm
    for cell in picture.cells:
        x, y = at(cell)
        parts.append(_outline(cell, x, y, cell_mm))
        number = index[cell.name]
        sensor = profile.sensor_of.get(number)
        led = profile.led_of.get(number)
        name_x = x - (cell_mm * 0.1 if led is not None else 0.0)  # clear of the LED's ring
        parts.append(
            f'<text x="{name_x:.2f}" y="{y - cell_mm * 0.17:.2f}" class="name" '
            f'font-size="{big:.1f}">{escape(cell.name)}</text>'
        )
        lines = []
        if sensor is not None:
            where = f" · {wiring.input_of(sensor)}" if wiring is not None else ""
            lines.append(f"S{sensor}{where}")
        elif not cell.blocked:
            lines.append(f"{cell.region or cell.zone or 'cell'}: no sensor")
        if led is not None:
            lines.append(f"LED {led}")
        for k, line in enumerate(lines):
            parts.append(
                f'<text x="{x:.2f}" y="{y + cell_mm * (0.2 + 0.12 * k):.2f}" '
                f'class="note" font-size="{small:.1f}">{escape(line)}</text>'
            )
        if led is not None:  # in the cell's corner (§2): the LED, its hole and its dark ring
            d = led_offset / math.sqrt(2)
            lx, ly = x + d, y - d
            side = round(stack.led_size / MM, 1) if stack else 5.0  # the build's LED
            parts.append(
                f'<rect x="{lx - side / 2:.2f}" y="{ly - side / 2:.2f}" width="{side:g}" '
                f'height="{side:g}" class="led"/><circle cx="{lx:.2f}" cy="{ly:.2f}" r="5" '
                'class="led"/>'
            )
        if sensor is not None and reed and mount is Mount.UPRIGHT:  # upright: a ring
            parts.append(f'<circle cx="{x:.2f}" cy="{y:.2f}" r="1.6" class="mark"/>')
        elif sensor is not None and reed:  # flat along the row, one end under the centre
            parts.append(f'<path d="M{x:.2f},{y:.2f}h{reed_mm:.2f}" class="mark reed"/>'
                         f'<circle cx="{x:.2f}" cy="{y:.2f}" r="1" class="mark"/>')  # fmt: skip
        elif sensor is not None:  # where the sensor goes: under the piece's centre
            parts.append(f'<path d="M{x - 3:.2f},{y:.2f}h6M{x:.2f},{y - 3:.2f}v6" class="mark"/>')
    names = game.player_names
    sensing = {
        Sensing.OWNER: f"magnet polarity: {names[0]}'s pieces north pole down, "
        f"{names[1]}'s south pole down",
        Sensing.OCCUPANCY: "occupancy: every piece's magnet north pole down",
        Sensing.IDENTITY: "identity (RFID tags)",
    }[profile.sensing]
    part = f"; sensors: {wiring.part.name}" if wiring is not None else ""
    legend_y = height + 6
    total_w = max(width, 140.0)
    said = [
        f"{game.title} — board profile {profile.id} — cells {cell_mm:g} mm",
        f"sensing: {sensing}{part}",
        "S12 · M0.12: sensor 12, multiplexer 0 input 12 (C12); LED 5: the 6th LED of the chain "
        "(from 0); "
        + (
            "the red ring marks the cell's centre, where its reed switch stands upright: its "
            "glass vertical, its leads bent clear of it (a reed lying flat and centred under a "
            "disc magnet never closes)"
            if reed and mount is Mount.UPRIGHT
            else "the red line is where each reed switch lies flat along the row, one end "
            "under the cell's centre (centred, it would never close); every magnet north pole "
            "down"
            if reed
            else "the red cross marks the cell's centre, where its sensor goes"
        ),
        "the blue square is the cell's LED, facing up, its size the build's; the blue circle "
        "its 5 mm hole's 10 mm dark ring (paint or tape), so one cell's light does not bleed "
        "into the next",
        "Print at 100 % (no 'fit to page'): the bar below is exactly 100 mm.",
    ]
    # Each line wrapped to the sheet (its text never runs past the paper's edge).
    room = int((total_w - 2 * MARGIN) / LEGEND_CHAR_MM)
    legend = [escape(piece) for line in said for piece in textwrap.wrap(line, room)]
    for k, line in enumerate(legend):
        parts.append(
            f'<text x="{MARGIN:.1f}" y="{legend_y + 5 * k:.1f}" class="legend">{line}</text>'
        )
    bar_y = legend_y + 5 * len(legend) + 1
    parts.append(f'<rect x="{MARGIN:.1f}" y="{bar_y:.1f}" width="100" height="3" class="bar"/>')
    parts.append(f'<text x="{MARGIN + 102:.1f}" y="{bar_y + 3:.1f}" class="legend">100 mm</text>')
    total_h = bar_y + 3 + MARGIN
    body = "\n".join(parts)
    if page is None:
        return [Sheet("", _svg(body, (0, 0, total_w, total_h)))]
    if page not in PAGES:
        raise ConfigError(f"--page {page!r}: one of {', '.join(PAGES)}")
    page_w, page_h = PAGES[page]
    usable_w, usable_h = page_w - 2 * MARGIN, page_h - 2 * MARGIN
    step_w, step_h = usable_w - OVERLAP, usable_h - OVERLAP
    columns = max(1, math.ceil((total_w - OVERLAP) / step_w))
    rows = max(1, math.ceil((total_h - OVERLAP) / step_h))
    sheets = []
    for row in range(rows):
        for column in range(columns):
            x0, y0 = column * step_w, row * step_h
            label = (
                f"{escape(game.title)}: page row {row + 1} of {rows}, column "
                f"{column + 1} of {columns} (pages overlap {OVERLAP:g} mm: lay the "
                "crosses on each other)"
            )
            sheets.append(
                Sheet(
                    f"r{row + 1}c{column + 1}",
                    _svg(
                        body,
                        (x0 - MARGIN, y0 - MARGIN, page_w, page_h),
                        label,
                        crosses=(x0, y0, usable_w, usable_h),
                    ),
                )
            )
    return sheets


STYLE = """
  .cell { fill: none; stroke: #222; stroke-width: 0.4; }
  .cell.blocked { fill: #ddd; }
  .name { font-family: sans-serif; font-weight: bold; text-anchor: middle; fill: #111; }
  .note { font-family: sans-serif; text-anchor: middle; fill: #333; }
  .mark { stroke: #b00; stroke-width: 0.35; }
  .led { fill: none; stroke: #1d4ed8; stroke-width: 0.35; }
  .legend { font-family: sans-serif; font-size: 3.5px; fill: #111; }
  .bar { fill: #111; }
  .cross { stroke: #b00; stroke-width: 0.3; }
"""


def _svg(
    body: str,
    view: tuple[float, float, float, float],
    label: str = "",
    *,
    crosses: tuple[float, float, float, float] | None = None,
) -> str:
    x, y, width, height = view
    extra = ""
    if crosses is not None:
        cx, cy, w, h = crosses
        marks = []
        for px in (cx, cx + w):
            for py in (cy, cy + h):
                marks.append(
                    f'<path d="M{px - 4:.1f},{py:.1f}h8M{px:.1f},{py - 4:.1f}v8" class="cross"/>'
                )
        extra = "\n".join(marks)
        extra += f'\n<text x="{cx:.1f}" y="{cy + h + 6:.1f}" class="legend">{label}</text>'
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.1f}mm" height="{height:.1f}mm" '
        f'viewBox="{x:.2f} {y:.2f} {width:.2f} {height:.2f}">\n'
        f"<style>{STYLE}</style>\n"
        f'<rect x="{x:.2f}" y="{y:.2f}" width="{width:.2f}" height="{height:.2f}" fill="#fff"/>\n'
        f"{body}\n{extra}\n</svg>\n"
    )


def write(sheets: list[Sheet], output: str) -> list[Path]:
    """Write the sheets: ``board.svg``, or ``board-r1c1.svg`` ... for pages."""
    path = Path(output)
    written = []
    for sheet in sheets:
        target = (
            path
            if not sheet.name
            else path.with_name(f"{path.stem}-{sheet.name}{path.suffix or '.svg'}")
        )
        try:
            target.write_text(sheet.svg, encoding="utf-8")
        except OSError as exc:
            raise ConfigError(f"{target}: cannot write: {exc.strerror or exc}") from exc
        written.append(target)
    return written
