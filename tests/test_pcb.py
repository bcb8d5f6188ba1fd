"""The board's PCB (firmware pcb): made from the circuit, checked by KiCad, its fabrication
files read back by an independent reader (gerbonara).

KiCad 6 (Debian's kicad, kicad-footprints) is installed by make test (tools/ensure-chromium.sh).
One profile in make test (Goats Wintering's, the smallest); every shipped magnetic profile's in
make test-slow.
"""

from __future__ import annotations

import csv
import math
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from firmware_bridge.circuit.board import board_circuit
from firmware_bridge.link.catalog import load_game, load_profile, profile_game, profile_ids
from firmware_bridge.pcb.fab import JLCPCB, track_width
from firmware_bridge.pcb.make import PcbError, _same_as_circuit, netlist_pins
from firmware_bridge.physics.check import cell_centres
from firmware_bridge.physics.stackup import parse_build

MAGNETIC = [pid for pid in profile_ids()
            if load_profile(pid, load_game(profile_game(pid))).pico is not None]  # fmt: skip
FAST = "goats-wintering"


def make(profile: str, folder: Path) -> str:
    done = subprocess.run(  # noqa: PLW1510
        [sys.executable, "-m", "firmware_bridge.cli", "firmware", "pcb", "--board", profile,
         "-o", str(folder)],
        capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr + done.stdout
    assert "Traceback" not in done.stderr
    return done.stdout


def test_goats_wintering_pcb_end_to_end(tmp_path: Path) -> None:
    """One board made once (it takes a while, and xdist would make it once a worker for a
    fixture), every check over it."""
    goats = tmp_path, make(FAST, tmp_path)
    the_pcb_is_the_circuit_and_kicads_check_passes(goats)
    sensors_and_leds_stand_where_the_physics_puts_them(goats)
    the_fabrication_files_read_back(goats)
    bom_and_placement_cover_every_part(goats)
    the_pictures_are_drawn(goats)


def board_pads(text: str) -> tuple[dict[str, str], dict[str, tuple[float, float, int]]]:
    """From a .kicad_pcb: ``ref.pad`` -> net, and each footprint's position and rotation."""
    nets: dict[str, str] = {}
    where: dict[str, tuple[float, float, int]] = {}
    for block in re.split(r"\n  \(footprint ", text)[1:]:
        ref = re.search(r'\(fp_text reference "([^"]+)"', block)
        at = re.search(r"\(at ([-\d.]+) ([-\d.]+)(?: ([-\d.]+))?\)", block)
        assert ref and at
        where[ref.group(1)] = (float(at.group(1)), float(at.group(2)), int(float(at.group(3) or 0)))
        for pad in re.split(r"\n    \(pad ", block)[1:]:
            number = re.match(r'"([^"]*)"', pad)
            net = re.search(r'\(net \d+ "([^"]*)"\)', pad)
            if number is None or net is None:
                continue
            nets.setdefault(f"{ref.group(1)}.{number.group(1)}", net.group(1))
    return nets, where


def check_board(folder: Path, profile_id: str) -> None:
    report = (folder / f"{profile_id}-drc.rpt").read_text()
    assert "** Found 0 DRC violations **" in report
    assert "** Found 0 unconnected pads **" in report
    text = (folder / f"{profile_id}.kicad_pcb").read_text()
    assert text.startswith("(kicad_pcb (version 2021")  # KiCad 6's format
    pads, _ = board_pads(text)
    netlist = netlist_pins((folder / f"{profile_id}.net").read_text())
    assert netlist and pads == netlist  # every pin of the circuit, on its net, and no other


def the_pcb_is_the_circuit_and_kicads_check_passes(goats: tuple[Path, str]) -> None:
    folder, out = goats
    assert "0 violations, 0 unconnected pads" in out
    check_board(folder, FAST)
    game = load_game(profile_game(FAST))
    profile = load_profile(FAST, game)
    circuit = board_circuit(profile, game)
    netlist = netlist_pins((folder / f"{FAST}.net").read_text())
    assert {pin.split(".")[0] for pin in netlist} == {
        ref for ref, part in circuit.parts.items() if part.spec.pins
    }


def sensors_and_leds_stand_where_the_physics_puts_them(goats: tuple[Path, str]) -> None:
    folder, _ = goats
    game = load_game(profile_game(FAST))
    profile = load_profile(FAST, game)
    stack = parse_build(profile)
    circuit = board_circuit(profile, game)
    _, where = board_pads((folder / f"{FAST}.kicad_pcb").read_text())
    centres = cell_centres(game, stack.cell)
    names = game.board.names
    sensors = {part.unit.split(":")[1]: ref for ref, part in circuit.parts.items()
               if part.unit.startswith("cell:") and part.spec.ref_prefix == "S"}  # fmt: skip
    # The TO-92's origin is its first pin: its middle pin 1.27 mm east is the cell's centre.
    at = {name: (where[ref][0] + 1.27, where[ref][1]) for name, ref in sensors.items()}
    first = names[next(c for c in profile.sensor_cells if c is not None)]
    fx, fy = at[first]
    cx0, cy0, _ = centres[names.index(first)]
    snap = 0.635 / math.sqrt(2) + 1e-6  # each part's origin on the router's grid
    for index, (x, y, _) in centres.items():
        name = names[index]
        if name not in at:
            continue
        want = (fx + (x - cx0) * 1000, fy - (y - cy0) * 1000)
        assert math.dist(at[name], want) <= 2 * snap, name
    leds = [ref for ref, part in circuit.parts.items() if part.unit.startswith("led:")
            and part.spec.ref_prefix == "D"]  # fmt: skip
    for ref in leds:
        index = int(circuit.parts[ref].unit.split(":")[1])
        cell = names[profile.led_cells[index]]  # type: ignore[index]
        x, y = at[cell]
        lx, ly, _ = where[ref]
        # Hexagons' corner points north: the LED is straight north of the sensor.
        assert abs(lx - x) <= 2 * snap and math.isclose(
            y - ly, stack.led_offset * 1000, abs_tol=2 * snap
        )


def the_fabrication_files_read_back(goats: tuple[Path, str]) -> None:
    import gerbonara  # type: ignore[import-untyped]

    folder, _ = goats
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # KiCad's Excellon repeats G90 after its header
        stack = gerbonara.LayerStack.open(str(folder / f"{FAST}-gerbers.zip"))
    assert {("top", "copper"), ("bottom", "copper"), ("top", "mask"), ("bottom", "mask"),
            ("top", "silk"), ("mechanical", "outline")} <= set(stack.graphic_layers)  # fmt: skip
    text = (folder / f"{FAST}.kicad_pcb").read_text()
    (x0, y0), (x1, y1) = stack.outline.bounding_box()
    edges = [tuple(map(float, m)) for m in re.findall(
        r"\(gr_line \(start ([-\d.]+) ([-\d.]+)\) \(end [-\d.]+ [-\d.]+\) \(layer \"Edge.Cuts\"\)", text)]  # fmt: skip  # noqa: E501
    assert len(edges) == 4
    xs, ys = [e[0] for e in edges], [e[1] for e in edges]
    assert math.isclose(x1 - x0, max(xs) - min(xs), abs_tol=0.2)  # the outline's line width
    assert math.isclose(y1 - y0, max(ys) - min(ys), abs_tol=0.2)
    plated = len(re.findall(r'\(pad "[^"]*" thru_hole ', text)) + len(
        re.findall(r"\n  \(via ", text)
    )
    unplated = len(re.findall(r'\(pad "[^"]*" np_thru_hole ', text))
    assert stack.drill_pth is not None and stack.drill_npth is not None
    assert len(stack.drill_pth.objects) == plated  # every through-hole pad's and via's hole
    assert len(stack.drill_npth.objects) == unplated
    assert unplated >= 4  # the corners' mounting holes


def bom_and_placement_cover_every_part(goats: tuple[Path, str]) -> None:
    folder, _ = goats
    game = load_game(profile_game(FAST))
    circuit = board_circuit(load_profile(FAST, game), game)
    with open(folder / f"{FAST}-bom.csv") as handle:
        bom = list(csv.DictReader(handle))
    listed = [ref for row in bom for ref in row["Designator"].split(",")]
    assert sorted(listed) == sorted(circuit.parts)
    leds = [row for row in bom if row["Comment"] == "WS2812B-2020"]
    assert leds and leds[0]["LCSC Part #"]
    with open(folder / f"{FAST}-cpl.csv") as handle:
        cpl = list(csv.DictReader(handle))
    assert {row["Designator"] for row in cpl} == set(circuit.parts)
    assert all(row["Mid X"].endswith("mm") and row["Layer"] == "Top" for row in cpl)


def the_pictures_are_drawn(goats: tuple[Path, str]) -> None:
    from PIL import Image

    folder, _ = goats
    sizes = set()
    for kind in ("top", "bottom", "F_Cu", "B_Cu"):
        with Image.open(folder / f"{FAST}-{kind}.png") as image:
            sizes.add(image.size)
            colours = image.convert("RGB").getcolors(1_000_000) or []
            assert len(colours) >= 3, kind  # board, copper, holes: not a blank sheet
    assert len(sizes) == 1


def test_a_pcb_that_is_not_the_circuit_is_refused() -> None:
    netlist = {"U1.1": "GND", "S1.3": "M0.C0"}
    _same_as_circuit(netlist, dict(netlist), "x")
    with pytest.raises(PcbError, match="S1.3: M0.C1 on the board, M0.C0 in the netlist"):
        _same_as_circuit(netlist, {"U1.1": "GND", "S1.3": "M0.C1"}, "x")
    with pytest.raises(PcbError, match="R9.1: GND on the board, not in the netlist"):
        _same_as_circuit(netlist, {**netlist, "R9.1": "GND"}, "x")


def test_fab_rules_and_supply_tracks() -> None:
    assert JLCPCB.fits(368, 419) and JLCPCB.fits(419, 368) and not JLCPCB.fits(420, 420)
    assert JLCPCB.price_five(200, 300) > JLCPCB.price_five(100, 100)
    # IPC-2221, outer layer, 1 oz, 10 °C: about 0.8 mm for 2 A, 0.4 mm for 1.24 A
    assert 0.7 <= track_width(2.0) <= 0.85
    assert 0.35 <= track_width(1.24) <= 0.45


def test_a_missing_kicad_is_said_plainly(tmp_path: Path) -> None:
    done = subprocess.run(  # noqa: PLW1510
        [sys.executable, "-m", "firmware_bridge.cli", "firmware", "pcb", "--board", FAST,
         "-o", str(tmp_path)],
        capture_output=True, text=True, timeout=120,
        env={"PATH": "/usr/bin:/bin", "BOARD_REFEREE_KICAD_PYTHON": "/nonexistent/python3",
             "KICAD6_FOOTPRINT_DIR": str(tmp_path / "none")},
    )  # fmt: skip
    assert done.returncode == 1
    assert "KiCad" in done.stderr and "apt-get install kicad" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.slow
@pytest.mark.parametrize("profile_id", [p for p in MAGNETIC if p != FAST])
def test_every_shipped_magnetic_profile_has_a_checked_pcb(profile_id: str, tmp_path: Path) -> None:
    out = make(profile_id, tmp_path)
    assert "0 violations, 0 unconnected pads" in out
    check_board(tmp_path, profile_id)
