"""The project on a Pi's processor: ``make install`` in an arm64 Debian root, run through
qemu-user (Debian's qemu-user-static, through binfmt_misc), as a Pi 3, 4, 5 or Zero 2 runs it.

Measured and checked there: the mypyc build's time and peak memory (GNU time's maximum
resident size of the build's largest process: under qemu-user that includes the emulator's
own, so it is an upper bound of a Pi's), the install's choice on a machine with too little
memory (a memory cgroup of a Pi Zero 2's 512 MB), the rules engine's speed compiled and in
pure Python, the engine's and referee's tests, and ``firmware uf2`` giving the same file as
this host's. Emulated, the times are several times a real Pi 4's; the ratios hold.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from pi import bundle, roots
from pi.machine import MachineError
from pi.report import CannotRunHereError, Report

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = (
    "git",
    "python3",
    "python3-venv",
    "python3-dev",
    "gcc",
    "make",
    "ca-certificates",
    "time",
    "sudo",
)
BINFMT = Path("/proc/sys/fs/binfmt_misc")
# The engine's and referee's tests that run anywhere (no MicroPython Unix port, which has x86
# wheels only, no browser, no broker).
TESTS = (
    "tests/test_conformance.py",
    "tests/test_three_dragons.py",
    "tests/test_vanguard.py",
    "tests/test_protect_the_goat.py",
    "tests/test_goats_wintering.py",
    "tests/test_the_lion_game.py",
    "tests/test_board.py",
    "tests/test_reconcile.py",
    "tests/test_protocol.py",
    # the host codec only: the firmware codec runs in the MicroPython Unix port (x86-64)
    "tests/test_protocol_vectors.py::test_the_host_codec_writes_the_vectors_byte_for_byte",
    "tests/test_link_profile_journal.py",
)
SPEED = r"""
import random, sys, time
from firmware_bridge.link import catalog
import engine.game
kind = "compiled" if engine.game.__file__.endswith(".so") else "pure Python"
for game_id in ("vanguard", "goats-wintering", "three-dragons"):
    game = catalog.load_game(game_id)
    rng = random.Random(1)
    plies, began = 0, time.monotonic()
    while time.monotonic() - began < 3.0:
        state = game.new_state()
        for _ in range(200):
            moves = list(state.legal_moves())
            if not moves or state.outcome() is not None:
                break
            state.apply(rng.choice(moves), check=False)
            plies += 1
    print(f"{kind} {game_id} {plies / (time.monotonic() - began):.0f}")
"""


def enable_binfmt(report: Report) -> None:
    """binfmt_misc mounted (this kernel has it, not mounted) and qemu-aarch64 in it."""
    if not (BINFMT / "register").exists():
        subprocess.run(["mount", "-t", "binfmt_misc", "binfmt_misc", str(BINFMT)], check=True)
    if not (BINFMT / "qemu-aarch64").exists():
        if not shutil.which("update-binfmts"):
            raise CannotRunHereError("qemu-user-static is not installed (make pi-check does it)")
        subprocess.run(
            ["update-binfmts", "--enable", "qemu-aarch64"], check=True, capture_output=True
        )
    flags = (BINFMT / "qemu-aarch64").read_text()
    if "enabled" not in flags:
        raise MachineError(f"qemu-aarch64 is not enabled in binfmt_misc:\n{flags}")
    report.say("binfmt_misc: qemu-aarch64 enabled")


def inside(
    root: Path,
    command: str,
    *,
    user: str = "pi",
    timeout: float = 7200,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """``command`` in bash in the arm64 root, as ``user``, through systemd-nspawn (no boot)."""
    extra = [f"--setenv={k}={v}" for k, v in (env or {}).items()]
    return subprocess.run(
        [
            "systemd-nspawn",
            "--quiet",
            "-D",
            str(root),
            "--register=no",
            "--keep-unit",
            "--resolv-conf=copy-host",
            "--timezone=off",
            f"--user={user}",
            "--chdir=/home/pi",
            "--setenv=HOME=/home/pi",
            "--setenv=LANG=C.UTF-8",
            *extra,
            "--",
            "bash",
            "-c",
            command,
        ],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def checked(done: subprocess.CompletedProcess[str], what: str) -> str:
    if done.returncode != 0:
        raise MachineError(
            f"{what} failed ({done.returncode}):\n{(done.stdout + done.stderr)[-3000:]}"
        )
    return done.stdout


# The build's processes together, sampled every 50 ms: their summed resident memory at its
# highest, and the largest one then (what a Pi's memory must hold at once).
PEAK = r"""
import os, subprocess, sys, time
began = time.monotonic()
proc = subprocess.Popen(sys.argv[1:])
def tree(root):
    children = {}
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                parent = int(open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[1])
            except OSError:
                continue
            children.setdefault(parent, []).append(int(pid))
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo += children.get(pid, [])
    return found
