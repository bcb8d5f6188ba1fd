"""The board's physics (firmware_bridge/physics): does every cell read every piece?

The field is magpylib's; these tests hold the checks to the review's faults, each one a
design the check must refuse (and its fix one it must pass), and every shipped profile to
passing it."""

from __future__ import annotations

import copy
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from engine import ConfigError
from firmware_bridge.link import catalog
from firmware_bridge.link.profile import build_profile
from firmware_bridge.physics.check import check_profile, report_lines
from firmware_bridge.physics.field import signal
from firmware_bridge.physics.parts import MM, MT
from firmware_bridge.physics.stackup import parse_build
from tests.e2e import PYTHON

CONFIG = Path(__file__).parent.parent / "config"
MAGNETIC = [p for p in catalog.profile_ids(CONFIG) if "sensing: identity" not in
            (CONFIG / "boards" / f"{p}.yaml").read_text()]  # fmt: skip

# The review's board: a 6 x 3 mm N35 disc in a 30 mm piece, a hall sensor flat against the
# underside of a 6.24 mm top (its element 7 mm under the playing surface).
REVIEWED = {
    "cell_mm": 40,
    "top_mm": 6.24,
    "cavity_mm": 13,
    "piece": {"diameter_mm": 30, "base_mm": 0, "magnet": {"diameter_mm": 6, "thickness_mm": 3}},
    "sensor": {"variant": "PA", "mount": "under-top"},
    "led_offset_mm": 21.5,
    "led_mm": 2,
}


def profile_with(profile_id: str, build: dict[str, Any] | None) -> tuple[Any, Any]:
    game = catalog.load_game(catalog.profile_game(profile_id, CONFIG), directory=CONFIG)
    data = yaml.safe_load((CONFIG / "boards" / f"{profile_id}.yaml").read_text())
    if build is None:
        data.pop("build", None)
    else:
        data["build"] = build
    return build_profile(data, game, f"boards/{profile_id}.yaml"), game


def changed(base: dict[str, Any], **changes: Any) -> dict[str, Any]:
    """``base`` with keys replaced (``piece__magnet`` reaches into piece.magnet)."""
    build = copy.deepcopy(base)
    for key, value in changes.items():
        *path, last = key.split("__")
        node = build
        for part in path:
            node = node[part]
        node[last] = value
    return build


@pytest.mark.parametrize("profile_id", MAGNETIC)
def test_every_shipped_profile_reads_every_piece_on_every_cell(profile_id: str) -> None:
    data = yaml.safe_load((CONFIG / "boards" / f"{profile_id}.yaml").read_text())
    assert "build" in data, f"{profile_id} says how it is built"
    profile, game = profile_with(profile_id, data["build"])
    verdict = check_profile(profile, game)
    assert verdict.ok, verdict.problems
    # Every cell with a sensor is checked, hex and square boards alike.
    assert len(verdict.cells) == sum(cell is not None for cell in profile.sensor_cells)
    weakest = verdict.weakest()
    assert weakest.alone >= verdict.need.on > verdict.need.threshold
    assert verdict.loudest().crosstalk < verdict.need.quiet


def test_a_pa_variant_7_mm_down_misses_a_piece_5_mm_off_centre_and_ra_reads_it() -> None:
    profile, game = profile_with("vanguard", REVIEWED)
    verdict = check_profile(profile, game)
    assert not verdict.ok
    problem = verdict.problems[0]
    # Named: the cell, where the piece stands, the field against the need, and the fix.
    cell = verdict.weakest().cell
    assert problem.startswith(f"{cell}: a piece 5.0 mm off the centre"), problem
    assert "gives the drv5053 (PA) 10." in problem and "build.sensor.variant: RA" in problem
    # The field is the review's own figure (about 10.4 mT 5 mm off a 6 x 3 mm N35 disc).
    stack = parse_build(profile)
    assert stack.element_z == pytest.approx(-7.0 * MM)
    off_centre = abs(float(signal(stack, [[5 * MM, 0.0]])[0])) / MT
    assert 9.5 < off_centre < 11.5
    fixed = check_profile(*profile_with("vanguard", changed(REVIEWED, sensor__variant="RA")))
    assert fixed.ok, fixed.problems


def test_both_polarities_read_the_same_size_opposite_ways() -> None:
    profile, _ = profile_with("vanguard", REVIEWED)
    stack = parse_build(profile)
    places = [[0.0, 0.0], [3 * MM, -2 * MM]]
    south, north = signal(stack, places, 1.0), signal(stack, places, -1.0)
    assert all(s > 0 for s in south) and list(north) == pytest.approx([-s for s in south])


