"""The schematic's pen: schemdraw's symbols placed for one circuit, each pin's net looked up
in the circuit as it is drawn (``Sheet.shown``), and a wire drawn only between pins the
circuit joins. The blocks themselves are drawn in circuit/schematic.py.

schemdraw is the board tools' extra (``board-referee[board]``), as magpylib is: a club's Pi
never draws a schematic.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from firmware_bridge.circuit import components as c
from firmware_bridge.circuit.model import Circuit, Node, Part, PartSpec, PinKind

GND = "GND"


MISSING = (
    "the schematic is drawn with schemdraw, the board tools' extra: "
    "pip install 'board-referee[board]' (or .venv/bin/pip install schemdraw)"
)


def schemdraw() -> Any:
    """The schemdraw module, or ImportError with what to install."""
    try:
        import schemdraw as sd
    except ImportError as exc:
        raise ImportError(MISSING) from exc
    sd.use("svg")
    return sd


@dataclass
class Panel:
    """One block of the sheet: its heading, what it stands for, and its drawing."""

    title: str
    caption: list[str]
    svg: str = ""
    width: float = 0.0
    height: float = 0.0


@dataclass
class Sheet:
    """A circuit being drawn, and what the drawing shows of it."""

    circuit: Circuit
    # each drawn pin: the net it shows (None: shown, or said, to be left unconnected)
    shown: dict[Node, str | None] = field(default_factory=dict)
    stands_for: dict[str, str] = field(default_factory=dict)  # undrawn ref -> drawn ref
    units: dict[str, dict[str, list[Part]]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for part in self.circuit.parts.values():
            kind, _, instance = part.unit.partition(":")
            self.units.setdefault(kind, {}).setdefault(instance, []).append(part)

    def net(self, part: Part, pin: str) -> str | None:
        """The pin's net (None: unconnected), recorded as shown."""
        net = self.circuit.where.get(Node(part.ref, pin))
        self.shown[Node(part.ref, pin)] = net
        return net

    def instances(self, kind: str) -> list[list[Part]]:
        return list(self.units.get(kind, {}).values())

    def drawn_once(self, kind: str) -> tuple[list[Part], list[list[Part]]]:
        """A repeated block's first instance, drawn; the others stand for it part by part."""
        found = self.instances(kind)
        if not found:
            return [], []
        first, rest = found[0], found[1:]
        for other in rest:
            for mine, theirs in zip(other, first, strict=True):
                if mine.spec is not theirs.spec:
                    raise ValueError(f"{mine.ref} is not the same part as {theirs.ref}")
                self.stands_for[mine.ref] = theirs.ref
        return first, found

    def rail(self, net: str) -> bool:
        """A supply net (drawn as a supply symbol): one with a power pin on it."""
        return any(
            self.circuit.kind(node) in (PinKind.POWER_IN, PinKind.POWER_OUT)
            for node in self.circuit.nets.get(net, ())
        )


def refs(parts: list[Part]) -> str:
    """U3, U6, U9 … as a person reads a run of references: 'U3-U9 (every third)' is too
    clever; list up to six, then the first and last."""
    names = [p.ref for p in parts]
    return ", ".join(names) if len(names) <= 6 else f"{', '.join(names[:3])} … {names[-1]}"


