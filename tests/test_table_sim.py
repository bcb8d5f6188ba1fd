"""The simulated table, bounded for CI: self-played games of every game against the real
daemon over the pty, with hands that behave like people and faults on the way. The long run
is ``python tools/table_sim.py --moves 2000`` (and ``pytest -m slow`` runs a longer one)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from firmware_bridge.link import catalog


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
    assert tally.games >= len(games)  # every game was played
    assert len(tally.behaviours) >= 6, tally.line()  # and the hands misbehaved in many ways


def test_a_bounded_table_loses_nothing_accepts_nothing_wrong_and_never_sticks() -> None:
    _check(moves=45, seed=3)


def test_a_bounded_table_on_the_pico_firmware_in_micropython() -> None:
    _check(moves=25, seed=5, kind="firmware", per_game=5)


@pytest.mark.slow
def test_a_long_table() -> None:
    _check(moves=600, seed=11)