peak, largest = 0, ""
while proc.poll() is None:
    sizes = []
    for pid in tree(proc.pid):
        try:
            rss = [int(l.split()[1]) for l in open(f"/proc/{pid}/status") if l.startswith("VmRSS")]
            name = open(f"/proc/{pid}/comm").read().strip()
        except OSError:
            continue
        sizes += [(k, name) for k in rss]
    total = sum(k for k, _ in sizes)
    if total > peak:
        peak, largest = total, max(sizes)
    time.sleep(0.05)
print(f"PEAK {peak // 1024} MB together, the largest {largest[1]} {largest[0] // 1024} MB; "
      f"{time.monotonic() - began:.0f} s", flush=True)
sys.exit(proc.returncode)
"""


def gnu_time(text: str) -> tuple[float, int]:
    """(seconds, peak KiB) from ``/usr/bin/time -v``'s report."""
    elapsed = re.search(r"Elapsed \(wall clock\) time.*: (?:(\d+):)?(\d+):([\d.]+)", text)
    peak = re.search(r"Maximum resident set size \(kbytes\): (\d+)", text)
    if elapsed is None or peak is None:
        raise MachineError(f"no time report in:\n{text[-1500:]}")
    hours, minutes, seconds = elapsed.groups()
    return int(hours or 0) * 3600 + int(minutes) * 60 + float(seconds), int(peak.group(1))


