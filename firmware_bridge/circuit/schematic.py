"""The circuit drawn as a schematic an engineer reads: schemdraw's standard symbols (a
resistor's zigzag, a polarised capacitor's curved plate, a diode's band, a P-MOSFET, a reed
switch, ground and supply symbols), wires where the signal flows inside each block, and net
labels (flags) where a wire leaves for another block, as a multi-sheet schematic does.

It is drawn from the circuit itself, never beside it: every symbol is a part of
``board_circuit``, every pin's net is looked up in the circuit as it is drawn, and a wire is
drawn only between pins the circuit joins. A block the board repeats (a cell's sensor, a
multiplexer's bank, an LED) is drawn once, its first instance, with its count and its parts'
references; what differs between instances (a channel tied to ground) is said beneath.
``Sheet.shown`` and ``Sheet.stands_for`` are what the drawing claims; ``differences`` holds
them against the circuit, and a schematic that is not the circuit is never written.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable
from html import escape
from typing import Any

from firmware_bridge.circuit import components as c
from firmware_bridge.circuit.model import Circuit, Node, Part, PinKind
from firmware_bridge.circuit.pen import (
    GND,
    Panel,
    Pen,
    Sheet,
    by_spec,
    ends,
    panel,
    refs,
)
from firmware_bridge.words import count

WIDTH = 1500  # px: the sheet's width; panels wrap to it
GAP = 28


def _pico(sheet: Sheet) -> Panel | None:
    found = sheet.instances("pico")
    if not found:
        return None
    pico = found[0][0]
    pen = Pen(sheet)
    e = pen.e
    used = [pin for pin in pico.spec.pins if Node(pico.ref, pin.name) in sheet.circuit.where]
    grounds = [pin for pin in used if pin.kind is PinKind.GROUND]
    gpios = sorted((p for p in used if p.name.startswith("GP")), key=lambda p: -int(p.name[2:]))
    power = [p for p in used if p not in grounds and p not in gpios]
    pins = [e.IcPin(name=p.name, pin=p.number, side="L", anchorname=p.name) for p in power]
    numbers = ",".join(p.number for p in grounds)
    pins.append(e.IcPin(name="GND", pin=numbers, side="B", anchorname="GND"))
    pins += [e.IcPin(name=p.name, pin=p.number, side="R", anchorname=p.name) for p in gpios]
    box = pen.add(
        e.Ic(pins=pins, pinspacing=0.8, edgepadW=3.6, edgepadH=0.6, leadlen=0.5, lsize=12).label(
            f"{pico.ref}\n{pico.spec.name}", loc="center", fontsize=14
        )
    )
    for pin in power:
        pen.end(pico, pin.name, box.absanchors[pin.name], "left", 0.6)
    for pin in gpios:
        pen.end(pico, pin.name, box.absanchors[pin.name], "right", 0.6)
    for pin in grounds:
        sheet.net(pico, pin.name)
    pen.add(e.Ground().at(box.absanchors["GND"]))
    return panel(
        pen,
        "The Pico",
        [
            "Only the pins the board uses; every other GPIO stays unconnected.",
            f"GND is pins {', '.join(p.number for p in grounds)}, all joined.",
        ],
    )


def _power(sheet: Sheet) -> Panel | None:
    found = sheet.instances("power")
    if not found:
        return None
    parts = found[0]
    (fuse,) = [p for p in parts if p.spec.price == "fuse"]  # its rating the supply's
    (jack,), (mosfet,) = (by_spec(parts, s) for s in (c.JACK, c.PMOS))
    (gate,), (bulk,), (diode,) = (by_spec(parts, s) for s in (c.RESISTOR, c.CAP_1000U, c.SCHOTTKY))
    pen = Pen(sheet)
    e = pen.e
    j = pen.chip(jack, {"+5V": "R", "GND": "R"})
    plus = j.absanchors["+5V"]
    pen.end(jack, "GND", j.absanchors["GND"], "right", 0.6)
    f = pen.two(fuse, "right", (plus[0] + 1.2, plus[1]))
    pen.wire((jack, "+5V"), (fuse, "1"), plus, f.start)
    q = pen.add(
        e.PFet()
        .theta(-90)
        .anchor("drain")
        .at((f.end[0] + 1.0, f.end[1]))
        .label(f"{mosfet.ref}\n{mosfet.spec.name}", loc="lft", fontsize=12)
    )
    # Its terminals named where they are drawn (a builder wires a SOT-23 by them), and the
    # plug's polarity: a centre-positive 5.5 x 2.1 mm plug, as the parts list orders.
    for text, where, loc in (("D", q.drain, "top"), ("S", q.source, "top"),
                             ("G", q.gate, "right")):  # fmt: skip
        pen.add(e.Label().at(where).label(text, loc=loc, fontsize=11))
    pen.add(e.Label().at((plus[0] + 0.9, plus[1] - 0.55)).label("centre +", loc="bottom",
                                                                fontsize=11))  # fmt: skip
    pen.wire((fuse, "2"), (mosfet, "D"), f.end, q.drain)
    g = pen.two(gate, "down", (q.gate[0], q.gate[1] - 0.5))
    pen.wire((mosfet, "G"), (gate, "1"), q.gate, g.start)
    pen.end(gate, "2", g.end, "down", 0.3)
    node = (q.source[0] + 1.6, q.source[1])
    pen.wire((mosfet, "S"), (bulk, "1"), q.source, node)
    pen.add(e.Dot().at(node))
    b = pen.two(bulk, "down", node)
    pen.end(bulk, "2", b.end, "down", 0.3)
    # A diode's symbol points from anode to cathode: drawn rightwards, its band at VSYS.
    d = pen.add(
        e.Schottky().right().at((node[0] + 1.2, node[1])).label(f"{diode.ref}\n{diode.spec.name}")
    )
    pen.wire((bulk, "1"), (diode, "A"), node, d.start)
    pen.net_symbol(sheet.net(mosfet, "S") or "", node)
    pen.end(diode, "K", d.end, "right", 0.5)
    return panel(
        pen,
        "Power in",
        [
            f"The supply's plug (centre pin +5 V, sleeve ground), {fuse.ref} "
            f"({fuse.spec.name}, {fuse.spec.describe.split(', ')[1].split(' (')[0]}), and "
            f"{mosfet.ref}: its drain (D) to the fuse, its source (S) to the board, its gate "
            "(G) to ground: it conducts only when the plug's polarity is right.",
            f"{diode.ref}, band towards VSYS, lets the supply feed the Pico, and USB feed "
            "nothing back.",
        ],
    )


def _regulator(sheet: Sheet) -> Panel | None:
    found = sheet.instances("regulator")
    if not found:
        return None
    parts = found[0]
    chip = next(p for p in parts if p.spec.ref_prefix == "U")
    pen = Pen(sheet)
    names = [p.name for p in chip.spec.pins]
    sides = {n: ("R" if n == "VOUT" else "B" if n == "GND" else "L") for n in names}
    box = pen.chip(chip, sides)
    ends(pen, chip, box, sides)
    x = box.absanchors["VOUT"][0] + 5.5
    for cap in (p for p in parts if p is not chip):
        pen.shunt(cap, (x, box.absanchors["VOUT"][1] + 1.0))
        x += 2.6
    return panel(pen, "The sensors' own 3.3 V", [f"{chip.ref} {chip.spec.name}: {chip.note}."])


# A CD74HC4067 as drawn: its selects, enable and common left, its channels right.
MUX_SIDES = {f"S{n}": "L" for n in range(4)} | {"EN": "L", "SIG": "L"}
MUX_SIDES |= {f"C{n}": "R" for n in range(16)} | {"VCC": "T", "GND": "B"}


def _mux(pen: Pen, parts: list[Part]) -> tuple[Part, Any]:
    """A multiplexer's box and its decoupling capacitor at VCC (the rest of a bank's or a
    level's block is its caller's)."""
    mux = next(p for p in parts if p.spec is c.MUX)
    box = pen.chip(mux, MUX_SIDES)
    top = box.absanchors["VCC"]
    for cap in (p for p in parts if p is not mux):
        pen.shunt(cap, (top[0] - 2.4, top[1] + 2.2))
    return mux, box


def _sensor_of(parts: list[Part]) -> Part:
    return next(p for p in parts if c.is_sensor(p.spec))


def _bank(sheet: Sheet) -> Panel | None:
    bank, banks = sheet.drawn_once("bank")
    if not bank:
        return None
    cell, cells = sheet.drawn_once("cell")
    pulls, lines = sheet.drawn_once("sig")
    en_pulls, en_lines = sheet.drawn_once("en")
    pen = Pen(sheet)
    mux, box = _mux(pen, bank)
    wired = None
    if cell:
        first = _sensor_of(cell)
        out = sheet.circuit.where.get(
            Node(first.ref, "1" if first.spec is c.SENSORS["reed"] else "OUT")
        )
        wired = next(
            (f"C{n}" for n in range(16) if sheet.circuit.where.get(Node(mux.ref, f"C{n}")) == out),
            None,
        )
        if wired is not None:
            _cell(pen, cell, first, mux, channel=wired, at=box.absanchors[wired])
    ends(pen, mux, box, MUX_SIDES, skip=(wired,) if wired else ())
    if en_pulls:  # EN's pull-up, beside its flag
        en = box.absanchors["EN"]
        _pull_up(pen, en_pulls[0], (en[0] - 5.4, en[1] + 0.3))
    if pulls:
        pull = pulls[0]
        sig = box.absanchors["SIG"]
        at = (sig[0] - 2.6, sig[1] - 1.4)
        if sheet.net(pull, "2") == GND:  # a pull-down: from SIG's flag down to ground
            pen.shunt(pull, at)
        else:
            _pull_up(pen, pull, at)
    caption = [
        f"One bank of 16 sensors drawn: {count(len(banks), 'bank')} "
        f"({refs([next(p for p in b if p.spec is c.MUX) for b in banks])}), each with its "
        "100 nF at VCC and its own EN line.",
    ]
    if cells and wired:
        caption.append(
            f"One cell's sensor drawn, at {wired}: {len(cells)} cells "
            f"({refs([_sensor_of(i) for i in cells])}), each on its own channel (the profile's "
            "sensor order says which)."
        )
    tied = _tied(sheet, banks)
    if tied:
        caption.append("Channels with no cell are tied to GND: " + "; ".join(tied) + ".")
    if pulls:
        more = f" ({len(lines)} lines: {refs([i[0] for i in lines])})" if len(lines) > 1 else ""
        caption.append(f"{pulls[0].ref}: {pulls[0].note}{more}.")
    if en_pulls:
        caption.append(f"{en_pulls[0].ref}: {en_pulls[0].note}; one an EN line "
                       f"({refs([i[0] for i in en_lines])}).")  # fmt: skip
    return panel(pen, "The sensors: one multiplexer's bank", caption)


def _tied(sheet: Sheet, banks: list[list[Part]]) -> list[str]:
    said = []
    for instance in banks:
        mux = next(p for p in instance if p.spec is c.MUX)
        ground = [n for n in range(16) if sheet.net(mux, f"C{n}") == GND]
        if ground:
            span = f"C{ground[0]}" + (f"-C{ground[-1]}" if len(ground) > 1 else "")
            said.append(f"{mux.ref} {span}")
    return said


def _pull_up(pen: Pen, part: Part, at: Any) -> None:
    """A resistor from a signal's flag (pin 1, below) up to its supply (pin 2)."""
    body = pen.two(part, "up", at)
    pen.add(pen.line(at, "down", 0.3))
    pen.net_symbol(pen.sheet.net(part, "1") or "", pen.d.here, "down")
    pen.net_symbol(pen.sheet.net(part, "2") or "", body.end)


