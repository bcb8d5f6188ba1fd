"""A board's parts list and what it costs, worked out from its hardware profile, its build and
its game (``board-referee firmware parts``; the price table in docs/build-a-board.md is this
module's).

Quantities follow the guide's wiring: one sensor a cell with a sensor, one CD74HC4067 for each
16 sensors, one WS2812B a cell with an LED, the resistors and capacitors the guide asks for,
one magnet a piece, the playing surface, the base and the battens cut to the template's size.
Every figure of the build a builder orders by (the sensor's variant, the magnet, the top's
thickness, the battens' height, the cells' size) is the profile's own, as the physics reads it
(stackup.parse_build): never a default of this module's.

Prices are typical small-quantity prices in euros, VAT included, as hobby shops and the usual
marketplaces sold these parts on ``PRICED`` (single units, or the share of a small pack). They
are estimates to plan a club's budget, not quotes: they were written down from those shops'
usual ranges, not fetched live, and they move. Check before ordering.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from engine import ConfigError, Game
from firmware_bridge.link import catalog
from firmware_bridge.link.profile import BoardProfile
from firmware_bridge.link.wiring import rail_3v3
from firmware_bridge.physics.parts import MM
from firmware_bridge.physics.stackup import Stackup, parse_build

PRICED = "2026-11-26"
PAD = 0.8  # cells of margin around the board on the template (commands/template.py)
USB_SUPPLY_MA = 500
BASE_MM = 6.0  # the base board's plywood, under the battens
BATTEN_WIDTH_MM = 12.0
BATTEN_EVERY_M = 0.2  # one batten under the middle every 20 cm, as well as the edges

# part -> (euros a unit, what a unit is)
PRICES: dict[str, tuple[float, str]] = {
    "pico": (4.50, "Raspberry Pi Pico (Pico W 7.00, Pico 2 5.50)"),
    "reed": (0.20, "glass reed switch, 14 mm, normally open"),
    "drv5053": (0.90, "TI DRV5053 linear hall sensor, TO-92 (of the profile's variant)"),
    "ss49e": (0.20, "SS49E linear hall sensor"),
    "drv5033": (0.70, "TI DRV5033 omnipolar hall switch"),
    "hall-switch": (0.50, "omnipolar hall switch"),
    "linear-hall": (0.50, "linear hall sensor"),
    "mux": (1.60, "CD74HC4067 16-channel multiplexer (SOIC-24; on a breakout to hand-wire)"),
    "led": (0.12, "WS2812B, cut from a 60/m strip (or a single pixel)"),
    "led_2020": (0.10, "WS2812B-2020, 2 x 2 mm (on the PCB, or on a pixel breakout to wire)"),
    "shifter": (0.60, "74AHCT125 level shifter, DIP-14"),
    "resistor": (0.02, "resistor, 1/4 W"),
    "cap_100n": (0.03, "100 nF ceramic capacitor"),
    "cap_10u": (0.08, "10 µF capacitor"),
    "load_switch": (1.20, "TPS22918 load switch on a breakout, its CT set for a 10 ms rise"),
    "button": (0.30, "12 mm push button with cap"),
    "magnet": (0.10, "6 x 3 mm N35 neodymium disc"),
    "wire": (0.15, "metre of stranded hook-up wire"),
    "plywood_top": (14.0, "m² of birch plywood, the playing surface (of build.top_mm)"),
    "plywood_6": (20.0, "m² of 6 mm plywood (the base)"),
    "batten": (1.20, "metre of pine batten (as high as build.cavity_mm)"),
    "supply": (9.00, "5 V 2 A power supply with a barrel jack"),
    "schottky": (0.10, "1N5817 Schottky diode"),
    "fuse": (0.30, "polyfuse a little over the supply's rating"),
    "pmos": (0.15, "AO3401 P-channel MOSFET (reverse polarity)"),
    "cap_1000u": (0.30, "1000 µF 10 V capacitor"),
    "ldo_ap2112k": (0.45, "AP2112K-3.3 LDO regulator, SOT-23-5"),
    "ldo_ams1117": (0.30, "AMS1117-3.3 LDO regulator, SOT-223"),
    "buck": (2.20, "3.3 V buck regulator module"),
    "usb": (
        3.00,
        "USB data cable, micro-B, at most 0.5 m with 24 AWG power wires (a longer "
        "or thinner one sags the LEDs' 5 V below the shifter's 4.5 V)",
    ),
    "jack": (0.40, "5.5 x 2.1 mm barrel jack"),
}


@dataclass(frozen=True, slots=True)
class Line:
    part: str  # a key of PRICES
    quantity: float
    note: str = ""
    priced: tuple[float, str] | None = None  # its own (price, description), for a magnet

    @property
    def unit(self) -> float:
        return (self.priced or PRICES[self.part])[0]

    @property
    def cost(self) -> float:
        """In whole cents, as every list that shows it writes it (so totals agree)."""
        return round(self.quantity * self.unit, 2)

    @property
    def what(self) -> str:
        return (self.priced or PRICES[self.part])[1]


# Neodymium discs by size (diameter, thickness in mm): typical small-quantity prices, noted
# with the rest. Another size is priced by its volume against the nearest smaller listed.
MAGNETS = {(6.0, 2.0): 0.08, (6.0, 3.0): 0.10, (8.0, 2.0): 0.12, (8.0, 3.0): 0.15,
           (10.0, 3.0): 0.22, (12.0, 3.0): 0.30, (12.0, 5.0): 0.45}  # fmt: skip
# Birch plywood by thickness (mm), euros a square metre; another thickness by the next listed.
PLYWOOD = {3.0: 14.0, 4.0: 16.0, 6.0: 20.0, 9.0: 27.0, 12.0: 34.0, 15.0: 40.0, 18.0: 46.0}
# Pine battens by height (mm, 12 mm wide), euros a metre; another height by the next listed.
BATTENS = {10.0: 0.90, 15.0: 1.00, 20.0: 1.20, 25.0: 1.40, 30.0: 1.60, 40.0: 1.90}


def sensor_part(stack: Stackup) -> str:
    """The sensor as it is ordered: a DRV5053 with its variant (``DRV5053VA``), else the
    part's name."""
    name = stack.sensor.name
    if name.startswith("drv5053 ("):
        return f"DRV5053{name[len('drv5053 (') : -1]}"
    return {"reed": "reed switch"}.get(name, name.upper())


