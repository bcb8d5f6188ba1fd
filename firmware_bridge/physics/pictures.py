"""Pictures a builder reads at a glance, drawn from the same numbers the check uses:

- one cell's stack-up seen from the side, to scale, with its dimensions: the piece and its
  magnet, the top, the cavity between the battens, the sensor where its element sits;
- a map of the reading's margin over a cell, a piece placed at each point (the same piece,
  and a neighbour's piece at its worst on the next cell to the east).

SVG, sized in millimetres (the side view) or pixels (the map), no script, no fonts beyond the
usual sans-serif.
"""

from __future__ import annotations

from pathlib import Path
from xml.sax.saxutils import escape

from engine import Game
from firmware_bridge.link.profile import BoardProfile
from firmware_bridge.physics.check import Verdict, neighbour_field
from firmware_bridge.physics.field import grid, numpy, signal
from firmware_bridge.physics.parts import MM, MT, SensorKind
from firmware_bridge.physics.stackup import Mount, Stackup

SCALE = 10.0  # px a millimetre in the side view


def side_view(stack: Stackup, title: str) -> str:
    """One cell cut through its centre, west to east, to scale."""
    half = stack.cell / 2 / MM + 4
    top_of_piece = stack.base / MM + stack.magnet.thickness / MM + 3
    depth = stack.top / MM + stack.cavity / MM + 3  # the base board below the cavity
    width = 2 * half * SCALE + 640
    height = (top_of_piece + depth + 4) * SCALE + 70

    def x(mm: float) -> float:
        return (mm + half) * SCALE + 20

    def y(mm: float) -> float:  # z up in mm -> svg y down
        return (top_of_piece - mm) * SCALE + 40

    parts: list[str] = []

    def rect(x0: float, z0: float, x1: float, z1: float, cls: str) -> None:
        parts.append(
            f'<rect x="{x(min(x0, x1)):.1f}" y="{y(max(z0, z1)):.1f}" '
            f'width="{abs(x1 - x0) * SCALE:.1f}" height="{abs(z1 - z0) * SCALE:.1f}" '
            f'class="{cls}"/>'
        )

    def label(xmm: float, zmm: float, text: str, anchor: str = "start") -> None:
        parts.append(
            f'<text x="{x(xmm):.1f}" y="{y(zmm):.1f}" text-anchor="{anchor}">{escape(text)}</text>'
        )

    def dimension(z0: float, z1: float, at: float, text: str) -> None:
        parts.append(
            f'<line x1="{x(at):.1f}" y1="{y(z0):.1f}" x2="{x(at):.1f}" y2="{y(z1):.1f}" '
            'class="dim"/>'
        )
        for z in (z0, z1):
            parts.append(
                f'<line x1="{x(at) - 5:.1f}" y1="{y(z):.1f}" x2="{x(at) + 5:.1f}" '
                f'y2="{y(z):.1f}" class="dim"/>'
            )
        label(at + 1, (z0 + z1) / 2 - 0.4, text)

    cell, top, cavity = stack.cell / MM, stack.top / MM, stack.cavity / MM
    rect(-half, 0, half, -top, "wood")  # the top
    rect(-half, -top - cavity, half, -top - cavity - 3, "wood")  # the base board
    piece = stack.piece_diameter / MM / 2
    base, mag_t, mag_r = (
        stack.base / MM,
        stack.magnet.thickness / MM,
        stack.magnet.diameter / MM / 2,
    )
    rect(-piece, 0, piece, top_of_piece - 1, "piece")
    rect(-mag_r, base, mag_r, base + mag_t, "magnet")
    sensor = stack.sensor
    if sensor.kind is SensorKind.REED:
        glass_r = sensor.body[2] / MM / 2
        if stack.mount is Mount.UPRIGHT:
            z0, z1 = (v / MM for v in stack.reed_span)
            rect(-glass_r, z0, glass_r, z1, "sensor")
            bend = stack.lead_bend / MM
            parts.append(
                f'<path d="M{x(0):.1f},{y(z0):.1f} V{y(z0 + bend):.1f} H{x(6):.1f}" class="lead"/>'
            )
            parts.append(
                f'<path d="M{x(0):.1f},{y(z1):.1f} V{y(z1 - bend):.1f} H{x(6):.1f}" class="lead"/>'
            )
            element = (z0 + z1) / 2
        else:
            length = sensor.body[1] / MM
            start = 0.0 if stack.mount is Mount.FLAT else -length / 2
            z = stack.element_z / MM
            rect(start, z + glass_r, start + length, z - glass_r, "sensor")
            element = z
    else:
        thick, length = sensor.body[0] / MM, sensor.body[1] / MM
        face = stack.element_z / MM + sensor.element_depth / MM
        rect(-length / 2, face, length / 2, face - thick, "sensor")
        parts.append(
            f'<circle cx="{x(0):.1f}" cy="{y(stack.element_z / MM):.1f}" r="3" class="element"/>'
        )
        element = stack.element_z / MM
    right = half + 2
    dimension(0, -top, right, f"top {top:g} mm")
    dimension(-top, -top - cavity, right, f"cavity {cavity:g} mm (the battens' height)")
    dimension(
        base + mag_t / 2,
        element,
        right + 20,
        f"{base + mag_t / 2 - element:.1f} mm, magnet's centre to the sensing element",
    )
    dimension(0, base, -piece - 1, f"base {base:g}")
    label(
        0,
        top_of_piece - 0.2,
        f"piece {piece * 2:g} mm, magnet {mag_r * 2:g} x {mag_t:g} mm {stack.magnet.grade}",
        "middle",
    )
    label(
        0,
        -top - cavity - 5.5,
        f"{sensor.name}, {stack.mount.value}; cells {cell:g} mm apart",
        "middle",
    )
    style = (
        "text{font:14px sans-serif;fill:#111} .wood{fill:#e8d2a6;stroke:#8a6d3b} "
        ".piece{fill:#f5f5f5;stroke:#444} .magnet{fill:#b91c1c} .sensor{fill:#1f2937} "
        ".element{fill:#facc15} .dim{stroke:#1d4ed8;stroke-width:1.5} "
        ".lead{fill:none;stroke:#6b7280;stroke-width:3}"
    )
    body = "\n".join(parts)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {width:.0f} {height:.0f}"><style>{style}</style>'
        f'<rect width="100%" height="100%" fill="#fff"/>'
        f'<text x="20" y="24" style="font-weight:bold">{escape(title)}</text>\n{body}\n</svg>\n'
    )