def _cell(pen: Pen, cell: list[Part], sensor: Part, mux: Part, *, channel: str, at: Any) -> None:
    """One cell's sensor, wired to its multiplexer channel (the top one, clear of the rest's
    flags), with its capacitor or pull-up."""
    e = pen.e
    x, y = at[0] + 4.0, at[1]
    if sensor.spec is c.SENSORS["reed"]:
        pen.wire((mux, channel), (sensor, "1"), at, (x, y))
        body = pen.two(sensor, "down", (x, y))
        pen.end(sensor, "2", body.end, "down", 0.2)
        return
    sides = {"OUT": "L", "VCC": "T", "GND": "B"}
    box = pen.chip(sensor, sides, at=(x + 1.0, y), anchor="OUT")
    pen.wire((mux, channel), (sensor, "OUT"), at, box.absanchors["OUT"])
    ends(pen, sensor, box, sides, skip=("OUT",))
    x = box.absanchors["VCC"][0] + 5.0
    for part in cell:
        if part is sensor:
            continue
        if part.spec is c.RESISTOR:  # a hall switch's pull-up, from OUT to the rail
            node = (at[0] + 2.0, at[1])
            pen.add(e.Dot().at(node))
            if pen.sheet.net(part, "1") != pen.sheet.net(sensor, "OUT"):
                raise ValueError(f"{part.ref} does not pull {sensor.ref}'s output")
            body = pen.two(part, "up", node)
            pen.net_symbol(pen.sheet.net(part, "2") or "", body.end)
        else:
            pen.shunt(part, (x, box.absanchors["VCC"][1] + 0.6))
            x += 2.4


