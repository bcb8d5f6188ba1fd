"""How a Raspberry Pi Pico is wired into a board: the ``pico:`` section of a hardware profile.

Every key has a default, so any profile of an occupancy or owner board has a wiring the
firmware can run (docs/build-a-board.md draws the default one). The sensors sit behind
16-channel multiplexers (CD74HC4067): sensor i is input i % 16 of bank i // 16. Up to eight
banks are picked by their own EN lines; more by a second-level multiplexer.

The power budget is worked out here, once, for the firmware to enforce: what the supply gives,
less the Pico, the sensors and the LEDs' own idle draw, is what lit LEDs may take.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from engine import Cell, Game
from engine.config import Node
from firmware_bridge.link.protocol import Button, LedKind, Sensing

# GPIOs a builder may wire on a Pico (GP23-25 and GP29 are the board's own).
USABLE_PINS = frozenset([*range(23), 26, 27, 28])
PICO_OWN = {
    23: "it sets the Pico's regulator's mode (on a Pico W it drives the radio)",
    24: "it senses VBUS, whether USB power is there (on a Pico W: the radio's)",
    25: "it lights the on-board LED (on a Pico W: the radio's chip select)",
    29: "it measures VSYS through the Pico's own divider (on a Pico W: the radio's clock)",
}
ADC_PINS = (26, 27, 28)
PICO_BOARDS = ("pico", "pico-w")
SELECT = (2, 3, 4, 5)
ENABLE_FIRST = 6
BANK_SELECT = (6, 7, 8, 9)
LED_PIN = 14
BUTTON_PINS = {"pass": 16, "confirm": 17, "takeback": 18, "select": 19}
MAX_ENABLE_BANKS = 8


@dataclass(frozen=True, slots=True)
class Part:
    """A sensor part the guide recommends, with what the firmware needs to know of it."""

    name: str
    kind: str  # switch | linear
    milliamps: float  # supply current of one sensor (typical, from its datasheet)
    centre: int  # a linear sensor's reading with no magnet, in ADC counts of 65535 (3.3 V)
    north: str  # a linear sensor's reading with a north pole facing its marked side: low | high
    note: str
    # A linear sensor's output range in volts, from its datasheet: a reading outside it (by
    # FAULT_MARGIN_V) is no sensor's, but a broken wire's, so it is a FAULT, never a piece.
    # None: not known (a generic part): the widest bands.
    output: tuple[float, float] | None = None

    def fault_bands(self) -> tuple[int, int]:
        """(fault_low, fault_high) in ADC counts of 65535 over 3.3 V."""
        if self.output is None:
            return 1000, 64500
        low, high = self.output
        return (max(1, round((low - FAULT_MARGIN_V) / 3.3 * 65535)),
                min(65534, round((high + FAULT_MARGIN_V) / 3.3 * 65535)))  # fmt: skip


# Beyond a part's output range by this much is a fault: the ADC's own error (RP2040
# datasheet: INL and offset, tens of mV) and a long SIG wire's pickup stay inside it.
FAULT_MARGIN_V = 0.1


PARTS = MappingProxyType(
    {
        "reed": Part("reed", "switch", 0.0, 0, "low", "reed switch to ground"),
        "drv5033": Part(
            "drv5033", "switch", 2.7, 0, "low", "omnipolar digital hall switch, open drain"
        ),
        "hall-switch": Part(
            "hall-switch", "switch", 4.0, 0, "low", "an omnipolar digital hall switch"
        ),
        # TI SLIS153: output 0.2-1.8 V whatever its supply (2.5-38 V); a broken ground floats
        # it near 2.5 V, above the range: a fault.
        "drv5053": Part(
            "drv5053",
            "linear",
            3.6,
            19859,
            "high",
            "linear hall, 1.0 V at rest, PA/RA/VA variants",
            (0.2, 1.8),
        ),
        # Honeywell's SS49E datasheet: span 0.86-4.21 V at 5 V, ratiometric: at 3.3 V.
        "ss49e": Part(
            "ss49e", "linear", 6.0, 32768, "low", "linear hall, VCC/2 at rest", (0.57, 2.78)
        ),
        "linear-hall": Part(
            "linear-hall", "linear", 6.0, 32768, "low", "a linear (analogue) hall sensor"
        ),
    }
)


@dataclass(frozen=True, slots=True)
class Bands:
    """Thresholds of linear sensors, in ADC counts (0-65535 over 0-3.3 V)."""

    centre: int
    delta: int  # a piece reads at least this far from the sensor's resting reading
    hysteresis: int
    fault_low: int  # below: in no band (a broken wire, pulled to ground)
    fault_high: int  # above: in no band (a short to 3.3 V)
    north: str  # low | high: which way a north pole (player 1's pieces) moves the reading


@dataclass(frozen=True, slots=True)
class Power:
    supply_ma: int  # what the supply gives: 500 for a USB 2.0 port
    pico_ma: int
    sensor_ma: float
    led_idle_ma: float  # a WS2812B draws this dark
    ma_per_channel: int  # ... and this per colour channel at full brightness
    margin: float  # kept in hand (a cable's drop, a sensor's spread)
    led_wire_awg: int = 22  # the LED chain's 5 V and ground wires
    led_feeds: int = 1  # points along the chain where the supply's 5 V and ground join it

    def budget(self, sensors: int, leds: int) -> int:
        """Milliamps the lit LEDs may draw."""
        fixed = self.pico_ma + sensors * self.sensor_ma + leds * self.led_idle_ma
        return math.floor(self.supply_ma * (1 - self.margin) - fixed)


@dataclass(frozen=True, slots=True)
class PicoWiring:
    part: Part
    select: tuple[int, ...]
    enable: tuple[int, ...]  # one EN line a bank (up to eight banks)
    bank_select: tuple[int, ...]  # or S0-S3 of second-level multiplexers
    signal: tuple[int, ...]  # where the SIG lines come in
    led_pin: int | None
    led_order: str
    brightness: int
    buttons: MappingProxyType[str, int]
    bands: Bands
    power: Power
    flip: tuple[Cell, ...]  # linear sensors mounted the other way round
    debounce_ms: int
    button_debounce_ms: int
    watchdog_ms: int
    # Which Pico: on a Pico W the LED and GP23-25, 29 are the radio's (its MicroPython build
    # drives the LED through the radio chip), so its UF2 needs the RPI_PICO_W build.
    board: str = "pico"

    @property
    def banks(self) -> int:
        return len(self.enable) if self.enable else 16 * len(self.signal)

    def input_of(self, sensor: int) -> str:
        """Where sensor ``sensor`` is soldered, as the guide names it: M2.5 is multiplexer 2's
        input 5 (C5 on the CD74HC4067's pinout)."""
        return f"M{sensor // 16}.{sensor % 16}"


def parse_wiring(
    node: Node,
    game: Game,
    *,
    sensing: Sensing,
    sensors: int,
    leds: int,
    led_kind: LedKind,
    buttons: frozenset[Button],
    debounce_ms: int,
) -> PicoWiring:
    """The ``pico:`` section (``node`` may hold None: every default)."""
    if node.value is None:
        node = Node({}, node.source, node.path, node.error)
    node.only_keys(
        "board",
        "sensor",
        "mux",
        "leds",
        "buttons",
        "power",
        "bands",
        "flip",
        "watchdog_ms",
        "button_debounce_ms",
    )
    default_part = "drv5053" if sensing is Sensing.OWNER else "reed"
    part_node = node.get("sensor", default_part)
    part = PARTS[part_node.choice(tuple(PARTS))]
    if sensing is Sensing.OWNER and part.kind != "linear":
        part_node.fail(
            f"an owner board needs linear hall sensors to tell the poles apart, not "
            f"{part.name} (choose one of {_names('linear')})"
        )
    if sensing is Sensing.OCCUPANCY and part.kind != "switch":
        part_node.fail(f"an occupancy board uses switches ({_names('switch')}), not {part.name}")
    if sensing is Sensing.IDENTITY:
        node.fail(
            "the Pico firmware reads occupancy and owner boards; an identity (RFID) board "
            "needs firmware of its own that speaks docs/protocol.md"
        )
    banks = max(1, math.ceil(sensors / 16))
    mux = node.get("mux", {})
    mux.only_keys("select", "enable", "bank_select", "signal")
    select = _pins(mux.get("select", list(SELECT)), 4)
    if mux.has("enable") or (not mux.has("bank_select") and banks <= MAX_ENABLE_BANKS):
        default_enable = list(range(ENABLE_FIRST, ENABLE_FIRST + banks))
        enable = _pins(mux.get("enable", default_enable), banks)
        bank_select: tuple[int, ...] = ()
        signal = _pins(_as_list(mux.get("signal", ADC_PINS[0])), 1)
    else:
        enable = ()
        bank_select = _pins(mux.get("bank_select", list(BANK_SELECT)), 4)
        second = math.ceil(banks / 16)
        signal = _pins(_as_list(mux.get("signal", list(ADC_PINS[:second]))), second)
    if part.kind == "linear":
        for pin in signal:
            if pin not in ADC_PINS:
                mux.get("signal").fail(
                    f"GP{pin} has no ADC: linear sensors need GP26, GP27 or GP28"
                )
    led_node = node.get("leds", {})
    led_node.only_keys("pin", "order", "brightness")
    led_pin = _pin(led_node.get("pin", LED_PIN)) if led_kind is not LedKind.NONE else None
    order = led_node.get("order", "GRB").choice(("GRB", "RGB", "BRG", "RBG", "GBR", "BGR"))
    brightness = led_node.get("brightness", 64).integer(1, 255)
    button_node = node.get("buttons", {})
    wired: dict[str, int] = {}
    for button in sorted(buttons, key=int):
        name = button.name.lower()
        wired[name] = _pin(button_node.get(name, BUTTON_PINS[name]))
    button_node.only_keys(*wired)
    power_node = node.get("power", {})
    power_node.only_keys("supply_ma", "pico_ma", "sensor_ma", "led_idle_ma", "ma_per_channel",
                         "led_wire_awg", "led_feeds")  # fmt: skip
    power = Power(
        supply_ma=power_node.get("supply_ma", 500).integer(100, 20000),
        pico_ma=power_node.get("pico_ma", 50).integer(0, 1000),
        sensor_ma=_number(power_node.get("sensor_ma", part.milliamps), 0, 50),
        led_idle_ma=_number(power_node.get("led_idle_ma", 1.0), 0, 10),
        ma_per_channel=power_node.get("ma_per_channel", 20).integer(1, 100),
        margin=0.1,
        led_wire_awg=_gauge(power_node.get("led_wire_awg", 22)),
        led_feeds=power_node.get("led_feeds", 1).integer(1, 16),
    )
    band_node = node.get("bands", {})
    band_node.only_keys("centre", "delta", "hysteresis", "fault_low", "fault_high", "north")
    bands = Bands(
        centre=band_node.get("centre", part.centre or 32768).integer(1, 65534),
        delta=band_node.get("delta", 5000).integer(200, 30000),
        hysteresis=band_node.get("hysteresis", 600).integer(0, 10000),
        fault_low=band_node.get("fault_low", part.fault_bands()[0]).integer(0, 65535),
        fault_high=band_node.get("fault_high", part.fault_bands()[1]).integer(0, 65535),
        north=band_node.get("north", part.north).choice(("low", "high")),
    )
    if (
        not bands.fault_low
        < bands.centre - bands.delta
        < bands.centre + bands.delta
        < (bands.fault_high)
    ):
        band_node.fail(
            "the bands must run fault_low < centre - delta < centre + delta < fault_high"
        )
    flip = tuple(game.cell_of(element) for element in node.get("flip", []).elements())
    wiring = PicoWiring(
        part=part,
        select=select,
        enable=enable,
        bank_select=bank_select,
        signal=signal,
        led_pin=led_pin,
        led_order=order,
        brightness=brightness,
        buttons=MappingProxyType(wired),
        bands=bands,
        power=power,
        flip=flip,
        debounce_ms=debounce_ms,
        button_debounce_ms=node.get("button_debounce_ms", 20).integer(0, 500),
        watchdog_ms=node.get("watchdog_ms", 4000).integer(1000, 8000),
        board=node.get("board", "pico").choice(PICO_BOARDS),
    )
    if wiring.banks * 16 < sensors:
        mux.fail(f"{sensors} sensors need {banks} multiplexers; this wiring reaches {wiring.banks}")
    _distinct(node, wiring)
    return wiring


# The LED chain's power: its 5 V and ground wires run the chain's length, a WS2812B every
# cell (a 40 mm pitch, and a tenth more for the serpentine's turns). Copper's resistance per
# metre by gauge (one conductor, 20 degC). The current is spread along the chain, so a chain fed
# from one end drops I x R(length) over both conductors together; fed at N evenly spaced points,
# each feed carries I/N over L/N: the drop falls as N squared. 0.4 V down, the far LEDs still
# see 4.6 V: the same colours as the first, and their data threshold (0.7 VDD) stays under the
# 74AHCT125's 5 V high.
WIRE_OHMS_PER_M = {18: 0.021, 20: 0.033, 22: 0.053, 24: 0.084, 26: 0.134, 28: 0.213, 30: 0.339}
LED_PITCH_M = 0.04 * 1.1
LED_DROP_LIMIT_V = 0.4


def led_current_ma(wiring: PicoWiring, sensors: int, leds: int) -> float:
    """The most the LED chain draws: every LED white at the profile's brightness, or the budget
    the firmware dims it to, whichever is less, and the dark LEDs' own draw."""
    power = wiring.power
    lit = leds * 3 * power.ma_per_channel * wiring.brightness / 255
    return min(lit, max(power.budget(sensors, leds), 0)) + leds * power.led_idle_ma


def led_drop_v(wiring: PicoWiring, sensors: int, leds: int, *, awg: int | None = None,
               feeds: int | None = None) -> float:  # fmt: skip
    """The voltage the chain's far LEDs lose, 5 V and ground together."""
    power = wiring.power
    ohms = WIRE_OHMS_PER_M[awg or power.led_wire_awg] * leds * LED_PITCH_M
    n = feeds or power.led_feeds
    return led_current_ma(wiring, sensors, leds) / 1000 * ohms / (n * n)


def led_feeds_needed(wiring: PicoWiring, sensors: int, leds: int) -> int | None:
    """The fewest points (the profile's own at least, 16 at most) where the supply must join
    the LED chain for its far end to keep within LED_DROP_LIMIT_V, or None if 16 do not."""
    for feeds in range(wiring.power.led_feeds, 17):
        if led_drop_v(wiring, sensors, leds, feeds=feeds) <= LED_DROP_LIMIT_V:
            return feeds
    return None


def led_bus_problem(wiring: PicoWiring, sensors: int, leds: int) -> str | None:
    """Why the LED chain's far end sags too far, and what would do, or None."""
    drop = led_drop_v(wiring, sensors, leds)
    if not leds or drop <= LED_DROP_LIMIT_V:
        return None
    power = wiring.power

    def fits(**how: int) -> bool:
        return led_drop_v(wiring, sensors, leds, **how) <= LED_DROP_LIMIT_V

    feeds = led_feeds_needed(wiring, sensors, leds)
    gauges = sorted(WIRE_OHMS_PER_M, reverse=True)
    thicker = next((g for g in gauges if g < power.led_wire_awg and fits(awg=g)), None)
    ways = [f"feed 5 V and ground at {feeds} points along the chain (pico: power: led_feeds: "
            f"{feeds})"] if feeds else []  # fmt: skip
    if thicker:
        ways.append(f"use {thicker} AWG wire for its 5 V and ground (pico: power: led_wire_awg: "
                    f"{thicker})")  # fmt: skip
    return (
        f"the LED chain's far end would drop {drop:.2f} V (more than {LED_DROP_LIMIT_V} V) at "
        f"{led_current_ma(wiring, sensors, leds) / 1000:.2f} A over about "
        f"{leds * LED_PITCH_M:.1f} m of {power.led_wire_awg} AWG: " + " or ".join(ways)
    )


# On a USB-powered board the LEDs' 5 V is VBUS, and USB lets a device show at most 10 uF at
# plug-in (USB 2.0, 7.2.4.1): the Pico's own input capacitor is most of it. So the chain takes
# VBUS through a soft-start load switch (TI TPS22918, its CT chosen for a rise of 10 ms or
# more), and its capacitors (10 uF every 8 LEDs, 100 nF at each LED) charge behind it at
# C x 5 V / 10 ms, which must stay a small part of the port's 500 mA.
USB_LIMIT_MA = 500
LED_BULK_UF_PER_8 = 10.0
LED_DECOUPLING_UF = 0.1
SOFT_START_MS = 10.0
INRUSH_LIMIT_MA = 100.0


def chain_capacitance_uf(leds: int) -> float:
    """The LED chain's capacitors: 10 uF every 8 LEDs and each LED's 100 nF."""
    return math.ceil(leds / 8) * LED_BULK_UF_PER_8 + leds * LED_DECOUPLING_UF


def usb_inrush_ma(wiring: PicoWiring, leds: int) -> float | None:
    """The charging current of the chain's capacitors behind the soft-start switch, on a
    USB-powered board (None on a board with a supply, where they sit behind its input)."""
    if not leds or wiring.power.supply_ma > USB_LIMIT_MA:
        return None
    return chain_capacitance_uf(leds) * 5.0 / SOFT_START_MS  # uF x V / ms = mA


def power_problem(wiring: PicoWiring, sensors: int, leds: int) -> str | None:
    """Why this board cannot light its LEDs from its supply, or None."""
    power = wiring.power
    inrush = usb_inrush_ma(wiring, leds)
    if inrush is not None and inrush > INRUSH_LIMIT_MA:
        return (
            f"the LED chain's {chain_capacitance_uf(leds):g} uF would draw {inrush:.0f} mA from "
            f"the USB port while its soft start rises ({SOFT_START_MS:g} ms): give the board a "
            "5 V supply (pico: power: supply_ma) (docs/build-a-board.md §5)"
        )
    if leds and power.budget(sensors, leds) >= 30:
        return led_bus_problem(wiring, sensors, leds)
    if not leds:
        return None
    return (
        f"the Pico, {sensors} sensors at {power.sensor_ma:g} mA and {leds} dark LEDs leave less "
        f"than 30 mA of the {power.supply_ma} mA supply for lit LEDs: give the board a 5 V "
        "supply (pico: power: supply_ma) or sensors that draw less (docs/build-a-board.md)"
    )


def _names(kind: str) -> str:
    return ", ".join(name for name, part in PARTS.items() if part.kind == kind)


def _as_list(node: Node) -> Node:
    if isinstance(node.value, list):
        return node
    return Node([node.value], node.source, node.path, node.error)


def _gauge(node: Node) -> int:
    gauge = node.integer(18, 30)
    if gauge not in WIRE_OHMS_PER_M:
        node.fail(f"a wire gauge of {', '.join(map(str, WIRE_OHMS_PER_M))} AWG, not {gauge}")
    return gauge


def _pin(node: Node) -> int:
    """One GPIO a builder wires: never one the Pico keeps for itself."""
    pin = node.integer(0, 29)
    if pin not in USABLE_PINS:
        node.fail(f"GP{pin} is not free on a Pico: {PICO_OWN[pin]}")
    return pin


def _pins(node: Node, count: int) -> tuple[int, ...]:
    pins = []
    for element in node.elements():
        pins.append(_pin(element))
    if len(pins) != count:
        node.fail(f"expected {count} pin{'s' if count != 1 else ''}, got {len(pins)}")
    return tuple(pins)


def _number(node: Node, low: float, high: float) -> float:
    value = node.value
    if isinstance(value, bool) or not isinstance(value, int | float) or not low <= value <= high:
        node.fail(f"expected a number from {low:g} to {high:g}, got {value!r}")
    return float(value)


def _distinct(node: Node, wiring: PicoWiring) -> None:
    uses: dict[int, str] = {}
    named = [
        *((pin, f"multiplexer S{k}") for k, pin in enumerate(wiring.select)),
        *((pin, f"EN of multiplexer {k}") for k, pin in enumerate(wiring.enable)),
        *((pin, f"bank select S{k}") for k, pin in enumerate(wiring.bank_select)),
        *((pin, "multiplexer SIG") for pin in wiring.signal),
        *((pin, f"the {name.upper()} button") for name, pin in wiring.buttons.items()),
    ]
    if wiring.led_pin is not None:
        named.append((wiring.led_pin, "the LED chain's data line"))
    for pin, use in named:
        if pin in uses:
            node.fail(f"GP{pin} is wired twice: {uses[pin]} and {use}")
        uses[pin] = use


# The Pico's 3V3 pin: "it is recommended to keep the load on this pin less than 300 mA"
# (Raspberry Pi Pico datasheet, pinout). On it: the sensors (a DRV5053 draws about 3.6 mA) and
# the multiplexers (CD74HC4067: well under 0.2 mA each, TI SCHS209); the level shifter runs
# from 5 V. A board over it powers its sensors from a separate 3.3 V regulator (or, DRV5053s,
# from 5 V: they take 2.5-38 V and their output stays 0.2-1.8 V, DRV5053 datasheet).
RAIL_3V3_MA = 300
MUX_MA = 0.2
# The sensors' own 3.3 V regulator, when the Pico's is not enough. A linear regulator turns
# (5.0 - 3.3) V times its current into heat, and under a playing surface the air is about
# 40 degC: its junction must stay well under the 125 degC where it shuts down (100 degC here).
# Each part with its rating and its package's thermal resistance, junction to air, on a small
# board's copper (datasheets: AP2112K SOT-23-5 250 degC/W; AMS1117 SOT-223 90 degC/W); a buck
# module wastes a tenth or so of its power however much it carries, so it stays cool.
SUPPLY_V = 5.0
RAIL_V = 3.3
AMBIENT_C = 40.0
JUNCTION_MAX_C = 100.0


@dataclass(frozen=True, slots=True)
class Regulator:
    name: str
    rating_ma: int
    theta_ja: float | None  # degC/W; None: a switching (buck) module

    def watts(self, milliamps: float) -> float:
        """The heat it makes carrying ``milliamps`` (a buck module: about 15% of its output)."""
        if self.theta_ja is None:
            return RAIL_V * milliamps / 1000 * 0.15
        return (SUPPLY_V - RAIL_V) * milliamps / 1000

    def junction_c(self, milliamps: float) -> float | None:
        return None if self.theta_ja is None else AMBIENT_C + self.watts(milliamps) * self.theta_ja


REGULATORS = (
    Regulator("AP2112K-3.3 (SOT-23-5, 600 mA; its EN pin tied to VIN)", 600, 250.0),
    Regulator("AMS1117-3.3 (SOT-223, 1 A; its tab on 1 cm2 of copper)", 1000, 90.0),
    Regulator("a 3.3 V buck module rated 1 A (e.g. Pololu D24V10F3)", 1000, None),
    Regulator("a 3.3 V buck module rated 2.5 A (e.g. Pololu D24V22F3)", 2500, None),
)


def sensor_regulator(sensors_ma: float) -> Regulator | None:
    """The first regulator that carries the sensors' current and stays cool doing it."""
    for part in REGULATORS:
        junction = part.junction_c(sensors_ma)
        if sensors_ma <= part.rating_ma * 0.8 and (junction is None or junction <= JUNCTION_MAX_C):
            return part
    return None


def rail_3v3(wiring: PicoWiring, sensors: int) -> tuple[float, str]:
    """Milliamps on the Pico's 3V3 pin, and the regulator the sensors need instead ('' when
    the Pico's own is enough)."""
    load = sensors * wiring.power.sensor_ma + (sensors + 15) // 16 * MUX_MA
    if load <= RAIL_3V3_MA * (1 - wiring.power.margin):
        return round(load, 1), ""
    part = sensor_regulator(sensors * wiring.power.sensor_ma)
    if part is None:
        return round(load, 1), "several regulators, each for a part of the sensors"
    return round(load, 1), part.name


def describe_power(wiring: PicoWiring, sensors: int, leds: int) -> dict[str, Any]:
    """The power sums board.json carries (the firmware reads the budget from them: kept
    short, a Pico's heap parses it)."""
    power = wiring.power
    rail, regulator = rail_3v3(wiring, sensors)
    return {
        "supply_ma": power.supply_ma,
        "pico_ma": power.pico_ma,
        "sensors_ma": round(sensors * power.sensor_ma, 1),
        "leds_idle_ma": round(leds * power.led_idle_ma, 1),
        "margin_ma": round(power.supply_ma * power.margin),
        "led_budget_ma": power.budget(sensors, leds),
        "rail_3v3_ma": rail,
        "rail_3v3_limit_ma": RAIL_3V3_MA,
        "sensor_regulator": regulator,
    }


# The Pico makes its 3.3 V from VSYS with a buck-boost converter, about 90% efficient.
PICO_CONVERTER_EFFICIENCY = 0.9


def rail_currents(wiring: PicoWiring, sensors: int, leds: int) -> dict[str, float]:
    """The most each rail carries, in mA: the 5 V in (the supply's, or VBUS on a USB board),
    the Pico's 3V3 pin, and the sensors' own 3.3 V where they have one."""
    power = wiring.power
    sensor_ma = sensors * power.sensor_ma
    mux_ma = (sensors + 15) // 16 * MUX_MA
    _, regulator = rail_3v3(wiring, sensors)
    pin_ma = mux_ma if regulator else mux_ma + sensor_ma
    five = power.pico_ma + pin_ma * RAIL_V / SUPPLY_V / PICO_CONVERTER_EFFICIENCY
    five += led_current_ma(wiring, sensors, leds) if leds else 0.0
    rails = {"3V3": round(pin_ma, 1)}
    if regulator:
        part = sensor_regulator(sensor_ma)
        # A linear regulator draws what it gives; a buck module about its power over 5 V.
        taken = sensor_ma if part is None or part.theta_ja is not None else (
            sensor_ma * RAIL_V / SUPPLY_V / 0.85)  # fmt: skip
        five += taken
        rails["sensors_3v3"] = round(sensor_ma, 1)
    rails["5v"] = round(five, 1)
    return rails


def power_figures(wiring: PicoWiring, sensors: int, leds: int) -> dict[str, Any]:
    """The budgets ``firmware config`` prints for the builder: the sensors' regulator's heat,
    the LED chain's current, drop and capacitance, the inrush on USB."""
    power = wiring.power
    _, regulator = rail_3v3(wiring, sensors)
    part = sensor_regulator(sensors * power.sensor_ma) if regulator else None
    inrush = usb_inrush_ma(wiring, leds)
    heat: dict[str, Any] = {}
    if part is not None:
        carried = sensors * power.sensor_ma
        junction = part.junction_c(carried)
        heat = {
            "sensor_regulator_w": round(part.watts(carried), 2),
            "sensor_regulator_junction_c": None if junction is None else round(junction),
        }
    return {
        **heat,
        "sensor_part": wiring.part.name,
        "led_chain_ma": round(led_current_ma(wiring, sensors, leds)) if leds else 0,
        "led_wire_awg": power.led_wire_awg,
        "led_feeds": power.led_feeds,
        "led_drop_v": round(led_drop_v(wiring, sensors, leds), 2) if leds else 0.0,
        "led_capacitance_uf": round(chain_capacitance_uf(leds), 1) if leds else 0.0,
        "usb_inrush_ma": None if inrush is None else round(inrush),
        "rails_ma": rail_currents(wiring, sensors, leds),
    }


# The signal line's settling after the multiplexers switch (docs/build-a-board.md, Settling).
# Its capacitance: about 90 pF for each CD74HC4067 whose common pin is on it (TI SCHS209, CIO
# "switch capacitance", common side) and 20 pF of wiring and the RP2040's pin. It charges
# through the pad's pull-up on a switch board, 80 kohm at worst (RP2040 datasheet, GPIO
# electrical characteristics: 50-80 kohm), and discharges through the SIG pull-down on a
# linear board (10 kohm, the guide's value). The emulated board (boards/rp2040/chip.mjs) is
# built from the same figures.
MUX_COMMON_PF = 90
LINE_PF = 20
PULL_UP_WORST_OHMS = 80_000
PULL_DOWN_OHMS = 10_000
# What drives the line from a live sensor: a DRV5053 sources at most 300 uA (its datasheet), so
# it slews the line's capacitance across the 3.3 V rail in C * 3.3 V / 300 uA; a switch board's
# external 4.7 kohm pull-up (the guide's parts list) lifts it after a closed switch.
SENSOR_SOURCE_AMPS = 300e-6
RAIL_VOLTS = 3.3
PULL_UP_OHMS = 4_700


# Time constants the firmware waits between switching the multiplexers and reading. A switch
# line must rise past the pin's 2.0 V threshold (0.93 of a time constant to 3.3 V); a broken
# linear input must fall from the last cell's voltage out of every band (4.2 time constants
# from 3.3 V to the fault band's 0.05 V). The firmware reads a cell as soon as the wait is over
# (hw.py reads the RP2040's registers directly), so the wait is the whole margin.
SWITCH_TAUS = 1.5
LINEAR_TAUS = 5.0


def _line_farads(wiring: PicoWiring, sensors: int) -> float:
    """The signal line's capacitance: with EN lines every multiplexer's common pin is joined on
    it; behind a second-level multiplexer only that one's common and, through its switch, the
    selected first-level multiplexer's are."""
    if wiring.bank_select:
        on_line = 2
    else:
        banks = (sensors + 15) // 16
        lines = max(1, len(wiring.signal))
        on_line = (banks + lines - 1) // lines
    return line_farads(on_line)


def line_farads(common_pins: int) -> float:
    """A signal line's capacitance with ``common_pins`` multiplexer common pins on it."""
    return (LINE_PF + MUX_COMMON_PF * common_pins) * 1e-12


def settle_us(wiring: PicoWiring, sensors: int) -> int:
    """Microseconds the firmware waits after switching the multiplexers before it reads:
    ``SWITCH_TAUS`` or ``LINEAR_TAUS`` time constants of the signal line."""
    farads = _line_farads(wiring, sensors)
    if wiring.part.kind == "linear":
        wait = max(LINEAR_TAUS * PULL_DOWN_OHMS * farads, _slew_seconds(wiring, farads))
        return math.ceil(wait * 1e6)
    return math.ceil(SWITCH_TAUS * PULL_UP_WORST_OHMS * farads * 1e6)


def screen_us(wiring: PicoWiring, sensors: int) -> int:
    """Microseconds a screening read waits (firmware/sensors.py, Scanning): enough for a live
    sensor to drive the line, a DRV5053 across the whole rail at its weakest, a switch line up
    through the external pull-up. A reading that then looks changed is read again after
    ``settle_us``, so a line slower than this (a broken wire, a board without the pull-up) costs
    time, never a wrong report."""
    farads = _line_farads(wiring, sensors)
    if wiring.part.kind == "linear":
        need = _slew_seconds(wiring, farads)
    else:
        need = SWITCH_TAUS * PULL_UP_OHMS * farads
    return min(settle_us(wiring, sensors), math.ceil(need * 1e6) + 1)


def _slew_seconds(wiring: PicoWiring, farads: float) -> float:
    """How long a live linear sensor takes to carry the line across its whole output range
    to within the hysteresis of its new reading, at its weakest drive, against the SIG
    line's pull-down: rising, the pull-down takes V/R of the sensor's current, so the line
    charges as C dV/dt = I - V/R, which takes R C ln((IR - low)/(IR - high + band)) (an
    SS49E's 2.78 V top is near the 3.0 V 300 uA can hold across 10 kohm: slow); falling,
    both pull down. The worse of the two; the same line circuit/spice.py simulates."""
    low, high = wiring.part.output or (0.2, RAIL_VOLTS - 0.2)
    band = wiring.bands.hysteresis / 65535 * RAIL_VOLTS
    tau = PULL_DOWN_OHMS * farads
    top = SENSOR_SOURCE_AMPS * PULL_DOWN_OHMS  # the highest the sensor holds the line at
    target = min(high, top) - band
    rising = tau * math.log((top - low) / max(top - target, 1e-9))
    falling = tau * math.log((top + high) / (top + low + band))
    return SLEW_MARGIN * max(rising, falling)


# What the slew's formula leaves out and the simulation has: the channel's on-resistance and
# its own capacitance, and the ADC's sampling capacitor (circuit/spice.py): about a tenth.
SLEW_MARGIN = 1.25
