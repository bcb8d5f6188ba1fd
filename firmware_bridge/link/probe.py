"""Finding the board: ``run --port auto`` probes the serial ports for one that answers HELLO.

Stable names first (``/dev/serial/by-id/...`` names a USB board by its serial number, so it
survives replugging and reboots), then the usual device names. A port is opened exclusively,
sent HOST_HELLO, and listened to briefly; the first that answers with a HELLO is the board.
``BOARD_REFEREE_PROBE`` (glob patterns separated by ``:``) replaces the list, for boards on
other names and for tests.
"""

from __future__ import annotations

import glob
import os
import queue
import random
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass

import serial

from firmware_bridge.link.protocol import (
    DELIMITER,
    PROTOCOL_DELTA,
    FrameError,
    Hello,
    HostHello,
    decode_frame,
    encode_frame,
)
from firmware_bridge.link.serial_link import Link, LinkError, LinkEvent, PortError, SerialLink

PATTERNS = ("/dev/serial/by-id/*", "/dev/ttyACM*", "/dev/ttyUSB*", "/dev/ttyAMA*", "/dev/rfcomm*")
ENV_VAR = "BOARD_REFEREE_PROBE"
IN_USE = "in use or not a serial port"
# A port another referee is probing is held only for its HELLO's round trip: looked at again
# this many times, a random 50-300 ms apart, before it counts as taken. Two referees starting
# together on one Pi (at boot, after a power cut) otherwise probe in step, each holding the
# other's board at the instant the other looks, every two seconds, for minutes on end.
BUSY_RETRIES = 4
BUSY_PAUSE = (0.05, 0.3)


@dataclass(frozen=True, slots=True)
class Found:
    port: str
    hello: Hello
    skipped: tuple[str, ...] = ()  # the other boards that answered, and why each was not taken


def unnamed(board_id: str) -> bool:
    """A board whose builder gave it no id: its firmware's default (``pico-`` and its chip's
    number), the emulator's, or none."""
    return not board_id or board_id.startswith("pico-") or board_id == "emulator"


def candidates() -> list[str]:
    """Ports to try, stable names first, each device once (by-id names are symlinks)."""
    patterns = os.environ.get(ENV_VAR, "").split(":") if os.environ.get(ENV_VAR) else PATTERNS
    seen: set[str] = set()
    ports: list[str] = []
    for pattern in patterns:
        for path in sorted(glob.glob(pattern)):
            real = os.path.realpath(path)
            if real not in seen:
                seen.add(real)
                ports.append(path)
    return ports


def ask(port: str, baudrate: int, timeout: float) -> Hello | str:
    """The HELLO the board on ``port`` answers with, or why there is none (in words)."""
    try:
        link = serial.serial_for_url(port, baudrate=baudrate, timeout=0.05, exclusive=True)
    except (serial.SerialException, OSError, ValueError) as exc:
        return IN_USE if "lock" in str(exc) else f"cannot open ({exc})"
    try:
        link.write(DELIMITER + encode_frame(HostHello(PROTOCOL_DELTA, socket.gethostname()), 0))
        buffer = bytearray()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            buffer += link.read(256)
            while (end := buffer.find(DELIMITER)) >= 0:
                packet, buffer = bytes(buffer[:end]), buffer[end + 1 :]
                if not packet:
                    continue
                try:
                    _, message = decode_frame(packet)
                except FrameError:
                    continue
                if isinstance(message, Hello):
                    return message
        return "no answer"
    except (serial.SerialException, OSError) as exc:
        return f"failed ({exc})"
    finally:
        link.close()


