"""Where every part of the circuit sits on the board's PCB, worked out from the profile.

Each cell's sensor at the cell's centre and its LED where the physics puts it
(``build.led_offset_mm`` towards a corner: north-east on squares, north on hexagons, whose
corner points north), from the game's own geometry; their small parts beside them. The
controller's parts (the Pico, the multiplexers, the level shifter, the power entry, the buttons)
in blocks, packed in rows in the frame south of the cells. Every footprint's origin on the
router's grid, so a pad's centre is a known distance from a node.

Coordinates are KiCad's: millimetres, x east, y south, the board's north-west corner at
(``ORIGIN``, ``ORIGIN``).
"""

from __future__ import annotations

import dataclasses
import math
import re
from dataclasses import dataclass, field
from typing import Any

from engine import Game
from firmware_bridge.circuit.model import Circuit, Part, PartSpec
from firmware_bridge.link.profile import BoardProfile
from firmware_bridge.link.protocol import Sensing
from firmware_bridge.pcb.route import Pad
from firmware_bridge.physics.check import cell_centres
from firmware_bridge.physics.stackup import Stackup

MOUNTING_HOLE = "MountingHole:MountingHole_3.2mm_M3"
EDGE = 9.0  # mm from the cells' parts to the board's edge: room for the corners' holes
FRAME_GAP = 10.0  # mm between the cells and the controller's frame
BLOCK_GAP = 6.0  # mm between blocks: room for the tracks between them
PART_GAP = 2.0  # mm between the courtyards of one block's parts
HOLE_INSET = 5.0
LABELS_BELOW = 13.0  # mm below a cell's centre its name and pole mark reach (_labels)
HOLE_SPREAD = 120.0  # mm at least between the mounting holes inside the board


@dataclass(frozen=True, slots=True)
class Placed:
    ref: str
    fpid: str
    value: str
    x: float
    y: float
    rot: int
    pads: tuple[Pad, ...]
    courtyard: tuple[float, float, float, float]


@dataclass(slots=True)
class Layout:
    width: float
    height: float
    parts: list[Placed] = field(default_factory=list)
    holes: list[Placed] = field(default_factory=list)
    texts: list[dict[str, object]] = field(default_factory=list)
    cells: dict[str, tuple[float, float]] = field(default_factory=dict)


Library = dict[str, Any]  # fpid -> {"pads": [...], "courtyard": [x0, y0, x1, y1]}


def _turn(x: float, y: float, rot: int) -> tuple[float, float]:
    """A footprint's point turned by its orientation (KiCad's: counter-clockwise on screen,
    with y down)."""
    if rot == 0:
        return x, y
    if rot == 90:
        return y, -x
    if rot == 180:
        return -x, -y
    return -y, x


def _with_outward(
    pad: Pad, at: tuple[float, float], court: tuple[float, float, float, float]
) -> Pad:
    """The grid direction straight out of the part from ``pad``: along a long pad's length
    (an SOIC's pins), else towards the nearer side of the part's courtyard."""
    ox, oy = pad.centre[0] - at[0], pad.centre[1] - at[1]
    w, h = pad.box[2] - pad.box[0], pad.box[3] - pad.box[1]
    if w > 1.3 * h:
        along_x = True
    elif h > 1.3 * w:
        along_x = False
    else:
        half_w, half_h = (court[2] - court[0]) / 2 or 1.0, (court[3] - court[1]) / 2 or 1.0
        along_x = abs(ox) / half_w >= abs(oy) / half_h
    if along_x:  # noqa: SIM108
        outward = (1 if ox >= 0 else -1, 0)
    else:
        outward = (0, 1 if oy >= 0 else -1)
    return dataclasses.replace(pad, outward=outward)


def _box(box: list[float], rot: int, at: tuple[float, float]) -> tuple[float, float, float, float]:
    corners = [_turn(box[0], box[1], rot), _turn(box[2], box[3], rot)]
    xs = [at[0] + c[0] for c in corners]
    ys = [at[1] + c[1] for c in corners]
    return min(xs), min(ys), max(xs), max(ys)


class Placer:
    def __init__(self, circuit: Circuit, library: Library, pitch: float) -> None:
        self.circuit = circuit
        self.library = library
        self.pitch = pitch
        self.nets = {(node.ref, node.pin): net for node, net in circuit.where.items()}

    def snap(self, value: float) -> float:
        return round(value / self.pitch) * self.pitch

    def place(self, part: Part, x: float, y: float, rot: int = 0) -> Placed:
        fpid = part.spec.footprint
        entry = self.library[fpid]
        x, y = self.snap(x), self.snap(y)
        numbers = {pin.number: pin.name for pin in part.spec.pins}
        pads = []
        for pad in entry["pads"]:
            name = numbers.get(pad["number"])
            net = self.nets.get((part.ref, name)) if name is not None else None
            box = [pad["x"], pad["y"], pad["x"] + pad["w"], pad["y"] + pad["h"]]
            cx, cy = _turn(pad["cx"], pad["cy"], rot)
            pads.append(
                Pad(
                    part.ref,
                    pad["number"],
                    net,
                    tuple(pad["layers"]),
                    _box(box, rot, (x, y)),
                    (x + cx, y + cy),
                    pad["round"],
                )
            )
        court = entry["courtyard"] or [-1.0, -1.0, 1.0, 1.0]
        pads = [_with_outward(pad, (x, y), _box(court, rot, (0.0, 0.0))) for pad in pads]
        return Placed(part.ref, fpid, part.value or part.spec.name, x, y, rot, tuple(pads),
                      _box(court, rot, (x, y)))  # fmt: skip

    def size(self, part: Part, rot: int) -> tuple[float, float, float, float]:
        court = self.library[part.spec.footprint]["courtyard"] or [-1.0, -1.0, 1.0, 1.0]
        return _box(court, rot, (0.0, 0.0))