def _leds(sheet: Sheet) -> Panel | None:
    found = sheet.instances("leds")
    led, leds = sheet.drawn_once("led")
    bulk, bulks = sheet.drawn_once("bulk")
    if not found:
        return None
    parts = found[0]
    pen = Pen(sheet)
    caption = []
    x0 = 0.0
    switch = next((p for p in parts if p.spec is c.LOAD_SWITCH), None)
    if switch is not None:
        sides = {"ON": "L", "VIN": "T", "VOUT": "R", "QOD": "R", "GND": "B", "CT": "B"}
        box = pen.chip(switch, sides, at=(0.0, 0.0))
        ends(pen, switch, box, sides, skip=("CT",))
        ct = next(p for p in parts if p.spec is c.CAP_CT)
        at = box.absanchors["CT"]
        body = pen.two(ct, "down", (at[0], at[1] - 0.4))
        pen.wire((switch, "CT"), (ct, "1"), at, body.start)
        pen.end(ct, "2", body.end, "down", 0.2)
        caption.append(f"{switch.ref} soft-starts the LEDs' 5 V off VBUS; {ct.ref} sets its rise.")
        x0 = box.absanchors["VOUT"][0] + 5.0
    shifter = next(p for p in parts if p.spec is c.SHIFTER)
    sides = {"1A": "L", "1Y": "R", "2Y": "R", "3Y": "R", "4Y": "R"}
    sides |= {"VCC": "T", "2OE": "T", "3OE": "T", "4OE": "T"}
    sides |= {"1OE": "B", "2A": "B", "3A": "B", "4A": "B", "GND": "B"}
    box = pen.chip(shifter, sides, at=(x0 + 3.0, 0.0), anchor="1A", label="center")
    ends(pen, shifter, box, sides, skip=("1Y",))
    for cap in (p for p in parts if p.spec is c.CAP_100N):
        pen.shunt(cap, (box.absanchors["VCC"][0] - 2.4, box.absanchors["VCC"][1] + 2.6))
    series = next(p for p in parts if p.spec is c.RESISTOR)
    one_y = box.absanchors["1Y"]
    r = pen.two(series, "right", (one_y[0] + 0.6, one_y[1]))
    pen.wire((shifter, "1Y"), (series, "1"), one_y, r.start)
    caption.append(
        f"{shifter.ref} lifts the Pico's 3.3 V data to the LEDs' 5 V, {series.ref} in the data "
        "line at its output; its three unused buffers have their inputs at GND and are off."
    )
    if led:
        chip = next(p for p in led if c.is_led(p.spec))
        sides = {"DIN": "L", "DOUT": "R", "VDD": "T", "VSS": "B"}
        box = pen.chip(chip, sides, at=(r.end[0] + 1.2, r.end[1]), anchor="DIN")
        pen.wire((series, "2"), (chip, "DIN"), r.end, box.absanchors["DIN"])
        ends(pen, chip, box, sides, skip=("DIN",))
        x = box.absanchors["DOUT"][0] + 4.0
        for cap in [*(p for p in led if p is not chip), *bulk]:
            pen.shunt(cap, (x, box.absanchors["VDD"][1] + 0.6))
            x += 2.6
        caption.append(
            f"One LED drawn: {len(leds)} in a chain ({refs([i[0] for i in leds])}), each DOUT "
            "to the next one's DIN, each with its 100 nF."
        )
        last = next(p for p in leds[-1] if c.is_led(p.spec))
        if last is not chip and sheet.net(last, "DOUT") is None:
            caption.append(f"The last one's DOUT ({last.ref}) stays unconnected.")
        if bulk:
            caption.append(
                f"{bulk[0].ref}: one 10 µF every 8 LEDs along the chain, {len(bulks)} in all "
                f"({refs([i[0] for i in bulks])})."
            )
    return panel(pen, "The LED chain", caption)