def sensor_priced(stack: Stackup, price: float, what: str) -> tuple[float, str]:
    """The sensor's line as it is ordered: its part number with its variant."""
    if stack.sensor.name.startswith("drv5053"):
        part = sensor_part(stack)
        return price, f"TI {part} linear hall sensor, TO-92 (order {part}QLPG)"
    return price, what


def board_height_mm(stack: Stackup) -> float:
    """How high the board stands: the base, the battens (the cavity) and the top."""
    return BASE_MM + (stack.cavity + stack.top) / MM


def _by_size(table: dict[float, float], size: float) -> float:
    """A price from a table by size: the size listed, else the next larger (else the largest)."""
    return table.get(size) or next((table[k] for k in sorted(table) if k >= size),
                                   table[max(table)])  # fmt: skip


def magnet_priced(stack: Stackup) -> tuple[float, str]:
    """The build's magnet (``build.piece.magnet``, as the physics reads it) and its price."""
    diameter = stack.magnet.diameter / MM
    thickness = stack.magnet.thickness / MM
    grade = stack.magnet.grade
    price = MAGNETS.get((diameter, thickness))
    if price is None:
        volume = diameter * diameter * thickness
        base = max((k for k in MAGNETS if k[0] ** 2 * k[1] <= volume), default=(6.0, 3.0),
                   key=lambda k: k[0] ** 2 * k[1])  # fmt: skip
        price = round(MAGNETS[base] * volume / (base[0] ** 2 * base[1]), 2)
    return price, f"{diameter:g} x {thickness:g} mm {grade} neodymium disc"


def pieces_in_play(game: Game) -> int:
    """The pieces a set holds: the start position's, those still to place and those the rules
    bring on (dragons); a game placed from an open box (Goats Wintering) at most one a cell."""
    state = game.new_state()
    placed = len(state.layout()) + game.pieces_entering()
    to_place = sum(sum(state.reserve(p).values()) for p in (state.to_move, state.to_move.other))
    return placed + to_place or game.board.size


