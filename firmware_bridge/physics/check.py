"""Does every cell read every piece? The board's physics checked cell by cell
(``board-referee firmware physics``; ``firmware config`` and ``firmware circuit`` refuse a
design that fails it).

For every cell with a sensor, from the profile's build (stackup.py) and the board's real
geometry (the cells' centres, hex boards included):

- **its piece**: the weakest reading of a piece anywhere it can stand in its cell, in both
  polarities, against what the sensor needs (a linear sensor's change against the
  firmware's threshold, a switch's operate point, a reed's pull-in), with a margin for the
  sensors' and magnets' spread (parts.py);
- **its neighbours**: pieces on the cells around, each at its worst place and polarity,
  added together: they must not make an empty cell read, nor take a piece's reading under
  the threshold (crosstalk);
- **a lifted piece** lets a reed or switch go (drop-out), and a linear sensor fall back
  under its threshold less its hysteresis;
- **its LED** is not under the largest piece.

Cells of one board share their geometry, so each distinct arrangement is worked out once.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache

from engine import ConfigError, Game
from firmware_bridge.link.profile import BoardProfile
from firmware_bridge.link.protocol import Sensing
from firmware_bridge.physics.field import grid, numpy, signal
from firmware_bridge.physics.parts import (
    HALL_MARGIN,
    LSB_V,
    MM,
    MT,
    REED_MARGIN,
    SensorKind,
)
from firmware_bridge.physics.stackup import Stackup, parse_build

TIMES = "\u00d7"  # the guide's multiplication sign
# A DRV5053 variant's next more sensitive one, of the same sign (TI SLIS153: OA 11, PA 23,
# RA 45, VA 90 mV/mT, south raising the output; CA 23, EA 45 the other way).
MORE_SENSITIVE = {"OA": "PA", "PA": "RA", "RA": "VA", "CA": "EA"}
NEIGHBOURHOOD = 2.05  # cells: pieces farther than this from a sensor are left out (< 1 %)


@dataclass(frozen=True, slots=True)
class Need:
    """What a sensor needs, in the units of ``signal`` (T): to read a piece (``on``), to let
    it go (``off``), and never to be crossed by its neighbours alone (``quiet``)."""

    on: float  # the least a piece must give, margin included
    off: float  # a lifted piece must give less
    quiet: float  # the neighbours together must give less
    threshold: float  # the sensor's own threshold, margin not included (for the words)
    words: str  # how the threshold is set


def need(stack: Stackup, profile: BoardProfile) -> Need:
    sensor = stack.sensor
    if sensor.kind is SensorKind.REED:
        return Need(
            sensor.pull_in * REED_MARGIN,
            sensor.drop_out / REED_MARGIN,
            sensor.pull_in_least / REED_MARGIN,
            sensor.pull_in,
            f"pull-in {sensor.pull_in_at[1]:g} AT = {sensor.pull_in / MT:.2f} mT, "
            f"x{REED_MARGIN:g} for the AT-to-mT rule",
        )
    if sensor.kind is SensorKind.SWITCH:
        return Need(
            sensor.operate * HALL_MARGIN,
            sensor.release / HALL_MARGIN,
            sensor.release / HALL_MARGIN,
            sensor.operate,
            f"operate point {sensor.operate / MT:.2f} mT, x{HALL_MARGIN:g}",
        )
    wiring = profile.pico
    assert wiring is not None
    delta_v = wiring.bands.delta * LSB_V
    held_v = (wiring.bands.delta - wiring.bands.hysteresis) * LSB_V
    per_tesla = abs(sensor.sensitivity)
    threshold = delta_v / per_tesla
    return Need(
        threshold * HALL_MARGIN,
        held_v / per_tesla / HALL_MARGIN,
        threshold / HALL_MARGIN,
        threshold,
        f"the firmware's {delta_v:.3f} V (bands.delta {wiring.bands.delta}) at "
        f"{per_tesla * MT * 1000:.0f} mV/mT, x{HALL_MARGIN:g}",
    )


@dataclass(frozen=True, slots=True)
class CellFigures:
    cell: str
    weakest: float  # T: the weakest reading of its own piece (neighbours working against it)
    alone: float  # T: the weakest of its own piece with no neighbours
    place: tuple[float, float]  # where the weakest own reading is (m from the centre)
    crosstalk: float  # T: the most its neighbours give together on an empty cell
    lifted: float  # T: the most a lifted piece gives


@dataclass(frozen=True, slots=True)
class Verdict:
    profile: str
    stack: Stackup
    need: Need
    cells: tuple[CellFigures, ...]
    problems: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return not self.problems

    def weakest(self) -> CellFigures:
        return min(self.cells, key=lambda c: c.weakest)

    def loudest(self) -> CellFigures:
        return max(self.cells, key=lambda c: c.crosstalk)


def cell_centres(game: Game, cell: float) -> dict[int, tuple[float, float, str]]:
    """Every cell's centre in metres (x east, y north) and its shape."""
    board = game.board
    return {
        index: (x * cell, y * cell, "point" if board.zone_of.get(index) else board.shape)
        for index, (x, y) in enumerate(board.coords)
    }


