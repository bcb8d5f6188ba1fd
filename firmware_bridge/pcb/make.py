"""``firmware pcb``: a board's printed circuit board, made from its circuit.

The circuit (circuit/board.py) gives the parts and nets; the layout places them from the
profile's geometry and build; the router puts every net in copper; KiCad builds the board,
fills its ground planes, checks it (its own design rules check) and plots its fabrication
files. A board whose pads are not on the circuit's nets, pin by pin as the netlist says, is
never written; nor is one KiCad finds a fault in.
"""

from __future__ import annotations

import csv
import io
import re
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine import Game
from firmware_bridge.circuit import components as c
from firmware_bridge.circuit.board import board_circuit
from firmware_bridge.circuit.model import Circuit
from firmware_bridge.circuit.outputs import kicad_netlist, ref_key
from firmware_bridge.link.profile import BoardProfile
from firmware_bridge.link.wiring import rail_3v3
from firmware_bridge.pcb import kicad
from firmware_bridge.pcb.fab import JLCPCB, Design, Fab, track_width
from firmware_bridge.pcb.layout import MOUNTING_HOLE, Layout, lay_out
from firmware_bridge.pcb.route import Grid, Pad, Routed, RouteError, Router, Rules
from firmware_bridge.physics.stackup import parse_build

ORIGIN = 10.0  # mm: the board's north-west corner on KiCad's sheet
GND = "GND"


class PcbError(RuntimeError):
    """A PCB that is not the circuit, or that KiCad's check finds a fault in."""


@dataclass(frozen=True, slots=True)
class Result:
    profile: str
    width: float
    height: float
    files: dict[str, Path]
    violations: int
    unconnected: int
    tracks: int
    vias: int
    price_usd: float
    fab: Fab

    def summary(self) -> str:
        return (
            f"{self.profile}: {self.width:.0f} x {self.height:.0f} mm, two layers, "
            f"{self.tracks} tracks, {self.vias} vias; KiCad's check: {self.violations} "
            f"violations, {self.unconnected} unconnected pads; five from {self.fab.name}: "
            f"about US${self.price_usd:.0f}"
        )


def supply_widths(circuit: Circuit, profile: BoardProfile) -> dict[str, float]:
    """Tracks that carry a supply's current, as wide as IPC-2221 wants for it (10 °C): the
    supply's whole current on the power entry's nets, the LED budget on the LEDs' 5 V."""
    design = Design()
    wiring = profile.pico
    assert wiring is not None
    leds = profile.led_count
    sensors = len(profile.sensor_cells)
    budget_a = max(wiring.power.budget(sensors, leds), 0) / 1000
    supply_a = wiring.power.supply_ma / 1000
    widths: dict[str, float] = {}
    for net in ("5V_IN", "5V_FUSED", "5V", "VBUS", "LED_5V"):
        if net in circuit.nets:
            amps = budget_a if net == "LED_5V" else supply_a
            widths[net] = max(design.track, track_width(amps))
    _, regulator = rail_3v3(wiring, sensors)
    if regulator and "SENSOR_3V3" in circuit.nets:
        widths["SENSOR_3V3"] = max(
            design.track, track_width(sensors * wiring.power.sensor_ma / 1000)
        )
    return {net: min(width, 1.0) for net, width in widths.items()}  # the router's widest


def _pads(layout: Layout) -> tuple[dict[str, list[Pad]], list[Pad]]:
    nets: dict[str, list[Pad]] = {}
    loose: list[Pad] = []
    for part in (*layout.parts, *layout.holes):
        for pad in part.pads:
            if pad.net is None:
                loose.append(pad)
            else:
                nets.setdefault(pad.net, []).append(pad)
    return nets, loose


def _order(nets: dict[str, list[Pad]], widths: dict[str, float]) -> list[str]:
    """Supplies first (they need the room), then the longest nets, ground last (its planes
    help it round what is in the way)."""

    def span(name: str) -> float:
        xs = [p.centre[0] for p in nets[name]]
        ys = [p.centre[1] for p in nets[name]]
        return max(xs) - min(xs) + max(ys) - min(ys)

    rest = sorted((n for n in nets if n not in widths and n != GND), key=span)
    return sorted(widths, key=span, reverse=True) + rest + ([GND] if GND in nets else [])