def check_arm64(report: Report) -> None:
    with report.step("arm64: the Pi's system, emulated (qemu-user)"):
        enable_binfmt(report)
        base = roots.build_base("arm64", report.say, packages=PACKAGES, desktop=False)
    work = Path(tempfile.mkdtemp(prefix="run-arm64-", dir=roots.cache_dir()))
    try:
        from pi.machine import overlay

        with overlay([base], work / "layers") as root:
            roots.trust_host_authorities(root)
            stick = work / "stick"
            bundle.write_bundle(bundle.working_tree_commit(), stick, work)
            shutil.copy(stick / bundle.NAME, root / "home/pi" / bundle.NAME)
            os.chown(root / "home/pi" / bundle.NAME, 1000, 1000)
            (root / "opt/board-referee").mkdir(parents=True)
            os.chown(root / "opt/board-referee", 1000, 1000)
            _arm64_steps(report, root)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _arm64_steps(report: Report, root: Path) -> None:
    with report.step("arm64: make install, compiled by mypyc (time and peak memory)"):
        checked(inside(root, f"git clone -q ~/{bundle.NAME} /opt/board-referee"), "git clone")
        (root / "home/pi/peak.py").write_text(PEAK)
        done = inside(
            root, "cd /opt/board-referee && /usr/bin/time -v python3 ~/peak.py make install"
        )
        out = checked(done, "make install")
        (roots.cache_dir() / "last-arm64-install.log").write_text(done.stdout + done.stderr)
        seconds, peak = gnu_time(done.stdout + done.stderr)  # nspawn may give both as one
        engine = [line for line in out.splitlines() if line.startswith("installed;")]
        together = [line[5:] for line in out.splitlines() if line.startswith("PEAK ")]
        report.figure(f"arm64 (qemu-user) the build's processes at their highest: "
                      f"{together[-1] if together else '?'}")  # fmt: skip
        report.figure(
            f"arm64 (qemu-user) make install: {seconds / 60:.1f} min, peak "
            f"{peak / 1024:.0f} MB (one process, the emulator's own included); "
            f"{engine[-1] if engine else out[-300:]}"
        )
        if not engine or "compiled" not in engine[-1]:
            raise MachineError(f"the engine was not compiled on arm64:\n{done.stderr[-2000:]}")
    with report.step("arm64: the engine's speed, compiled and pure Python"):
        compiled = checked(
            inside(root, f"cd /tmp && /opt/board-referee/.venv/bin/python -P -c '{SPEED}'"),
            "the compiled engine's speed",
        )
        pure = checked(
            inside(root, f"cd /opt/board-referee && .venv/bin/python -c '{SPEED}'"),
            "the pure engine's speed",
        )
        fast = {line.split()[-2]: float(line.split()[-1]) for line in compiled.splitlines()}
        slow = {line.split()[-2]: float(line.split()[-1]) for line in pure.splitlines()}
        for game_id, speed in fast.items():
            report.figure(
                f"arm64 (qemu-user) random playouts, {game_id}: {speed:.0f} plies/s "
                f"compiled, {slow[game_id]:.0f} pure Python "
                f"({speed / slow[game_id]:.1f}x)"
            )
    with report.step("arm64: the referee's start to its board's first LED frame"):
        out = checked(
            inside(root, "cd /tmp && /opt/board-referee/.venv/bin/python "
                   "/opt/board-referee/tools/bench_daemon.py --runs 5 --no-mqtt --installed"),
            "the start benchmark",
        )  # fmt: skip
        page = [line for line in out.splitlines() if line.startswith("page")]
        report.figure(f"arm64 (qemu-user) start to first LED frame, installed, with its page: "
                      f"{' '.join(page[-1].split()[1:4]) if page else out[-300:]}")  # fmt: skip
    with report.step("arm64: firmware uf2 gives this host's file"):
        checked(
            inside(
                root,
                "/opt/board-referee/.venv/bin/board-referee firmware uf2 --board "
                "vanguard -o /tmp/vanguard.uf2 && cp /tmp/vanguard.uf2 ~/",
            ),
            "firmware uf2",
        )
        # Here, from the very tree the Pi was given (the bundle), not the working tree,
        # which may have moved on while the emulated build ran.
        tree = Path(tempfile.mkdtemp())
        subprocess.run(["git", "clone", "-q", str(root / "home/pi" / bundle.NAME),
                        str(tree / "src")], check=True, capture_output=True)  # fmt: skip
        here = tree / "vanguard.uf2"
        subprocess.run(
            [sys.executable, "-m", "firmware_bridge.cli", "firmware", "uf2", "--board",
             "vanguard", "-o", str(here)],
            check=True, capture_output=True, cwd=tree / "src",
            env={**os.environ, "PYTHONPATH": str(tree / "src")},
        )  # fmt: skip
        theirs = hashlib.sha256((root / "home/pi/vanguard.uf2").read_bytes()).hexdigest()
        ours = hashlib.sha256(here.read_bytes()).hexdigest()
        if theirs != ours:
            raise MachineError(f"the UF2 differs: arm64 {theirs[:16]}, here {ours[:16]}")
        report.say(f"the same UF2 ({here.stat().st_size // 1024} KB, sha256 {ours[:16]}...)")
    with report.step("arm64: the engine's and referee's tests"):
        checked(
            inside(
                root,
                "cd /opt/board-referee && .venv/bin/python -m pip install -q "
                "pytest pytest-mock hypothesis",
            ),
            "the test tools",
        )
        began = time.monotonic()
        done = inside(
            root,
            "cd /opt/board-referee && .venv/bin/python -m pytest -q -p "
            "no:cacheprovider " + " ".join(TESTS),
        )
        said = (done.stdout + done.stderr).strip().splitlines()
        # pytest's summary line, not whatever systemd-nspawn says after it
        tail = [line for line in said if " passed" in line or " failed" in line][-1:]
        checked(done, "the tests")
        report.figure(
            f"arm64 (qemu-user) tests: {tail[0] if tail else '?'} "
            f"({(time.monotonic() - began) / 60:.1f} min)"
        )
    with report.step("arm64: too little memory for the compile: the pure Python engine"):
        limited = f"MemoryMax={LOW_MEMORY_MB}M"
        done = inside(
            root,
            "cd /opt/board-referee && make install 2>&1",
            env={"BOARD_REFEREE_MEMORY_MB": str(LOW_MEMORY_MB)},
        )
        out = checked(done, f"make install with {limited}")
        said = [line for line in out.splitlines() if "pure Python" in line]
        if not any("installed; the engine is pure Python" in line for line in said):
            raise MachineError(
                f"with {LOW_MEMORY_MB} MB the install did not fall back:\n{out[-2000:]}"
            )
        report.say(" / ".join(dict.fromkeys(line.strip() for line in said)))


LOW_MEMORY_MB = 300
