"""The printable board template: 1:1, every cell with its sensor and LED, cut into pages."""

from __future__ import annotations

import dataclasses
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import TYPE_CHECKING

from firmware_bridge.commands.template import template
from firmware_bridge.link import catalog

if TYPE_CHECKING:
    from playwright.sync_api import Browser

PYTHON = [sys.executable, "-m", "firmware_bridge.cli"]


def test_every_cell_at_its_real_size_with_its_sensor_input_and_led() -> None:
    game = catalog.load_game("three-dragons")
    profile = catalog.load_profile("three-dragons", game)
    (sheet,) = template(game, profile, cell_mm=50)
    root = ET.fromstring(sheet.svg)
    width = float(root.attrib["width"].removesuffix("mm"))
    view = [float(v) for v in root.attrib["viewBox"].split()]
    assert view[2] == width  # one user unit is a millimetre: printed at 100 %, it is the board
    squares = [p for p in root.iter("{http://www.w3.org/2000/svg}polygon")]
    assert len(squares) == 81
    xs = sorted({round(float(pt.split(",")[0]), 1) for p in squares
                 for pt in p.attrib["points"].split()})  # fmt: skip
    assert xs[1] - xs[0] == 50.0  # a square is 50 mm wide
    text = " ".join(t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}text"))
    for cell in ("a1", "e5", "i9"):
        assert cell in text.split()
    sensor = profile.sensor_of[game.board.cell("c1")]
    assert f"S{sensor} · M{sensor // 16}.{sensor % 16}" in text
    assert f"LED {profile.led_of[game.board.cell('c1')]}" in text
    assert "mountains: no sensor" in text  # the profile wires no sensor under a mountain
    assert "White's pieces north pole down" in text


def test_a_board_larger_than_a_sheet_is_cut_into_pages(tmp_path: Path) -> None:
    result = subprocess.run([*PYTHON, "board-template", "--game", "vanguard", "--page", "a4",
                             "-o", str(tmp_path / "vanguard.svg")], capture_output=True,
                            text=True, check=True)  # fmt: skip
    pages = sorted(tmp_path.glob("vanguard-r*c*.svg"))
    assert len(pages) >= 2 and "print at 100 %" in result.stdout
    for page in pages:
        root = ET.fromstring(page.read_text())
        assert root.attrib["width"] == "210.0mm" and root.attrib["height"] == "297.0mm"
        assert re.search(r"page row \d of \d, column \d of \d", page.read_text())


def test_a_bad_cell_size_is_one_line() -> None:
    result = subprocess.run([*PYTHON, "board-template", "--game", "vanguard", "--cell-mm", "2"],
                            capture_output=True, text=True, check=False)  # fmt: skip
    assert result.returncode == 2 and len(result.stderr.splitlines()) == 1
    assert "--cell-mm" in result.stderr


def test_every_shipped_templates_text_stays_on_its_sheet(browser: Browser) -> None:
    """Each profile's template drawn by Chromium: every text's box inside the sheet (a legend
    line once ran 5 mm past Vanguard's 244 mm)."""
    config = catalog.config_dir(None)
    sheets = []
    for path in sorted((config / "boards").glob("*.yaml")):
        profile_id = path.stem
        game = catalog.load_game(catalog.profile_game(profile_id, config))
        (sheet,) = template(game, catalog.load_profile(profile_id, game))
        sheets.append((profile_id, sheet.svg))
    page = browser.new_page()
    for profile_id, svg in sheets:
        page.set_content(svg)
        outside: list[str] = page.evaluate("""() => {
            const svg = document.querySelector("svg");
            const [, , w, h] = svg.getAttribute("viewBox").split(" ").map(Number);
            return [...svg.querySelectorAll("text")].filter((t) => {
                const b = t.getBBox();
                return b.x < 0 || b.y < 0 || b.x + b.width > w || b.y + b.height > h;
            }).map((t) => t.textContent.slice(0, 50));
        }""")
        assert not outside, (profile_id, outside)
    page.close()