def check_profile(profile: BoardProfile, game: Game) -> Verdict:
    """The physics of every cell of ``profile``'s board (ConfigError for a build that is
    wrong or does not fit)."""
    if profile.pico is None:
        raise ConfigError(
            f"board profile {profile.id} tells its pieces apart by their tags "
            "(an RFID reader under each cell), not by magnets: its reader's range is "
            "the reader's maker's to give, and not worked out here"
        )
    stack = parse_build(profile)
    wants = need(stack, profile)
    centres = cell_centres(game, stack.cell)
    figures: list[CellFigures] = []
    own = _own(stack)
    # An occupancy board's pieces carry their magnets all the same way up (the guide's
    # assembly step says so: north pole down); an owner board's way up is its player.
    same_way_up = profile.sensing is Sensing.OCCUPANCY
    for cell in profile.sensor_cells:
        if cell is None or cell not in centres:
            continue
        x, y, shape = centres[cell]
        square = shape == "square"
        weakest_alone, place = own[square]
        offsets = []
        for other, (ox, oy, other_shape) in centres.items():
            if other == cell:
                continue
            distance = math.hypot(ox - x, oy - y)
            if distance <= NEIGHBOURHOOD * stack.cell:
                offsets.append(
                    (round((ox - x) / MM, 3), round((oy - y) / MM, 3), other_shape == "square")
                )
        fields = [neighbour_fields(stack, dx, dy, sq) for dx, dy, sq in offsets]
        if same_way_up:
            # Every magnet the same pole down: each neighbour's field has its sign. The worst
            # is every neighbour that pushes one way there at once (those pushing the other
            # way lifted), and against the own piece, those pushing against its sign.
            ahead = sum(max(0.0, high) for high, _ in fields)
            behind = sum(max(0.0, -low) for _, low in fields)
            cross = max(ahead, behind)
            against = behind if _own_sign(stack) > 0 else ahead
        else:  # a player's pieces one pole down, the other's the other: either, anywhere
            cross = against = sum(max(high, -low) for high, low in fields)
        figures.append(
            CellFigures(
                game.board.names[cell],
                weakest_alone - against,
                weakest_alone,
                place,
                cross,
                lifted_field(stack),
            )
        )
    problems = _problems(stack, wants, figures, {shape for _, _, shape in centres.values()})
    return Verdict(profile.id, stack, wants, tuple(figures), tuple(problems))


