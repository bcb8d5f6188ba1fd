"""The engine compiled with mypyc (setup.py): the conformance suite passes on it as on pure
Python, and a machine that cannot compile still builds, in pure Python."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
from compiled_engine import TESTS_EXTRA, TESTS_LEVEL, build_ext, compiled_engine

PYTEST_INI = '[pytest]\naddopts = -m "not slow"\nmarkers =\n    slow: long runs\n'


@pytest.fixture(scope="module")
def compiled() -> Path:
    """The compiled engine with the conformance suite beside it (make test starts its build
    before the suite). Built at -O1: it compiles in 40% less time than the -O3 a club
    installs, and the C it compiles is the same (a rule mypyc gets wrong is wrong at either
    level)."""
    folder = compiled_engine(TESTS_EXTRA, TESTS_LEVEL, rules_only=True)
    (folder / "pytest.ini").write_text(PYTEST_INI, encoding="utf-8")
    return folder


def test_the_conformance_suite_passes_on_the_compiled_engine(compiled: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(compiled)}
    where = subprocess.run(
        [sys.executable, "-c", "import engine.game, engine.games.vanguard as v, engine.player "
         "as p, engine.search.mcts as m; print(engine.game.__file__, v.__file__, p.__file__, "
         "m.__file__)"],
        cwd=compiled, env=env, capture_output=True, text=True, check=True,
    ).stdout.split()  # fmt: skip
    game, vanguard, player, search = (Path(w) for w in where)
    assert game.parent == compiled / "engine" and game.suffix == ".so"
    assert vanguard.suffix == ".so"
    assert player.suffix == ".py"  # kept in Python on purpose (setup.py)
    assert search.suffix == ".py"  # the tests' build is the rules only (tools/compiled_engine)
    # The deep playouts (every check at every ply), the declared results and the arbitrary
    # moves: every path of the compiled rules. The 20 shallow playouts a variant that only
    # check each game ends run on the pure engine (test_conformance.py): here they would cost
    # a third of the run for no path the deep ones miss. So does the 10-limp board, the
    # biggest: its rules code is the other boards'.
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
         "tests/test_conformance.py", "-k", "not many_games_terminate and not 10-limp"],
        cwd=compiled, env=env, capture_output=True, text=True, timeout=900, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout[-4000:]
    assert " passed" in result.stdout and "failed" not in result.stdout


def test_a_machine_that_cannot_compile_builds_pure_python(tmp_path: Path) -> None:
    # No compiler at all: said at once, nothing compiled.
    missing = build_ext(tmp_path / "a", tmp_path / "at", CC="/nonexistent/cc",
                        BOARD_REFEREE_MYPYC_DIR=str(tmp_path / "am"))  # fmt: skip
    assert missing.returncode == 0, missing.stderr[-3000:]
    assert "the engine stays pure Python: no C compiler" in missing.stderr
    assert not list((tmp_path / "a").rglob("*.so"))
    # A compiler that fails (a broken tool chain, a Pi out of memory): the build goes on. (One
    # small module is enough to fail on: mypyc's own work on the whole engine is 20 s.)
    failing = build_ext(tmp_path / "b", tmp_path / "bt", CC="false",
                        BOARD_REFEREE_COMPILE="engine/outcome.py",
                        BOARD_REFEREE_MYPYC_DIR=str(tmp_path / "bm"))  # fmt: skip
    assert failing.returncode == 0, failing.stderr[-3000:]
    assert "the engine stays pure Python" in failing.stderr
    assert not list((tmp_path / "b").rglob("*.so"))
