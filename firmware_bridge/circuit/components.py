"""The parts the build guide uses, with their pins as their datasheets number them.

Pin kinds say what the rules check needs: which pins drive a net, which must be driven or
pulled, which take a supply and what range of it. Numbers are the package the guide names
(docs/build-a-board.md, Parts): the Pico's 40 pins, the CD74HC4067's 24 (TI SCHS209), the
74AHCT125's DIP-14, the DRV5053 and SS49E in TO-92 (a DRV5053 in SOT-23 numbers its pins
1 VCC, 2 OUT, 3 GND: another footprint, the same circuit).
"""

from __future__ import annotations

import functools

from firmware_bridge.circuit.model import Conduction, PartSpec, PinKind, PinSpec
from firmware_bridge.link.wiring import USABLE_PINS

K = PinKind

# The Pico's header (Raspberry Pi Pico datasheet, pinout): physical pin -> its name. GPIO pins
# get their kind from what the firmware makes of them (``pico``).
PICO_HEADER = {
    1: "GP0",
    2: "GP1",
    3: "GND",
    4: "GP2",
    5: "GP3",
    6: "GP4",
    7: "GP5",
    8: "GND",
    9: "GP6",
    10: "GP7",
    11: "GP8",
    12: "GP9",
    13: "GND",
    14: "GP10",
    15: "GP11",
    16: "GP12",
    17: "GP13",
    18: "GND",
    19: "GP14",
    20: "GP15",
    21: "GP16",
    22: "GP17",
    23: "GND",
    24: "GP18",
    25: "GP19",
    26: "GP20",
    27: "GP21",
    28: "GND",
    29: "GP22",
    30: "RUN",
    31: "GP26",
    32: "GP27",
    33: "AGND",
    34: "GP28",
    35: "ADC_VREF",
    36: "3V3",
    37: "3V3_EN",
    38: "GND",
    39: "VSYS",
    40: "VBUS",
}


# The lowest each 5 V rail reaches, for the rules check, at the 500 mA a USB board may draw:
# a USB host's port gives 4.75 V at least (USB 2.0, 7.2.1); the cable the parts list orders
# (USB_CABLE: 0.5 m with 24 AWG power wires, 0.084 ohm/m each way) drops 0.042 V; the
# micro-B plug's VBUS and GND contacts 30 mohm each at most (USB 2.0 micro-USB cables and
# connectors specification, contact resistance), 0.03 V. (1 m of 28 AWG, a common cheap
# cable, would drop 0.21 V: the LEDs' 74AHCT125 would see less than its 4.5 V.) A regulated
# 5 V supply is +-5 %.
USB_CABLE = (0.5, 24, 0.084)  # metres, AWG, ohm/m of each power wire
USB_CONTACT_OHM = 0.030
VBUS_LEAST = round(4.75 - 2 * USB_CABLE[0] * USB_CABLE[2] * 0.5 - 2 * USB_CONTACT_OHM * 0.5, 3)
SUPPLY_LEAST = 4.75
# The TPS22918's on-resistance: 79 mohm at most at VIN 5 V, 25 degC (TI SLVSCG5, RON), at
# the 450 mA a USB board's LEDs may take: what the LEDs' rail loses past it.
LOAD_SWITCH_DROP = round(0.079 * 0.45, 3)


def pico(roles: dict[int, PinKind]) -> PartSpec:
    """The Pico, its GPIOs as the firmware uses them (``roles``: GP number -> kind); the rest
    may stay unconnected (RUN and 3V3_EN have their own pull-ups on the Pico)."""
    pins = []
    for number, name in PICO_HEADER.items():
        if name.startswith("GP"):
            gp = int(name[2:])
            assert gp in USABLE_PINS
            pins.append(PinSpec(str(number), name, roles.get(gp, K.FREE)))
        elif name in ("GND", "AGND"):
            pins.append(PinSpec(str(number), f"{name}{number}", K.GROUND))
        elif name == "3V3":
            pins.append(PinSpec(str(number), name, K.POWER_OUT, volts=3.3))
        elif name == "VBUS":  # the USB cable's 5 V, on the Pico's pin
            pins.append(PinSpec(str(number), name, K.POWER_OUT, volts=5.0, least=VBUS_LEAST))
        elif name == "VSYS":  # fed from VBUS through the Pico's own diode, or from outside
            pins.append(PinSpec(str(number), name, K.FREE))
        else:
            pins.append(PinSpec(str(number), name, K.FREE))
    return PartSpec(
        "Raspberry Pi Pico",
        "RP2040 board, MicroPython firmware",
        "U",
        tuple(pins),
        "Module:RaspberryPi_Pico_Common_THT",
        "pico",
    )