def test_the_guides_price_table_is_the_one_the_code_makes() -> None:
    """docs/build-a-board.md's prices and totals are the circuit's parts at physics/materials.py's
    prices, for every shipped profile the Pico serves; each list adds up, and the BOM agrees."""
    from firmware_bridge.circuit.bill import board_parts, price_table
    from firmware_bridge.physics.materials import PRICED, shipped_boards, total

    guide = (Path(__file__).resolve().parent.parent / "docs" / "build-a-board.md").read_text()
    boards = shipped_boards()
    assert len(boards) >= 7
    assert price_table(boards) in guide
    assert "noted on " + "-".join(PRICED.split("-")) in guide
    from firmware_bridge.circuit.board import board_circuit
    from firmware_bridge.circuit.outputs import bom_rows

    for profile, game in boards:
        lines = board_parts(profile, game)
        assert total(lines) == sum(round(line.quantity * line.unit, 2) for line in lines) > 20
        # Issue 50: one parts list. The BOM firmware circuit writes costs what firmware
        # parts and the guide say, line for line (131.68 against 132.10 before).
        rows = bom_rows(board_circuit(profile, game), profile, game)
        assert round(sum(float(r["cost_eur"]) for r in rows), 2) == round(total(lines), 2)


def test_a_set_holds_a_magnet_for_every_piece_the_game_can_have_on_the_board() -> None:
    """The parts list's magnets: the start position's pieces, those still to place, and those
    the rules bring on (a dragon for each of Three Dragons' caves in its dragons variant)."""
    from firmware_bridge.physics.materials import pieces_in_play

    base = catalog.load_game("three-dragons")
    dragons = catalog.load_game("three-dragons", {"variant": "dragons"})
    assert pieces_in_play(base) == len(base.new_state().layout()) == 22
    assert pieces_in_play(dragons) == 25  # and a dragon for each of the 3 caves (c5, e5, g5)
    goat = catalog.load_game("protect-the-goat")
    state = goat.new_state()
    to_place = sum(sum(state.reserve(p).values()) for p in (state.to_move, state.to_move.other))
    assert to_place > 0 and pieces_in_play(goat) == len(state.layout()) + to_place


def test_the_sensors_regulator_is_chosen_by_heat_as_well_as_current() -> None:
    """Issue 39, finding 1: 277 mA through an AP2112K's SOT-23-5 is 0.47 W, about 118 degC
    over the air; the choice keeps every linear part's junction under 100 degC at 40 degC."""
    from firmware_bridge.link.wiring import AMBIENT_C, JUNCTION_MAX_C, REGULATORS, sensor_regulator

    chosen = sensor_regulator(277)
    assert chosen is not None and chosen.name.startswith("AMS1117")
    assert round(chosen.watts(277), 2) == 0.47
    junction = chosen.junction_c(277)
    assert junction is not None and AMBIENT_C < junction <= JUNCTION_MAX_C
    ap2112 = REGULATORS[0]
    assert (ap2112.junction_c(277) or 0) > 150  # what the guide used to say: far too hot
    small = sensor_regulator(100)
    assert small is not None and small.name.startswith("AP2112K")
    big = sensor_regulator(1100)  # the 300-cell board
    assert big is not None and big.theta_ja is None  # a buck module
    assert sensor_regulator(5000) is None  # more than any one part: split the sensors


def test_an_ss49e_board_is_never_told_to_power_its_sensors_from_5v() -> None:
    """Issue 39, finding 6: an SS49E's output follows its supply; from 5 V it would put up to
    about 4 V on a 3.3 V multiplexer and GP26. Only the DRV5053 may take 5 V."""
    from firmware_bridge.commands.firmware import _rail_text

    power = {"rail_3v3_ma": 462.0, "rail_3v3_limit_ma": 300, "sensor_regulator": "AMS1117-3.3",
             "sensor_part": "ss49e", "sensor_regulator_w": 0.79,
             "sensor_regulator_junction_c": 111}  # fmt: skip
    said = _rail_text(power)
    assert "never 5 V for an SS49E" in said and "may take 5 V" not in said
    assert "may take 5 V directly" in _rail_text({**power, "sensor_part": "drv5053"})