# Where a cell's parts go, from its centre (mm, y south): a kind of part by its unit and role.
def _cell_offsets(part: Part, linear: bool) -> tuple[float, float, int]:
    if part.spec.ref_prefix == "S":  # the sensor (a TO-92's middle pin, a reed's middle)
        return (-2.3, 0.0, 0) if part.spec.name == "reed switch" else (-1.27, 0.0, 0)
    if part.spec.ref_prefix == "C":  # its decoupling capacitor, south of it
        return (-2.5, 4.5, 0)
    return (-3.81, 4.5, 0)  # an open-drain switch's pull-up


def lay_out(  # noqa: PLR0917
    circuit: Circuit, profile: BoardProfile, game: Game, stack: Stackup, library: Library,
    pitch: float,
) -> Layout:  # fmt: skip
    placer = Placer(circuit, library, pitch)
    cell_mm = stack.cell * 1000
    centres = cell_centres(game, stack.cell)
    names = game.board.names
    hexes = game.board.shape == "hex"
    xs = [x for x, _, _ in centres.values()]
    ys = [y for _, y, _ in centres.values()]
    # Cell centres in mm on the board, before the board's edge is known (shifted after).
    at = {
        names[i]: ((x - min(xs)) * 1000, (max(ys) - y) * 1000) for i, (x, y, _) in centres.items()
    }
    led_cells = {
        str(k): names[cell] for k, cell in enumerate(profile.led_cells) if cell is not None
    }
    offset = stack.led_offset * 1000
    led_at = (0.0, -offset) if hexes else (offset / math.sqrt(2), -offset / math.sqrt(2))
    linear = profile.pico is not None and profile.pico.part.kind == "linear"
    cell_parts: list[tuple[Part, float, float, int]] = []
    controller: dict[str, list[Part]] = {}
    for part in circuit.parts.values():
        kind, _, which = part.unit.partition(":")
        if kind == "cell":
            dx, dy, rot = _cell_offsets(part, linear)
            x, y = at[which]
            cell_parts.append((part, x + dx, y + dy, rot))
        elif kind in ("led", "bulk"):
            x, y = at[led_cells[which]]
            if part.spec.ref_prefix == "D":
                cell_parts.append((part, x + led_at[0], y + led_at[1], 0))
            elif kind == "led":  # the LED's own capacitor, just south of it
                cell_parts.append((part, x + led_at[0] - 0.0, y + led_at[1] + 2.54, 0))
            else:  # a bulk capacitor along the chain, west of the cell's sensor
                cell_parts.append((part, x - 10.0, y, 0))
        else:
            controller.setdefault(kind, []).append(part)
    placed = [placer.place(part, x, y, rot) for part, x, y, rot in cell_parts]
    x0 = min(p.courtyard[0] for p in placed)
    y0 = min(p.courtyard[1] for p in placed)
    shift_x, shift_y = EDGE - x0, EDGE - y0
    width = max(p.courtyard[2] for p in placed) + shift_x + EDGE
    cells_bottom = max(p.courtyard[3] for p in placed) + shift_y
    placed = [placer.place(circuit.parts[p.ref], p.x + shift_x, p.y + shift_y, p.rot)
              for p in placed]  # fmt: skip
    cells = {name: (x + shift_x, y + shift_y) for name, (x, y) in at.items()}
    # The cells' labels (below each centre, _labels) are silkscreen too: the frame clears them.
    cells_bottom = max(cells_bottom, max(y for _, y in cells.values()) + LABELS_BELOW)
    height, frame = _frame(placer, controller, width, cells_bottom + FRAME_GAP)
    layout = Layout(width=placer.snap(width + 0.5), height=placer.snap(height + 0.5))
    layout.parts = placed + frame
    layout.cells = cells
    _labels(layout, profile, game, cell_mm)
    _holes(layout, placer, library, cells, cell_mm, hexes)
    return layout


# The controller's blocks, in the order they sit in the frame: the Pico first, beside it the
# power entry, then the LEDs' driver, then the multiplexers in bank order, the buttons last.
BLOCK_ORDER = ("pico", "power", "regulator", "leds", "sig", "level", "bank", "en", "button")


def _block_key(kind: str, parts: list[Part]) -> tuple[int, str]:
    name = parts[0].unit.partition(":")[2]
    number = int(m.group()) if (m := re.search(r"\d+", name)) else 0
    return (BLOCK_ORDER.index(kind) if kind in BLOCK_ORDER else len(BLOCK_ORDER), f"{number:04d}")