def _buttons(sheet: Sheet) -> Panel | None:
    found = sheet.instances("button")
    if not found:
        return None
    pen = Pen(sheet)
    for row, parts in enumerate(found):
        guard = next(p for p in parts if p.spec is c.RESISTOR)
        button = next(p for p in parts if p.spec is c.BUTTON)
        start = (0.0, -2.2 * row)
        pen.net_symbol(sheet.net(guard, "1") or "", start, "left")
        r = pen.two(guard, "right", start)
        b = pen.two(button, "right", (r.end[0] + 0.6, r.end[1]))
        pen.wire((guard, "2"), (button, "1"), r.end, b.start)
        pen.end(button, "2", b.end, "right", 0.6)
    return panel(
        pen,
        "The buttons",
        ["Each from its GPIO (the pad's pull-up) through 1 kΩ, against a finger's static."],
    )


def _levels(sheet: Sheet) -> Panel | None:
    level, levels = sheet.drawn_once("level")
    if not level:
        return None
    pen = Pen(sheet)
    mux, box = _mux(pen, level)
    ends(pen, mux, box, MUX_SIDES)
    several = f"; {len(levels)} of them ({refs([i[0] for i in levels])})" if len(levels) > 1 else ""
    caption = [f"Each bank's SIG into one channel; the Pico selects the bank on B0-B3{several}."]
    tied = _tied(sheet, levels)
    if tied:
        caption.append("Channels with no bank are tied to GND: " + "; ".join(tied) + ".")
    return panel(pen, "The sensors: the second-level multiplexer", caption)