def test_a_reed_boards_template_draws_its_flat_reeds_and_small_leds(tmp_path: Path) -> None:
    out = tmp_path / "reed.svg"
    result = subprocess.run(
        [sys.executable, "-m", "firmware_bridge.cli", "board-template", "--game",
         "three-dragons", "--board", "three-dragons-reed", "-o", str(out)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    svg = out.read_text()
    assert "reed switch lies flat" in svg, svg[:2000]
    # Each LED in its cell's corner, the build's 2 mm one, with its hole's dark ring.
    assert svg.count('height="2" class="led"/>') == 81
    assert svg.count('r="5" class="led"/>') == 81


def test_the_led_chains_drop_is_worked_out_from_its_wire_and_feeds() -> None:
    """Issue 39, finding 5: Three Dragons' chain at its budget on 22 AWG from one end, and
    the same on 26 AWG (the review's 0.55 V), and with two feeds (a quarter of it)."""
    from firmware_bridge.link.wiring import led_bus_problem, led_drop_v

    profile = catalog.load_profile("three-dragons", catalog.load_game("three-dragons"))
    wiring = profile.pico
    assert wiring is not None
    sensors, leds = len(profile.sensor_cells), len(profile.led_cells)
    one_end = led_drop_v(wiring, sensors, leds)
    assert 0.15 < one_end < 0.3
    assert 0.5 < led_drop_v(wiring, sensors, leds, awg=26) < 0.6
    assert abs(led_drop_v(wiring, sensors, leds, awg=26, feeds=2) * 4
               - led_drop_v(wiring, sensors, leds, awg=26)) < 1e-9  # fmt: skip
    assert led_bus_problem(wiring, sensors, leds) is None
    thin = dataclasses.replace(wiring, power=dataclasses.replace(wiring.power, led_wire_awg=30))
    said = led_bus_problem(thin, sensors, leds)
    assert said is not None and "led_feeds: 2" in said and "led_wire_awg: 24" in said


def test_a_usb_boards_led_capacitors_sit_behind_a_soft_start() -> None:
    """Issue 39, finding 4: '10 uF per 8 LEDs' on VBUS was 50-100 uF against USB's 10 uF. On a
    USB-powered board they go behind a soft-start switch: its charging current is checked and
    the parts list has the switch; a board with a supply needs none."""
    from firmware_bridge.link.wiring import chain_capacitance_uf, usb_inrush_ma
    from firmware_bridge.physics.materials import parts_list

    game = catalog.load_game("vanguard")
    profile = catalog.load_profile("vanguard", game)
    assert profile.pico is not None
    assert chain_capacitance_uf(40) == 54.0
    assert usb_inrush_ma(profile.pico, 40) == 27.0
    assert any(line.part == "load_switch" for line in parts_list(profile, game))
    dragons = catalog.load_game("three-dragons")
    supplied = catalog.load_profile("three-dragons", dragons)
    assert supplied.pico is not None and usb_inrush_ma(supplied.pico, 77) is None
    assert not any(line.part == "load_switch" for line in parts_list(supplied, dragons))


def test_each_rails_current_is_worked_out_and_said(tmp_path: Path) -> None:
    """Issue 39: the current on each rail. Three Dragons: the supply carries the Pico, its own
    3.3 V, the LEDs at their budget and the sensors' regulator (a linear one draws what it
    gives); the Pico's 3V3 pin only the multiplexers. Vanguard on USB: all within 500 mA,
    and the Pi 5's shared USB limit said."""
    from firmware_bridge.link.wiring import led_current_ma, rail_currents

    game = catalog.load_game("three-dragons")
    wiring = catalog.load_profile("three-dragons", game).pico
    assert wiring is not None
    rails = rail_currents(wiring, 77, 77)
    assert rails["3V3"] == 1.0 and rails["sensors_3v3"] == 277.2
    expected = 50 + 1.0 * 3.3 / 5 / 0.9 + led_current_ma(wiring, 77, 77) + 277.2
    assert abs(rails["5v"] - expected) < 0.1 and rails["5v"] < wiring.power.supply_ma
    result = subprocess.run(
        [sys.executable, "-m", "firmware_bridge.cli", "firmware", "config", "--board",
         "vanguard", "-o", str(tmp_path / "board.json")], capture_output=True, text=True,
        check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "at most, each rail: VBUS (USB) 0.41 A of 0.5 A" in result.stdout
    assert "Raspberry Pi 5" in result.stdout
