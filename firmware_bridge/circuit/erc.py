"""The electrical rules check: what an engineer looks for in a schematic before anything is
soldered, run over the circuit the code works out (``board.py``).

- every pin that must be connected is;
- no net driven by two outputs (or two supplies);
- every power pin powered, at a voltage its part takes, and every ground on the one ground;
- no floating input: each is driven, tied, or pulled;
- exactly one pull per signal pin of the Pico: one resistor, or the pad's own pull where the
  firmware switches it on and no resistor is fitted (never a resistor each breakout, never a
  pad pull against the resistor);
- nothing above 3.3 V on an RP2040 pin, and nothing above a CMOS part's supply on its inputs.

Voltages are worked out as an engineer would on paper: each supply's voltage, each output's
high level (its part's supply, or the ceiling its datasheet gives), carried along everything
that conducts (resistors, switches, the multiplexers' channels, fuses, diodes).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from firmware_bridge.circuit.model import Circuit, Node, PinKind

PICO_MAX_V = 3.3
TOLERANCE_V = 0.05
DRIVERS = (PinKind.OUTPUT, PinKind.POWER_OUT)
MAY_BE_LEFT = (PinKind.FREE, PinKind.OUTPUT, PinKind.OPEN_DRAIN, PinKind.POWER_OUT)


@dataclass(frozen=True, slots=True)
class Problem:
    rule: str
    text: str

    def __str__(self) -> str:
        return f"{self.rule}: {self.text}"


def edges(circuit: Circuit) -> Iterator[tuple[Node, Node, bool]]:
    """Every way a part conducts DC: (from, to, carries a supply)."""
    for a, b, strong, _ in drops(circuit):
        yield a, b, strong


def drops(circuit: Circuit) -> Iterator[tuple[Node, Node, bool, float]]:
    """Every way a part conducts DC, with the volts it drops at its worst current."""
    for part in circuit.parts.values():
        for conduction in part.spec.conducts:
            nodes = [Node(part.ref, pin) for pin in conduction.pins]
            if conduction.one_way:
                for other in nodes[1:]:
                    yield nodes[0], other, conduction.strong, conduction.drop
            else:
                for a in nodes:
                    for b in nodes:
                        if a != b:
                            yield a, b, conduction.strong, conduction.drop


def supplies(circuit: Circuit, least: bool = False) -> dict[str, float]:
    """Each powered net's voltage: a supply's pin on it, or carried by a fuse, a MOSFET, a
    diode or a load switch from one (``least``: the lowest each supply sags to). Ground nets
    are 0."""
    nets = circuit.pin_nets()
    volts: dict[str, float] = {}
    for part, pin in circuit.pins():
        net = nets.get(Node(part.ref, pin.name))
        if net is None:
            continue
        if pin.kind is PinKind.POWER_OUT and pin.volts is not None:
            given = pin.least if least and pin.least is not None else pin.volts
            volts[net] = max(volts.get(net, 0.0), given)
        elif pin.kind is PinKind.GROUND:
            volts.setdefault(net, 0.0)
    strong = [(nets.get(a), nets.get(b), drop)
              for a, b, is_strong, drop in drops(circuit) if is_strong]  # fmt: skip
    changed = True
    while changed:
        changed = False
        for a, b, drop in strong:
            if a in volts and b is not None and b not in volts:
                # At its least, a supply carried through a part arrives less what it drops
                # there (a load switch's on-resistance at the LEDs' current).
                volts[b] = round(volts[a] - (drop if least else 0.0), 3)
                changed = True
    return volts


def highest(circuit: Circuit, power: dict[str, float]) -> dict[str, float]:
    """The highest voltage each net can see."""
    nets = circuit.pin_nets()
    top = dict(power)
    for part, pin in circuit.pins():
        net = nets.get(Node(part.ref, pin.name))
        if net is None or pin.kind is not PinKind.OUTPUT:
            continue
        spec = part.spec
        rail = nets.get(Node(part.ref, spec.supply_pin)) if spec.supply_pin else None
        level = power.get(rail, 0.0) if rail else 0.0
        if spec.output_max is not None:
            level = min(level, spec.output_max)
        top[net] = max(top.get(net, 0.0), level)
    links = [(nets.get(a), nets.get(b)) for a, b, _ in edges(circuit)]
    changed = True
    while changed:
        changed = False
        for a, b in links:
            if a is None or b is None or a not in top or b in power:
                continue  # a supplied net (a rail, ground) holds its voltage
            if top[a] > top.get(b, 0.0) + 1e-9:
                top[b] = top[a]
                changed = True
    return top


def pulls(circuit: Circuit, net: str, power: dict[str, float]) -> list[tuple[str, str]]:
    """The resistors pulling ``net`` to a supply or ground: (ref, up or down)."""
    found = []
    members = circuit.nets.get(net, [])
    nets = circuit.pin_nets()
    for node in members:
        part = circuit.parts[node.ref]
        if part.spec.ref_prefix != "R":
            continue
        other = next(p.name for p in part.spec.pins if p.name != node.pin)
        far = nets.get(Node(part.ref, other))
        if far is not None and far in power and far != net:
            found.append((part.ref, "up" if power[far] > 0 else "down"))
    return found


def net_links(circuit: Circuit) -> dict[str, set[str]]:
    """Which nets conduct to which (through any part that conducts)."""
    nets = circuit.pin_nets()
    links: dict[str, set[str]] = {}
    for a, b, _ in edges(circuit):
        net_a, net_b = nets.get(a), nets.get(b)
        if net_a is not None and net_b is not None:
            links.setdefault(net_a, set()).add(net_b)
    return links


def driven(
    circuit: Circuit, net: str, power: dict[str, float], node: Node, links: dict[str, set[str]]
) -> bool:
    """Whether ``net`` is driven, tied or pulled: an output or a supply on it, or on a net that
    conducts to it (a series resistor, a pull resistor, a multiplexer's channel)."""
    seen, todo = {net}, [net]
    while todo:
        here = todo.pop()
        if here in power:
            return True
        if any(circuit.kind(n) in DRIVERS for n in circuit.nets[here] if n != node):
            return True
        for there in links.get(here, ()):
            if there not in seen:
                seen.add(there)
                todo.append(there)
    return False


def check(circuit: Circuit) -> list[Problem]:
    """Every rule broken, each named with the parts and the net."""
    problems: list[Problem] = []
    net: str | None
    nets = circuit.pin_nets()
    power = supplies(circuit)
    low = supplies(circuit, least=True)  # each rail at its minimum: a USB board's sag
    top = highest(circuit, power)
    links = net_links(circuit)

    for part, pin in circuit.pins():
        node = Node(part.ref, pin.name)
        if node not in nets and pin.kind not in MAY_BE_LEFT:
            problems.append(
                Problem(
                    "unconnected",
                    f"{node} ({pin.kind.value}, {part.note or part.spec.name}) "
                    "is connected to nothing",
                )
            )

    for net, members in circuit.nets.items():
        drivers = [n for n in members if circuit.kind(n) in DRIVERS]
        if len(drivers) > 1:
            problems.append(
                Problem("driven twice", f"{net} is driven by {', '.join(map(str, drivers))}")
            )

    grounds = {
        nets[Node(part.ref, pin.name)]
        for part, pin in circuit.pins()
        if pin.kind is PinKind.GROUND and Node(part.ref, pin.name) in nets
    }
    if len(grounds) > 1:
        problems.append(
            Problem("unpowered", f"the grounds are on separate nets: {', '.join(sorted(grounds))}")
        )
    for part, pin in circuit.pins():
        node = Node(part.ref, pin.name)
        net = nets.get(node)
        if pin.kind is not PinKind.POWER_IN or net is None:
            continue
        if net not in power or power[net] <= 0:
            problems.append(
                Problem(
                    "unpowered", f"{node} ({part.spec.name}) is on {net}, which no supply feeds"
                )
            )
        elif pin.takes and not pin.takes[0] <= low.get(net, 0.0) <= power[net] <= pin.takes[1]:
            least = low.get(net, 0.0)
            carries = (f"{power[net]:g} V" if least == power[net]
                       else f"{least:g}-{power[net]:g} V (its least under load)")  # fmt: skip
            problems.append(
                Problem(
                    "unpowered",
                    f"{node} ({part.spec.name}) takes {pin.takes[0]:g}-{pin.takes[1]:g} V; "
                    f"{net} carries {carries}",
                )
            )

    for part, pin in circuit.pins():
        node = Node(part.ref, pin.name)
        net = nets.get(node)
        if net is None or pin.kind not in (PinKind.INPUT, PinKind.ANALOG_IN, PinKind.SIGNAL):
            continue
        members = circuit.nets[net]
        if pin.kind is PinKind.SIGNAL:
            if len(members) < 2 and net not in power:
                problems.append(
                    Problem(
                        "floating input",
                        f"{node} ({part.note or part.spec.name}) is on {net} alone: "
                        "tie an unused input to ground",
                    )
                )
            continue
        if not driven(circuit, net, power, node, links) and node not in circuit.pad_pulls:
            problems.append(
                Problem(
                    "floating input",
                    f"{node} ({part.spec.name}) on {net} is neither driven, tied nor pulled",
                )
            )

    for net, members in circuit.nets.items():
        open_drains = [n for n in members if circuit.kind(n) is PinKind.OPEN_DRAIN]
        if open_drains and not pulls(circuit, net, power):
            problems.append(
                Problem("floating input", f"{net}: the open-drain {open_drains[0]} has no pull-up")
            )

    pico = circuit.pico()
    for pin in pico.spec.pins:
        node = Node(pico.ref, pin.name)
        net = nets.get(node)
        if net is None:
            continue
        if pin.kind in (PinKind.INPUT, PinKind.ANALOG_IN):
            found = pulls(circuit, net, power)
            pad = circuit.pad_pulls.get(node)
            if len(found) > 1:
                problems.append(
                    Problem(
                        "pulls",
                        f"{net} ({node}) has {len(found)} pull resistors, "
                        f"{', '.join(r for r, _ in found)}: one a line, never one a breakout",
                    )
                )
            elif not found and pad is None:
                problems.append(
                    Problem("pulls", f"{net} ({node}) has no pull: it floats between readings")
                )
            elif found and pad is not None and pad != found[0][1]:
                problems.append(
                    Problem(
                        "pulls",
                        f"{net} ({node}): the pad's pull-{pad} fights "
                        f"{found[0][0]}'s pull-{found[0][1]}",
                    )
                )
        if pin.name.startswith("GP") and top.get(net, 0.0) > PICO_MAX_V + TOLERANCE_V:
            problems.append(
                Problem(
                    "over 3.3 V",
                    f"{net} reaches {top[net]:.1f} V at the Pico's {pin.name} (3.3 V at most)",
                )
            )

    above: dict[str, list[str]] = {}  # net -> the parts it overdrives
    for part in circuit.parts.values():
        if part.spec.inputs_max is None:
            continue
        rail = nets.get(Node(part.ref, part.spec.inputs_max))
        limit = power.get(rail or "", 0.0)
        for pin in part.spec.pins:
            net = nets.get(Node(part.ref, pin.name))
            if pin.kind not in (PinKind.INPUT, PinKind.SIGNAL) or net is None:
                continue
            if top.get(net, 0.0) > limit + TOLERANCE_V and part.ref not in above.get(net, []):
                above.setdefault(net, []).append(part.ref)
    for net, refs in above.items():
        problems.append(
            Problem(
                "over 3.3 V",
                f"{net} reaches {top[net]:.1f} V at {', '.join(refs)}, above their supply",
            )
        )
    return problems


def report(circuit: Circuit, problems: list[Problem]) -> str:
    """The check's result (``check(circuit)``) for a person: each problem on a line, or that
    there is none."""
    parts = len(circuit.parts)
    head = f"electrical rules check of {circuit.name}: {parts} parts, {len(circuit.nets)} nets"
    if not problems:
        return head + ": no problem found\n"
    return head + f": {len(problems)} problem(s)\n" + "".join(f"  {p}\n" for p in problems)
