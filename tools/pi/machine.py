"""A Raspberry Pi's system, booted here: a Debian root under systemd-nspawn, with systemd as
its init, the club's boards on its serial ports, and a way in to run commands as its user.

The root is an overlay (the cached image below, this run's changes above), so every run starts
from the same image and a run's changes survive a reboot of the container (a power cut) until
the run ends. ``systemd-nspawn --register=no --keep-unit`` boots without a systemd on this
host; commands run inside through ``nsenter`` into the container's namespaces, as a login of
its user would (``runuser -l``), or as root.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import signal
import subprocess
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

USER = "pi"  # the Pi's desktop user, as Raspberry Pi OS's first user
PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


class MachineError(RuntimeError):
    """The container did not do what a Pi would: boot, run a command, stop."""


@dataclass(frozen=True, slots=True)
class Result:
    command: str
    returncode: int
    stdout: str
    stderr: str
    seconds: float

    def check(self) -> Result:
        if self.returncode != 0:
            raise MachineError(
                f"`{self.command}` failed ({self.returncode}):\n{self.stdout[-2000:]}"
                f"\n{self.stderr[-3000:]}"
            )
        return self


@dataclass(frozen=True, slots=True)
class Device:
    """A host tty shown inside the Pi at ``name`` (e.g. /dev/ttyACM0), with a stable name under
    /dev/serial/by-id as udev would give a USB board (``by_id``: that name, or empty)."""

    host: str
    name: str
    by_id: str = ""


@dataclass
class Machine:
    """One booted Pi: ``root`` the overlay's merged folder."""

    root: Path
    log: Path
    devices: Sequence[Device] = ()
    binds: Sequence[tuple[str, str]] = ()  # (host path, path inside)
    hostname: str = "table-pi"
    nspawn: subprocess.Popen[bytes] | None = field(default=None, init=False)
    leader: int = field(default=0, init=False)
    boots: int = field(default=0, init=False)

    # -- life --------------------------------------------------------------------------------
    def boot(self, timeout: float = 120) -> float:
        """Boot to multi-user.target; the seconds it took."""
        if self.nspawn is not None and self.nspawn.poll() is None:
            raise MachineError("already running")
        command = [
            "systemd-nspawn",
            "--quiet",
            "-D",
            str(self.root),
            "--boot",
            "--register=no",
            "--keep-unit",
            "--console=passive",
            f"--machine={self.hostname}",
            "--resolv-conf=copy-host",
            "--timezone=off",
        ]
        for device in self.devices:
            command.append(f"--bind={device.host}:{device.name}")
        for host, inside in self.binds:
            command.append(f"--bind={host}:{inside}")
        started = time.monotonic()
        self.boots += 1
        out = self.log.open("ab")
        out.write(f"\n--- boot {self.boots} ---\n".encode())
        out.flush()
        self.nspawn = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        out.close()
        self.leader = self._find_leader(started + timeout)
        while True:
            state = self.root_run("systemctl is-system-running --wait", timeout=timeout)
            if state.stdout.strip() in ("running", "degraded"):
                break
            if time.monotonic() > started + timeout:
                raise MachineError(f"the Pi did not boot: {state.stdout.strip()}")
            time.sleep(0.2)
        if state.stdout.strip() == "degraded":
            failed = self.root_run("systemctl --failed --no-legend --plain").stdout
            raise MachineError(f"the Pi booted with failed units:\n{failed}")
        return time.monotonic() - started

    def _find_leader(self, deadline: float) -> int:
        """The container's init: the nspawn process's child running systemd."""
        assert self.nspawn is not None
        while time.monotonic() < deadline:
            if self.nspawn.poll() is not None:
                raise MachineError(
                    f"systemd-nspawn ended ({self.nspawn.returncode}): see {self.log}"
                )
            children = Path(f"/proc/{self.nspawn.pid}/task/{self.nspawn.pid}/children")
            for pid in children.read_text().split() if children.exists() else ():
                with contextlib.suppress(OSError):
                    if Path(f"/proc/{pid}/comm").read_text().strip() == "systemd":
                        return int(pid)
            time.sleep(0.05)
        raise MachineError("the container's systemd did not start")

    def power_cut(self) -> None:
        """Every process of the Pi ends at once, as when its plug is pulled: its init killed,
        the kernel ends the rest of its PID namespace. Nothing is shut down or flushed by
        the Pi (this host's page cache still holds what was written: see docs)."""
        if self.leader:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.leader, signal.SIGKILL)
        self._wait_stopped(30)

    def poweroff(self, timeout: float = 60) -> None:
        if self.nspawn is None or self.nspawn.poll() is not None:
            return
        self.root_run("systemctl poweroff --no-block", timeout=10)
        try:
            self._wait_stopped(timeout)
        except MachineError:
            self.power_cut()

    def _wait_stopped(self, timeout: float) -> None:
        if self.nspawn is None:
            return
        try:
            self.nspawn.wait(timeout)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.nspawn.pid, signal.SIGKILL)
            self.nspawn.wait(10)
        self.leader = 0

    @property
    def running(self) -> bool:
        return self.nspawn is not None and self.nspawn.poll() is None

    # -- commands ----------------------------------------------------------------------------
    def _enter(self) -> list[str]:
        if not self.running or not self.leader:
            raise MachineError("the Pi is not running")
        return ["nsenter", "-t", str(self.leader), "-m", "-u", "-i", "-n", "-p", "-C", "--"]

    def root_run(self, command: str, *, timeout: float = 600, input: str | None = None) -> Result:
        """``command`` in sh as root (with a clean environment, as a root shell has)."""
        full = [
            *self._enter(),
            "env",
            "-i",
            f"PATH={PATH}",
            "HOME=/root",
            "LANG=C.UTF-8",
            "sh",
            "-c",
            command,
        ]
        return self._run(command, full, timeout, input)

    def user_run(self, command: str, *, timeout: float = 600, input: str | None = None) -> Result:
        """``command`` in bash as the Pi's user, in a login shell as ssh would give one
        (``set -e``: a failed line fails it)."""
        script = "set -e\ncd ~\n" + command
        full = [
            *self._enter(),
            "env",
            "-i",
            f"PATH={PATH}",
            "LANG=C.UTF-8",
            "runuser",
            "-l",
            USER,
            "-c",
            f"bash -c {shlex.quote(script)}",
        ]
        return self._run(command, full, timeout, input)

    def _run(self, shown: str, full: list[str], timeout: float, input: str | None) -> Result:
        started = time.monotonic()
        try:
            done = subprocess.run(
                full, capture_output=True, text=True, timeout=timeout, input=input, check=False
            )
        except subprocess.TimeoutExpired as exc:
            out = exc.stdout.decode() if isinstance(exc.stdout, bytes) else exc.stdout or ""
            raise MachineError(
                f"`{shown}` did not end within {timeout:.0f} s:\n{out[-2000:]}"
            ) from exc
        return Result(shown, done.returncode, done.stdout, done.stderr, time.monotonic() - started)

    def user_start(self, command: str, log: Path) -> subprocess.Popen[bytes]:
        """``command`` as the Pi's user, left running (a terminal someone left open)."""
        full = [
            *self._enter(),
            "env",
            "-i",
            f"PATH={PATH}",
            "LANG=C.UTF-8",
            "runuser",
            "-l",
            USER,
            "-c",
            f"cd ~ && exec {command}",
        ]
        with log.open("ab") as out:
            return subprocess.Popen(
                full,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def path(self, inside: str) -> Path:
        """A file of the Pi, seen from here."""
        return self.root / inside.lstrip("/")

    def unit(self, name: str, *properties: str) -> dict[str, str]:
        """systemd's view of a unit: ``systemctl show``'s properties."""
        done = self.root_run(f"systemctl show {shlex.quote(name)} -p {','.join(properties)}")
        done.check()
        return dict(line.split("=", 1) for line in done.stdout.splitlines() if "=" in line)

    def wait_for(self, what: str, check: object, timeout: float = 60, every: float = 0.2) -> float:
        """Calls ``check()`` until it gives something true; the seconds it took."""
        assert callable(check)
        started = time.monotonic()
        last: object = None
        while time.monotonic() < started + timeout:
            try:
                last = check()
            except MachineError as exc:
                last = exc
            if last and not isinstance(last, Exception):
                return time.monotonic() - started
            time.sleep(every)
        raise MachineError(f"waited {timeout:.0f} s for {what} (last: {last})")


def mount_overlay(lower: Sequence[Path], work: Path) -> Path:
    """The layers ``lower`` (topmost first) with a writable layer of this run's above them,
    mounted at ``work/root``."""
    for name in ("upper", "work", "root"):
        (work / name).mkdir(parents=True, exist_ok=True)
    options = (
        f"lowerdir={':'.join(str(p) for p in lower)},upperdir={work / 'upper'},"
        f"workdir={work / 'work'}"
    )
    subprocess.run(
        ["mount", "-t", "overlay", "overlay", "-o", options, str(work / "root")], check=True
    )
    return work / "root"


def unmount(path: Path) -> None:
    for _ in range(20):
        done = subprocess.run(["umount", str(path)], check=False, capture_output=True)
        if done.returncode == 0:
            return
        time.sleep(0.5)


@contextlib.contextmanager
def overlay(lower: Sequence[Path], work: Path) -> Iterator[Path]:
    """``mount_overlay`` for the length of a ``with``."""
    root = mount_overlay(lower, work)
    try:
        yield root
    finally:
        unmount(root)
