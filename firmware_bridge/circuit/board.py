"""A board's circuit, worked out from its hardware profile: the wiring the firmware is
configured from (link/wiring.py) and the guide's choices (docs/build-a-board.md §3, §5).

One function per block, each placing its parts and joining them; the nets are named as the
guide names the wires (3V3, SIG, S0, EN0, LED_DIN) so the netlist reads like the guide.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

from engine import ConfigError, Game
from firmware_bridge.circuit import components as c
from firmware_bridge.circuit.model import Circuit, Node, Part, PartSpec, PinKind
from firmware_bridge.link.profile import BoardProfile
from firmware_bridge.link.wiring import PicoWiring, rail_3v3
from firmware_bridge.physics.materials import sensor_part
from firmware_bridge.physics.stackup import parse_build

USB_SUPPLY_MA = 500
GND = "GND"


@dataclass(frozen=True, slots=True)
class Choices:
    """What a builder could do otherwise, for the rules check's own tests: the sensors on the
    5 V line (a DRV5053 may; an SS49E may not), a pull resistor left out or doubled."""

    sensor_rail: str | None = None  # None: as the guide says
    sig_pulls: int = 1
    sig_pull_value: str | None = None  # None: 10k down, or 4.7k up


def board_circuit(profile: BoardProfile, game: Game, choices: Choices = Choices()) -> Circuit:
    """Every part of ``profile``'s board and how it is wired."""
    wiring = profile.pico
    if wiring is None:
        raise ValueError(f"profile {profile.id} has no Pico wiring: it is not built from the guide")
    names = game.board.names
    sensors = ["no cell" if cell is None else names[cell] for cell in profile.sensor_cells]
    leds = profile.led_count
    circuit = Circuit(profile.id)
    usb = wiring.power.supply_ma <= USB_SUPPLY_MA
    linear = wiring.part.kind == "linear"
    roles: dict[int, PinKind] = {pin: PinKind.OUTPUT for pin in wiring.select}
    roles.update({pin: PinKind.OUTPUT for pin in (*wiring.enable, *wiring.bank_select)})
    roles.update({pin: PinKind.ANALOG_IN if linear else PinKind.INPUT for pin in wiring.signal})
    roles.update({pin: PinKind.INPUT for pin in wiring.buttons.values()})
    if leds and wiring.led_pin is not None:
        roles[wiring.led_pin] = PinKind.OUTPUT
    pico = circuit.add(c.pico(roles), note="the board's computer", unit="pico:")
    for pin in pico.spec.pins:
        if pin.kind is PinKind.GROUND:
            circuit.connect(GND, (pico, pin.name))
    circuit.connect("3V3", (pico, "3V3"))
    five = _power_entry(circuit, pico, usb, wiring.power.supply_ma)
    sensor_rail = choices.sensor_rail or _sensor_rail(circuit, wiring, len(sensors), five)
    # The part as it is ordered: a DRV5053 by the build's variant, as the physics reads it
    # (one spec for every cell: the schematic draws a kind of cell once).
    spec = c.SENSORS[wiring.part.name]
    if wiring.part.name == "drv5053":
        spec = dataclasses.replace(spec, name=sensor_part(parse_build(profile)))
    _sensing(circuit, pico, wiring, sensors, rail=sensor_rail, choices=choices, spec=spec)
    if leds and wiring.led_pin is not None:
        _leds(circuit, pico, wiring, leds, five=five, usb=usb, spec=led_spec(profile))
    for name, gp in sorted(wiring.buttons.items(), key=lambda item: item[1]):
        # A button is touched: a finger's static discharge reaches its wire. 1 kohm in series
        # at the Pico limits what reaches the pad's protection diodes (the RP2040's pads are
        # rated to 2 kV HBM only), and with the pad's pull-up it still reads low at once.
        button = circuit.add(
            c.BUTTON, note=f"{name.upper()}: to ground, the pad's pull-up", unit=f"button:{name}"
        )
        guard = circuit.add(
            c.RESISTOR, "1k", note=f"{name.upper()}: in series, against ESD", unit=f"button:{name}"
        )
        circuit.connect(f"BTN_{name.upper()}", (pico, f"GP{gp}"), (guard, "1"))
        circuit.connect(f"BTN_{name.upper()}_SW", (guard, "2"), (button, "1"))
        circuit.connect(GND, (button, "2"))
        circuit.pad_pulls[_node(pico, f"GP{gp}")] = "up"
    return circuit


