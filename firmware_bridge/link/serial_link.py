"""Links to a board (python-can style): a ``Link`` delivers decoded frames and connection news
as events on a queue, and sends messages with its own sequence numbers.

``SerialLink`` opens any pyserial URL with ``serial.serial_for_url`` (``/dev/ttyACM0``, a pty,
``socket://``, ``rfc2217://`` for ser2net, ``spy://`` to trace) and reads it with
``serial.threaded.ReaderThread``. The reader callback never raises and never closes the port:
it only puts events on the queue for the main loop. ``VirtualLink.pair()`` gives two connected
in-memory links over the same codec, for tests.
"""

from __future__ import annotations

import contextlib
import os
import queue
import stat
import threading
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import serial
import serial.threaded

from firmware_bridge.link.protocol import (
    DELIMITER,
    FrameError,
    HostHello,
    Message,
    decode_frame,
    encode_frame,
)

MAX_PENDING_BYTES = 16384  # noise without a delimiter is dropped past this


class LinkError(Exception):
    """The link cannot be opened or written; the message says why, for the log. Opening is
    retried: the board may be plugged in, the server started, later."""


class PortError(LinkError):
    """A port that can never work as given (an unknown URL scheme, a file or a folder, a port
    another program holds): retrying would only hide the mistake."""


@dataclass(frozen=True, slots=True)
class Received:
    seq: int
    message: Message
    at: float  # time.monotonic() when the frame was decoded
    size: int  # bytes on the wire, delimiter included


@dataclass(frozen=True, slots=True)
class BadFrame:
    reason: str
    size: int


@dataclass(frozen=True, slots=True)
class Connected:
    description: str


@dataclass(frozen=True, slots=True)
class Disconnected:
    reason: str


LinkEvent = Received | BadFrame | Connected | Disconnected


class FrameProtocol(serial.threaded.Packetizer):
    """Splits the byte stream at delimiters and decodes frames onto an event queue."""

    def __init__(self, events: queue.Queue[LinkEvent]) -> None:
        super().__init__()
        self.events = events

    def data_received(self, data: bytes) -> None:
        buffer = self.buffer
        buffer.extend(data)
        while True:
            end = buffer.find(DELIMITER)
            if end < 0:
                break
            packet = bytes(buffer[:end])
            del buffer[: end + 1]
            self.handle_packet(packet)
        if len(buffer) > MAX_PENDING_BYTES:
            size = len(buffer)
            buffer.clear()
            self.events.put(BadFrame(f"{size} bytes of noise without a frame delimiter", size))

    def handle_packet(self, packet: bytes) -> None:
        if not packet:
            return  # two delimiters in a row: senders may lead with one to flush noise
        try:
            seq, message = decode_frame(packet)
        except FrameError as exc:
            self.events.put(BadFrame(str(exc), len(packet) + 1))
            return
        self.events.put(Received(seq, message, time.monotonic(), len(packet) + 1))

    def connection_lost(self, exc: BaseException | None) -> None:
        self.transport = None
        reason = str(exc) if exc else "closed"
        self.events.put(Disconnected(reason))


if TYPE_CHECKING:  # generic only in the type stubs
    _ReaderThread = serial.threaded.ReaderThread[FrameProtocol]
else:
    _ReaderThread = serial.threaded.ReaderThread


class _Reader(_ReaderThread):
    """pyserial's reader thread, but a port that vanishes under ``in_waiting`` (an unplugged
    USB board fails its ioctl with a bare OSError, which pyserial's loop does not catch) ends
    the connection as any read error does: the main loop hears of it, and no thread dies with
    a traceback."""

    def run(self) -> None:
        try:
            super().run()
        except OSError as exc:
            self.alive = False
            protocol: FrameProtocol | None = self.protocol
            self.protocol = None  # type: ignore[assignment]  # as pyserial's own run leaves it
            if protocol is not None:
                protocol.connection_lost(exc)


class Link(ABC):
    """A connection to one board."""

    def __init__(self, events: queue.Queue[LinkEvent] | None = None) -> None:
        self.events: queue.Queue[LinkEvent] = events or queue.Queue()
        self._seq = 0

    @property
    @abstractmethod
    def is_open(self) -> bool: ...

    @abstractmethod
    def open(self) -> None:
        """Connect; raises LinkError with a readable reason."""

    @abstractmethod
    def _write(self, data: bytes) -> None: ...

    @abstractmethod
    def close(self) -> None: ...

    def send(self, message: Message) -> tuple[int, int]:
        """Send ``message``; returns (its sequence number, its size on the wire)."""
        seq = self._seq
        self._seq = (seq + 1) & 0xFF
        frame = encode_frame(message, seq)
        if isinstance(message, HostHello):
            # The first words after a (re)connect: a delimiter first ends whatever half frame
            # the board still holds from before, so the HELLO is never merged with it.
            frame = DELIMITER + frame
        self._write(frame)
        return seq, len(frame)


