"""What ``firmware circuit`` writes from a circuit: a netlist KiCad reads (to lay out a
printed board from), and a bill of materials with part numbers, quantities and prices."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable

from engine import Game
from firmware_bridge.circuit.model import Circuit, Node, Part, PinKind
from firmware_bridge.link.profile import BoardProfile
from firmware_bridge.physics.materials import OFF_THE_CIRCUIT, PRICED, PRICES, parts_list

# KiCad's names for the pin kinds (its netlist's pintype).
PINTYPES = {
    PinKind.INPUT: "input",
    PinKind.OUTPUT: "output",
    PinKind.OPEN_DRAIN: "open_collector",
    PinKind.ANALOG_IN: "input",
    PinKind.SIGNAL: "bidirectional",
    PinKind.PASSIVE: "passive",
    PinKind.POWER_IN: "power_in",
    PinKind.POWER_OUT: "power_out",
    PinKind.GROUND: "power_in",
    PinKind.FREE: "unspecified",
}


def _q(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def ref_key(ref: str) -> tuple[str, int]:
    prefix = ref.rstrip("0123456789")
    return prefix, int(ref[len(prefix) :] or 0)


def kicad_netlist(circuit: Circuit, source: str) -> str:
    """The circuit in KiCad's netlist format (S-expressions, version E): File > Import >
    Netlist in KiCad's PCB editor places every part's footprint with its connections."""
    lines = [
        '(export (version "E")',
        f'  (design (source {_q(source)}) (tool "board-referee firmware circuit"))',
        "  (components",
    ]
    for part in sorted(circuit.parts.values(), key=lambda p: ref_key(p.ref)):
        value = part.value or part.spec.name
        lines.append(
            f"    (comp (ref {_q(part.ref)}) (value {_q(value)}) "
            f"(footprint {_q(part.spec.footprint)}) "
            f"(description {_q(part.spec.describe)}) "
            f'(fields (field (name "Note") {_q(part.note)})) '
            f'(libsource (lib "board-referee") (part {_q(part.spec.name)}) '
            f"(description {_q(part.spec.describe)})))"
        )
    lines += ["  )", "  (nets"]
    for code, (name, nodes) in enumerate(sorted(circuit.nets.items()), 1):
        lines.append(f'    (net (code "{code}") (name {_q(name)})')
        for node in sorted(nodes, key=lambda n: (ref_key(n.ref), n.pin)):
            pin = circuit.parts[node.ref].spec.pin(node.pin)
            lines.append(
                f"      (node (ref {_q(node.ref)}) (pin {_q(pin.number)}) "
                f'(pinfunction {_q(pin.name)}) (pintype "{PINTYPES[pin.kind]}"))'
            )
        lines.append("    )")
    lines += ["  )", ")"]
    return "\n".join(lines) + "\n"


def connections_text(circuit: Circuit) -> str:
    """Every net and what is on it, for a person with a soldering iron."""
    rows = []
    for name, nodes in sorted(circuit.nets.items()):
        where = ", ".join(
            _say(circuit, node) for node in sorted(nodes, key=lambda n: (ref_key(n.ref), n.pin))
        )
        rows.append(f"{name}: {where}")
    return "\n".join(rows) + "\n"


def _say(circuit: Circuit, node: Node) -> str:
    part = circuit.parts[node.ref]
    pin = part.spec.pin(node.pin)
    return f"{node.ref}.{pin.name} (pin {pin.number})"


def _groups(circuit: Circuit) -> list[list[Part]]:
    groups: dict[tuple[str, str, str], list[Part]] = {}
    for part in sorted(circuit.parts.values(), key=lambda p: ref_key(p.ref)):
        groups.setdefault((part.spec.name, part.value, part.spec.describe), []).append(part)
    return list(groups.values())


def _refs(parts: Iterable[Part]) -> str:
    """U2-U6 for a run of references, listed otherwise."""
    keys = [ref_key(p.ref) for p in parts]
    said: list[str] = []
    start = previous = keys[0]
    for key in [*keys[1:], ("", -1)]:
        if key[0] == previous[0] and key[1] == previous[1] + 1:
            previous = key
            continue
        first, last = f"{start[0]}{start[1]}", f"{previous[0]}{previous[1]}"
        said.append(first if start == previous else f"{first}-{last}")
        start = previous = key
    return " ".join(said)


def bom_rows(circuit: Circuit, profile: BoardProfile, game: Game) -> list[dict[str, str]]:
    """The bill of materials: the circuit's parts grouped by part and value, then the parts
    list's lines that are not on the circuit (magnets, wood, wire, the supply, the cable)."""
    rows = []
    listed = {line.part: line.unit for line in parts_list(profile, game)}  # the build's own
    for group in _groups(circuit):
        spec = group[0].spec
        unit = listed.get(spec.price, PRICES[spec.price][0]) if spec.price else 0.0
        rows.append(
            {
                "refs": _refs(group),
                "quantity": str(len(group)),
                "part": spec.name,
                "value": group[0].value,
                "description": spec.describe,
                "footprint": spec.footprint,
                "unit_eur": f"{unit:.2f}",
                "cost_eur": f"{unit * len(group):.2f}",
            }
        )
    for line in parts_list(profile, game):
        if line.part in OFF_THE_CIRCUIT:
            rows.append(
                {
                    "refs": "",
                    "quantity": f"{line.quantity:g}",
                    "part": line.part,
                    "value": "",
                    "description": f"{line.what}; {line.note}".rstrip("; "),
                    "footprint": "",
                    "unit_eur": f"{line.unit:.2f}",
                    "cost_eur": f"{line.cost:.2f}",
                }
            )
    return rows


def bom_csv(circuit: Circuit, profile: BoardProfile, game: Game) -> str:
    rows = bom_rows(circuit, profile, game)
    out = io.StringIO()
    fields = [
        "refs",
        "quantity",
        "part",
        "value",
        "description",
        "footprint",
        "unit_eur",
        "cost_eur",
        "priced",
    ]
    writer = csv.DictWriter(out, fieldnames=fields, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({**row, "priced": PRICED})
    cost = sum(float(row["cost_eur"]) for row in rows)
    writer.writerow(
        {
            "refs": "",
            "quantity": "",
            "part": "total",
            "value": "",
            "description": "estimate: typical small-quantity prices, check before "
            "ordering; pieces not included",
            "footprint": "",
            "unit_eur": "",
            "cost_eur": f"{cost:.2f}",
            "priced": PRICED,
        }
    )
    return out.getvalue()