def _node(part: Part, pin: str) -> Node:
    return Node(part.ref, pin)


def _power_entry(circuit: Circuit, pico: Part, usb: bool, supply_ma: int = 2000) -> str:
    """The 5 V the LEDs (and a sensor regulator) take: USB's VBUS on a USB board, else the
    supply's, through a fuse and a reverse-polarity MOSFET, with the Pico fed through a
    Schottky into VSYS (§5). Returns the net's name."""
    circuit.connect("VBUS", (pico, "VBUS"))
    if usb:
        return "VBUS"
    unit = "power:"
    jack = circuit.add(c.JACK, note="the 5 V supply's plug", unit=unit)
    spec = c.fuse(supply_ma / 1000)
    fuse = circuit.add(spec, note="at the supply's input", unit=unit)
    mosfet = circuit.add(
        c.PMOS, note="reverse polarity: conducts only when the supply is right", unit=unit
    )
    gate = circuit.add(c.RESISTOR, "10k", note="the MOSFET's gate to ground", unit=unit)
    bulk = circuit.add(c.CAP_1000U, note="across the supply where it enters", unit=unit)
    diode = circuit.add(c.SCHOTTKY, note="the supply into VSYS: band (cathode) to VSYS", unit=unit)
    circuit.connect("5V_IN", (jack, "+5V"), (fuse, "1"))
    circuit.connect("5V_FUSED", (fuse, "2"), (mosfet, "D"))
    circuit.connect("5V", (mosfet, "S"), (bulk, "1"), (diode, "A"))
    circuit.connect("Q_GATE", (mosfet, "G"), (gate, "1"))
    circuit.connect(GND, (gate, "2"), (bulk, "2"), (jack, "GND"))
    circuit.connect("VSYS", (diode, "K"), (pico, "VSYS"))
    return "5V"


def _sensor_rail(circuit: Circuit, wiring: PicoWiring, sensors: int, five: str) -> str:
    """The sensors' 3.3 V: the Pico's 3V3 pin, or a regulator of their own (§5)."""
    _, regulator = rail_3v3(wiring, sensors)
    if not regulator:
        return "3V3"
    spec = c.regulator(regulator)
    part = circuit.add(spec, note="the sensors' own 3.3 V, chosen by heat (§5)", unit="regulator:")
    circuit.connect(five, (part, "VIN"))
    circuit.connect(GND, (part, "GND"))
    circuit.connect("SENSOR_3V3", (part, "VOUT"))
    if "EN" in (pin.name for pin in spec.pins):
        circuit.connect(five, (part, "EN"))  # an AP2112K's EN tied to VIN, or it stays off
    if spec.name.startswith("AMS1117"):
        for net in (five, "SENSOR_3V3"):
            cap = circuit.add(
                c.CAP_10U, note="the AMS1117 needs it to be stable", unit="regulator:"
            )
            circuit.connect(net, (cap, "1"))
            circuit.connect(GND, (cap, "2"))
    return "SENSOR_3V3"


