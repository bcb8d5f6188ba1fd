"""The electronics under an emulated table: what turns pieces into protocol frames.

A ``Table`` (the pieces, the hands, the commands) sits on a ``Board``. Two boards exist:
``EmulatedBoard`` plays the firmware in Python on a pty (``board-referee emulate``), and
``firmware_bridge.pico.host.MicroPythonBoard`` runs the real Pico firmware in MicroPython's Unix
port behind a pty (``board-referee firmware host``). The table tells its board when the pieces
change and what the hands and the faults do; the board tells the table which LED frame the
firmware shows (``Table.leds_shown``) and reads each sensor's piece through ``Table.reading``.
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from typing import TYPE_CHECKING

from firmware_bridge.profile import BoardProfile
from firmware_bridge.protocol import Button

if TYPE_CHECKING:
    from firmware_bridge.emulator.table import Table


class BoardStartError(Exception):
    """The board cannot start (the message says why, in one line)."""


class BoardCommandError(Exception):
    """A fault this board cannot inject (the message says why)."""


class Board(ABC):
    device: str = ""
    plugged: bool = False
    scanned: bool = False  # a host asked for a scan since the cable went in
    name: str = "board"

    def __init__(self) -> None:
        self.table: Table | None = None
        self.host_seen = threading.Event()  # a host scanned the board and set its LEDs

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

    def latency_report(self) -> dict[str, float]:
        return {}

    def reset(self, reason: str) -> None:
        raise BoardCommandError("only the firmware in MicroPython can be reset")

    def hang(self) -> None:
        raise BoardCommandError("only the firmware in MicroPython can stall")