def test_an_upright_reed_taller_than_its_cavity_is_refused_with_the_figures() -> None:
    build = {"top_mm": 3, "cavity_mm": 15, "sensor": {"mount": "upright", "lead_bend_mm": 2}}
    profile, game = profile_with("three-dragons-reed", build)
    with pytest.raises(ConfigError) as refused:
        check_profile(profile, game)
    text = str(refused.value)
    assert "build.cavity_mm" in text and "takes 18.5 mm" in text and "15 mm cavity" in text
    assert "build.sensor.mount: flat" in text and "19 mm or more" in text
    roomy = changed(build, cavity_mm=20, top_mm=9, led_offset_mm=23.5, led_mm=2)
    roomy["piece"] = {"diameter_mm": 30, "magnet": {"diameter_mm": 8, "thickness_mm": 3}}
    verdict = check_profile(*profile_with("three-dragons-reed", roomy))  # it fits, but ...
    # Issue 65: upright, every neighbour pushes the reed the same way: with its own piece
    # lifted they still hold it closed (0.57 mT against a least drop-out of 0.5, less the
    # margin), which the old check, against the pull-in only, let pass.
    assert [p for p in verdict.problems if "its piece lifted" in p], verdict.problems
    flat = changed(roomy, sensor__mount="flat", top_mm=3, cavity_mm=8)
    flat["piece"] = {"diameter_mm": 30, "magnet": {"diameter_mm": 8, "thickness_mm": 2}}
    assert check_profile(*profile_with("three-dragons-reed", flat)).ok  # the shipped build


def test_crosstalk_on_a_small_cell_is_refused() -> None:
    small = changed(REVIEWED, cell_mm=22, piece={"diameter_mm": 18, "magnet": {
        "diameter_mm": 12, "thickness_mm": 5}}, sensor={"variant": "RA", "mount": "under-top"},
        led_offset_mm=9)  # fmt: skip
    verdict = check_profile(*profile_with("vanguard", small))
    assert [p for p in verdict.problems if "(crosstalk)" in p], verdict.problems
    assert "larger cells (build.cell_mm)" in verdict.problems[0]
    assert verdict.loudest().crosstalk > verdict.need.quiet


def test_an_led_under_the_piece_and_a_lifted_piece_that_holds_its_reed_are_refused() -> None:
    under = check_profile(*profile_with("vanguard", changed(REVIEWED, sensor__variant="RA",
                                                            led_offset_mm=12)))  # fmt: skip
    assert any("an LED 12 mm from the cell's centre is under a 30 mm piece" in p
               for p in under.problems), under.problems  # fmt: skip
    strong = {"top_mm": 3, "cavity_mm": 20, "lift_mm": 4,
              "piece": {"magnet": {"diameter_mm": 12, "thickness_mm": 5, "grade": "N52"}},
              "sensor": {"mount": "upright"}}  # fmt: skip
    held = check_profile(*profile_with("three-dragons-reed", strong))
    assert any(p.startswith("a piece lifted 4 mm still gives") for p in held.problems)


@pytest.mark.parametrize(
    ("build", "said"),
    [
        ({"sensor": {"part": "tmag5273"}}, "build.sensor: unknown key 'part'"),
        ({"piece": {"magnet": {"grade": "N99"}}}, "build.piece.magnet.grade"),
        ({"top_mm": -3}, "build.top_mm: expected 0.5 to 30"),
        ({"sensor": {"variant": "ZZ"}}, "build.sensor.variant"),
        ({"piece": {"diameter_mm": 50}}, "wider than its 40 mm cell"),
    ],
)
def test_a_wrong_build_names_its_key(build: dict[str, Any], said: str) -> None:
    with pytest.raises(ConfigError, match=None) as refused:
        check_profile(*profile_with("vanguard", build))
    assert said in str(refused.value) and "boards/vanguard.yaml" in str(refused.value)


def test_the_commands_print_the_figures_and_refuse_a_board_that_would_not_read(
    tmp_path: Path,
) -> None:
    shown = subprocess.run([*PYTHON, "firmware", "physics", "--board", "vanguard", "--pictures",
                            str(tmp_path / "pictures")], capture_output=True, text=True,
                           timeout=120, check=False)  # fmt: skip
    assert shown.returncode == 0, shown.stderr
    assert "weakest:" in shown.stdout and "crosstalk:" in shown.stdout and "  ok" in shown.stdout
    pictures = sorted(p.name for p in (tmp_path / "pictures").iterdir())
    assert pictures and all(name.endswith(".svg") for name in pictures)
    # A magnet that cannot reach: a 25 mm top.
    config = tmp_path / "config"
    shutil.copytree(CONFIG, config)
    board = config / "boards" / "vanguard.yaml"
    data = yaml.safe_load(board.read_text())
    data["build"]["top_mm"] = 25
    board.write_text(yaml.safe_dump(data))
    for action, code in (("physics", 1), ("config", 2), ("circuit", 2)):
        args = ["-o", str(tmp_path / action)] if action != "physics" else []
        run = subprocess.run([*PYTHON, "firmware", action, "--board", "vanguard",
                              "--config-dir", str(config), *args],
                             capture_output=True, text=True, timeout=120, check=False)  # fmt: skip
        assert run.returncode == code, (action, run.stdout, run.stderr)
        said = run.stdout if action == "physics" else run.stderr
        assert "off the centre" in said and "build.top_mm" in said, said
        assert "Traceback" not in run.stderr
    assert not (tmp_path / "config").joinpath("board.json").exists()


