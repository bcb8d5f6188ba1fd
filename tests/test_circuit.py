"""The board's circuit as code (issue 39): every shipped profile's circuit passes the electrical
rules check, each rule finds the fault it is for, and the files a builder gets agree with the
guide's parts list."""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from engine import Game
from firmware_bridge.circuit import components as c
from firmware_bridge.circuit.board import Choices, board_circuit
from firmware_bridge.circuit.erc import check, supplies
from firmware_bridge.circuit.model import Circuit, Node
from firmware_bridge.circuit.outputs import bom_rows, kicad_netlist
from firmware_bridge.circuit.schematic import differences, draw, schematic_svg
from firmware_bridge.circuit.spice import check as simulate
from firmware_bridge.circuit.spice import settling_text
from firmware_bridge.link.profile import BoardProfile
from firmware_bridge.link.wiring import PARTS
from firmware_bridge.physics.materials import OFF_THE_CIRCUIT, parts_list, shipped_boards

ROOT = Path(__file__).resolve().parent.parent
BOARDS = {profile.id: (profile, game) for profile, game in shipped_boards()}


def board(profile_id: str) -> tuple[BoardProfile, Game]:
    return BOARDS[profile_id]


def rules(circuit: Circuit) -> set[str]:
    return {problem.rule for problem in check(circuit)}


def move(circuit: Circuit, ref: str, pin: str, net: str | None) -> None:
    """Take a pin off its net (onto ``net``, or onto none)."""
    node = Node(ref, pin)
    circuit.nets[circuit.where.pop(node)].remove(node)
    if net is not None:
        circuit.connect(net, (circuit.parts[ref], pin))


@pytest.mark.parametrize("profile_id", sorted(BOARDS))
def test_every_shipped_board_passes_the_rules_check(profile_id: str) -> None:
    profile, game = board(profile_id)
    circuit = board_circuit(profile, game)
    assert check(circuit) == []
    # The guide's parts list (its notes, and what is not on the circuit) counts what the
    # circuit places, part for part: firmware parts and the BOM both read the circuit.
    listed: dict[str, float] = {}
    for line in parts_list(profile, game):
        if line.part not in OFF_THE_CIRCUIT:
            listed[line.part] = listed.get(line.part, 0) + line.quantity
    placed: dict[str, int] = {}
    for part in circuit.parts.values():
        if part.spec.price:
            placed[part.spec.price] = placed.get(part.spec.price, 0) + 1
    assert placed == listed
    # KiCad's netlist names every part and every pin once.
    netlist = kicad_netlist(circuit, profile.id)
    assert netlist.count("(comp ") == len(circuit.parts)
    assert netlist.count("(node ") == len(circuit.where)
    assert netlist.count("(") == netlist.count(")")


def test_a_pull_resistor_each_breakout_or_none_is_found() -> None:
    profile, game = board("vanguard")
    problems = check(board_circuit(profile, game, Choices(sig_pulls=2)))
    assert [p.rule for p in problems] == ["pulls"]
    assert "2 pull resistors" in problems[0].text and "SIG" in problems[0].text
    assert rules(board_circuit(profile, game, Choices(sig_pulls=0))) == {"pulls"}
    reed, reed_game = board("the-lion-game-reed")  # the pad's pull-up is there, not enough
    assert rules(board_circuit(reed, reed_game, Choices(sig_pulls=2))) == {"pulls"}


def test_an_ss49e_on_5v_overdrives_the_pico_and_a_drv5053_does_not() -> None:
    profile, game = board("vanguard")
    assert check(board_circuit(profile, game, Choices(sensor_rail="VBUS"))) == []  # <= 1.8 V
    assert profile.pico is not None
    wiring = dataclasses.replace(profile.pico, part=PARTS["ss49e"])
    ss49e = dataclasses.replace(profile, pico=wiring)
    assert check(board_circuit(ss49e, game)) == []  # on 3.3 V, as the guide says
    problems = check(board_circuit(ss49e, game, Choices(sensor_rail="VBUS")))
    assert {p.rule for p in problems} == {"over 3.3 V"}
    assert any("SIG reaches 5.0 V at the Pico's GP26" in p.text for p in problems)


