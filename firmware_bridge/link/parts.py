"""A board's parts list and what it costs, worked out from its hardware profile and its game
(``board-referee firmware parts``; the price table in docs/build-a-board.md is this module's).

Quantities follow the guide's wiring: one sensor a cell with a sensor, one CD74HC4067 for each
16 sensors, one WS2812B a cell with an LED, the resistors and capacitors the guide asks for,
one magnet a piece, the playing surface and base cut from plywood the template's size.

Prices are typical small-quantity prices in euros, VAT included, as hobby shops and the usual
marketplaces sold these parts on ``PRICED`` (single units, or the share of a small pack). They
are estimates to plan a club's budget, not quotes: they were written down from those shops'
usual ranges, not fetched live, and they move. Check before ordering.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine import ConfigError, Game
from firmware_bridge.link import catalog
from firmware_bridge.link.profile import BoardProfile
from firmware_bridge.link.wiring import rail_3v3

PRICED = "2026-11-26"
CELL_MM = 40.0  # the template's default cell
PAD = 0.8  # cells of margin around the board on the template (commands/template.py)
USB_SUPPLY_MA = 500

# part -> (euros a unit, what a unit is)
PRICES: dict[str, tuple[float, str]] = {
    "pico": (4.50, "Raspberry Pi Pico (Pico W 7.00, Pico 2 5.50)"),
    "reed": (0.20, "glass reed switch, 14 mm, normally open"),
    "drv5053": (0.90, "TI DRV5053 (PA or RA) linear hall sensor, TO-92"),
    "ss49e": (0.20, "SS49E linear hall sensor"),
    "drv5033": (0.70, "TI DRV5033 omnipolar hall switch"),
    "hall-switch": (0.50, "omnipolar hall switch"),
    "linear-hall": (0.50, "linear hall sensor"),
    "mux": (1.60, "CD74HC4067 16-channel multiplexer (SOIC-24; on a breakout to hand-wire)"),
    "led": (0.12, "WS2812B, cut from a 60/m strip (or a single pixel)"),
    "shifter": (0.60, "74AHCT125 level shifter, DIP-14"),
    "resistor": (0.02, "resistor, 1/4 W"),
    "cap_100n": (0.03, "100 nF ceramic capacitor"),
    "cap_10u": (0.08, "10 µF capacitor"),
    "load_switch": (1.20, "TPS22918 load switch on a breakout, its CT set for a 10 ms rise"),
    "button": (0.30, "12 mm push button with cap"),
    "magnet": (0.10, "6 x 3 mm N35 neodymium disc"),
    "wire": (0.15, "metre of stranded hook-up wire"),
    "plywood_3": (14.0, "m² of 3 mm birch plywood (the playing surface)"),
    "plywood_6": (20.0, "m² of 6 mm plywood (the base)"),
    "supply": (9.00, "5 V 2 A power supply with a barrel jack"),
    "schottky": (0.10, "1N5817 Schottky diode"),
    "fuse": (0.30, "polyfuse a little over the supply's rating"),
    "pmos": (0.15, "AO3401 P-channel MOSFET (reverse polarity)"),
    "cap_1000u": (0.30, "1000 µF 10 V capacitor"),
    "ldo_ap2112k": (0.45, "AP2112K-3.3 LDO regulator, SOT-23-5"),
    "ldo_ams1117": (0.30, "AMS1117-3.3 LDO regulator, SOT-223"),
    "buck": (2.20, "3.3 V buck regulator module"),
    "usb": (3.00, "USB data cable"),
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
        return self.quantity * self.unit

    @property
    def what(self) -> str:
        return (self.priced or PRICES[self.part])[1]


# Neodymium discs by size (diameter, thickness in mm): typical small-quantity prices, noted
# with the rest. Another size is priced by its volume against the nearest smaller listed.
MAGNETS = {(6.0, 3.0): 0.10, (8.0, 3.0): 0.15, (10.0, 3.0): 0.22, (12.0, 5.0): 0.45}


def magnet_priced(profile: BoardProfile) -> tuple[float, str]:
    """The profile's magnet (its ``build.piece.magnet``, checked by the physics) and its price."""

    def section(node: object, key: str) -> dict[str, Any]:
        found = node.get(key) if isinstance(node, dict) else None
        return found if isinstance(found, dict) else {}

    magnet = section(section({"build": profile.build}, "build").get("piece"), "magnet")
    diameter = float(magnet.get("diameter_mm", 6))
    thickness = float(magnet.get("thickness_mm", 3))
    grade = str(magnet.get("grade", "N35"))
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


def board_area_m2(game: Game, cell_mm: float = CELL_MM) -> float:
    """The template's sheet (the board and its margin), in square metres."""
    xs = [x for x, _ in game.board.coords]
    ys = [y for _, y in game.board.coords]
    width = (max(xs) - min(xs) + 2 * PAD) * cell_mm
    height = (max(ys) - min(ys) + 2 * PAD) * cell_mm
    return width * height / 1e6


def parts_list(profile: BoardProfile, game: Game) -> list[Line]:
    """Everything one board takes, by the guide (docs/build-a-board.md, Parts)."""
    wiring = profile.pico
    assert wiring is not None, "an identity board is not built from this guide"
    sensors = len(profile.sensor_cells)
    leds = profile.led_count
    linear = wiring.part.kind == "linear"
    muxes = math.ceil(sensors / 16) + (len(wiring.signal) if wiring.bank_select else 0)
    sig_lines = len(wiring.signal)
    lines = [
        Line("pico", 1),
        Line(wiring.part.name, sensors, "one a cell with a sensor"),
        Line(
            "mux",
            muxes,
            "one for each 16 sensors" + (", and the second level's" if wiring.bank_select else ""),
        ),
    ]
    if leds:
        lines += [Line("led", leds, "one a cell"), Line("shifter", 1)]
    supplied = wiring.power.supply_ma > USB_SUPPLY_MA
    soft_start = bool(leds) and not supplied
    resistors = (1 + sig_lines + (sensors if wiring.part.name in ("drv5033", "hall-switch") else 0)
                 + (1 if supplied else 0) + len(wiring.buttons))  # fmt: skip
    lines.append(Line("resistor", resistors, "330 Ω in the data line at the shifter's output; "
                      "the SIG lines' " + ("10 kΩ pull-downs" if linear else "4.7 kΩ pull-ups")
                      + ("; the MOSFET's 10 kΩ gate resistor" if supplied else "")
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
            magnet_priced(profile),
        ),
        Line(
            "wire",
            math.ceil(sensors * (1.0 if linear else 0.6) + leds * 0.15 + 3),
            f"{wiring.power.led_wire_awg} AWG, as the LED chain's drop is worked out for "
            "(power.led_wire_awg); estimate: runs to the multiplexers and along the chain",
        ),
    ]
    area = board_area_m2(game)
    lines += [Line("plywood_3", round(area, 3), "the playing surface, the template's size"),
              Line("plywood_6", round(area, 3), "the base")]  # fmt: skip
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


# The parts list's lines that are not parts of the circuit: the pieces' magnets, the wood.
OFF_THE_CIRCUIT = ("magnet", "wire", "plywood_3", "plywood_6", "supply", "usb")


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