def margin_map(stack: Stackup, threshold: float, title: str, square: bool) -> str:
    """The reading over the cell, each 1 mm place coloured by its margin over the threshold
    (with the east neighbour's piece at its worst working against it)."""
    np = numpy()
    reach = stack.cell / 2
    places = grid(reach, square)
    values = np.abs(signal(stack, places, 1.0))
    against = neighbour_field(stack, round(stack.cell / MM, 3), 0.0, square)
    margins = (values - against) / threshold
    size = 8  # px a millimetre
    half = reach / MM
    width = int(2 * half * size) + 40
    cells = []
    for (px, py), margin in zip(places / MM, margins, strict=True):
        colour = (
            "#b91c1c"
            if margin < 1.0
            else "#f59e0b"
            if margin < 1.25
            else "#86efac"
            if margin < 2.0
            else "#16a34a"
        )
        cells.append(
            f'<rect x="{(px + half) * size + 20:.0f}" y="{(half - py) * size + 40:.0f}" '
            f'width="{size}" height="{size}" fill="{colour}"/>'
        )
    piece_r = stack.piece_diameter / 2 / MM
    reach_mm = stack.reach / MM
    outline = (
        f'<rect x="{20 + (half - reach_mm) * size:.0f}" y="{40 + (half - reach_mm) * size:.0f}" '
        f'width="{2 * reach_mm * size:.0f}" height="{2 * reach_mm * size:.0f}" '
        'fill="none" stroke="#111" stroke-width="2" stroke-dasharray="6 4"/>'
    )
    centre = width / 2
    legend_y = 2 * half * size + 70
    legend = "".join(
        f'<rect x="{20 + i * 190}" y="{legend_y - 14}" width="16" height="16" fill="{c}"/>'
        f'<text x="{42 + i * 190}" y="{legend_y}">{escape(t)}</text>'
        for i, (c, t) in enumerate(
            (
                ("#b91c1c", "under the threshold"),
                ("#f59e0b", "under x1.25"),
                ("#86efac", "x1.25 to x2"),
                ("#16a34a", "x2 or more"),
            )
        )
    )
    height = int(legend_y + 40)
    note = (
        f"a {piece_r * 2:g} mm piece's centre anywhere in the dashed square stays in the cell; "
        f"the piece east of it at its worst"
    )
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{max(width, 800)}" height="{height}">'
        "<style>text{font:14px sans-serif;fill:#111}</style>"
        '<rect width="100%" height="100%" fill="#fff"/>'
        f'<text x="20" y="24" style="font-weight:bold">{escape(title)}</text>'
        + "".join(cells)
        + outline
        + f'<circle cx="{centre}" cy="{40 + half * size}" r="4" fill="#111"/>'
        + f'<text x="20" y="{legend_y + 26}">{escape(note)}</text>'
        + legend
        + "</svg>\n"
    )


def write_pictures(verdict: Verdict, profile: BoardProfile, game: Game, folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    stack = verdict.stack
    square = game.board.shape == "square"
    side = folder / f"{profile.id}-stackup.svg"
    side.write_text(
        side_view(stack, f"{profile.id}: one cell, from the side (to scale)"), encoding="utf-8"
    )
    title = (
        f"{profile.id}: the reading's margin over a cell "
        f"(threshold {verdict.need.threshold / MT:.2f} mT)"
    )
    margin = folder / f"{profile.id}-margin.svg"
    margin.write_text(margin_map(stack, verdict.need.threshold, title, square), encoding="utf-8")
    return [side, margin]


PICTURED = ("vanguard", "three-dragons-reed")  # the guide's: one owner board, one reed board


def guide_pictures(folder: Path) -> list[Path]:
    """docs/build-a-board.md's pictures (docs/physics/), drawn into ``folder``."""
    from firmware_bridge.link import catalog
    from firmware_bridge.physics.check import check_profile

    written = []
    for profile_id in PICTURED:
        game = catalog.load_game(catalog.profile_game(profile_id))
        profile = catalog.load_profile(profile_id, game)
        written += write_pictures(check_profile(profile, game), profile, game, folder)
    return written