class SerialLink(Link):
    def __init__(
        self,
        url: str,
        baudrate: int = 115200,
        events: queue.Queue[LinkEvent] | None = None,
    ) -> None:
        super().__init__(events)
        self.url = url
        self.baudrate = baudrate
        self._thread: serial.threaded.ReaderThread[FrameProtocol] | None = None

    @property
    def is_open(self) -> bool:
        return self._thread is not None and bool(self._thread.alive)

    def open(self) -> None:
        local = "://" not in self.url
        if local:
            check_device(self.url)
        try:
            port = serial.serial_for_url(
                self.url, baudrate=self.baudrate, bytesize=serial.EIGHTBITS,
                parity=serial.PARITY_NONE, stopbits=serial.STOPBITS_ONE, timeout=1,
                # One board, one referee: a second one on the same device is refused.
                **({"exclusive": True} if local else {}),
            )  # fmt: skip
        except (ValueError, TypeError) as exc:  # pyserial: an unknown protocol, a bad URL
            raise PortError(f"{self.url} cannot be a board's port: {exc}") from exc
        except (serial.SerialException, OSError) as exc:
            if local and "exclusively lock" in str(exc):
                who = holders(self.url)
                raise PortError(
                    f"{self.url} is in use by {who}: one board, one referee (stop the other, or "
                    "give this one another --port)"
                ) from exc
            raise LinkError(f"cannot open {self.url}: {exc}") from exc
        events = self.events
        thread = _Reader(port, lambda: FrameProtocol(events))
        thread.start()
        thread.connect()
        self._thread = thread
        self.events.put(Connected(f"{self.url} at {self.baudrate} baud"))

    def _write(self, data: bytes) -> None:
        thread = self._thread
        if thread is None or not thread.alive:
            raise LinkError(f"{self.url} is not open")
        try:
            thread.write(data)
        except (serial.SerialException, OSError) as exc:
            raise LinkError(f"write to {self.url} failed: {exc}") from exc

    def close(self) -> None:
        thread, self._thread = self._thread, None
        if thread is None:
            return
        with contextlib.suppress(serial.SerialException, OSError):
            thread.close()


def check_port(url: str) -> None:
    """Raise PortError at once for a port that can never work; say nothing about a board that
    may still be plugged in or a server that may still start."""
    if "://" not in url:
        check_device(url)
        return
    try:
        port = serial.serial_for_url(url, do_not_open=True)
        parse = getattr(port, "from_url", None)
        if parse is not None and url.split("://", 1)[0] in ("socket", "rfc2217"):
            parse(url)  # host and port, without connecting
    except TypeError as exc:  # pyserial, on a URL without a port number ("socket://")
        scheme = url.split("://", 1)[0]
        raise PortError(f"{url} cannot be a board's port: expected {scheme}://HOST:PORT") from exc
    except (ValueError, serial.SerialException) as exc:
        raise PortError(f"{url} cannot be a board's port: {exc}") from exc


def check_device(path: str) -> None:
    """Raise PortError for a path that is there but can never be a serial port; a path that
    is not there yet (a board not plugged in) is fine: it is waited for."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return
    except OSError as exc:
        raise PortError(f"{path}: {exc.strerror or exc}") from exc
    if stat.S_ISDIR(mode):
        raise PortError(f"{path} is a folder, not a serial port")
    if stat.S_ISREG(mode):
        raise PortError(f"{path} is a regular file, not a serial port")


def holders(path: str) -> str:
    """Which other processes have ``path`` open, in words (Linux: from /proc)."""
    try:
        target = os.path.realpath(path)
        found = []
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit() or int(entry.name) == os.getpid():
                continue
            with contextlib.suppress(OSError):
                if any(os.path.realpath(fd) == target for fd in (entry / "fd").iterdir()):
                    words = (entry / "cmdline").read_bytes().split(b"\0")
                    command = " ".join(w.decode(errors="replace") for w in words if w)[:120]
                    found.append(f"pid {entry.name} ({command})")
    except OSError:
        found = []
    return ", ".join(found) if found else "another program"


class VirtualLink(Link):
    """One end of an in-memory link: bytes written arrive at the peer's frame decoder."""

    def __init__(self, events: queue.Queue[LinkEvent] | None = None) -> None:
        super().__init__(events)
        self.peer: VirtualLink | None = None
        self._protocol = FrameProtocol(self.events)
        self._open = False
        self._lock = threading.Lock()

    @classmethod
    def pair(cls) -> tuple[VirtualLink, VirtualLink]:
        a, b = cls(), cls()
        a.peer, b.peer = b, a
        return a, b

    @property
    def is_open(self) -> bool:
        return self._open

    def open(self) -> None:
        self._open = True
        self.events.put(Connected("virtual link"))

    def _write(self, data: bytes) -> None:
        if not self._open or self.peer is None:
            raise LinkError("virtual link is not open")
        self.peer.receive(data)

    def receive(self, data: bytes) -> None:
        """Bytes arriving from the wire (also for injecting noise in tests)."""
        with self._lock:
            self._protocol.data_received(data)

    def close(self) -> None:
        if self._open:
            self._open = False
            self.events.put(Disconnected("closed"))


def drain(events: queue.Queue[LinkEvent]) -> list[LinkEvent]:
    """Every event waiting in ``events``, without waiting for more."""
    found = []
    while True:
        try:
            found.append(events.get_nowait())
        except queue.Empty:
            return found