BLOCKS: tuple[Callable[[Sheet], Panel | None], ...] = (
    _power,
    _regulator,
    _pico,
    _bank,
    _levels,
    _leds,
    _buttons,
)


def draw(circuit: Circuit) -> tuple[list[Panel], Sheet]:
    """Every block of ``circuit`` drawn, and what the drawing shows (for its test)."""
    sheet = Sheet(circuit)
    panels = [panel for block in BLOCKS if (panel := block(sheet)) is not None]
    return panels, sheet


def _role(net: str | None) -> str | None:
    """What a net is, whichever instance it serves: M0.C3 and M2.C9 are both "M#.C#"."""
    return None if net is None else re.sub(r"\d+", "#", net)


def differences(circuit: Circuit, sheet: Sheet | None = None) -> list[str]:
    """Where the schematic and the circuit part: a drawn pin on another net than the
    circuit's, a joined pin not drawn, a part neither drawn nor stood for, an instance of a
    repeated block wired otherwise than the one drawn for it. Empty: they are one circuit."""
    if sheet is None:
        _, sheet = draw(circuit)
    found = []
    drawn = {node.ref for node in sheet.shown}
    for part in circuit.parts.values():
        drawn_as = sheet.stands_for.get(part.ref)
        if drawn_as is None and part.ref not in drawn:
            found.append(f"{part.ref} ({part.spec.name}) is not on the schematic")
            continue
        for pin in part.spec.pins:
            node = Node(part.ref, pin.name)
            net = circuit.where.get(node)
            if node in sheet.shown:
                if sheet.shown[node] != net:
                    found.append(f"{node} is drawn on {sheet.shown[node]}, but is on {net}")
            elif drawn_as is None:
                if net is not None:
                    found.append(f"{node} is on {net}, but not drawn")
            else:
                theirs = circuit.where.get(Node(drawn_as, pin.name))
                if _role(net) != _role(theirs):
                    found.append(
                        f"{node} is on {net}, but {drawn_as}.{pin.name}, drawn for it, "
                        f"is on {theirs}"
                    )
    return found