def netlist_pins(text: str) -> dict[str, str]:
    """``ref.pin`` -> net, from the netlist ``firmware circuit`` writes."""
    found: dict[str, str] = {}
    for block in re.finditer(r'\(net \(code "\d+"\) \(name "((?:[^"\\]|\\.)*)"\)(.*?)\n    \)',
                             text, re.S):  # fmt: skip
        for ref, pin in re.findall(r'\(node \(ref "([^"]+)"\) \(pin "([^"]+)"\)', block.group(2)):
            found[f"{ref}.{pin}"] = block.group(1)
    return found


def _require() -> None:
    """numpy (the router) and Pillow (the pictures): the board tools' extra."""
    for module in ("numpy", "PIL"):
        try:
            __import__(module)
        except ImportError:
            raise PcbError(
                f"firmware pcb needs {module}: pip install 'board-referee[board]' "
                "(make test installs it)"
            ) from None


def make_pcb(profile: BoardProfile, game: Game, out: Path, *, fab: Fab = JLCPCB) -> Result:
    _require()
    stack = parse_build(profile)
    circuit = board_circuit(profile, game)
    design = Design()
    fpids = sorted({part.spec.footprint for part in circuit.parts.values()} | {MOUNTING_HOLE})
    library = kicad.footprints(fpids)
    layout = lay_out(circuit, profile, game, stack, library, design.pitch)
    if not fab.fits(layout.width, layout.height):
        raise PcbError(
            f"{profile.id}'s board is {layout.width:.0f} x {layout.height:.0f} mm, larger than "
            f"{fab.name}'s largest ({fab.largest[0]:.0f} x {fab.largest[1]:.0f} mm)"
        )
    nets, loose = _pads(layout)
    widths = supply_widths(circuit, profile)
    rules = Rules(design.pitch, design.clearance, design.track, fab.via_diameter,
                  design.edge_clearance)  # fmt: skip
    grid = Grid(layout.width, layout.height, rules, loose)
    try:
        routed = Router(grid).route(nets, widths, _order(nets, widths))
    except RouteError as error:
        raise PcbError(f"{profile.id}: {error}") from error
    if routed.failed:
        raise PcbError(f"{profile.id}: the router could not finish " + "; ".join(routed.failed[:6]))
    netlist = kicad_netlist(circuit, f"{profile.id}.yaml")
    out.mkdir(parents=True, exist_ok=True)
    request = _request(profile, layout, nets, routed, fab, design, out)
    answer = kicad.run("build", request)
    _same_as_circuit(netlist_pins(netlist), answer["pad_nets"], profile.id)
    files = _write(profile, game, circuit, layout, answer, out, netlist)
    result = Result(
        profile.id, layout.width, layout.height, files, answer["violations"],
        answer["unconnected"], len(routed.tracks), len(routed.vias),
        fab.price_five(layout.width, layout.height), fab,
    )  # fmt: skip
    if result.violations or result.unconnected:
        raise PcbError(
            f"{profile.id}: KiCad's check found {result.violations} violations and "
            f"{result.unconnected} unconnected pads (its report: {answer['report']})"
        )
    return result


def _request(  # noqa: PLR0917
    profile: BoardProfile,
    layout: Layout,
    nets: dict[str, list[Pad]],
    routed: Routed,
    fab: Fab,
    design: Design,
    out: Path,
) -> dict[str, Any]:
    w, h = layout.width, layout.height

    def moved(x: float, y: float) -> tuple[float, float]:
        return round(x + ORIGIN, 4), round(y + ORIGIN, 4)

    footprints = []
    for part in (*layout.parts, *layout.holes):
        footprints.append({
            "ref": part.ref, "fpid": part.fpid, "value": part.value, "rot": part.rot,
            "x": moved(part.x, part.y)[0], "y": moved(part.x, part.y)[1],
            "pads": {pad.number: pad.net for pad in part.pads if pad.net},
            "where": [moved(*pad.centre) for pad in part.pads],
        })  # fmt: skip
    outline = [moved(0, 0), moved(w, 0), moved(w, h), moved(0, h)]
    inset = design.edge_clearance
    zone = [moved(inset, inset), moved(w - inset, inset), moved(w - inset, h - inset),
            moved(inset, h - inset)]  # fmt: skip
    return {
        "name": profile.id,
        "out": str(out),
        "nets": sorted(nets),
        "outline": outline,
        "footprints": footprints,
        "tracks": [(*moved(x1, y1), *moved(x2, y2), width, layer, net)
                   for x1, y1, x2, y2, width, layer, net in routed.tracks],
        "vias": [(*moved(x, y), net) for x, y, net in routed.vias],
        "zones": [{"layer": layer, "net": GND, "outline": zone, "clearance": 0.3,
                   "min_width": 0.25, "thermal_gap": 0.4, "spoke": 0.4}
                  for layer in ("F", "B")],
        "texts": [{**text, "x": moved(float(str(text["x"])), 0)[0],
                   "y": moved(0, float(str(text["y"])))[1]} for text in layout.texts],
        "fab": {
            "clearance": design.clearance, "track": design.track,
            "via_diameter": fab.via_diameter, "via_drill": fab.via_drill,
            "least_track": fab.least_track, "least_space": fab.least_space,
            "annular_ring": fab.annular_ring, "least_drill": fab.least_drill,
            "edge_clearance": fab.edge_clearance, "hole_to_hole": fab.hole_to_hole,
            "hole_clearance": 0.25,
        },
    }  # fmt: skip