def _problems(
    stack: Stackup, wants: Need, figures: list[CellFigures], shapes: set[str]
) -> list[str]:
    problems = []
    weakest = min(figures, key=lambda f: (f.alone, f.weakest))
    if weakest.alone < wants.on:
        x, y = (v / MM for v in weakest.place)
        problems.append(
            f"{weakest.cell}: a piece {math.hypot(x, y):.1f} mm off the centre ({x:+.1f}, "
            f"{y:+.1f} mm) gives the {stack.sensor.name} {weakest.alone / MT:.2f} mT, and it "
            f"needs {wants.on / MT:.2f} mT ({wants.words}): {_fix_weak(stack)}"
        )
    crossed = max(figures, key=lambda f: f.crosstalk)
    if crossed.crosstalk >= wants.quiet:
        problems.append(
            f"{crossed.cell}: its neighbours' pieces give it {crossed.crosstalk / MT:.2f} mT "
            f"with no piece on it, and it must stay under {wants.quiet / MT:.2f} mT (crosstalk): "
            "larger cells (build.cell_mm), a smaller magnet (build.piece.magnet), or a less "
            "sensitive sensor"
        )
    elif crossed.crosstalk >= wants.off:
        # Its own piece lifted while the neighbours stay: what they give must let the sensor
        # go (a reed's drop-out), or the piece still reads after it is taken off.
        problems.append(
            f"{crossed.cell}: its piece lifted, its neighbours' pieces still give it "
            f"{crossed.crosstalk / MT:.2f} mT, and the sensor lets go only under "
            f"{wants.off / MT:.2f} mT: the piece would still read once taken off (a thinner "
            "top with a smaller magnet (build.top_mm, build.piece.magnet), or larger cells)"
        )
    pressed = min(figures, key=lambda f: f.weakest)
    if pressed.weakest < wants.on and pressed.alone >= wants.on:
        problems.append(
            f"{pressed.cell}: with its neighbours' pieces working against it, its own piece "
            f"gives {pressed.weakest / MT:.2f} mT, under the {wants.on / MT:.2f} mT it needs "
            f"({wants.words}; crosstalk): larger cells (build.cell_mm) or a stronger magnet"
        )
    if figures and figures[0].lifted >= wants.off:
        problems.append(
            f"a piece lifted {stack.lift / MM:g} mm still gives {figures[0].lifted / MT:.2f} mT, "
            f"and the sensor lets go only under {wants.off / MT:.2f} mT: a weaker magnet "
            "(build.piece.magnet) or a less sensitive part"
        )
    # The LED lies along the diagonal towards a corner of its cell, turned square to the
    # cell: its nearest point to the centre is its half-diagonal closer. A piece may stand
    # anywhere its own cell holds it (``reach``): it must not cover the LED even there.
    half = stack.led_size / math.sqrt(2)
    far = _farthest_towards_led(stack, "hex" not in shapes)
    if stack.led_offset - half < far + stack.piece_diameter / 2:
        clear = (far + stack.piece_diameter / 2 + half) / MM
        problems.append(
            f"an LED {stack.led_offset / MM:g} mm from the cell's centre is under a "
            f"{stack.piece_diameter / MM:g} mm piece standing {far / MM:.1f} mm off the centre "
            f"towards it, where its cell still holds it: put it {clear:.1f} mm or more from "
            "the centre (build.led_offset_mm), use a smaller LED (build.led_mm: 2, a "
            "WS2812B-2020), smaller pieces or larger cells"
        )
    # The LED lies towards a corner of its cell: its own far corner must stay inside it.
    corner = stack.cell / (math.sqrt(3) if "hex" in shapes else math.sqrt(2))
    if stack.led_offset + half > corner:
        problems.append(
            f"an LED {stack.led_offset / MM:g} mm from the centre reaches past its "
            f"{stack.cell / MM:g} mm cell's corner, {corner / MM:.1f} mm out: put it "
            f"{(corner - half) / MM:.1f} mm or less from the centre (build.led_offset_mm)"
        )
    return problems


def _farthest_towards_led(stack: Stackup, square: bool) -> float:
    """How far off its centre, along the LED's diagonal, a piece may stand in its cell: the
    corner of the square of places on a square cell, the reach on a round one."""
    return stack.reach * (math.sqrt(2) if square else 1.0)


def _fix_weak(stack: Stackup) -> str:
    sensor = stack.sensor
    if sensor.name.startswith("drv5053"):
        variant = sensor.name[len("drv5053 (") : -1]
        better = MORE_SENSITIVE.get(variant)
        more = (f"use the more sensitive {better} variant (build.sensor.variant: {better}), "
                if better else "")  # fmt: skip
        return f"{more}a stronger magnet (build.piece.magnet) or a thinner top (build.top_mm)"
    if sensor.kind is SensorKind.REED:
        return (
            "lay the reed flat with one end under the centre (build.sensor.mount: flat), "
            "use a more sensitive reed (build.sensor.pull_in_at) or a stronger magnet"
        )
    return "a stronger magnet (build.piece.magnet), a thinner top (build.top_mm)"


def _own(stack: Stackup) -> dict[bool, tuple[float, tuple[float, float]]]:
    """The weakest own reading over the places a piece may stand, on a square cell (True)
    and a round one (False), and the place; both polarities give the same size."""
    np = numpy()
    found = {}
    for square in (True, False):
        places = grid(stack.reach, square)
        values = np.abs(signal(stack, places, 1.0))
        low = int(np.argmin(values))
        found[square] = (float(values[low]), (float(places[low, 0]), float(places[low, 1])))
    return found


@cache
def neighbour_fields(stack: Stackup, dx_mm: float, dy_mm: float, square: bool
                     ) -> tuple[float, float]:  # fmt: skip
    """The most and the least (signed) a piece on a cell whose centre is (dx, dy) mm away
    gives this sensor, anywhere in its own cell, its north pole down."""
    np = numpy()
    places = grid(stack.reach, square, step=2e-3) + np.array([dx_mm * MM, dy_mm * MM])
    values = signal(stack, places, 1.0)
    return float(np.max(values)), float(np.min(values))


def neighbour_field(stack: Stackup, dx_mm: float, dy_mm: float, square: bool) -> float:
    """The most a piece on a cell whose centre is (dx, dy) mm away gives this sensor, at its
    worst place in its own cell (either polarity: the size)."""
    high, low = neighbour_fields(stack, dx_mm, dy_mm, square)
    return max(high, -low)


