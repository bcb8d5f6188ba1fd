"""The electronics under an emulated table: what turns pieces into protocol frames.

A ``Table`` (the pieces, the hands, the commands) sits on a ``Board``. Two boards exist:
``EmulatedBoard`` plays the firmware in Python on a pty (``board-referee emulate``), and
``micropython.MicroPythonBoard`` runs the real Pico firmware in MicroPython's Unix port behind
a pty (``board-referee firmware host``). The table tells its board when the pieces
change and what the hands and the faults do; the board tells the table which LED frame the
firmware shows (``Table.leds_shown``) and reads each sensor's piece through ``Table.reading``.
"""

from __future__ import annotations

import contextlib
import heapq
import math
import os
import random
import threading
import time
import tty
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from engine import Cell, Game, Piece
from firmware_bridge.link.profile import BoardProfile
from firmware_bridge.link.protocol import Button, LedPattern, Reading


class TableSide(Protocol):
    """What a board needs of the table on it. ``table.Table`` implements it; the board owns
    this interface so that the import runs one way (table -> board), never in a circle."""

    @property
    def game(self) -> Game: ...
    @property
    def profile(self) -> BoardProfile: ...
    @property
    def pieces(self) -> dict[Cell, Piece]: ...
    @property
    def leds(self) -> tuple[LedPattern, ...]: ...
    @property
    def faulty(self) -> dict[int, str]: ...
    @property
    def supply(self) -> bool: ...
    @property
    def lock(self) -> threading.RLock: ...

    def emit(self, event: str, **data: Any) -> None: ...
    def piece_at(self, sensor: int) -> Piece | None: ...
    def reading(self, sensor: int) -> Reading: ...
    def leds_shown(self, leds: tuple[LedPattern, ...], via: str, size: int) -> None: ...
    def unlit(self) -> None: ...
    def changed(self) -> None: ...


class Elapsed(Protocol):
    def is_set(self) -> bool: ...


@dataclass(frozen=True)
class WallTimer:
    """Set once the wall clock reaches ``deadline`` (time.monotonic)."""

    deadline: float

    def is_set(self) -> bool:
        return time.monotonic() >= self.deadline


class BoardStartError(Exception):
    """The board cannot start (the message says why, in one line)."""


class BoardCommandError(Exception):
    """A fault this board cannot inject (the message says why)."""


NOISE_EVERY = 0.35  # a noisy sensor (``wire noisy``) misreads this often (seconds)