def _same_as_circuit(netlist: dict[str, str], board: dict[str, str], profile: str) -> None:
    """Every pin of the netlist on its net on the board, and no pad on a net the netlist does
    not give it."""
    wrong = [f"{pin}: {board.get(pin, 'no net')} on the board, {net} in the netlist"
             for pin, net in sorted(netlist.items()) if board.get(pin) != net]  # fmt: skip
    extra = [f"{pin}: {net} on the board, not in the netlist"
             for pin, net in sorted(board.items()) if pin not in netlist]  # fmt: skip
    if wrong or extra:
        raise PcbError(f"{profile}: the PCB is not the circuit: " + "; ".join((wrong + extra)[:6]))


def _write(  # noqa: PLR0917
    profile: BoardProfile,
    game: Game,
    circuit: Circuit,
    layout: Layout,
    answer: dict[str, Any],
    out: Path,
    netlist: str,
) -> dict[str, Path]:
    gerbers = out / "gerbers"
    archive = out / f"{profile.id}-gerbers.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as bundle:
        for path in sorted(gerbers.iterdir()):
            if path.suffix in (".gbr", ".drl", ".gbrjob"):
                bundle.write(path, path.name)
    (out / f"{profile.id}.net").write_text(netlist)
    bom, cpl = assembly(circuit, layout)
    (out / f"{profile.id}-bom.csv").write_text(bom)
    (out / f"{profile.id}-cpl.csv").write_text(cpl)
    from firmware_bridge.pcb.pictures import draw

    pictures = draw(answer["copper"], layout, out, profile.id, ORIGIN)
    return {
        "board": Path(answer["board"]),
        "report": Path(answer["report"]),  # KiCad writes it into ``out``
        "gerbers": archive,
        "bom": out / f"{profile.id}-bom.csv",
        "cpl": out / f"{profile.id}-cpl.csv",
        "netlist": out / f"{profile.id}.net",
        **pictures,
    }


# The distributor's part numbers for SMT assembly (LCSC, which JLCPCB assembles from), where
# the part is one they stock; the rest are soldered by hand (the Pico, the through-hole parts).
# By the part as the circuit names it: (its name, its footprint).
LCSC = {
    (spec.name, spec.footprint): number
    for spec, number in ((c.WS2812B_2020, "C965555"), (c.WS2812B, "C2761795"),
                         (c.CAP_LED, "C14663"), (c.MUX, "C98457"))
}  # fmt: skip


def assembly(circuit: Circuit, layout: Layout) -> tuple[str, str]:
    """A BOM grouped by value and footprint, and a placement (CPL) file, as JLCPCB's SMT
    assembly takes them: Designator, Mid X/Y (mm, from the board's south-west corner, y north),
    Layer, Rotation."""
    groups: dict[tuple[str, str], list[str]] = {}
    for part in circuit.parts.values():
        key = (part.value or part.spec.name, part.spec.footprint)
        groups.setdefault(key, []).append(part.ref)
    bom = io.StringIO()
    writer = csv.writer(bom, lineterminator="\n")
    writer.writerow(["Comment", "Designator", "Footprint", "LCSC Part #"])
    for (value, footprint), refs in sorted(groups.items()):
        lcsc = LCSC.get((value, footprint), "")
        writer.writerow([value, ",".join(sorted(refs, key=ref_key)), footprint.split(":")[1], lcsc])
    cpl = io.StringIO()
    writer = csv.writer(cpl, lineterminator="\n")
    writer.writerow(["Designator", "Mid X", "Mid Y", "Layer", "Rotation"])
    for placed in sorted(layout.parts, key=lambda p: ref_key(p.ref)):
        writer.writerow([placed.ref, f"{placed.x:.3f}mm", f"{layout.height - placed.y:.3f}mm",
                         "Top", placed.rot])  # fmt: skip
    return bom.getvalue(), cpl.getvalue()
