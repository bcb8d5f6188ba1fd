"""A circuit: parts with typed pins, and the nets that join them.

Small on purpose: what the rules check needs (each pin's kind, which pins of a part conduct,
what an output or a supply puts out) and what the netlist, the parts list and the schematic
print. Parts are described once (``PartSpec``) and placed as often as a board needs them.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from enum import Enum


class PinKind(Enum):
    INPUT = "input"  # a logic input: driven, tied or pulled, never left floating
    OUTPUT = "output"  # push-pull: two on one net fight
    OPEN_DRAIN = "open drain"  # pulls low only: needs a pull-up
    ANALOG_IN = "analog input"  # an ADC pin
    SIGNAL = "signal"  # an analogue switch's terminal (a multiplexer's channel or common)
    PASSIVE = "passive"  # a resistor's, a capacitor's, a switch's
    POWER_IN = "power in"
    POWER_OUT = "power out"
    GROUND = "ground"
    FREE = "free"  # may stay unconnected (an unused GPIO, a pin with its own pull inside)


@dataclass(frozen=True, slots=True)
class PinSpec:
    number: str
    name: str
    kind: PinKind
    volts: float | None = None  # a POWER_OUT pin's voltage
    least: float | None = None  # ... and the lowest it sags to (None: it holds ``volts``)
    takes: tuple[float, float] | None = None  # a POWER_IN pin's supply range, volts


@dataclass(frozen=True, slots=True)
class Conduction:
    """Pins a part joins for DC: current (and a voltage) passes between them. ``strong``: it
    carries a supply (a fuse, a MOSFET, a diode); a resistor or a sensor's switch does not.
    ``one_way``: only from the first pin to the others (a diode, a MOSFET's body)."""

    pins: tuple[str, ...]
    strong: bool = False
    one_way: bool = False
    drop: float = 0.0  # volts it drops at its worst current (what the least supply counts)


@dataclass(frozen=True, slots=True)
class PartSpec:
    name: str  # the part number, as ordered: CD74HC4067
    describe: str
    ref_prefix: str  # U, R, C, D, SW, Q, F, J
    pins: tuple[PinSpec, ...]
    footprint: str  # KiCad's library:footprint, for a netlist a PCB can be laid out from
    price: str | None = None  # a key of physics/materials.py's PRICES; None: no cost of its own
    conducts: tuple[Conduction, ...] = ()
    # What its outputs reach: the voltage on this pin's net (a CMOS part's supply), capped by
    # ``output_max`` where the datasheet caps it (a DRV5053's output stays under 1.8 V).
    supply_pin: str | None = None
    output_max: float | None = None
    inputs_max: str | None = None  # its inputs may not go above this pin's supply (CMOS)

    def pin(self, name: str) -> PinSpec:
        for pin in self.pins:
            if pin.name == name:
                return pin
        raise KeyError(f"{self.name} has no pin {name}")


@dataclass(slots=True)
class Part:
    ref: str
    spec: PartSpec
    value: str = ""
    note: str = ""  # where it goes, for a person: "cell c4", "the SIG line's pull-down"
    # The repeated block it belongs to, as "kind:instance" ("cell:c4", "led:3"): the
    # schematic draws a kind's first instance once, with its count, for all of them.
    unit: str = ""


@dataclass(frozen=True, slots=True)
class Node:
    """One pin of one part: ``U1.GP26``."""

    ref: str
    pin: str

    def __str__(self) -> str:
        return f"{self.ref}.{self.pin}"


@dataclass(slots=True)
class Circuit:
    """Parts and nets. ``pad_pulls``: the RP2040 pads whose own pull the firmware switches on
    (``up`` or ``down``), which count as a pull of their net."""

    name: str
    parts: dict[str, Part] = field(default_factory=dict)
    nets: dict[str, list[Node]] = field(default_factory=dict)
    pad_pulls: dict[Node, str] = field(default_factory=dict)
    counters: dict[str, int] = field(default_factory=dict)
    where: dict[Node, str] = field(default_factory=dict)  # each joined pin's net

    def add(self, spec: PartSpec, value: str = "", note: str = "", unit: str = "") -> Part:
        number = self.counters.get(spec.ref_prefix, 0) + 1
        self.counters[spec.ref_prefix] = number
        part = Part(f"{spec.ref_prefix}{number}", spec, value, note, unit)
        self.parts[part.ref] = part
        return part

    def connect(self, net: str, *pins: tuple[Part, str]) -> None:
        """Join the named pins to ``net`` (a pin joins one net only)."""
        nodes = self.nets.setdefault(net, [])
        for part, name in pins:
            part.spec.pin(name)  # a pin the part has
            node = Node(part.ref, name)
            found = self.where.get(node)
            if found is not None:
                raise ValueError(f"{node} is on {found} already; not also on {net}")
            nodes.append(node)
            self.where[node] = net

    def pico(self) -> Part:
        """The board's Pico (every circuit has one)."""
        return next(part for part in self.parts.values() if part.spec.price == "pico")

    def pin_nets(self) -> dict[Node, str]:
        return self.where

    def pins(self) -> Iterator[tuple[Part, PinSpec]]:
        for part in self.parts.values():
            for pin in part.spec.pins:
                yield part, pin

    def kind(self, node: Node) -> PinKind:
        return self.parts[node.ref].spec.pin(node.pin).kind