@cache
def _own_sign(stack: Stackup) -> float:
    """The sign of what a piece on the cell's centre, north pole down, gives its sensor."""
    return 1.0 if float(signal(stack, [[0.0, 0.0]], 1.0)[0]) >= 0 else -1.0


@cache
def lifted_field(stack: Stackup) -> float:
    np = numpy()
    places = grid(stack.reach, True, step=2e-3)
    return float(np.max(np.abs(signal(stack, places, 1.0, lift=stack.lift))))


def report_lines(verdict: Verdict) -> list[str]:
    """What ``firmware physics`` prints."""
    stack, wants = verdict.stack, verdict.need
    weakest, loudest = verdict.weakest(), verdict.loudest()
    x, y = (v / MM for v in weakest.place)
    lines = [
        f"{verdict.profile}: {stack.sensor.name} ({stack.mount.value}), "
        f"{stack.magnet.diameter / MM:g} x {stack.magnet.thickness / MM:g} mm {stack.magnet.grade} "
        f"magnet {stack.base / MM:g} mm up in a {stack.piece_diameter / MM:g} mm piece, "
        f"{stack.top / MM:g} mm top, {stack.cell / MM:g} mm cells, {len(verdict.cells)} cells",
        f"  weakest: {weakest.cell}, a piece at ({x:+.0f}, {y:+.0f}) mm: "
        f"{weakest.alone / MT:.2f} mT alone, {weakest.weakest / MT:.2f} mT against its "
        f"neighbours; needs {wants.on / MT:.2f} mT ({wants.words}): margin "
        f"{weakest.alone / wants.threshold:.2f}x",
        f"  crosstalk: {loudest.cell}, {loudest.crosstalk / MT:.2f} mT from its neighbours with "
        f"no piece on it; must stay under {wants.quiet / MT:.2f} mT, and under "
        f"{wants.off / MT:.2f} mT for its own piece, lifted, to let go",
        f"  lifted {stack.lift / MM:g} mm: {loudest.lifted / MT:.2f} mT; lets go under "
        f"{wants.off / MT:.2f} mT",
        f"  LED {stack.led_offset / MM:g} mm from the centre, a {stack.piece_diameter / MM:g} mm "
        f"piece reaches {stack.piece_diameter / 2 / MM:g} mm",
    ]
    lines += [f"  FAIL {problem}" for problem in verdict.problems]
    lines.append(f"  {'ok' if verdict.ok else 'this board would not read every piece'}")
    return lines


__all__ = ["CellFigures", "Verdict", "check_profile", "need", "physics_table", "report_lines"]


def physics_table(verdicts: list[Verdict]) -> str:
    """docs/build-a-board.md's table of every shipped profile's physics (tools/physics_table.py
    prints it; a test holds the guide to it)."""
    rows = [
        "| profile | sensor | magnet, piece | top, cavity | weakest place | its field | needs "
        "| margin | crosstalk (limit) | lifted (lets go under) |",
        "|---------|--------|---------------|-------------|---------------|----------:|------:"
        "|-------:|------------------:|-----------------------:|",
    ]
    for verdict in verdicts:
        stack, wants = verdict.stack, verdict.need
        weakest, loudest = verdict.weakest(), verdict.loudest()
        x, y = (v / MM for v in weakest.place)
        magnet = stack.magnet
        rows.append(
            f"| `{verdict.profile}` | {stack.sensor.name}, {stack.mount.value} "
            f"| {magnet.diameter / MM:g} {TIMES} {magnet.thickness / MM:g} mm {magnet.grade}, "
            f"{stack.piece_diameter / MM:g} mm piece | {stack.top / MM:g} mm, "
            f"{stack.cavity / MM:g} mm | {math.hypot(x, y):.1f} mm off the centre "
            f"| {weakest.alone / MT:.2f} mT | {wants.on / MT:.2f} mT "
            f"| {weakest.alone / wants.threshold:.2f}{TIMES} | {loudest.crosstalk / MT:.2f} "
            f"({min(wants.quiet, wants.off) / MT:.2f}) mT "
            f"| {loudest.lifted / MT:.2f} mT at {stack.lift / MM:g} mm "
            f"({wants.off / MT:.2f}) |"
        )
    return "\n".join(rows) + "\n"


def shipped_verdicts() -> list[Verdict]:
    """Every shipped profile the Pico reads, checked (in the order of their names)."""
    from firmware_bridge.link import catalog

    verdicts = []
    for profile_id in catalog.profile_ids():
        game = catalog.load_game(catalog.profile_game(profile_id))
        profile = catalog.load_profile(profile_id, game)
        if profile.pico is not None:
            verdicts.append(check_profile(profile, game))
    return verdicts