_MUX_CHANNELS = {f"C{n}": str(9 - n) if n < 8 else str(31 - n) for n in range(16)}  # C0 pin 9
MUX = PartSpec(
    "CD74HC4067",
    "16-channel analogue multiplexer, SOIC-24 (to hand-wire: the same chip on a breakout)",
    "U",
    (
        PinSpec("1", "SIG", K.SIGNAL),
        *(PinSpec(number, name, K.SIGNAL) for name, number in _MUX_CHANNELS.items()),
        PinSpec("10", "S0", K.INPUT),
        PinSpec("11", "S1", K.INPUT),
        PinSpec("12", "GND", K.GROUND),
        PinSpec("13", "S3", K.INPUT),
        PinSpec("14", "S2", K.INPUT),
        PinSpec("15", "EN", K.INPUT),
        PinSpec("24", "VCC", K.POWER_IN, takes=(2.0, 6.0)),
    ),
    "Package_SO:SOIC-24W_7.5x15.4mm_P1.27mm",
    "mux",
    conducts=(Conduction(("SIG", *_MUX_CHANNELS)),),
    supply_pin="VCC",
    inputs_max="VCC",
)


def _hall(
    name: str,
    describe: str,
    output: PinKind,
    price: str,
    *,
    output_max: float | None,
    takes: tuple[float, float],
) -> PartSpec:
    return PartSpec(
        name,
        describe,
        "S",
        (
            PinSpec("1", "VCC", K.POWER_IN, takes=takes),
            PinSpec("2", "GND", K.GROUND),
            PinSpec("3", "OUT", output),
        ),
        "Package_TO_SOT_THT:TO-92_Inline",
        price,
        supply_pin="VCC",
        output_max=output_max,
    )


SENSORS = {
    # DRV5053: 2.5-38 V, its output 0.2-1.8 V whatever the supply (TI SLIS153).
    # Named by its variant where a board is built (board.py: the profile's build.sensor).
    "drv5053": _hall(
        "DRV5053",
        "linear hall sensor, north reads high",
        K.OUTPUT,
        "drv5053",
        output_max=1.8,
        takes=(2.5, 38.0),
    ),
    # SS49E: 2.7-6.5 V, its output follows its supply (ratiometric).
    "ss49e": _hall(
        "SS49E",
        "linear hall sensor, ratiometric",
        K.OUTPUT,
        "ss49e",
        output_max=None,
        takes=(2.7, 6.5),
    ),
    "linear-hall": _hall(
        "linear hall",
        "a linear hall sensor, ratiometric",
        K.OUTPUT,
        "linear-hall",
        output_max=None,
        takes=(2.7, 5.5),
    ),
    "drv5033": _hall(
        "DRV5033AJ",
        "omnipolar hall switch, open drain",
        K.OPEN_DRAIN,
        "drv5033",
        output_max=None,
        takes=(2.5, 38.0),
    ),
    "hall-switch": _hall(
        "hall switch",
        "omnipolar hall switch, open drain",
        K.OPEN_DRAIN,
        "hall-switch",
        output_max=None,
        takes=(2.5, 5.5),
    ),
    "reed": PartSpec(
        "reed switch",
        "glass reed switch, normally open, 14 mm",
        "S",
        (PinSpec("1", "1", K.PASSIVE), PinSpec("2", "2", K.PASSIVE)),
        "Connector_Wire:SolderWire-0.5sqmm_1x02_P4.6mm_D0.9mm_OD2.1mm",
        "reed",
        conducts=(Conduction(("1", "2")),),
    ),
}


def _two(
    name: str,
    describe: str,
    prefix: str,
    footprint: str,
    price: str | None,
    *,
    conduct: bool = True,
) -> PartSpec:
    return PartSpec(
        name,
        describe,
        prefix,
        (PinSpec("1", "1", K.PASSIVE), PinSpec("2", "2", K.PASSIVE)),
        footprint,
        price,
        conducts=(Conduction(("1", "2")),) if conduct else (),
    )


THT_DISC = "Capacitor_THT:C_Disc_D5.0mm_W2.5mm_P5.00mm"
RESISTOR = _two(
    "resistor",
    "resistor, 1/4 W",
    "R",
    "Resistor_THT:R_Axial_DIN0207_L6.3mm_D2.5mm_P7.62mm_Horizontal",
    "resistor",
)
CAP_100N = _two("100 nF", "ceramic capacitor, 100 nF", "C", THT_DISC, "cap_100n", conduct=False)
CAP_LED = _two(
    "100 nF",
    "ceramic capacitor, 100 nF, at the LED (a strip has it already)",
    "C",
    "Capacitor_SMD:C_0603_1608Metric",
    None,
    conduct=False,
)
CAP_10U = _two(
    "10 µF",
    "capacitor, 10 µF 10 V",
    "C",
    "Capacitor_THT:CP_Radial_D5.0mm_P2.00mm",
    "cap_10u",
    conduct=False,
)
CAP_1000U = _two(
    "1000 µF",
    "electrolytic capacitor, 1000 µF 10 V",
    "C",
    "Capacitor_THT:CP_Radial_D10.0mm_P5.00mm",
    "cap_1000u",
    conduct=False,
)
CAP_CT = _two(
    "10 nF",
    "ceramic capacitor, 10 nF 25 V (the load switch's CT)",
    "C",
    THT_DISC,
    "cap_100n",
    conduct=False,
)
BUTTON = _two(
    "push button",
    "12 mm push button, normally open",
    "SW",
    "Button_Switch_THT:SW_PUSH-12mm",
    "button",
)

