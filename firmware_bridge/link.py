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
import queue
import threading
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass

import serial
import serial.threaded

from firmware_bridge.protocol import DELIMITER, FrameError, Message, decode_frame, encode_frame

MAX_PENDING_BYTES = 16384  # noise without a delimiter is dropped past this


class LinkError(Exception):
    """The link cannot be opened or written; the message says why, for the log."""


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
        try:
            port = serial.serial_for_url(
                self.url, baudrate=self.baudrate, bytesize=serial.EIGHTBITS,
                parity=serial.PARITY_NONE, stopbits=serial.STOPBITS_ONE, timeout=1,
            )  # fmt: skip
        except (serial.SerialException, OSError, ValueError) as exc:
            raise LinkError(f"cannot open {self.url}: {exc}") from exc
        events = self.events
        thread = serial.threaded.ReaderThread(port, lambda: FrameProtocol(events))
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