def _frame(
    placer: Placer, controller: dict[str, list[Part]], width: float, top: float
) -> tuple[float, list[Placed]]:
    """Pack the controller's blocks in rows across the frame; the board's height."""
    blocks: list[list[Part]] = []
    for kind, parts in controller.items():  # noqa: B007
        units: dict[str, list[Part]] = {}
        for part in parts:
            units.setdefault(part.unit, []).append(part)
        for unit_parts in units.values():
            blocks.append(unit_parts)
    blocks.sort(key=lambda parts: _block_key(parts[0].unit.partition(":")[0], parts))
    # A bank's EN pull-up goes with its multiplexer.
    merged: list[list[Part]] = []
    for parts in blocks:
        kind, _, name = parts[0].unit.partition(":")
        target = next((b for b in merged if kind == "en" and b[0].unit == f"bank:{name}"), None)
        if target is not None:
            target.extend(parts)
        else:
            merged.append(parts)
    left = HOLE_INSET * 2 + 4
    right = width - left
    x, y, row_height = left, top, 0.0
    placed: list[Placed] = []
    for parts in merged:
        sizes = [(part, _rot(part), placer.size(part, _rot(part))) for part in parts]
        block_w = sum(s[2] - s[0] for _, _, s in sizes) + PART_GAP * (len(sizes) - 1)
        block_h = max(s[3] - s[1] for _, _, s in sizes)
        if x + block_w > right and x > left:
            x, y, row_height = left, y + row_height + BLOCK_GAP, 0.0
        cursor = x
        for part, rot, size in sizes:
            placed.append(placer.place(part, cursor - size[0], y - size[1], rot))
            cursor += size[2] - size[0] + PART_GAP
        x += block_w + BLOCK_GAP
        row_height = max(row_height, block_h)
    bottom = max(p.courtyard[3] for p in placed) if placed else top
    return bottom + HOLE_INSET * 2 + 2, placed


def _rot(part: Part) -> int:
    """The Pico lies east-west (its USB end to the board's west edge); the rest as drawn."""
    return 90 if part.spec.price == "pico" else 0


def _labels(layout: Layout, profile: BoardProfile, game: Game, cell_mm: float) -> None:
    owner = profile.sensing is Sensing.OWNER
    mark = "N: first, S: second" if owner else "N down"  # the pieces' magnets' pole
    for name, (x, y) in layout.cells.items():
        layout.texts.append({"text": name, "x": x, "y": y + 9.0, "size": 2.0})
        layout.texts.append({"text": mark, "x": x, "y": y + 11.5, "size": 1.2})
    pole = ("N: first player's pieces, S: second's" if owner
            else "every piece's magnet north pole down")  # fmt: skip
    layout.texts.append({
        "text": f"Board Referee {profile.id}: {game.title}, {cell_mm:g} mm cells; {pole}",
        "x": layout.width / 2, "y": layout.height - HOLE_INSET - 1, "size": 2.0,
    })  # fmt: skip


def _holes(  # noqa: PLR0917
    layout: Layout,
    placer: Placer,
    library: Library,
    cells: dict[str, tuple[float, float]],
    cell_mm: float,
    hexes: bool,
) -> None:
    """M3 holes at the corners, and inside the board where no part is near (between two
    cells), at least HOLE_SPREAD apart."""
    court = library[MOUNTING_HOLE]["courtyard"]
    radius = (court[2] - court[0]) / 2
    w, h = layout.width, layout.height
    corners = [(HOLE_INSET, HOLE_INSET), (w - HOLE_INSET, HOLE_INSET),
               (HOLE_INSET, h - HOLE_INSET), (w - HOLE_INSET, h - HOLE_INSET)]  # fmt: skip
    spots = [c for c in corners if not any(_near(c, p.courtyard, radius) for p in layout.parts)]
    centre = (w / 2, h / 2)
    points = sorted(cells.values())
    candidates = []
    for a in points:
        for b in points:
            if a < b and abs(math.dist(a, b) - cell_mm) < 1:
                candidates.append(((a[0] + b[0]) / 2, (a[1] + b[1]) / 2))
    candidates.sort(key=lambda p: math.dist(p, centre))
    for spot in candidates:
        if all(math.dist(spot, s) >= HOLE_SPREAD for s in spots) and all(
            not _near(spot, p.courtyard, radius + 4.0) for p in layout.parts
        ):
            spots.append(spot)
    hole_part = Part("H", _hole_spec(), "")
    for number, (x, y) in enumerate(spots, 1):
        hole_part = Part(f"H{number}", _hole_spec(), "M3")
        layout.holes.append(placer.place(hole_part, x, y))


def _near(point: tuple[float, float], box: tuple[float, float, float, float], gap: float) -> bool:
    return box[0] - gap < point[0] < box[2] + gap and box[1] - gap < point[1] < box[3] + gap


def _hole_spec() -> PartSpec:
    return PartSpec("mounting hole", "M3 mounting hole", "H", (), MOUNTING_HOLE)