# Bourns MF-RHT polyfuses by their hold current (A), with their R1max (ohm: the resistance
# an hour after a trip, the most it has; Bourns MF-RHT series datasheet).
POLYFUSES = {2.0: ("MF-RHT200", 0.070), 3.0: ("MF-RHT300", 0.048), 4.0: ("MF-RHT400", 0.035),
             5.0: ("MF-RHT500", 0.028)}  # fmt: skip


@functools.cache
def fuse(supply_a: float) -> PartSpec:
    """The polyfuse for a supply: the least hold current a quarter over the supply's rating,
    its footprint the same part's, and what it drops at the supply's full current."""
    hold = min((a for a in POLYFUSES if a >= 1.25 * supply_a), default=max(POLYFUSES))
    name, ohm = POLYFUSES[hold]
    return PartSpec(
        name,
        f"resettable fuse, {hold:g} A hold (the supply's {supply_a:g} A and a quarter more)",
        "F",
        (PinSpec("1", "1", K.PASSIVE), PinSpec("2", "2", K.PASSIVE)),
        f"Fuse:Fuse_Bourns_{name}",
        "fuse",
        conducts=(Conduction(("1", "2"), strong=True, drop=round(ohm * supply_a, 3)),),
    )


FUSE = fuse(2.0)  # the shipped supplied board's (a 2 A supply)
PMOS = PartSpec(
    "AO3401A",
    "P-channel MOSFET: reverse-polarity switch in the 5 V line",
    "Q",
    (PinSpec("1", "G", K.INPUT), PinSpec("2", "S", K.PASSIVE), PinSpec("3", "D", K.PASSIVE)),
    "Package_TO_SOT_SMD:SOT-23",
    "pmos",
    # RDS(on) 52 mohm at most at VGS -4.5 V (AOS AO3401A datasheet), at the supply's 2 A
    conducts=(Conduction(("D", "S"), strong=True, one_way=True, drop=0.104),),
)
SCHOTTKY = PartSpec(
    "1N5817",
    "Schottky diode, 1 A: the supply into VSYS (band: cathode)",
    "D",
    (PinSpec("1", "K", K.PASSIVE), PinSpec("2", "A", K.PASSIVE)),
    "Diode_THT:D_DO-41_SOD81_P10.16mm_Horizontal",
    "schottky",
    # VF 0.45 V at 1 A at most (1N5817 datasheet): the Pico draws far less, so this is its
    # worst, and VSYS takes 1.8 to 5.5 V
    conducts=(Conduction(("A", "K"), strong=True, one_way=True, drop=0.45),),
)
JACK = PartSpec(
    "barrel jack",
    "5.5 x 2.1 mm barrel jack: the 5 V supply's plug",
    "J",
    (
        PinSpec("1", "+5V", K.POWER_OUT, volts=5.0, least=SUPPLY_LEAST),
        PinSpec("2", "GND", K.GROUND),
    ),
    "Connector_BarrelJack:BarrelJack_Horizontal",
    "jack",
)

WS2812B = PartSpec(
    "WS2812B",
    "addressable RGB LED",
    "D",
    (
        PinSpec("1", "VDD", K.POWER_IN, takes=(3.5, 5.3)),
        PinSpec("2", "DOUT", K.OUTPUT),
        PinSpec("3", "VSS", K.GROUND),
        PinSpec("4", "DIN", K.INPUT),
    ),
    "LED_SMD:LED_WS2812B_PLCC4_5.0x5.0mm_P3.2mm",
    "led",
    supply_pin="VDD",
)
# The same LED in a 2 x 2 mm package (Worldsemi WS2812B-2020 datasheet: pin 1 DOUT, 2 GND,
# 3 DIN, 4 VDD; 3.7-5.3 V): small enough to stay clear of a piece standing at its cell's edge.
WS2812B_2020 = PartSpec(
    "WS2812B-2020",
    "addressable RGB LED, 2 x 2 mm",
    "D",
    (
        PinSpec("1", "DOUT", K.OUTPUT),
        PinSpec("2", "VSS", K.GROUND),
        PinSpec("3", "DIN", K.INPUT),
        PinSpec("4", "VDD", K.POWER_IN, takes=(3.7, 5.3)),
    ),
    "LED_SMD:LED_WS2812B-2020_PLCC4_2.0x2.0mm",
    "led",
    supply_pin="VDD",
)
LEDS = {5.0: WS2812B, 2.0: WS2812B_2020}  # by the build's led_mm