def _sensing(
    circuit: Circuit,
    pico: Part,
    wiring: PicoWiring,
    cells: list[str],
    *,
    rail: str,
    choices: Choices,
    spec: PartSpec,
) -> None:
    """The multiplexers, a sensor a cell, the SIG lines' pulls (§3)."""
    linear = wiring.part.kind == "linear"
    for index, gp in enumerate(wiring.select):
        circuit.connect(f"S{index}", (pico, f"GP{gp}"))
    for bank, gp in enumerate(wiring.enable):
        circuit.connect(f"EN{bank}", (pico, f"GP{gp}"))
    banks = math.ceil(len(cells) / 16)
    sig_nets = [f"SIG{k}" if len(wiring.signal) > 1 else "SIG" for k in range(len(wiring.signal))]
    for net, gp in zip(sig_nets, wiring.signal, strict=True):
        circuit.connect(net, (pico, f"GP{gp}"))
        for _ in range(choices.sig_pulls):
            pull = circuit.add(
                c.RESISTOR,
                choices.sig_pull_value or ("10k" if linear else "4.7k"),
                note=f"{net}'s pull-" + ("down" if linear else "up") + ": one a line",
                unit=f"sig:{net}",
            )
            circuit.connect(net, (pull, "1"))
            circuit.connect(GND if linear else "3V3", (pull, "2"))
        if not linear:
            circuit.pad_pulls[_node(pico, f"GP{gp}")] = "up"
    for bank in range(banks):
        mux = _mux(circuit, f"M{bank}: sensors {16 * bank}-{16 * bank + 15}", f"bank:M{bank}")
        for index in range(4):
            circuit.connect(f"S{index}", (mux, f"S{index}"))
        if wiring.enable:
            circuit.connect(f"EN{bank}", (mux, "EN"))
            circuit.connect(sig_nets[0], (mux, "SIG"))  # EN lines: one SIG line
            # EN is active low: pulled up, a broken EN wire leaves its bank off (its cells
            # read nothing, which the firmware reports), never on beside another bank,
            # where two banks on one SIG line would give a plausible wrong reading.
            pull = circuit.add(c.RESISTOR, "10k", note=f"EN{bank}'s pull-up: a broken wire "
                               "turns its bank off", unit=f"en:M{bank}")  # fmt: skip
            circuit.connect(f"EN{bank}", (pull, "1"))
            circuit.connect("3V3", (pull, "2"))
        else:  # behind a second-level multiplexer: always on, its SIG into the second level
            circuit.connect(GND, (mux, "EN"))
            circuit.connect(f"BANK{bank}", (mux, "SIG"))
        for channel in range(16):
            sensor = 16 * bank + channel
            net = f"M{bank}.C{channel}"
            if sensor >= len(cells):  # unused: tied to ground, never floating (finding 10)
                circuit.connect(GND, (mux, f"C{channel}"))
                continue
            circuit.connect(net, (mux, f"C{channel}"))
            _sensor(
                circuit,
                wiring,
                net,
                rail,
                f"cell {cells[sensor]} (S{sensor}, M{bank}.{channel})",
                unit=f"cell:{cells[sensor]}",
                spec=spec,
            )
    if wiring.bank_select:
        for level, net in enumerate(sig_nets):
            second = _mux(
                circuit,
                f"second level {level}: banks {16 * level}-{16 * level + 15}",
                f"level:{level}",
            )
            for index, gp in enumerate(wiring.bank_select):
                if level == 0:  # the Pico drives every second-level chip's selects
                    circuit.connect(f"B{index}", (pico, f"GP{gp}"))
                circuit.connect(f"B{index}", (second, f"S{index}"))
            circuit.connect(GND, (second, "EN"))
            circuit.connect(net, (second, "SIG"))
            for channel in range(16):
                bank = 16 * level + channel
                if bank < banks:
                    circuit.connect(f"BANK{bank}", (second, f"C{channel}"))
                else:
                    circuit.connect(GND, (second, f"C{channel}"))


def _mux(circuit: Circuit, note: str, unit: str) -> Part:
    mux = circuit.add(c.MUX, note=note, unit=unit)
    circuit.connect("3V3", (mux, "VCC"))
    circuit.connect(GND, (mux, "GND"))
    cap = circuit.add(c.CAP_100N, note=f"decoupling, at {mux.ref}", unit=unit)
    circuit.connect("3V3", (cap, "1"))
    circuit.connect(GND, (cap, "2"))
    return mux