def test_the_report_says_where_the_weakest_piece_stands() -> None:
    verdict = check_profile(*profile_with("vanguard", changed(REVIEWED, sensor__variant="RA")))
    lines = report_lines(verdict)
    assert lines[1].startswith(f"  weakest: {verdict.weakest().cell}, a piece at (")
    assert "margin 1." in lines[1] and lines[-1] == "  ok"


def test_a_reed_lying_flat_and_centred_never_closes_and_is_refused() -> None:
    """Issue 39's finding, now in the field's own terms: under a disc magnet's centre the
    field along a flat, centred reed runs one way under one half and the other way under the
    other, and sums to nothing."""
    build = {"top_mm": 3, "cavity_mm": 10, "sensor": {"mount": "flat-centred"}}
    profile, game = profile_with("three-dragons-reed", build)
    stack = parse_build(profile)
    assert abs(float(signal(stack, [[0.0, 0.0]])[0])) < 1e-6
    verdict = check_profile(profile, game)
    assert "build.sensor.mount: flat" in verdict.problems[0]
    # One end under the centre, the same reed is driven by a centred piece.
    flat, _ = profile_with("three-dragons-reed", changed(build, sensor__mount="flat"))
    assert abs(float(signal(parse_build(flat), [[0.0, 0.0]])[0])) > 1 * MT


def test_the_guides_figures_and_pictures_are_the_ones_the_code_makes(tmp_path: Path) -> None:
    """docs/build-a-board.md's physics table, its sources and its pictures are generated
    (tools/physics_table.py), never typed: the guide holds exactly what the code makes."""
    from firmware_bridge.physics.check import physics_table, shipped_verdicts
    from firmware_bridge.physics.parts import sources_text
    from firmware_bridge.physics.pictures import guide_pictures

    guide = (Path(__file__).resolve().parent.parent / "docs" / "build-a-board.md").read_text()
    verdicts = shipped_verdicts()
    assert {v.profile for v in verdicts} == set(MAGNETIC)
    assert physics_table(verdicts) in guide
    assert sources_text() in guide
    pictures = Path(__file__).resolve().parent.parent / "docs" / "physics"
    for made in guide_pictures(tmp_path):
        assert (pictures / made.name).read_text() == made.read_text(), made.name
        assert f"(physics/{made.name})" in guide


def test_without_the_board_tools_extra_the_check_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A club's install has neither magpylib nor numpy: firmware physics says one line."""
    import sys

    monkeypatch.setitem(sys.modules, "numpy", None)
    monkeypatch.setitem(sys.modules, "magpylib", None)
    with pytest.raises(ConfigError, match=r"pip install 'board-referee\[board\]'"):
        check_profile(*profile_with("vanguard", REVIEWED))


def test_a_weak_hall_board_is_told_the_next_more_sensitive_variant_never_its_own() -> None:
    """Issue 65: the advice to a weak RA board was "use the more sensitive RA variant". Each
    variant is told the next more sensitive one; the most sensitive, only the magnet and the
    top."""
    from firmware_bridge.physics.check import check_profile

    for variant, advice in (("PA", "the more sensitive RA variant"),
                            ("RA", "the more sensitive VA variant"), ("VA", None)):  # fmt: skip
        build = changed(REVIEWED, sensor__variant=variant, top_mm=14, cavity_mm=20)
        profile, game = profile_with("vanguard", build)
        verdict = check_profile(profile, game)
        weak = next(p for p in verdict.problems if "needs" in p and "off the centre" in p)
        assert f"the more sensitive {variant} variant" not in weak, weak
        if advice:
            assert advice in weak, weak
        else:
            assert "variant" not in weak and "a stronger magnet" in weak, weak


def test_a_pressed_piece_needs_the_margin_and_an_led_must_clear_a_piece_at_its_cells_edge() -> None:
    """Issue 65: Three Dragons' build as shipped before passed with its neighbours working
    against a piece at 3.75 mT where 3.89 mT (the threshold and its margin) is needed, and its
    LED 16 mm out was clear only of a centred piece, not of one pushed towards it."""
    before = {"cell_mm": 40, "top_mm": 3, "cavity_mm": 15,
              "piece": {"diameter_mm": 25, "base_mm": 0.5,
                        "magnet": {"diameter_mm": 12, "thickness_mm": 5, "grade": "N35"}},
              "sensor": {"variant": "VA", "mount": "on-base"}, "led_offset_mm": 16}  # fmt: skip
    problems = check_profile(*profile_with("three-dragons", before)).problems
    pressed = next(p for p in problems if "working against it" in p)
    assert "gives 3.75 mT, under the 3.89 mT it needs" in pressed, pressed
    led = next(p for p in problems if "LED" in p)
    assert "standing 10.6 mm off the centre towards it" in led and "26.6 mm or more" in led, led
    assert "build.led_mm: 2" in led
    assert check_profile(*catalog_board("three-dragons")).ok  # as shipped now


def catalog_board(profile_id: str) -> tuple[Any, Any]:
    game = catalog.load_game(catalog.profile_game(profile_id, CONFIG), directory=CONFIG)
    return catalog.load_profile(profile_id, game, CONFIG), game