def is_led(spec: PartSpec) -> bool:
    return spec in LEDS.values()


# 74AHCT125: TTL-level inputs, so 3.3 V from the Pico reads high, and 5 V out; its inputs take
# up to 5.5 V whatever its supply.
SHIFTER = PartSpec(
    "SN74AHCT125N",
    "quad buffer, 3.3 V in, 5 V out (the LED data's level shifter)",
    "U",
    (
        PinSpec("1", "1OE", K.INPUT),
        PinSpec("2", "1A", K.INPUT),
        PinSpec("3", "1Y", K.OUTPUT),
        PinSpec("4", "2OE", K.INPUT),
        PinSpec("5", "2A", K.INPUT),
        PinSpec("6", "2Y", K.FREE),
        PinSpec("7", "GND", K.GROUND),
        PinSpec("8", "3Y", K.FREE),
        PinSpec("9", "3A", K.INPUT),
        PinSpec("10", "3OE", K.INPUT),
        PinSpec("11", "4Y", K.FREE),
        PinSpec("12", "4A", K.INPUT),
        PinSpec("13", "4OE", K.INPUT),
        PinSpec("14", "VCC", K.POWER_IN, takes=(4.5, 5.5)),
    ),
    "Package_DIP:DIP-14_W7.62mm",
    "shifter",
    supply_pin="VCC",
)
# TPS22918: its VOUT follows VIN once ON is high, rising at the rate CT sets (a soft start).
LOAD_SWITCH = PartSpec(
    "TPS22918DBVR",
    "load switch with soft start, on a breakout",
    "U",
    (
        PinSpec("1", "VIN", K.POWER_IN, takes=(1.0, 5.5)),
        PinSpec("2", "GND", K.GROUND),
        PinSpec("3", "ON", K.INPUT),
        PinSpec("4", "CT", K.PASSIVE),
        PinSpec("5", "QOD", K.FREE),
        PinSpec("6", "VOUT", K.PASSIVE),
    ),
    "Package_TO_SOT_SMD:SOT-23-6",
    "load_switch",
    conducts=(Conduction(("VIN", "VOUT"), strong=True, one_way=True, drop=LOAD_SWITCH_DROP),),
)


def regulator(name: str) -> PartSpec:
    """The sensors' 3.3 V regulator wiring.sensor_regulator chose (by its name's start)."""
    pins: tuple[PinSpec, ...]
    if name.startswith("AP2112K"):
        pins = (
            PinSpec("1", "VIN", K.POWER_IN, takes=(2.5, 6.0)),
            PinSpec("2", "GND", K.GROUND),
            PinSpec("3", "EN", K.INPUT),
            PinSpec("4", "NC", K.FREE),
            PinSpec("5", "VOUT", K.POWER_OUT, volts=3.3),
        )
        return PartSpec(
            "AP2112K-3.3TRG1",
            "3.3 V LDO, 600 mA, SOT-23-5",
            "U",
            pins,
            "Package_TO_SOT_SMD:SOT-23-5",
            "ldo_ap2112k",
        )
    if name.startswith("AMS1117"):
        pins = (
            PinSpec("1", "GND", K.GROUND),
            PinSpec("2", "VOUT", K.POWER_OUT, volts=3.3),
            PinSpec("3", "VIN", K.POWER_IN, takes=(4.5, 15.0)),
        )
        return PartSpec(
            "AMS1117-3.3",
            "3.3 V LDO, 1 A, SOT-223 (tab on 1 cm² of copper)",
            "U",
            pins,
            "Package_TO_SOT_SMD:SOT-223-3_TabPin2",
            "ldo_ams1117",
        )
    pins = (
        PinSpec("1", "VIN", K.POWER_IN, takes=(3.5, 36.0)),
        PinSpec("2", "GND", K.GROUND),
        PinSpec("3", "VOUT", K.POWER_OUT, volts=3.3),
    )
    return PartSpec(
        "3.3 V buck module",
        name,
        "U",
        pins,
        "Connector_PinHeader_2.54mm:PinHeader_1x03_P2.54mm_Vertical",
        "buck",
    )


def is_sensor(spec: PartSpec) -> bool:
    """A cell's sensor, of any kind or variant (a DRV5053's spec is named by its variant)."""
    return spec.price in SENSORS and spec.price == SENSORS[spec.price].price