def find_board(baudrate: int = 115200, timeout: float = 1.5, *, board_id: str | None = None,
               ports: list[str] | None = None,
               asker: Callable[[str, int, float], Hello | str] | None = None,
               pause: Callable[[float], None] = time.sleep,
               rng: random.Random | None = None) -> Found:  # fmt: skip
    """The board to referee: without ``board_id``, the first port whose board answers HELLO;
    with it, the board whose HELLO names that id, or else a board with no id of its own when
    it is the only one that answers (two boards on one Pi never take each other's). A port
    in use is looked at again a few times, a random moment apart (another referee's probe
    lets go of it at once). PortError listing what was tried, and why each was not taken, if
    none fits."""
    ask_port = asker or ask
    chance = rng or random.Random()
    tried: list[str] = []
    answered: list[Found] = []
    looks: dict[str, int] = {}  # ports found in use, and how many times
    pending = list(candidates() if ports is None else ports)
    while pending:
        for port in pending:
            answer = ask_port(port, baudrate, timeout)
            if answer == IN_USE:
                looks[port] = looks.get(port, 0) + 1
                continue
            looks.pop(port, None)
            if not isinstance(answer, Hello):
                tried.append(f"{port}: {answer}")
            elif board_id is None or answer.board_id == board_id:
                skipped = tuple(f"{f.port}: board {f.hello.board_id!r} is not {board_id!r}"
                                for f in answered)  # fmt: skip
                return Found(port, answer, skipped)
            else:
                answered.append(Found(port, answer))
        pending = [port for port, count in looks.items() if count <= BUSY_RETRIES]
        if pending:
            pause(chance.uniform(*BUSY_PAUSE))
    tried.extend(f"{port}: {IN_USE}" for port in looks)  # held all along: another's board
    if board_id is not None and len(answered) == 1 and unnamed(answered[0].hello.board_id):
        only = answered[0]
        why = (f"board {only.hello.board_id!r} has no id of its own and is the only one that "
               f"answers: taken for {board_id!r}")  # fmt: skip
        return Found(only.port, only.hello, (why,))
    for found in answered:
        other = found.hello.board_id
        why = ("has no id of its own, and other boards answer too" if unnamed(other)
               else f"is not {board_id!r}")  # fmt: skip
        tried.append(f"{found.port}: board {other!r} {why}")
    patterns = os.environ.get(ENV_VAR, "").split(":") if os.environ.get(ENV_VAR) else PATTERNS
    where = "; ".join(tried) if tried else f"no serial ports found ({', '.join(patterns)})"
    wanted = "no board that answers" if board_id is None else f"no board {board_id!r}"
    fix = ("plug it in and switch it on, or name its port with --port" if board_id is None else
           "plug it in and switch it on; give its firmware this id (board-referee firmware "
           f"flash --board-id {board_id}), or name its port with --port")  # fmt: skip
    raise PortError(f"--port auto found {wanted}: {where}; {fix}")


class ProbingLink(Link):
    """``--port auto`` before any board answered (a Pi booting before its board is plugged in):
    every ``open`` probes the ports again, and opens the first board that answers. Until then
    it raises LinkError, so the referee waits and says so, as for a named port not there yet;
    probes are at least ``every`` seconds apart, since a silent port takes a while to rule out.
    """

    def __init__(
        self,
        baudrate: int = 115200,
        events: queue.Queue[LinkEvent] | None = None,
        *,
        every: float = 2.0,
        clock: Callable[[], float] = time.monotonic,
        board_id: str | None = None,
    ) -> None:
        super().__init__(events)
        self.baudrate = baudrate
        self.board_id = board_id
        self.every = every
        self.clock = clock
        self.inner: SerialLink | None = None
        self._next_probe = 0.0
        self._why = "not probed yet"

    @property
    def is_open(self) -> bool:
        return self.inner is not None and self.inner.is_open

    def open(self) -> None:
        now = self.clock()
        if now < self._next_probe:
            raise LinkError(self._why)
        # A little at random either side of ``every``: two referees that started together
        # (a Pi's boot) do not stay in step, probing each other's board at the same moments.
        self._next_probe = now + self.every * random.uniform(0.8, 1.2)
        try:
            found = find_board(self.baudrate, board_id=self.board_id)
        except PortError as exc:
            self._why = str(exc).replace("--port auto found", "found")
            raise LinkError(self._why) from exc
        inner = SerialLink(found.port, self.baudrate, self.events)
        inner.open()  # a LinkError here: the next open probes again
        self.inner = inner

    def _write(self, data: bytes) -> None:
        if self.inner is None:
            raise LinkError("no board found yet")
        self.inner._write(data)

    def close(self) -> None:
        inner, self.inner = self.inner, None
        if inner is not None:
            inner.close()