class Pen:
    """schemdraw's drawing, and the sheet it records into."""

    def __init__(self, sheet: Sheet) -> None:
        self.sd = schemdraw()
        self.e = self.sd.elements
        self.sheet = sheet
        self.d = self.sd.Drawing(show=False)
        self.d.config(fontsize=13, unit=2.4, lw=1.6)

    def add(self, element: Any) -> Any:
        return self.d.add(element)

    # -- how a pin meets its net --------------------------------------------------------
    def end(self, part: Part, pin: str, at: Any, way: str, length: float = 0.5) -> None:
        """Where a pin's net goes on (another block, a supply, ground): a short wire out of
        the pin, then ground, a supply symbol or a flag with the net's name; a pin on no
        net gets the no-connect cross."""
        e = self.e
        net = self.sheet.net(part, pin)
        if net is None:
            self.add(e.NoConnect().at(at))
            return
        wire = self.add(self.line(at, way, length))
        self.net_symbol(net, wire.end, way)

    def line(self, at: Any, way: str, length: float) -> Any:
        """A straight wire from ``at`` towards ``way`` (not yet added)."""
        return getattr(self.e.Line(), way)().at(at).length(length)

    def wire(self, a: tuple[Part, str], b: tuple[Part, str], start: Any, end: Any) -> None:
        """A wire between two pins the circuit joins (refused between two it does not)."""
        one, two = self.sheet.net(*a), self.sheet.net(*b)
        if one is None or one != two:
            raise ValueError(f"{a[0].ref}.{a[1]} and {b[0].ref}.{b[1]} are not on one net")
        self.add(self.e.Wire("-|").at(start).to(end))

    # -- symbols ---------------------------------------------------------------------------
    def two(self, part: Part, way: str, at: Any) -> Any:
        """A two-pin part from pin 1 (``at``) towards ``way``, labelled with its reference and
        value; both its pins recorded (their wires are the caller's)."""
        e = self.e
        spec = part.spec
        symbol: Any
        if spec is c.RESISTOR:
            symbol = e.Resistor()
        elif spec in (c.CAP_10U, c.CAP_1000U):  # electrolytic: pin 1 is +
            symbol = e.Capacitor(polar=True)
        elif spec.ref_prefix == "C":
            symbol = e.Capacitor()
        elif spec.price == "fuse":
            symbol = e.Fuse()
        elif spec is c.BUTTON:
            symbol = e.Button()
        elif spec is c.SENSORS["reed"]:
            symbol = e.SwitchReed()
        else:
            raise ValueError(f"{part.ref} ({spec.name}) is not a two-pin symbol")
        value = part.value or spec.name
        label = part.ref if value in ("reed switch", "push button") else f"{part.ref}\n{value}"
        symbol = getattr(symbol, way)().at(at).label(label, fontsize=12)
        for pin in ("1", "2"):
            self.sheet.net(part, pin)
        return self.add(symbol)

    def chip(
        self,
        part: Part,
        sides: dict[str, str],
        *,
        at: Any = None,
        anchor: str = "center",
        label: str = "center",
    ) -> Any:
        """A chip as a box with its pins (``sides``: pin name -> L, R, T or B, each side read
        top to bottom or left to right; a pin not named goes on the left), each with its
        number, and its reference and part number beneath."""
        e = self.e
        named = [p.name for p in part.spec.pins]
        order = [*sides, *(n for n in named if n not in sides)]
        pins = []
        for side in "LRTB":
            here = [n for n in order if sides.get(n, "L") == side]
            if side in "LR":  # schemdraw stacks a side's pins from the bottom up
                here.reverse()
            for name in here:
                pin = part.spec.pin(name)
                pins.append(e.IcPin(name=name, pin=pin.number, side=side, anchorname=name))
        # A small chip's box is widened to hold its part number between its pins' names.
        wide = 1.4 if len(pins) > 8 else 1.4 + 0.16 * len(part.spec.name)
        box = e.Ic(pins=pins, pinspacing=0.8, edgepadW=wide, edgepadH=0.8, leadlen=0.5, lsize=12)
        box = box.theta(0)  # never the direction the drawing's last element took
        if at is not None:
            box = box.at(at).anchor(anchor)
        return self.add(box.label(f"{part.ref}\n{part.spec.name}", loc=label, fontsize=12))

    def shunt(self, part: Part, at: Any) -> Any:
        """A part from a supply net (pin 1) down to ground, standing at ``at``: a decoupling
        capacitor, a pull-down, the gate's resistor."""
        top = self.sheet.net(part, "1")
        assert top is not None
        e = self.e
        self.add(self.line(at, "up", 0.3))
        self.net_symbol(top, self.d.here)
        body = self.two(part, "down", at)
        bottom = self.sheet.net(part, "2")
        if bottom == GND:
            self.add(e.Ground().at(body.end))
        else:
            self.add(e.Line().down().at(body.end).length(0.3))
            self.net_symbol(bottom or "", self.d.here, "down")
        return body

    def net_symbol(self, net: str, at: Any, way: str = "up") -> None:
        """Ground, a supply symbol (pointing up) or a flag (any other way) for ``net``."""
        e = self.e
        if net == GND:
            self.add(e.Ground().at(at))
        elif self.sheet.rail(net) and way == "up":
            self.add(e.Vdd().at(at).label(net, fontsize=12))
        else:
            width = max(1.2, 0.2 * len(net) + 0.5)  # the flag fits its name
            self.add(getattr(e.Tag(width=width), way)().at(at).label(net, fontsize=12))

    def svg(self) -> tuple[str, float, float]:
        """The drawing as an <svg> element to nest, and its size in px."""
        raw = self.d.get_imagedata("svg").decode()
        raw = raw[raw.index("<svg") :]
        found = re.search(r'viewBox="([-\d.e ]+)"', raw)
        assert found is not None
        _, _, w, h = (float(v) for v in found.group(1).split())
        raw = re.sub(
            r'height="[\d.]+pt" width="[\d.]+pt"', f'height="{h:.0f}" width="{w:.0f}"', raw
        )
        return raw, w, h