def test_two_outputs_on_a_net_a_part_off_its_supply_and_floating_inputs_are_found() -> None:
    profile, game = board("three-dragons")
    circuit = board_circuit(profile, game)
    extra = circuit.add(c.WS2812B)  # its output onto the multiplexers' S0, which GP2 drives
    circuit.connect("5V", (extra, "VDD"))
    circuit.connect("GND", (extra, "VSS"))
    circuit.connect("LED_DATA", (extra, "DIN"))
    circuit.connect("S0", (extra, "DOUT"))
    assert rules(circuit) == {"driven twice", "over 3.3 V"}  # and its 5 V on GP2

    circuit = board_circuit(profile, game)
    shifter = next(p for p in circuit.parts.values() if p.spec is c.SHIFTER)
    move(circuit, shifter.ref, "VCC", "3V3")  # the level shifter on 3.3 V: out of its range
    problems = check(circuit)
    assert [p.rule for p in problems] == ["unpowered"]
    assert "takes 4.5-5.5 V; 3V3 carries 3.3 V" in problems[0].text

    circuit = board_circuit(profile, game)
    move(circuit, shifter.ref, "1OE", "OE_FLOATING")  # OE left unwired
    assert rules(circuit) == {"floating input"}
    last = next(p for p in circuit.parts.values() if p.spec is c.MUX and p.note.startswith("M4"))
    move(circuit, last.ref, "C15", "UNUSED")  # an unused channel no longer tied to ground
    assert any(p.rule == "floating input" and f"{last.ref}.C15" in p.text for p in check(circuit))
    move(circuit, shifter.ref, "GND", None)
    assert "unconnected" in rules(circuit)


def test_a_board_behind_a_second_level_multiplexer_passes_the_check() -> None:
    """Three Dragons wired the large boards' way (pico: mux: bank_select): its five banks' SIG
    lines into a second-level CD74HC4067, every first-level EN to ground."""
    profile, game = board("three-dragons")
    assert profile.pico is not None
    wiring = dataclasses.replace(profile.pico, enable=(), bank_select=(6, 7, 8, 9))
    circuit = board_circuit(dataclasses.replace(profile, pico=wiring), game)
    assert check(circuit) == []
    muxes = [p for p in circuit.parts.values() if p.spec is c.MUX]
    assert len(muxes) == 6 and any(p.note.startswith("second level") for p in muxes)
    assert len(circuit.nets["B0"]) == 2  # GP6 and the second level's S0
    found = simulate(circuit, wiring, len(profile.sensor_cells))
    assert all(item.needed_us <= min(item.allowed_us.values()) for item in found), found


def test_the_files_a_builder_gets(tmp_path: Path) -> None:
    """``firmware circuit`` writes the netlist, connections, parts list, schematic and the
    check's report, and says the check found nothing."""
    done = subprocess.run([sys.executable, "-m", "firmware_bridge.cli", "firmware", "circuit",
                           "--board", "three-dragons", "-o", str(tmp_path)],
                          check=False, capture_output=True, text=True, timeout=60)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "no problem found" in done.stdout
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["three-dragons-bom.csv", "three-dragons-connections.txt",
                     "three-dragons-erc.txt", "three-dragons.net", "three-dragons.svg"]  # fmt: skip
    rows = list(csv.DictReader(io.StringIO((tmp_path / "three-dragons-bom.csv").read_text())))
    assert rows[-1]["part"] == "total" and float(rows[-1]["cost_eur"]) > 50
    assert all(row["priced"] for row in rows)
    profile, game = board("three-dragons")
    circuit = board_circuit(profile, game)
    counted = sum(int(r["quantity"]) for r in bom_rows(circuit, profile, game) if r["refs"])
    assert counted == len(circuit.parts)
    svg = (tmp_path / "three-dragons.svg").read_text()
    assert svg == schematic_svg(circuit, "Three Dragons: board profile three-dragons")
    assert "77 cells" in svg and "77 in a chain" in svg  # one block drawn, with its count


