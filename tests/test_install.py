"""What a club installs is what is tested: the non-editable install, built as ``make install``
builds it (pure Python here, which is quick; the compiled build is tests/test_compiled_engine.py
and ``make pi-check``), into a virtual environment of its own that cannot see this checkout.

Every other test runs on the developer's editable install, which finds any module of the tree
whether or not the package list names it: that is how a referee that crashed at start
(``firmware_bridge.opponent`` left out of the wheel) reached every club Pi while the suite was
green. Here the installed files are checked against the tree, file by file, and the installed
commands are started from a folder away from the checkout.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from tests.mosquitto import free_port

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("engine", "firmware_bridge")  # installed into site-packages
SHARED = ("config", "firmware")  # installed under <prefix>/share/board-referee
NEVER_INSTALLED = ("node_modules", "__pycache__")  # the developer's, not the tree's


def tree_files() -> list[str]:
    """The tree's files as git sees them now (tracked, and new ones not ignored)."""
    listed = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT, capture_output=True,
        check=True,
    ).stdout.decode()  # fmt: skip
    return sorted(
        name for name in listed.split("\0")
        if name and (ROOT / name).is_file()
        and not any(part in NEVER_INSTALLED for part in Path(name).parts)
    )  # fmt: skip


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A virtual environment holding the wheel of this tree, built from a copy of it as pip
    builds ``make install``'s, with the referee's dependencies seen through a path file (so
    nothing is downloaded) but never the checkout itself. Built once for the whole run: the
    workers of ``pytest -n`` share it (the first builds it under a lock, the others wait),
    where each built its own, four times the same 25 s."""
    import fcntl

    shared = tmp_path_factory.getbasetemp().parent  # one for every worker of this run
    base = shared / "install"
    with (shared / "install.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (base / "done").exists():
            shutil.rmtree(base, ignore_errors=True)
            base.mkdir()
            _install(base)
            (base / "done").touch()
    return base / "venv"


def _install(base: Path) -> None:
    source = base / "source"
    source.mkdir()
    with tarfile.open(base / "tree.tar", "w") as tar:  # the tree as git sees it, no build files
        for name in tree_files():
            tar.add(ROOT / name, arcname=name)
    with tarfile.open(base / "tree.tar") as tar:
        tar.extractall(source, filter="data")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "BOARD_REFEREE_CONFIG")}
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
         "--wheel-dir", str(base / "dist"), str(source)],
        env={**env, "BOARD_REFEREE_PURE": "1"}, capture_output=True, text=True, check=False,
        timeout=300,
    )  # fmt: skip
    assert built.returncode == 0, built.stderr
    (wheel,) = (base / "dist").glob("*.whl")
    venv = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    done = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install",
         "--quiet", "--no-deps", "--no-index", str(wheel)],
        env=env, capture_output=True, text=True, check=False, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    # The dependencies (pyserial, aiohttp, ...) from the developer's environment, as a plain
    # folder on the path: its .pth files, the editable install's finder among them, are not
    # run, so the checkout stays out of sight.
    site = Path(venv_path(venv, "purelib"))
    (site / "board-referee-test-deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")


def venv_path(venv: Path, key: str) -> str:
    return subprocess.run(
        [str(venv / "bin" / "python"), "-P", "-c",
         f"import sysconfig; print(sysconfig.get_paths()[{key!r}])"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip


def clean_env(home: Path) -> dict[str, str]:
    dropped = ("PYTHONPATH", "VIRTUAL_ENV")
    env = {k: v for k, v in os.environ.items()
           if k not in dropped and not k.startswith("BOARD_REFEREE_")}  # fmt: skip
    return env | {"XDG_STATE_HOME": str(home / "state"), "HOME": str(home)}


def test_the_install_holds_every_file_of_the_tree(installed: Path) -> None:
    """Every module and data file of the packages is in site-packages, every configuration
    and firmware file under share/board-referee: nothing the tree has is left behind."""
    site = Path(venv_path(installed, "purelib"))
    shared = installed / "share" / "board-referee"
    missing = []
    for name in tree_files():
        top = Path(name).parts[0]
        if top in PACKAGES:
            target = site / name
        elif top in SHARED:
            target = shared / name
        else:
            continue
        if not target.is_file():
            missing.append(name)
        elif target.read_bytes() != (ROOT / name).read_bytes():
            missing.append(f"{name} (differs)")
    assert not missing, "not installed: " + ", ".join(missing)
    assert (site / "firmware_bridge" / "opponent" / "server.py").is_file()  # the lost one


def test_every_module_imports_from_the_install(installed: Path, tmp_path: Path) -> None:
    """Each module of the packages imports, and from the install, not from a checkout."""
    script = (
        "import importlib, pkgutil, sys, engine, firmware_bridge\n"
        "prefix = sys.argv[1]\n"
        "for package in (engine, firmware_bridge):\n"
        "    for info in pkgutil.walk_packages(package.__path__, package.__name__ + '.'):\n"
        "        module = importlib.import_module(info.name)\n"
        "        where = getattr(module, '__file__', None) or ''\n"
        "        assert where.startswith(prefix), (info.name, where)\n"
        "        print(info.name)\n"
    )
    done = subprocess.run(
        [str(installed / "bin" / "python"), "-P", "-c", script, str(installed)],
        cwd=tmp_path, env=clean_env(tmp_path), capture_output=True, text=True, check=False,
        timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    imported = set(done.stdout.split())
    expected = {
        ".".join(Path(name).with_suffix("").parts).removesuffix(".__init__")
        for name in tree_files()
        if Path(name).parts[0] in PACKAGES and name.endswith(".py")
    }
    expected -= set(PACKAGES)
    assert expected <= imported, sorted(expected - imported)


def test_the_installed_referee_starts_and_serves_its_kiosk(installed: Path, tmp_path: Path) -> None:
    """``board-referee run`` of the install: a game on its board, the kiosk page and its
    assets served, the opponent's engine answering a hint's request on the way."""
    kiosk, web = free_port(), free_port()
    command = [str(installed / "bin" / "board-referee"), "run", "--kiosk", f"127.0.0.1:{kiosk}",
               "--emulator-web", f"127.0.0.1:{web}", "--game", "three-dragons", "--settle-ms",
               "100", "--computer", "2", "--level", "1", "--movetime", "200"]  # fmt: skip
    proc = subprocess.Popen(command, cwd=tmp_path, env=clean_env(tmp_path), text=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)  # fmt: skip
    try:
        log = Log(proc)
        log.wait("board scanned")
        log.wait("kiosk page:")
        page = fetch(f"http://127.0.0.1:{kiosk}/")
        assert "<html" in page.lower() and "kiosk.js" in page
        assert "connect()" in fetch(f"http://127.0.0.1:{kiosk}/static/kiosk.js")
        assert "<html" in fetch(f"http://127.0.0.1:{web}/").lower()  # the emulated board's page
        for step in ({"do": "lift", "cell": "c1"}, {"do": "place", "cell": "c4"}):
            post(f"http://127.0.0.1:{web}/api/action", step)
        log.wait("the computer chose")  # its engine, a process of its own, answered
        assert proc.poll() is None, "\n".join(log.lines)
    finally:
        proc.terminate()
        proc.wait(20)
    log.wait("(ended)")
    assert not any("Traceback" in line or "Error" in line for line in log.lines), log.lines


def test_the_installed_engine_plays_a_move(installed: Path, tmp_path: Path) -> None:
    engine = subprocess.run(
        [str(installed / "bin" / "board-referee"), "engine", "--seed", "1"],
        input="game vanguard\nposition\ngo nodes 200\nquit\n", cwd=tmp_path,
        env=clean_env(tmp_path), capture_output=True, text=True, check=False, timeout=120,
    )  # fmt: skip
    assert engine.returncode == 0, engine.stderr
    assert any(line.startswith("bestmove ") for line in engine.stdout.splitlines()), engine.stdout


def test_the_installed_commands_read_their_files(installed: Path, tmp_path: Path) -> None:
    """The files commands read at run time, from the install: the firmware (a UF2 identical
    to the checkout's), the units (install-service), the games and boards (games)."""
    env = clean_env(tmp_path)

    def run(*args: str, python: Path = installed / "bin" / "python") -> str:
        done = subprocess.run([str(python), "-P", "-m", "firmware_bridge.cli", *args],
                              cwd=tmp_path, env=env, capture_output=True, text=True,
                              check=False, timeout=120)  # fmt: skip
        assert done.returncode == 0, done.stderr
        return done.stdout

    assert "vanguard" in run("games") and "the-lion-game" in run("games")
    run("firmware", "uf2", "--board", "vanguard", "-o", str(tmp_path / "installed.uf2"))
    run("firmware", "uf2", "--board", "vanguard", "-o", str(tmp_path / "checkout.uf2"),
        python=Path(sys.executable))  # fmt: skip
    digests = {hashlib.sha256((tmp_path / f"{which}.uf2").read_bytes()).hexdigest()
               for which in ("installed", "checkout")}  # fmt: skip
    assert len(digests) == 1, "the installed firmware differs from the checkout's"
    run("install-service", "--board-id", "table1", "--kiosk-user", "pi", "--dest",
        str(tmp_path / "pi"), "--state-dir", "/var/lib/board-referee")  # fmt: skip
    unit = (tmp_path / "pi/etc/systemd/system/board-referee@.service").read_text()
    assert f"ExecStart={installed}/bin/python" in unit  # the install's own Python
    assert (tmp_path / "pi/etc/systemd/system/board-referee-kiosk@.service").is_file()


class Log:
    """A process's standard error, read by a thread, so a wait ends at its deadline even when
    the process says nothing."""

    def __init__(self, proc: subprocess.Popen[str]) -> None:
        self.lines: list[str] = []
        self.changed = threading.Condition()
        threading.Thread(target=self._read, args=(proc,), daemon=True).start()

    def _read(self, proc: subprocess.Popen[str]) -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            with self.changed:
                self.lines.append(line.rstrip("\n"))
                self.changed.notify_all()
        with self.changed:
            self.lines.append("(ended)")
            self.changed.notify_all()

    def wait(self, text: str, timeout: float = 60) -> str:
        deadline = time.monotonic() + timeout
        with self.changed:
            while True:
                found = next((line for line in self.lines if text in line), None)
                left = deadline - time.monotonic()
                if found is not None or left <= 0 or "(ended)" in self.lines:
                    break
                self.changed.wait(left)
        assert found is not None, f"no {text!r} in:\n" + "\n".join(self.lines)
        return found


def post(url: str, body: dict[str, str]) -> None:
    request = urllib.request.Request(url, json.dumps(body).encode(),
                                     {"Content-Type": "application/json"})  # fmt: skip
    urllib.request.urlopen(request, timeout=10).read()


def fetch(url: str) -> str:
    with urllib.request.urlopen(url, timeout=10) as response:
        return str(response.read().decode())


def test_a_machine_without_the_memory_to_compile_installs_pure_python() -> None:
    """A Pi Zero 2 with its desktop has some 300 MB free, and the compile's processes take
    some 400 MB together: the build says so and stays pure Python, instead of being killed
    for memory halfway (make install prints that line)."""

    def why(memory: str) -> str:
        done = subprocess.run([sys.executable, "setup.py", "--why-pure"], cwd=ROOT,
                              env={**os.environ, "BOARD_REFEREE_MEMORY_MB": memory},
                              capture_output=True, text=True, check=True)  # fmt: skip
        return done.stdout.strip()

    assert why("300").startswith("300 MB of memory free, and the compile needs about")
    assert "memory" not in why("64000")