class Board(ABC):
    scanned: bool = False  # a host asked for a scan since the cable went in
    name: str = "board"

    def __init__(self, link_path: Path, seed: int) -> None:
        self.link_path = link_path  # the stable path to the pty, as /dev/serial/by-id is
        self.rng = random.Random(seed)  # for the noise a fault injects
        self.master: int | None = None  # the board's end of the pty
        self.slave: int | None = None
        self.device = ""
        self.corrupt_next = 0  # frames to the host still to damage ...
        self.drop_next = 0  # ... and to lose
        self.table: TableSide | None = None
        self.host_seen = threading.Event()  # a host scanned the board and set its LEDs
        # The I/O thread sleeps in select() on the board's files and on this pipe, which wakes
        # it for a timer set from another thread.
        self.wake_r, self.wake_w = os.pipe()
        self.timers: list[tuple[float, int, Callable[[], None]]] = []
        self.timer_id = 0
        self.noisy_at = 0.0
        self.latencies: list[tuple[float, int, int]] = []  # (seconds, change bytes, led bytes)

    def attach(self, table: TableSide) -> None:
        self.table = table

    @abstractmethod
    def start(self) -> None:
        """Plug in and start answering the host."""

    @abstractmethod
    def sense(self) -> None:
        """The pieces on the table changed (the caller holds the table's lock)."""

    @abstractmethod
    def press(self, button: Button) -> None:
        """A button pressed and released."""

    @abstractmethod
    def flicker(self, sensor: int, millis: float) -> None:
        """Sensor ``sensor`` misreads for ``millis`` milliseconds."""

    @abstractmethod
    def unplug(self) -> None: ...

    @abstractmethod
    def replug(self) -> None: ...

    @abstractmethod
    def fault(self, code: int, text: str) -> None:
        """Report a board fault."""

    @abstractmethod
    def blank(self) -> None:
        """An LED glitch: every LED goes dark and the host is not told."""

    @abstractmethod
    def swap(self, profile: BoardProfile) -> None:
        """Another board was put out (the table already holds its game and pieces)."""

    @abstractmethod
    def close(self) -> None: ...

    def leds_on_the_way(self) -> bool:
        """Is an LED frame from the host still on its way to the LEDs? (This board answers
        as it reads, so never: a firmware in a separate process says otherwise.)"""
        return False

    def hold(self, seconds: float) -> None:
        """A hand waits ``seconds`` of the board's own time (here the wall clock's: a board
        that runs slower than real time, as the emulated chip, counts its own)."""
        time.sleep(seconds)

    # CHANGE frames the board has sent the host so far (counted where the board's frames
    # pass through this process: every board kind here).
    changes_sent = 0

    def hold_until_reported(self, since: int, seconds: float, timeout: float = 15.0) -> None:
        """A hand holding a lifted piece that it puts back on its cell (a squash, a strike and
        return): ``seconds`` of the board's own time, and then until the board has reported a
        change since ``since`` changes, so a busy machine never hides the lift from the host."""
        self.hold(seconds)
        deadline = time.monotonic() + timeout
        while self.changes_sent <= since and time.monotonic() < deadline:
            time.sleep(0.01)

    def timer(self, seconds: float) -> Elapsed:
        """Something to ask whether ``seconds`` of the board's own time have passed."""
        return WallTimer(time.monotonic() + seconds)

    # -- what both boards share ------------------------------------------------------------
    @property
    def lock(self) -> threading.RLock:
        """The table's lock: the board's state and the table's change together."""
        assert self.table is not None
        return self.table.lock

    @property
    def plugged(self) -> bool:
        return self.master is not None

    def _open_pty(self) -> None:
        """A new pty for the cable, with the stable path naming it."""
        master, slave = os.openpty()
        tty.setraw(slave)
        os.set_blocking(master, False)
        self.master, self.slave = master, slave
        self.device = os.ttyname(slave)
        temporary = self.link_path.with_name(self.link_path.name + ".new")
        with contextlib.suppress(FileNotFoundError):
            temporary.unlink()
        temporary.symlink_to(self.device)
        os.replace(temporary, self.link_path)  # the stable path now names the new device

    def _close_pty(self) -> None:
        """The cable out: the pty closed, its LEDs dark, and the stable path gone with it, as
        /dev/serial/by-id names go (a stale link could lead a referee to another board's pty
        once the kernel reuses its number)."""
        with contextlib.suppress(FileNotFoundError, OSError):
            if self.device and os.readlink(self.link_path) == self.device:
                self.link_path.unlink()
        for fd in (self.master, self.slave):
            if fd is not None:
                os.close(fd)
        self.master = self.slave = None
        self.scanned = False
        if self.table is not None:
            self.table.unlit()

    def _to_host(self, data: bytes) -> None:
        """Bytes onto the line to the host (given a second, then dropped, as a full buffer)."""
        if self.master is None:
            return
        view = memoryview(data)
        deadline = time.monotonic() + 1.0
        while view and time.monotonic() < deadline:
            try:
                view = view[os.write(self.master, view) :]
            except BlockingIOError:
                time.sleep(0.001)
            except OSError:
                return

    def _damage(self, frame: bytearray, name: str) -> bytes | None:
        """A frame to the host after the faults asked for: None if it is to be lost."""
        if self.drop_next:
            self.drop_next -= 1
            self._emit("fault", kind="dropped", frame=name)
            return None
        if self.corrupt_next:
            self.corrupt_next -= 1
            index = self.rng.randrange(len(frame) - 1)
            frame[index] = (frame[index] + self.rng.randrange(1, 255)) % 256 or 1
            self._emit("fault", kind="corrupted", frame=name)
        return bytes(frame)

    def garbage(self, count: int) -> None:
        """``count`` random bytes on the line to the host."""
        with self.lock:
            self._to_host(bytes(self.rng.randrange(256) for _ in range(count)))

    def corrupt(self) -> None:
        """Damage the next frame to the host."""
        with self.lock:
            self.corrupt_next += 1

    def drop(self) -> None:
        """Lose the next frame to the host."""
        with self.lock:
            self.drop_next += 1

    def _at(self, when: float, action: Callable[[], None]) -> None:
        """Run ``action`` on the I/O thread at ``when`` (time.monotonic())."""
        self.timer_id += 1
        heapq.heappush(self.timers, (when, self.timer_id, action))
        self._wake()

    def _timeout(self, longest: float) -> float:
        """How long the I/O thread may sleep: until the next timer, at most ``longest``."""
        if not self.timers:
            return longest
        return max(0.0, min(longest, self.timers[0][0] - time.monotonic()))

    def _run_timers(self, now: float) -> None:
        self._noise(now)
        while self.timers and self.timers[0][0] <= now:
            _, _, action = heapq.heappop(self.timers)
            action()

    def _noise(self, now: float) -> None:
        """Noisy sensors (``wire noisy``) misread now and then."""
        table = self.table
        if table is None or now < self.noisy_at:
            return
        self.noisy_at = now + NOISE_EVERY
        for sensor, fault in table.faulty.items():
            if fault == "noisy" and not self._flickering(sensor):
                self.flicker(sensor, 1000 * table.profile.debounce + 60)

    def _flickering(self, sensor: int) -> bool:
        return False

    def _wake(self) -> None:
        with contextlib.suppress(OSError):
            os.write(self.wake_w, b"x")

    def _changed(self) -> None:
        if self.table is not None:
            self.table.changed()

    def _emit(self, event: str, **data: object) -> None:
        if self.table is not None:
            self.table.emit(event, **data)

    def latency_report(self) -> dict[str, float]:
        """From the board's last CHANGE frame to the host's LED frame: median and p99."""
        if not self.latencies:
            return {}
        values = sorted(x for x, _, _ in self.latencies)
        return {
            "samples": len(values),
            "median": values[len(values) // 2],
            "p99": values[min(len(values) - 1, math.ceil(0.99 * len(values)) - 1)],
        }

    def reset(self, reason: str) -> None:
        raise BoardCommandError("only the firmware in MicroPython can be reset")

    def hang(self) -> None:
        raise BoardCommandError("only the firmware in MicroPython can stall")