def board_size_m(game: Game, cell_mm: float) -> tuple[float, float]:
    """The template's sheet (the board and its margin), width and depth in metres."""
    xs = [x for x, _ in game.board.coords]
    ys = [y for _, y in game.board.coords]
    width = (max(xs) - min(xs) + 2 * PAD) * cell_mm
    height = (max(ys) - min(ys) + 2 * PAD) * cell_mm
    return width / 1000, height / 1000


def board_area_m2(game: Game, cell_mm: float) -> float:
    """The template's sheet (the board and its margin), in square metres."""
    width, depth = board_size_m(game, cell_mm)
    return width * depth


def battens_m(game: Game, cell_mm: float) -> float:
    """The battens' length: round the edges, and one across every 20 cm under the middle."""
    width, depth = board_size_m(game, cell_mm)
    inner = max(0, math.ceil(width / BATTEN_EVERY_M) - 1)
    return 2 * (width + depth) + inner * depth


def parts_list(profile: BoardProfile, game: Game) -> list[Line]:
    """Everything one board takes, by the guide (docs/build-a-board.md, Parts)."""
    wiring = profile.pico
    assert wiring is not None, "an identity board is not built from this guide"
    stack = parse_build(profile)
    cell_mm = stack.cell / MM
    sensors = len(profile.sensor_cells)
    leds = profile.led_count
    linear = wiring.part.kind == "linear"
    muxes = math.ceil(sensors / 16) + (len(wiring.signal) if wiring.bank_select else 0)
    sig_lines = len(wiring.signal)
    lines = [
        Line("pico", 1),
        Line(
            wiring.part.name,
            sensors,
            "one a cell with a sensor",
            sensor_priced(stack, *PRICES[wiring.part.name]),
        ),
        Line(
            "mux",
            muxes,
            "one for each 16 sensors" + (", and the second level's" if wiring.bank_select else ""),
        ),
    ]
    if leds:
        small = stack.led_size < 3 * MM  # the build's LED: a WS2812B-2020, or a 5 mm one
        lines += [Line("led", leds, "one a cell", PRICES["led_2020"] if small else None),
                  Line("shifter", 1)]  # fmt: skip
    supplied = wiring.power.supply_ma > USB_SUPPLY_MA
    soft_start = bool(leds) and not supplied
    enables = math.ceil(sensors / 16) if wiring.enable else 0  # one EN line a bank
    resistors = (1 + sig_lines + (sensors if wiring.part.name in ("drv5033", "hall-switch") else 0)
                 + (1 if supplied else 0) + len(wiring.buttons) + enables)  # fmt: skip
    lines.append(Line("resistor", resistors, "330 Ω in the data line at the shifter's output; "
                      "the SIG lines' " + ("10 kΩ pull-downs" if linear else "4.7 kΩ pull-ups")
                      + ("; the MOSFET's 10 kΩ gate resistor" if supplied else "")
                      + ("; a 10 kΩ pull-up on each EN line (a broken one turns its bank off)"
                         if enables else "")
                      + "; 1 kΩ in series with each button, against static"))  # fmt: skip
    lines.append(Line("cap_100n", (sensors if linear else 0) + muxes + 1 + int(soft_start),
                      "decoupling" + ("; the load switch's CT (its soft start)"
                                      if soft_start else "")))  # fmt: skip
    if leds:
        lines.append(Line("cap_10u", math.ceil(leds / 8), "one for each 8 LEDs"))
        if wiring.power.supply_ma <= USB_SUPPLY_MA:
            lines.append(Line("load_switch", 1, "the LEDs' 5 V from VBUS, soft-started"))
    lines += [
        Line("button", 4, "PASS, CONFIRM, TAKE BACK, SELECT"),
        Line(
            "magnet",
            pieces_in_play(game),
            "one a piece, the size the profile's build.piece.magnet names",
            magnet_priced(stack),
        ),
        Line(
            "wire",
            math.ceil(sensors * (1.0 if linear else 0.6) + leds * 0.15 + 3),
            f"{wiring.power.led_wire_awg} AWG, as the LED chain's drop is worked out for "
            "(power.led_wire_awg); estimate: runs to the multiplexers and along the chain",
        ),
    ]
    area = board_area_m2(game, cell_mm)
    top_mm = stack.top / MM
    cavity_mm = stack.cavity / MM
    lines += [
        Line("plywood_top", round(area, 3), f"the playing surface, the template's size "
             f"({cell_mm:g} mm cells)", (_by_size(PLYWOOD, top_mm),
             f"m² of {top_mm:g} mm birch plywood, the playing surface (build.top_mm)")),
        Line("plywood_6", round(area, 3), "the base"),
        Line("batten", round(battens_m(game, cell_mm), 2), f"round the edges and one every "
             f"{BATTEN_EVERY_M * 100:g} cm under the middle; the board stands "
             f"{board_height_mm(stack):g} mm high", (_by_size(BATTENS, cavity_mm),
             f"metre of {cavity_mm:g} x {BATTEN_WIDTH_MM:g} mm pine batten (build.cavity_mm)")),
    ]  # fmt: skip
    if wiring.power.supply_ma > USB_SUPPLY_MA:
        lines += [Line("supply", 1), Line("jack", 1, "the supply's plug"),
                  Line("schottky", 1, "the supply into VSYS"),
                  Line("cap_1000u", 1, "at the supply's input"),
                  Line("fuse", 1, "at the supply's input"),
                  Line("pmos", 1, "at the supply's input: reverse polarity")]  # fmt: skip
    _, regulator = rail_3v3(wiring, sensors)
    if regulator:
        lines.append(Line(regulator_key(regulator), 1, regulator))
        if regulator.startswith("AMS1117"):
            lines.append(Line("cap_10u", 2, "at the AMS1117's input and output (its stability)"))
    lines.append(Line("usb", 1))
    return lines


