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

from engine import ConfigError, Game
from firmware_bridge.link import catalog
from firmware_bridge.link.profile import BoardProfile
from firmware_bridge.link.protocol import LedKind
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
    "mux": (1.60, "CD74HC4067 16-channel multiplexer breakout"),
    "led": (0.12, "WS2812B, cut from a 60/m strip (or a single pixel)"),
    "shifter": (0.60, "74AHCT125 level shifter, DIP-14"),
    "resistor": (0.02, "resistor, 1/4 W"),
    "cap_100n": (0.03, "100 nF ceramic capacitor"),
    "cap_10u": (0.08, "10 µF capacitor"),
    "load_switch": (1.20, "TPS22918 load switch on a breakout, its CT set for a 10 ms rise"),
    "button": (0.30, "12 mm push button with cap"),
    "magnet": (0.10, "6 x 3 mm N35 neodymium disc"),
    "wire": (0.15, "metre of 24 AWG hook-up wire"),
    "plywood_3": (14.0, "m² of 3 mm birch plywood (the playing surface)"),
    "plywood_6": (20.0, "m² of 6 mm plywood (the base)"),
    "supply": (9.00, "5 V 2 A power supply with a barrel jack"),
    "schottky": (0.10, "1N5817 Schottky diode"),
    "fuse": (0.30, "polyfuse a little over the supply's rating"),
    "pmos": (0.15, "AO3401 P-channel MOSFET (reverse polarity), with its 10 kΩ"),
    "cap_1000u": (0.30, "1000 µF 10 V capacitor"),
    "regulator": (1.50, "3.3 V regulator for the sensors"),
    "usb": (3.00, "USB data cable"),
    "jack": (0.40, "5.5 x 2.1 mm barrel jack"),
}


@dataclass(frozen=True, slots=True)
class Line:
    part: str  # a key of PRICES
    quantity: float
    note: str = ""

    @property
    def unit(self) -> float:
        return PRICES[self.part][0]

    @property
    def cost(self) -> float:
        return self.quantity * self.unit

    @property
    def what(self) -> str:
        return PRICES[self.part][1]


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
    leds = len(profile.led_cells) if profile.led_kind is not LedKind.NONE else 0
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
    resistors = 1 + sig_lines + (sensors if wiring.part.name in ("drv5033", "hall-switch") else 0)
    lines.append(Line("resistor", resistors, "330 Ω data; the SIG lines' "
                      + ("10 kΩ pull-downs" if linear else "4.7 kΩ pull-ups")))  # fmt: skip
    lines.append(Line("cap_100n", (sensors if linear else 0) + muxes + 1, "decoupling"))
    if leds:
        lines.append(Line("cap_10u", math.ceil(leds / 8), "one for each 8 LEDs"))
        if wiring.power.supply_ma <= USB_SUPPLY_MA:
            lines.append(Line("load_switch", 1, "the LEDs' 5 V from VBUS, soft-started"))
    lines += [
        Line("button", 4, "PASS, CONFIRM, TAKE BACK, SELECT"),
        Line("magnet", pieces_in_play(game), "one a piece"),
        Line(
            "wire",
            math.ceil(sensors * (1.0 if linear else 0.6) + leds * 0.15 + 3),
            "estimate: runs to the multiplexers and along the LED chain",
        ),
    ]
    area = board_area_m2(game)
    lines += [Line("plywood_3", round(area, 3), "the playing surface, the template's size"),
              Line("plywood_6", round(area, 3), "the base")]  # fmt: skip
    if wiring.power.supply_ma > USB_SUPPLY_MA:
        lines += [Line("supply", 1), Line("schottky", 1, "the supply into VSYS"),
                  Line("cap_1000u", 1, "at the supply's input"),
                  Line("fuse", 1, "at the supply's input"),
                  Line("pmos", 1, "at the supply's input: reverse polarity")]  # fmt: skip
    _, regulator = rail_3v3(wiring, sensors)
    if regulator:
        lines.append(Line("regulator", 1, regulator))
        if regulator.startswith("AMS1117"):
            lines.append(Line("cap_10u", 2, "at the AMS1117's input and output (its stability)"))
    lines.append(Line("usb", 1))
    return lines


def total(lines: list[Line]) -> float:
    return sum(line.cost for line in lines)


def parts_text(profile: BoardProfile, game: Game) -> str:
    """The parts list as a table for a terminal, with each line's cost and the total."""
    lines = parts_list(profile, game)
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


def price_table(boards: list[tuple[BoardProfile, Game]]) -> str:
    """The guide's table: each board's biggest costs and its total (Markdown)."""
    rows = [
        "| profile | sensors | multiplexers | LEDs | magnets | sensors € | LEDs € | board € "
        "| power € | total € |",
        "|---------|--------:|-------------:|-----:|--------:|----------:|-------:|--------:"
        "|--------:|--------:|",
    ]
    for profile, game in boards:
        lines = parts_list(profile, game)
        by = {line.part: line for line in lines}
        wiring = profile.pico
        assert wiring is not None
        sensor = by[wiring.part.name]
        power = sum(by[k].cost for k in ("supply", "schottky", "cap_1000u", "regulator",
                                         "fuse", "pmos", "load_switch")
                    if k in by)  # fmt: skip
        board = by["plywood_3"].cost + by["plywood_6"].cost
        led = by["led"].cost + by["shifter"].cost if "led" in by else 0.0
        rows.append(
            f"| `{profile.id}` | {sensor.quantity:g} ({wiring.part.name}) | {by['mux'].quantity:g} "
            f"| {by['led'].quantity if 'led' in by else 0:g} | {by['magnet'].quantity:g} "
            f"| {sensor.cost:.2f} | {led:.2f} | {board:.2f} | {power:.2f} "
            f"| **{total(lines):.2f}** |"
        )
    return "\n".join(rows) + "\n"


__all__ = [
    "PRICED",
    "PRICES",
    "Line",
    "parts_list",
    "parts_text",
    "pieces_in_play",
    "price_table",
    "total",
]