def by_spec(parts: list[Part], spec: PartSpec) -> list[Part]:
    return [p for p in parts if p.spec is spec]


WAYS = {"L": "left", "R": "right", "T": "up", "B": "down"}


def panel(pen: Pen, title: str, caption: list[str]) -> Panel:
    panel = Panel(title, caption)
    panel.svg, panel.width, panel.height = pen.svg()
    return panel


def ends(pen: Pen, part: Part, box: Any, sides: dict[str, str], skip: tuple[str, ...] = ()) -> None:
    """Every pin of a drawn chip not wired in its block: its net's flag, supply or ground.
    Pins side by side on the top or bottom on one net share a bar and one symbol."""
    done: set[str] = set()
    for side, way, step in (("T", "up", 0.5), ("B", "down", -0.5)):
        by_net: dict[str, list[str]] = {}
        for name, on in sides.items():
            net = pen.sheet.circuit.where.get(Node(part.ref, name))
            if on == side and name not in skip and net is not None:
                by_net.setdefault(net, []).append(name)
        for net, names in by_net.items():
            if len(names) < 2:
                continue
            points = [box.absanchors[n] for n in names]
            y = points[0][1] + step
            for name, point in zip(names, points, strict=True):
                pen.sheet.net(part, name)
                pen.add(pen.e.Line().at(point).to((point[0], y)))
            xs = [point[0] for point in points]
            pen.add(pen.e.Line().at((min(xs), y)).to((max(xs), y)))
            pen.net_symbol(net, (min(xs), y), way)
            done.update(names)
    for side, step in (("L", -0.6), ("R", 0.6)):  # a run of pins to ground: one bar
        names = [n for n, on in sides.items() if on == side and n not in skip]
        run: list[str] = []
        for name in [*names, ""]:
            if name and pen.sheet.circuit.where.get(Node(part.ref, name)) == GND:
                run.append(name)
                continue
            if len(run) > 2:
                points = [box.absanchors[n] for n in run]
                x = points[0][0] + step
                for pin, point in zip(run, points, strict=True):
                    pen.sheet.net(part, pin)
                    pen.add(pen.e.Line().at(point).to((x, point[1])))
                low = min(point[1] for point in points)
                pen.add(pen.e.Line().at((x, max(point[1] for point in points))).to((x, low)))
                pen.add(pen.e.Ground().at((x, low)))
                done.update(run)
            run = []
    for name, side in sides.items():
        if name not in skip and name not in done:
            pen.end(part, name, box.absanchors[name], WAYS[side], 0.6 if side in "LR" else 0.4)
