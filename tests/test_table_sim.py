"""The simulated table, bounded for CI: self-played games of every game against the real
daemon over the pty, with hands that behave like people and faults on the way; each game's
flight recording is then replayed and must decide the same. The long run
is ``python tools/table_sim.py --moves 2000`` (and ``pytest -m slow`` runs a longer one)."""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path
from types import ModuleType

import pytest

from firmware_bridge.boards.chip import ASSETS
from firmware_bridge.link import catalog

CHIP_READY = shutil.which("node") is not None and (ASSETS / "node_modules" / "rp2040js").is_dir()
NO_CHIP = "Node.js and rp2040js are missing: make test installs them (tools/ensure-chip.sh)"


def _tool() -> ModuleType:
    path = Path(__file__).resolve().parent.parent / "tools" / "table_sim.py"
    spec = importlib.util.spec_from_file_location("table_sim", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["table_sim"] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def _check(moves: int, seed: int, kind: str = "emulator", per_game: int | None = None) -> None:
    sim = _tool()
    games = catalog.game_ids()
    per_game = per_game or max(8, moves // len(games))
    tally = sim.run(games, moves, seed, sim.Tally(), per_game=per_game,
                    kind=kind)  # fmt: skip
    assert tally.attempted >= moves
    assert (tally.lost, tally.wrong, tally.stuck) == (0, 0, 0), (
        tally.line() + "\n" + "\n".join(tally.notes)
    )
    # Every game's flight recording replays through the referee deciding the same (issue 29).
    assert tally.replayed == tally.games and tally.differed == 0, "\n".join(tally.notes)
    assert tally.games >= len(games)  # every game was played
    assert len(tally.behaviours) >= 6, tally.line()  # and the hands misbehaved in many ways


def test_a_bounded_table_loses_nothing_accepts_nothing_wrong_and_never_sticks() -> None:
    _check(moves=20, seed=4, per_game=4)


# The firmware's own games, noise, unplugs and faults are refereed in make test
# (test_firmware_end_to_end); these hands on it, in make test-slow.
@pytest.mark.slow
def test_a_bounded_table_on_the_pico_firmware_in_micropython() -> None:
    _check(moves=15, seed=5, kind="firmware", per_game=3)


@pytest.mark.slow
def test_a_long_table() -> None:
    _check(moves=600, seed=11)


@pytest.mark.slow  # the chip runs a core flat out: in make test, the chip's own tests
@pytest.mark.skipif(
    not CHIP_READY, reason="Node.js and rp2040js are missing: make test installs them"
)
def test_a_bounded_table_on_the_emulated_rp2040() -> None:
    """The same hands on the board's UF2 in rp2040js (their timing scaled to its speed): a
    short run on one game; the next test runs a longer one on every game."""
    sim = _tool()
    tally = sim.run(["vanguard"], 5, 5, sim.Tally(), per_game=5, kind="chip")
    assert tally.attempted >= 5
    assert (tally.lost, tally.wrong, tally.stuck) == (0, 0, 0), (
        tally.line() + "\n" + "\n".join(tally.notes)
    )
    # Every game's flight recording replays through the referee deciding the same (issue 29).
    assert tally.replayed == tally.games and tally.differed == 0, "\n".join(tally.notes)
    assert len(tally.behaviours) >= 2, tally.line()  # the hands misbehaved on the chip too


@pytest.mark.slow
@pytest.mark.skipif(
    not CHIP_READY, reason="Node.js and rp2040js are missing: make test installs them"
)
def test_a_longer_table_on_the_emulated_rp2040() -> None:
    _check(moves=25, seed=5, kind="chip", per_game=5)
