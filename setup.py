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
  needs only the rules;
- with less memory free than the compile needs (a Pi Zero 2 with a desktop), pure Python: an
  install that runs out of memory is killed, and the club is left with none.
  ``BOARD_REFEREE_MEMORY_MB`` says how much there is, instead of /proc/meminfo and the
  memory cgroup's limit.

``python setup.py --why-pure`` prints why this machine's build would be pure Python (nothing
when it would be compiled): ``make install`` says it in its last line.

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

HERE = Path(__file__).resolve().parent
NOT_COMPILED = {"engine/player.py"}
BUILDS = {"bdist_wheel", "build", "build_ext", "install"}  # the commands that compile
QUIET = {"editable install", "not a build", "BOARD_REFEREE_PURE is set"}  # chosen, not a fault
# The compile's peak, all its processes together: 404 MB measured on x86-64 (mypyc's 166 MB
# beside the C compiler's 246 MB on the largest module; -O1 needs 355 MB), with room to spare.
# arm64's figure is in docs/raspberry-pi.md (make pi-check measures it).
COMPILE_MB = 500


def memory_mb() -> int | None:
    """Memory free for the build, in MB: the least of what the kernel says is available and
    what this process's memory cgroup still allows; None when neither can be read."""
    told = os.environ.get("BOARD_REFEREE_MEMORY_MB", "")
    if told.isdigit():
        return int(told)
    found: list[int] = []
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                found.append(int(line.split()[1]) // 1024)
    except OSError:
        pass
    try:  # cgroup v2: the limit of this process's group and of each above it
        group = Path("/proc/self/cgroup").read_text().splitlines()[-1].split(":", 2)[2]
        folder = Path("/sys/fs/cgroup") / group.lstrip("/")
        while folder != Path("/sys/fs/cgroup").parent:
            limit = folder / "memory.max"
            if limit.is_file() and limit.read_text().strip() != "max":
                used = (folder / "memory.current").read_text()
                found.append((int(limit.read_text()) - int(used)) // (1024 * 1024))
            folder = folder.parent
    except (OSError, ValueError, IndexError):
        pass
    return min(found) if found else None


def compiled_modules() -> list[str]:
    sources = sorted(p.relative_to(HERE).as_posix() for p in (HERE / "engine").rglob("*.py"))
    chosen = os.environ.get("BOARD_REFEREE_COMPILE", "all")
    if chosen == "rules":  # the tests' build: the rules only
        sources = [s for s in sources if not s.startswith("engine/search/")]
    elif chosen != "all":  # these files only (a test of a build's failure needs one)
        sources = [s for s in sources if s in chosen.split(",")]
    return [s for s in sources if s not in NOT_COMPILED]


def why_pure(*, need_mypyc: bool = True) -> str | None:
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
    if need_mypyc:  # (pip's isolated build has it, whether or not the installed venv does)
        try:
            import mypyc.build  # noqa: F401
        except ImportError:
            return "mypyc is not installed"
    free = memory_mb()
    if free is not None and free < COMPILE_MB:
        return (
            f"{free} MB of memory free, and the compile needs about {COMPILE_MB} MB "
            "(close other programs, or add swap, and run make install again)"
        )
    return None


if sys.argv[1:] == ["--why-pure"]:  # make install's last line: why not compiled, if not
    sys.argv[1:] = ["build_ext"]
    print(why_pure(need_mypyc=False) or "")
    sys.exit(0)

# setuptools only now: a venv of Python 3.12 or later has none, and --why-pure needs none.
from setuptools import setup  # noqa: E402
from setuptools.command.build_ext import build_ext  # noqa: E402


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
        # mypyc writes its C under ./build unless told: two builds of one checkout at once
        # (the tests' and a benchmark's) would mix their files (tools/compiled_engine.py).
        target = os.environ.get("BOARD_REFEREE_MYPYC_DIR", "build")
        return list(
            mypycify(
                compiled_modules(),
                opt_level=level if level in "0123" else "3",
                multi_file=True,
                target_dir=target,
            )
        )
    except (Exception, SystemExit) as exc:  # mypyc refused the code: stay pure
        warnings.warn(f"board-referee: the engine stays pure Python ({exc})", stacklevel=1)
        return []


setup(ext_modules=extensions(), cmdclass={"build_ext": OptionalBuildExt})