@pytest.mark.parametrize("variant", [*sorted(BOARDS), "second level", "drv5033"])
def test_the_schematic_is_the_circuit(variant: str) -> None:
    """Issue 50: the schematic draws the circuit's own parts and nets. Every pin of a drawn
    part shows the net the circuit puts it on; every part not drawn is an instance of a
    drawn block (a cell, an LED, a bank) wired as the one drawn for it."""
    profile, game = board(variant if variant in BOARDS else "three-dragons")
    wiring = profile.pico
    assert wiring is not None
    if variant == "second level":
        wiring = dataclasses.replace(wiring, enable=(), bank_select=(6, 7, 8, 9))
    elif variant == "drv5033":  # a hall switch: its pull-up drawn in the cell's block
        wiring = dataclasses.replace(wiring, part=PARTS["drv5033"])
    profile = dataclasses.replace(profile, pico=wiring)
    circuit = board_circuit(profile, game)
    panels, sheet = draw(circuit)
    assert differences(circuit, sheet) == []
    drawn = {node.ref for node in sheet.shown}
    assert drawn | set(sheet.stands_for) == set(circuit.parts)
    if variant == "three-dragons":  # 77 cells, 77 LEDs: one of each drawn
        assert len(drawn) < 40 and [p.title for p in panels] == [
            "Power in", "The sensors' own 3.3 V", "The Pico",
            "The sensors: one multiplexer's bank", "The LED chain", "The buttons",
        ]  # fmt: skip


def test_a_schematic_that_is_not_the_circuit_is_refused() -> None:
    """The check finds what the drawing would get wrong: a part no block draws, and a cell
    wired otherwise than the cell drawn for it (its sensor's output on a select line)."""
    profile, game = board("vanguard")
    circuit = board_circuit(profile, game)
    extra = circuit.add(c.RESISTOR, "1k")
    circuit.connect("S0", (extra, "1"))
    circuit.connect("GND", (extra, "2"))
    assert differences(circuit) == [f"{extra.ref} (resistor) is not on the schematic"]
    with pytest.raises(ValueError, match="not on the schematic"):
        schematic_svg(circuit, "x")
    circuit = board_circuit(profile, game)
    sensors = [p for p in circuit.parts.values() if c.is_sensor(p.spec)]
    move(circuit, sensors[5].ref, "OUT", "S1")
    (found,) = differences(circuit)
    assert found.startswith(f"{sensors[5].ref}.OUT is on S1, but {sensors[0].ref}.OUT")


def test_without_schemdraw_the_circuit_files_are_written_and_the_schematic_is_named(
    tmp_path: Path,
) -> None:
    """A builder without the board tools' extra still gets the netlist, parts list and
    check; the schematic's absence says what to install."""
    hide = tmp_path / "hide"
    hide.mkdir()
    (hide / "schemdraw.py").write_text("raise ImportError('No module named schemdraw')\n")
    (hide / "magpylib.py").write_text("raise ImportError('No module named magpylib')\n")
    done = subprocess.run([sys.executable, "-m", "firmware_bridge.cli", "firmware", "circuit",
                           "--board", "vanguard", "-o", str(tmp_path / "out")],
                          check=False, capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(hide)})  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "no schematic: " in done.stderr and "board-referee[board]" in done.stderr
    assert "Traceback" not in done.stderr
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [
        "vanguard-bom.csv", "vanguard-connections.txt", "vanguard-erc.txt", "vanguard.net",
    ]  # fmt: skip


@pytest.mark.parametrize("profile_id", sorted(BOARDS))
def test_the_firmwares_waits_cover_the_simulated_sensor_line(profile_id: str) -> None:
    """ngspice runs each board's SIG line (its multiplexers' capacitance, the channel's
    on-resistance, the pull resistor, the ADC's sampling) from the circuit: settle_us and
    screen_us must each be at least the time the line takes to settle in each case."""
    profile, game = board(profile_id)
    assert profile.pico is not None
    found = simulate(board_circuit(profile, game), profile.pico, len(profile.sensor_cells))
    assert len(found) == 3
    for item in found:
        assert 0 < item.needed_us < math.inf, item
        for wait, us in item.allowed_us.items():
            assert item.needed_us <= us, f"{item.case}: {wait} {us} us < {item.needed_us} us"