def _sensor(
    circuit: Circuit,
    wiring: PicoWiring,
    net: str,
    rail: str,
    note: str,
    *,
    unit: str,
    spec: PartSpec,
) -> None:
    sensor = circuit.add(spec, note=note, unit=unit)
    if wiring.part.name == "reed":
        circuit.connect(net, (sensor, "1"))
        circuit.connect(GND, (sensor, "2"))
        return
    circuit.connect(rail, (sensor, "VCC"))
    circuit.connect(GND, (sensor, "GND"))
    circuit.connect(net, (sensor, "OUT"))
    if wiring.part.kind == "linear":
        cap = circuit.add(c.CAP_100N, note=f"decoupling, at {sensor.ref}", unit=unit)
        circuit.connect(rail, (cap, "1"))
        circuit.connect(GND, (cap, "2"))
    else:  # an open-drain hall switch: its own pull-up at the switch (§3)
        pull = circuit.add(c.RESISTOR, "10k", note=f"{sensor.ref}'s pull-up", unit=unit)
        circuit.connect(net, (pull, "1"))
        circuit.connect(rail, (pull, "2"))


def led_spec(profile: BoardProfile) -> PartSpec:
    """The LED the build names (``build.led_mm``, as the physics reads it: a 5 mm WS2812B or
    a 2 mm WS2812B-2020)."""
    try:
        size = parse_build(profile).led_size
    except ConfigError:  # a build the physics refuses for its sensor: its LED is still named
        build = profile.build if isinstance(profile.build, dict) else {}
        size = float(build.get("led_mm", 5)) / 1000
    return c.LEDS.get(round(size * 1000, 1), c.WS2812B)


def _leds(
    circuit: Circuit,
    pico: Part,
    wiring: PicoWiring,
    leds: int,
    *,
    five: str,
    usb: bool,
    spec: PartSpec = c.WS2812B,
) -> None:
    """The level shifter and the LED chain, on the LEDs' 5 V: a soft-start switch off VBUS on
    a USB board, the supply's 5 V otherwise (§5)."""
    rail = five
    if usb:
        switch = circuit.add(
            c.LOAD_SWITCH, note="the LEDs' 5 V from VBUS, soft-started", unit="leds:"
        )
        ct = circuit.add(c.CAP_CT, note="sets the switch's rise: 10 ms or more", unit="leds:")
        circuit.connect(five, (switch, "VIN"), (switch, "ON"))
        circuit.connect(GND, (switch, "GND"), (ct, "2"))
        circuit.connect("LOAD_CT", (switch, "CT"), (ct, "1"))
        rail = "LED_5V"
        circuit.connect(rail, (switch, "VOUT"))
    shifter = circuit.add(c.SHIFTER, note="GP14's 3.3 V data to the LEDs' 5 V", unit="leds:")
    cap = circuit.add(c.CAP_100N, note=f"decoupling, at {shifter.ref}", unit="leds:")
    circuit.connect(
        rail, (shifter, "VCC"), (shifter, "2OE"), (shifter, "3OE"), (shifter, "4OE"), (cap, "1")
    )
    circuit.connect(
        GND,
        (shifter, "GND"),
        (shifter, "1OE"),
        (shifter, "2A"),
        (shifter, "3A"),
        (shifter, "4A"),
        (cap, "2"),
    )
    circuit.connect("LED_DATA", (pico, f"GP{wiring.led_pin}"), (shifter, "1A"))
    series = circuit.add(c.RESISTOR, "330", note="in the data line, at the shifter", unit="leds:")
    circuit.connect("LED_DATA_5V", (shifter, "1Y"), (series, "1"))
    previous: tuple[Part, str] = (series, "2")
    for index in range(leds):
        led = circuit.add(spec, note=f"LED {index}", unit=f"led:{index}")
        circuit.connect(rail, (led, "VDD"))
        circuit.connect(GND, (led, "VSS"))
        circuit.connect(f"LED_DIN{index}", previous, (led, "DIN"))
        previous = (led, "DOUT")
        decoupling = circuit.add(c.CAP_LED, note=f"at LED {index}", unit=f"led:{index}")
        circuit.connect(rail, (decoupling, "1"))
        circuit.connect(GND, (decoupling, "2"))
        if index % 8 == 0:
            bulk = circuit.add(
                c.CAP_10U, note=f"along the chain, at LED {index}", unit=f"bulk:{index}"
            )
            circuit.connect(rail, (bulk, "1"))
            circuit.connect(GND, (bulk, "2"))
