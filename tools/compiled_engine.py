"""This checkout's engine compiled with mypyc, in a folder of its own beside its sources.

The developer's install is editable and pure Python (setup.py); the tests and the engine
benchmark use this to run the compiled engine too: put the folder first on ``sys.path`` (or in
``PYTHONPATH``). Built once per change of the engine, kept under the virtual environment.
Run: ``python tools/compiled_engine.py`` prints the folder (building it when needed);
``--for-tests`` builds the tests' one (``make test`` starts it first, in the background, so the
build runs beside the installs and lint instead of inside the suite). Two builds of the same
folder take turns on a lock: the second finds the first's.
"""

from __future__ import annotations

import argparse
import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# The tests' build (tests/test_compiled_engine.py): the conformance suite beside the engine, at
# -O1 (it compiles in 40% less time than a club's -O3, from the same C), the rules only (the
# computer's search stays Python there: the suite does not use it).
TESTS_EXTRA = tuple(ROOT / "tests" / name
                    for name in ("__init__.py", "helpers.py", "test_conformance.py"))  # fmt: skip
TESTS_LEVEL = "1"


def sources() -> list[Path]:
    return sorted((ROOT / "engine").rglob("*.py"))


def build_ext(lib: Path, temp: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """setup.py's build of the extensions into ``lib`` (whatever the environment asks)."""
    clean = {k: v for k, v in os.environ.items() if k != "BOARD_REFEREE_PURE"}
    return subprocess.run(
        [sys.executable, "setup.py", "-q", "build_ext", "-j", str(os.cpu_count() or 1),
         "-b", str(lib), "-t", str(temp)],
        cwd=ROOT, env={**clean, **env}, capture_output=True, text=True, timeout=900,
        check=False,
    )  # fmt: skip


def compiled_engine(extra: tuple[Path, ...] = (), level: str = "3", *,
                    rules_only: bool = False) -> Path:  # fmt: skip
    """The folder holding the compiled engine (and a copy of ``extra`` files of the checkout,
    at their places), built at C optimisation ``level``; raises RuntimeError with the
    compiler's words when it cannot be built."""
    digest = hashlib.sha256(level.encode() + (b" rules" if rules_only else b""))
    for path in [*sources(), ROOT / "setup.py", *extra]:
        digest.update(path.relative_to(ROOT).as_posix().encode() + path.read_bytes())
    folder = Path(sys.prefix) / "board-referee-compiled" / digest.hexdigest()[:16]
    folder.parent.mkdir(parents=True, exist_ok=True)
    with (folder.parent / f"{folder.name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # a build of the same folder under way: wait for it
        return _build(folder, level, extra, rules_only)


def rerun_compiled(marker: str) -> None:
    """Run the calling script again on this checkout's compiled engine (built when needed),
    unless ``marker`` in the environment says this run is that one already."""
    if marker in os.environ:
        return
    env = {**os.environ, "PYTHONPATH": str(compiled_engine()), marker: "1"}
    os.execve(sys.executable, [sys.executable, *sys.argv], env)


def _build(folder: Path, level: str, extra: tuple[Path, ...], rules_only: bool) -> Path:
    if (folder / "done").exists():
        return folder
    shutil.rmtree(folder, ignore_errors=True)
    temp = folder.with_name(folder.name + "-temp")
    # A build cut short (a test run stopped) leaves its object files: setuptools would link
    # them into the next one, against another run of mypyc's runtime (an undefined symbol at
    # import). Every build starts from nothing.
    shutil.rmtree(temp, ignore_errors=True)
    result = build_ext(folder, temp, BOARD_REFEREE_OPT_LEVEL=level,
                       BOARD_REFEREE_COMPILE="rules" if rules_only else "all",
                       BOARD_REFEREE_MYPYC_DIR=str(temp / "mypyc"))  # fmt: skip
    shutil.rmtree(temp, ignore_errors=True)
    if result.returncode != 0 or not list(folder.rglob("*.so")):
        raise RuntimeError(f"the engine did not compile:\n{result.stderr[-3000:]}")
    for source in [*sources(), *extra]:
        target = folder / source.relative_to(ROOT)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(source, target)
    (folder / "done").touch()
    return folder


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--for-tests", action="store_true", help="the tests' build")
    args = parser.parse_args()
    print(compiled_engine(TESTS_EXTRA, TESTS_LEVEL, rules_only=True) if args.for_tests
          else compiled_engine())  # fmt: skip