def test_the_simulation_finds_a_wait_too_short() -> None:
    """The guide's old 100 kOhm pull-down: a broken wire takes ten times as long to fall out
    of every band, past settle_us; the 10 kOhm falls within it."""
    profile, game = board("three-dragons")
    assert profile.pico is not None
    sensors = len(profile.sensor_cells)
    slow = board_circuit(profile, game, Choices(sig_pull_value="100k"))
    (broken,) = [s for s in simulate(slow, profile.pico, sensors) if s.case == "broken wire"]
    assert broken.needed_us > 5 * broken.allowed_us["settle_us"]
    assert "TOO SHORT: settle_us" in settling_text([broken])


def test_the_rules_check_holds_each_rail_at_its_least() -> None:
    """Issue 50: the 74AHCT125 takes 4.5-5.5 V, and a USB board's VBUS sags under load. The
    check runs each rail at its least (4.75 V at the host, less a metre of cable at 500 mA):
    the shipped boards pass, and a rail that sags further is named with its figures."""
    from dataclasses import replace

    from firmware_bridge.circuit import components

    # Issue 65: the cable the parts list orders (0.5 m, 24 AWG: 0.042 V) and the micro-B
    # plug's contacts (0.03 V) at 500 mA, then the LED switch's on-resistance (0.036 V).
    assert components.VBUS_LEAST == 4.678
    profile, game = board("vanguard")
    circuit = board_circuit(profile, game)
    assert check(circuit) == []
    least = supplies(circuit, least=True)
    assert least["LED_5V"] == round(4.678 - components.LOAD_SWITCH_DROP, 3) >= 4.5
    assert "0.5 m with 24 AWG" in {line.part: line.what for line in parts_list(profile, game)}[
        "usb"]  # fmt: skip
    # The supplied board: the fuse, the reverse-polarity MOSFET and the Schottky, each its drop.
    supplied = board_circuit(*board("three-dragons"))
    fuse = next(p for p in supplied.parts.values() if p.spec.price == "fuse")
    assert fuse.spec.name == "MF-RHT300" and fuse.spec.footprint.endswith("MF-RHT300")
    rails = supplies(supplied, least=True)
    assert rails["5V"] == round(4.75 - 0.096 - 0.104, 3) and rails["VSYS"] == rails["5V"] - 0.45
    pico = next(p for p in circuit.parts.values() if p.spec.name == "Raspberry Pi Pico")
    sagging = tuple(replace(pin, least=4.4) if pin.name == "VBUS" else pin
                    for pin in pico.spec.pins)  # fmt: skip
    circuit.parts[pico.ref] = replace(pico, spec=replace(pico.spec, pins=sagging))
    said = [p.text for p in check(circuit)]
    assert any("SN74AHCT125N) takes 4.5-5.5 V" in t and "4.364-5 V (its least under load)" in t
               for t in said), said  # fmt: skip