def regulator_key(name: str) -> str:
    """The price of the sensors' regulator wiring.rail_3v3 chose (by its name's start)."""
    if name.startswith("AP2112K"):
        return "ldo_ap2112k"
    if name.startswith("AMS1117"):
        return "ldo_ams1117"
    return "buck"


def build_table(boards: list[tuple[BoardProfile, Game]]) -> str:
    """docs/build-a-board.md's table of what each shipped board is built from (Materials and
    mechanics): every figure the profile's ``build:`` as the physics reads it."""
    rows = [
        "| profile | sensor to order | mounted | magnet (one a piece) | cells | top | battens "
        "(cavity) | the board's height |",
        "|---------|-----------------|---------|----------------------|------:|----:|--------"
        "---------:|-------------------:|",
    ]
    for profile, _game in boards:
        stack = parse_build(profile)
        magnet = stack.magnet
        rows.append(
            f"| `{profile.id}` | {sensor_part(stack)} | {stack.mount.value} "
            f"| {magnet.diameter / MM:g} x {magnet.thickness / MM:g} mm {magnet.grade} "
            f"| {stack.cell / MM:g} mm | {stack.top / MM:g} mm plywood "
            f"| {stack.cavity / MM:g} mm | {board_height_mm(stack):g} mm |"
        )
    return "\n".join(rows) + "\n"


# The parts list's lines that are not parts of the circuit: the pieces' magnets, the wood.
OFF_THE_CIRCUIT = ("magnet", "wire", "plywood_top", "plywood_6", "batten", "supply", "usb")


def total(lines: list[Line]) -> float:
    return sum(line.cost for line in lines)


def shipped_boards(directory: Path | None = None) -> list[tuple[BoardProfile, Game]]:
    """Every profile (of config/boards/) the Pico firmware serves, with its game."""
    boards = []
    for profile_id in catalog.profile_ids(directory):
        game = catalog.load_game(catalog.profile_game(profile_id, directory), {}, directory)
        try:
            profile = catalog.load_profile(profile_id, game, directory)
        except ConfigError:
            continue
        if profile.pico is not None:
            boards.append((profile, game))
    return boards


__all__ = [
    "OFF_THE_CIRCUIT",
    "PRICED",
    "PRICES",
    "Line",
    "parts_list",
    "pieces_in_play",
    "regulator_key",
    "total",
]