def schematic_svg(circuit: Circuit, title: str) -> str:
    """The whole sheet: the blocks in rows, each headed and captioned. ValueError when the
    drawing is not the circuit (a block this module does not know how to draw)."""
    panels, sheet = draw(circuit)
    wrong = differences(circuit, sheet)
    if wrong:
        raise ValueError("the schematic is not the circuit: " + "; ".join(wrong[:5]))
    items = [
        f'<text x="30" y="40" font-size="24" font-weight="bold">{escape(title)}</text>',
        '<text x="30" y="66" font-size="15">A flag (a pointed label) joins every wire with its '
        "name; a repeated block is drawn once, with its count. Pin numbers are the "
        "package's.</text>",
    ]
    x, y, row = 30.0, 96.0, 0.0
    for block in panels:
        width = max(block.width, 460.0)
        block.caption = [
            part for said in block.caption for part in textwrap.wrap(said, int(width / 7.8))
        ]
        text_h = 30 + 20 * len(block.caption)
        if x > 30 and x + width > WIDTH - 30:
            x, y, row = 30.0, y + row + GAP, 0.0
        items.append(
            f'<rect x="{x - 10:.0f}" y="{y - 10:.0f}" width="{width + 20:.0f}" '
            f'height="{block.height + text_h + 20:.0f}" fill="none" stroke="#b8a77a" rx="6"/>'
        )
        items.append(
            f'<text x="{x:.0f}" y="{y + 16:.0f}" font-size="18" font-weight="bold">'
            f"{escape(block.title)}</text>"
        )
        for k, words in enumerate(block.caption):
            items.append(
                f'<text x="{x:.0f}" y="{y + 40 + 20 * k:.0f}" font-size="14">{escape(words)}</text>'
            )
        inner = block.svg.replace("<svg ", f'<svg x="{x:.0f}" y="{y + text_h:.0f}" ', 1)
        items.append(inner)
        x += width + GAP + 20
        row = max(row, block.height + text_h + 20)
    height = y + row + 30
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height:.0f}" '
        f'viewBox="0 0 {WIDTH} {height:.0f}" font-family="DejaVu Sans, sans-serif">\n'
        '<rect width="100%" height="100%" fill="#ffffff"/>\n' + "\n".join(items) + "\n</svg>\n"
    )
