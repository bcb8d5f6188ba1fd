"""Build step: the rules engine compiled with mypyc where this machine can, pure Python where not.

Everything else about the package is in pyproject.toml. The engine is strictly typed, so mypyc
(part of mypy) turns its modules into C extensions that play about twice as fast; the Python
sources stay in the package beside them, and Python loads an extension before a source of the
same name. The compiled build is an optimisation, never a requirement:

- ``BOARD_REFEREE_PURE=1`` in the environment builds pure Python;
- an editable install (``pip install -e``, the developer's) is always pure Python, so an edited
  rule takes effect at once instead of being shadowed by a stale extension;
- with no C compiler, no Python headers (Debian's ``python3-dev``), or a failed compile, the
  install goes on in pure Python and says why in one warning;
- ``BOARD_REFEREE_OPT_LEVEL`` sets the C compiler's optimisation (3 by default, what a club
  installs; the tests build at 1, which compiles in 40% less time and plays the same);
- ``BOARD_REFEREE_COMPILE=rules`` compiles the rules only, not the computer's search
  (``engine/search``, which then runs as Python): the tests' build, whose conformance suite
  needs only the rules.

``engine/player.py`` stays Python: its enum keeps plain per-member attributes that rules code
reads on every ply, which a compiled enum cannot carry.
"""

from __future__ import annotations

import os
import shutil
import sys
import sysconfig
import warnings
from pathlib import Path
from typing import Any

from setuptools import setup
from setuptools.command.build_ext import build_ext

HERE = Path(__file__).resolve().parent
NOT_COMPILED = {"engine/player.py"}
BUILDS = {"bdist_wheel", "build", "build_ext", "install"}  # the commands that compile
QUIET = {"editable install", "not a build", "BOARD_REFEREE_PURE is set"}  # chosen, not a fault


def compiled_modules() -> list[str]:
    sources = sorted(p.relative_to(HERE).as_posix() for p in (HERE / "engine").rglob("*.py"))
    if os.environ.get("BOARD_REFEREE_COMPILE") == "rules":  # the tests' build: the rules only
        sources = [s for s in sources if not s.startswith("engine/search/")]
    return [s for s in sources if s not in NOT_COMPILED]


def why_pure() -> str | None:
    """Why this build cannot (or must not) compile the engine; None when it can."""
    if os.environ.get("BOARD_REFEREE_PURE"):
        return "BOARD_REFEREE_PURE is set"
    if "editable_wheel" in sys.argv:
        return "editable install"
    if not BUILDS.intersection(sys.argv):
        return "not a build"  # metadata only: nothing to compile
    if not (Path(sysconfig.get_paths()["include"]) / "Python.h").is_file():
        return "no Python headers (install python3-dev)"
    compiler = (os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(compiler) is None:
        return f"no C compiler ({compiler}; install gcc)"
    try:
        import mypyc.build  # noqa: F401
    except ImportError:
        return "mypyc is not installed"
    return None


class OptionalBuildExt(build_ext):
    """Builds the compiled engine, or, when the compiler fails, leaves it out and warns."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as exc:  # any compile or link failure: pure Python still works
            for output in self.get_outputs():
                Path(output).unlink(missing_ok=True)
            warnings.warn(f"board-referee: the engine stays pure Python ({exc})", stacklevel=1)


def extensions() -> list[Any]:
    reason = why_pure()
    if reason is not None:
        if reason not in QUIET:
            warnings.warn(f"board-referee: the engine stays pure Python: {reason}", stacklevel=1)
        return []
    from mypyc.build import mypycify

    try:
        level = os.environ.get("BOARD_REFEREE_OPT_LEVEL", "3")
        # One C file per module (multi_file), not one 9 MB file: a quarter less compiler time
        # and memory (a Pi's build), plays as fast, and build_ext -j compiles them side by side.
        return list(
            mypycify(
                compiled_modules(), opt_level=level if level in "0123" else "3", multi_file=True
            )
        )
    except (Exception, SystemExit) as exc:  # mypyc refused the code: stay pure
        warnings.warn(f"board-referee: the engine stays pure Python ({exc})", stacklevel=1)
        return []


setup(ext_modules=extensions(), cmdclass={"build_ext": OptionalBuildExt})
