"""The board's one parts list: every part the circuit places, counted from the circuit, and
the things that are not on it (the pieces' magnets, the wood, the wire, the supply and the
cable) from physics/materials.py. ``firmware parts``, the BOM ``firmware circuit`` writes and the
guide's price table all read this list, so they cannot disagree."""

from __future__ import annotations

from engine import Game
from firmware_bridge.circuit.board import board_circuit
from firmware_bridge.link.profile import BoardProfile
from firmware_bridge.physics.materials import (
    OFF_THE_CIRCUIT,
    PRICED,
    Line,
    parts_list,
    sensor_part,
    total,
)
from firmware_bridge.physics.stackup import parse_build


def board_parts(profile: BoardProfile, game: Game) -> list[Line]:
    """The parts one board takes, in the order the circuit first places them."""
    circuit = board_circuit(profile, game)
    listed = parts_list(profile, game)
    guide = {line.part: line.note for line in listed}
    priced = {line.part: line.priced for line in listed}  # the sensor's variant, the magnet
    counts: dict[str, int] = {}
    notes: dict[str, str] = {}
    for part in circuit.parts.values():
        key = part.spec.price
        if key is None:
            continue
        counts[key] = counts.get(key, 0) + 1
        notes.setdefault(key, guide.get(key) or part.note)
    lines = [Line(key, count, notes[key], priced.get(key)) for key, count in counts.items()]
    lines += [line for line in listed if line.part in OFF_THE_CIRCUIT]
    return lines


def parts_text(profile: BoardProfile, game: Game) -> str:
    """The parts list as a table for a terminal, with each line's cost and the total."""
    lines = board_parts(profile, game)
    rows = [f"{'qty':>7}  {'part':<52} {'each':>6} {'cost':>7}"]
    for line in lines:
        quantity = f"{line.quantity:g}"
        rows.append(f"{quantity:>7}  {line.what[:52]:<52} {line.unit:6.2f} {line.cost:7.2f}")
        if line.note:
            rows.append(f"{'':>9}{line.note}")
    rows.append(f"{'':>7}  {'total, EUR (estimate; pieces not included)':<52} {'':>6} "
                f"{total(lines):7.2f}")  # fmt: skip
    rows.append(f"prices: typical small-quantity prices noted on {PRICED}, estimates: check "
                "before ordering")  # fmt: skip
    return "\n".join(rows) + "\n"


def price_table(boards: list[tuple[BoardProfile, Game]]) -> str:
    """The guide's table: each board's biggest costs and its total (Markdown)."""
    rows = [
        "| profile | sensors | multiplexers | LEDs | magnets | sensors € | LEDs € | board € "
        "| power € | total € |",
        "|---------|--------:|-------------:|-----:|--------:|----------:|-------:|--------:"
        "|--------:|--------:|",
    ]
    for profile, game in boards:
        lines = board_parts(profile, game)
        by = {line.part: line for line in lines}
        wiring = profile.pico
        assert wiring is not None
        sensor = by[wiring.part.name]
        power = sum(line.cost for line in lines if line.part in POWER_PARTS)
        board = by["plywood_top"].cost + by["plywood_6"].cost + by["batten"].cost
        led = by["led"].cost + by["shifter"].cost if "led" in by else 0.0
        ordered = sensor_part(parse_build(profile))
        rows.append(
            f"| `{profile.id}` | {sensor.quantity:g} ({ordered}) | {by['mux'].quantity:g} "
            f"| {by['led'].quantity if 'led' in by else 0:g} | {by['magnet'].quantity:g} "
            f"| {sensor.cost:.2f} | {led:.2f} | {board:.2f} | {power:.2f} "
            f"| **{total(lines):.2f}** |"
        )
    return "\n".join(rows) + "\n"


# The parts that power the board: its supply's input, the sensors' regulator, the LEDs' switch.
POWER_PARTS = ("supply", "jack", "schottky", "cap_1000u", "fuse", "pmos", "load_switch",
               "ldo_ap2112k", "ldo_ams1117", "buck")  # fmt: skip
