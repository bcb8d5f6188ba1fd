"""The electronics under an emulated table: what turns pieces into protocol frames.

A ``Table`` (the pieces, the hands, the commands) sits on a ``Board``. Two boards exist:
``EmulatedBoard`` plays the firmware in Python on a pty (``board-referee emulate``), and
``firmware_bridge.pico.host.MicroPythonBoard`` runs the real Pico firmware in MicroPython's Unix
port behind a pty (``board-referee firmware host``). The table tells its board when the pieces
change and what the hands and the faults do; the board tells the table which LED frame the
firmware shows (``Table.leds_shown``) and reads each sensor's piece through ``Table.reading``.
"""

from __future__ import annotations

import contextlib
import heapq
import math
import os
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import TYPE_CHECKING

from firmware_bridge.profile import BoardProfile
from firmware_bridge.protocol import Button

if TYPE_CHECKING:
    from firmware_bridge.emulator.table import Table


class BoardStartError(Exception):
    """The board cannot start (the message says why, in one line)."""


class BoardCommandError(Exception):
    """A fault this board cannot inject (the message says why)."""


NOISE_EVERY = 0.35  # a noisy sensor (``wire noisy``) misreads this often (seconds)


class Board(ABC):
    device: str = ""
    plugged: bool = False
    scanned: bool = False  # a host asked for a scan since the cable went in
    name: str = "board"

    def __init__(self) -> None:
        self.table: Table | None = None
        self.host_seen = threading.Event()  # a host scanned the board and set its LEDs
        # The I/O thread sleeps in select() on the board's files and on this pipe, which wakes
        # it for a timer set from another thread.
        self.wake_r, self.wake_w = os.pipe()
        self.timers: list[tuple[float, int, Callable[[], None]]] = []
        self.timer_id = 0
        self.noisy_at = 0.0
        self.latencies: list[tuple[float, int, int]] = []  # (seconds, change bytes, led bytes)

    def attach(self, table: Table) -> None:
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
    def garbage(self, count: int) -> None:
        """``count`` random bytes on the line to the host."""

    @abstractmethod
    def corrupt(self) -> None:
        """Damage the next frame to the host."""

    @abstractmethod
    def drop(self) -> None:
        """Lose the next frame to the host."""

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

    # -- what both boards share ------------------------------------------------------------
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