def test_firmware_config_refuses_waits_the_simulated_line_does_not_cover(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 50: the firmware's waits are checked against ngspice's line in one place, which
    firmware config and firmware circuit both use. An SS49E board (its 2.78 V top near the
    3.0 V its 300 uA holds across the 10 kohm pull-down: a slow rise) gets waits that cover
    its line, and both pass it; a screening wait shorter than the line (the old formula, which
    left the pull-down out: 5 us here) is refused by both."""
    import shutil

    import yaml

    from firmware_bridge import cli
    from firmware_bridge.circuit import spice

    config = tmp_path / "config"
    shutil.copytree(Path(__file__).resolve().parent.parent / "config", config)
    path = config / "boards" / "vanguard.yaml"
    data = yaml.safe_load(path.read_text())
    data["pico"]["sensor"] = "ss49e"
    data["pico"]["bands"] = {"delta": 3000}  # an SS49E moves less: its threshold nearer
    data["build"].update(top_mm=1)  # and a thinner top and a stronger magnet, for its physics
    data["build"]["sensor"] = {"mount": "under-top"}
    data["build"]["piece"]["magnet"] = {"diameter_mm": 12, "thickness_mm": 3, "grade": "N52"}
    path.write_text(yaml.safe_dump(data))
    made = tmp_path / "board.json"
    config_args = ["firmware", "config", "--board", "vanguard", "--config-dir", str(config),
                   "-o", str(made)]  # fmt: skip
    circuit_args = ["firmware", "circuit", "--board", "vanguard", "--config-dir", str(config),
                    "-o", str(tmp_path / "circuit")]  # fmt: skip
    assert cli.main(config_args) == 0, capsys.readouterr().err
    assert json.loads(made.read_text())["sensors"]["screen_us"] == 10
    assert cli.main(circuit_args) == 0
    assert "TOO SHORT" not in capsys.readouterr().out
    made.unlink()

    monkeypatch.setattr(spice, "screen_us", lambda wiring, sensors: 5)
    assert cli.main(config_args) == 2
    said = capsys.readouterr().err
    assert "slower than the firmware's waits: live, rising" in said and "(screen_us)" in said
    assert not made.exists()
    assert cli.main(circuit_args) == 1
    assert "TOO SHORT: screen_us" in capsys.readouterr().out


def test_the_guides_schematic_is_generated() -> None:
    """docs/circuits/vanguard.svg is what firmware circuit draws today, never edited by hand
    (regenerate: board-referee firmware circuit --board vanguard -o DIR)."""
    profile, game = board("vanguard")
    drawn = schematic_svg(board_circuit(profile, game), f"{game.title}: board profile vanguard")
    guide = Path(__file__).resolve().parent.parent / "docs" / "circuits" / "vanguard.svg"
    assert guide.read_text(encoding="utf-8") == drawn


@pytest.mark.parametrize("profile_id", sorted(BOARDS))
def test_every_figure_a_builder_reads_is_the_profiles_own(profile_id: str) -> None:
    """Issue 65: the parts list, the BOM, the netlist, the schematic and the guide's tables
    take the sensor (with its variant), the magnet, the top, the battens and the board's
    height from the profile's own ``build:`` (read here from its YAML, not through the code
    that writes them): a profile that changes takes every list with it."""
    from firmware_bridge.circuit.bill import board_parts, price_table
    from firmware_bridge.physics.materials import BASE_MM, build_table, shipped_boards

    profile, game = board(profile_id)
    raw = yaml.safe_load((ROOT / "config" / "boards" / f"{profile_id}.yaml").read_text())
    build = raw["build"]
    assert profile.pico is not None
    part = profile.pico.part.name
    ordered = f"DRV5053{build['sensor']['variant']}" if part == "drv5053" else "reed switch"
    magnet = build["piece"]["magnet"]
    magnet_said = f"{magnet['diameter_mm']:g} x {magnet['thickness_mm']:g} mm {magnet['grade']}"
    height = BASE_MM + build["cavity_mm"] + build["top_mm"]

    lines = {line.part: line for line in board_parts(profile, game)}
    if part == "drv5053":
        assert ordered in lines[part].what and "PA or RA" not in lines[part].what
    assert f"{build['top_mm']:g} mm birch plywood" in lines["plywood_top"].what
    assert f"{build['cavity_mm']:g} x 12 mm pine batten" in lines["batten"].what
    assert f"stands {height:g} mm high" in lines["batten"].note
    assert lines["magnet"].what.startswith(magnet_said)

    circuit = board_circuit(profile, game)
    rows = bom_rows(circuit, profile, game)
    sensor_rows = [r for r in rows if re.match(r"S\d", r["refs"])]
    if part == "drv5053":
        assert {r["part"] for r in sensor_rows} == {ordered}, sensor_rows
        assert f'(part "{ordered}")' in kicad_netlist(circuit, profile_id)
        assert ordered in schematic_svg(circuit, profile_id)
    assert any(r["description"].startswith(f"m² of {build['top_mm']:g} mm") for r in rows)

    guide = (ROOT / "docs" / "build-a-board.md").read_text()
    boards = shipped_boards()
    assert build_table(boards) in guide and price_table(boards) in guide
    row = next(line for line in build_table(boards).splitlines() if f"`{profile_id}`" in line)
    for said in (ordered, magnet_said, f"{build['top_mm']:g} mm plywood",
                 f"{build['cavity_mm']:g} mm", f"{height:g} mm |"):  # fmt: skip
        assert said in row, (said, row)
    # The guide's own words hold no figure of one board as every board's.
    assert "3 mm birch plywood (or" not in guide and "about 25 mm" not in guide
