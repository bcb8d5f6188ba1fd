"""The board protocol (v1 and 2): message types and the frame codec (docs/protocol.md).

A frame on the wire is ``COBS(type, seq, payload..., crc16-hi, crc16-lo) 0x00``. The CRC covers
type, sequence number and payload; COBS removes zeros so 0x00 only ever ends a frame. Every
decoding problem raises ``FrameError``: a corrupted frame is never accepted.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from enum import IntEnum
from typing import ClassVar, NamedTuple, Self

from firmware_bridge.link import cobs
from firmware_bridge.link.crc import crc16

PROTOCOL_VERSION = 1  # v1: whole-board LED frames; what a board speaks unless asked for more
PROTOCOL_DELTA = 2  # v2: v1 plus LED_DELTA, used when both ends say so in HELLO
DELIMITER = b"\x00"
MAX_BODY = 4096  # bytes of type + seq + payload; longer frames are rejected as noise


class FrameError(ValueError):
    """Bytes between two delimiters that are not a valid frame."""


class Sensing(IntEnum):
    """What a board's sensors can tell about a cell."""

    OCCUPANCY = 0  # a piece is there or not (reed switches, hall sensors)
    OWNER = 1  # and whose it is (e.g. magnet polarity)
    IDENTITY = 2  # and which kind it is (e.g. RFID tags)


class LedKind(IntEnum):
    NONE = 0
    MONO = 1
    RGB = 2


class Button(IntEnum):
    PASS = 0
    CONFIRM = 1
    TAKEBACK = 2
    SELECT = 3


class Reading(NamedTuple):
    """One sensor: ``code`` 0 empty, 1 occupied (owner unknown), 2 player 1's, 3 player 2's;
    ``ident`` the piece identity code (0 unknown) on identity-sensing boards."""

    code: int
    ident: int = 0


EMPTY = Reading(0, 0)


class LedPattern(NamedTuple):
    """One LED: colour and an 8-step blink mask (bit 7 first, 125 ms a step, 1 s a cycle)."""

    red: int
    green: int
    blue: int
    pattern: int


LED_OFF = LedPattern(0, 0, 0, 0)


def _text(data: bytes, offset: int) -> tuple[str, int]:
    if offset >= len(data):
        raise FrameError("text field missing")
    size = data[offset]
    end = offset + 1 + size
    if end > len(data):
        raise FrameError("text field runs past the frame")
    try:
        return data[offset + 1 : end].decode("utf-8"), end
    except UnicodeDecodeError as exc:
        raise FrameError("text field is not UTF-8") from exc


def _pack_text(text: str) -> bytes:
    raw = text.encode("utf-8")[:255]
    return bytes([len(raw)]) + raw


def _byte_and_text(data: bytes, name: str) -> tuple[int, str]:
    """A payload of one byte then one text field, and nothing else."""
    if not data:
        raise FrameError(f"{name} is empty")
    text, end = _text(data, 1)
    if end != len(data):
        raise FrameError(f"{name} has trailing bytes")
    return data[0], text


def _unpack(fmt: str, data: bytes, offset: int = 0) -> tuple[int, ...]:
    try:
        return struct.unpack_from(fmt, data, offset)
    except struct.error as exc:
        raise FrameError(f"payload too short for {fmt}") from exc


class Message:
    TYPE: ClassVar[int]
    NAME: ClassVar[str]

    def payload(self) -> bytes:
        raise NotImplementedError

    @classmethod
    def from_payload(cls, data: bytes) -> Self:
        raise NotImplementedError


# -- board to host ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Hello(Message):
    TYPE = 0x01
    NAME = "HELLO"
    protocol: int
    sensors: int
    leds: int
    sensing: Sensing
    led_kind: LedKind
    buttons: frozenset[Button]
    firmware: str
    board_id: str

    def payload(self) -> bytes:
        mask = sum(1 << int(b) for b in self.buttons)
        return (
            struct.pack(">BHHBBB", self.protocol, self.sensors, self.leds, self.sensing,
                        self.led_kind, mask)
            + _pack_text(self.firmware)
            + _pack_text(self.board_id)
        )  # fmt: skip

    @classmethod
    def from_payload(cls, data: bytes) -> Self:
        protocol, sensors, leds, sensing, led_kind, mask = _unpack(">BHHBBB", data)
        firmware, offset = _text(data, 8)
        board_id, offset = _text(data, offset)
        if offset != len(data):
            raise FrameError("HELLO has trailing bytes")
        try:
            sensing_kind, led = Sensing(sensing), LedKind(led_kind)
        except ValueError as exc:
            raise FrameError(f"HELLO: {exc}") from exc
        buttons = frozenset(b for b in Button if mask & (1 << int(b)))
        return cls(protocol, sensors, leds, sensing_kind, led, buttons, firmware, board_id)


@dataclass(frozen=True, slots=True)
class Scan(Message):
    """Every sensor's reading, with the board's event counter at the time of the scan."""

    TYPE = 0x02
    NAME = "SCAN"
    counter: int
    readings: tuple[Reading, ...]

    def payload(self) -> bytes:
        body = bytearray(struct.pack(">IH", self.counter, len(self.readings)))
        for reading in self.readings:
            body += bytes((reading.code, reading.ident))
        return bytes(body)

    @classmethod
    def from_payload(cls, data: bytes) -> Self:
        counter, count = _unpack(">IH", data)
        if len(data) != 6 + 2 * count:
            raise FrameError("SCAN length does not match its sensor count")
        readings = tuple(_reading(data[6 + 2 * i], data[7 + 2 * i]) for i in range(count))
        return cls(counter, readings)


def _reading(code: int, ident: int) -> Reading:
    if code > 3:
        raise FrameError(f"unknown reading code {code}")
    return Reading(code, ident)


@dataclass(frozen=True, slots=True)
class Change(Message):
    """Sensors that changed; ``counter`` is the board's event counter after this event."""

    TYPE = 0x03
    NAME = "CHANGE"
    counter: int
    changes: tuple[tuple[int, Reading], ...]

    def payload(self) -> bytes:
        body = bytearray(struct.pack(">IB", self.counter, len(self.changes)))
        for sensor, reading in self.changes:
            body += struct.pack(">HBB", sensor, reading.code, reading.ident)
        return bytes(body)

    @classmethod
    def from_payload(cls, data: bytes) -> Self:
        counter, count = _unpack(">IB", data)
        if len(data) != 5 + 4 * count:
            raise FrameError("CHANGE length does not match its change count")
        changes = []
        for i in range(count):
            sensor, code, ident = _unpack(">HBB", data, 5 + 4 * i)
            changes.append((sensor, _reading(code, ident)))
        return cls(counter, tuple(changes))


@dataclass(frozen=True, slots=True)
class ButtonEvent(Message):
    TYPE = 0x04
    NAME = "BUTTON"
    counter: int
    button: Button
    pressed: bool

    def payload(self) -> bytes:
        return struct.pack(">IBB", self.counter, self.button, int(self.pressed))

    @classmethod
    def from_payload(cls, data: bytes) -> Self:
        if len(data) != 6:
            raise FrameError("BUTTON has the wrong length")
        counter, button, pressed = _unpack(">IBB", data)
        try:
            return cls(counter, Button(button), bool(pressed))
        except ValueError as exc:
            raise FrameError(f"unknown button {button}") from exc


@dataclass(frozen=True, slots=True)
class Ack(Message):
    TYPE = 0x05
    NAME = "ACK"
    seq: int

    def payload(self) -> bytes:
        return bytes((self.seq,))

    @classmethod
    def from_payload(cls, data: bytes) -> Self:
        if len(data) != 1:
            raise FrameError("ACK has the wrong length")
        return cls(data[0])


class NakReason(IntEnum):
    BAD_FRAME = 1  # CRC or framing error: the sequence number is unknown (255)
    UNKNOWN_TYPE = 2
    BAD_PAYLOAD = 3
    WRONG_SIZE = 4  # an LED frame for a different number of LEDs
    MISMATCH = 5  # an LED_DELTA whose result is not the frame its checksum names


@dataclass(frozen=True, slots=True)
class Nak(Message):
    TYPE = 0x06
    NAME = "NAK"
    seq: int
    reason: NakReason

    def payload(self) -> bytes:
        return bytes((self.seq, self.reason))

    @classmethod
    def from_payload(cls, data: bytes) -> Self:
        if len(data) != 2:
            raise FrameError("NAK has the wrong length")
        try:
            return cls(data[0], NakReason(data[1]))
        except ValueError as exc:
            raise FrameError(f"unknown NAK reason {data[1]}") from exc


class FaultCode(IntEnum):
    """What a FAULT is about (docs/protocol.md, Faults); other codes are the board's own."""

    SENSOR = 1  # "sensor N: reads V of 65535, outside every band"
    SENSOR_OK = 2
    RESTART = 3
    CALIBRATION = 4
    NOISE = 5  # damaged frames left unanswered
    START = 6  # the firmware could not start: the board answers nothing else
    POWER = 7  # every sensor out of band at once: the sensors have no power
    POWER_OK = 8  # ... and they read again


@dataclass(frozen=True, slots=True)
class Fault(Message):
    """The board reports a problem of its own (a dead sensor row, a brown-out)."""

    TYPE = 0x07
    NAME = "FAULT"
    code: int
    text: str

    def payload(self) -> bytes:
        return bytes((self.code,)) + _pack_text(self.text)

    @classmethod
    def from_payload(cls, data: bytes) -> Self:
        return cls(*_byte_and_text(data, cls.NAME))


@dataclass(frozen=True, slots=True)
class Pong(Message):
    TYPE = 0x08
    NAME = "PONG"
    token: int

    def payload(self) -> bytes:
        return struct.pack(">H", self.token)

    @classmethod
    def from_payload(cls, data: bytes) -> Self:
        if len(data) != 2:
            raise FrameError("PONG has the wrong length")
        return cls(_unpack(">H", data)[0])


# -- host to board ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class HostHello(Message):
    TYPE = 0x81
    NAME = "HOST_HELLO"
    protocol: int
    host: str

    def payload(self) -> bytes:
        return bytes((self.protocol,)) + _pack_text(self.host)

    @classmethod
    def from_payload(cls, data: bytes) -> Self:
        return cls(*_byte_and_text(data, cls.NAME))


@dataclass(frozen=True, slots=True)
class ScanRequest(Message):
    TYPE = 0x82
    NAME = "SCAN_REQUEST"

    def payload(self) -> bytes:
        return b""

    @classmethod
    def from_payload(cls, data: bytes) -> Self:
        if data:
            raise FrameError("SCAN_REQUEST has a payload")
        return cls()


@dataclass(frozen=True, slots=True)
class Leds(Message):
    """The whole board's LEDs at once: idempotent, so re-sending is always safe."""

    TYPE = 0x83
    NAME = "LEDS"
    leds: tuple[LedPattern, ...]

    def payload(self) -> bytes:
        body = bytearray(struct.pack(">H", len(self.leds)))
        for led in self.leds:
            body += bytes(led)
        return bytes(body)

    @classmethod
    def from_payload(cls, data: bytes) -> Self:
        (count,) = _unpack(">H", data)
        if len(data) != 2 + 4 * count:
            raise FrameError("LEDS length does not match its LED count")
        leds = tuple(LedPattern(*data[2 + 4 * i : 6 + 4 * i]) for i in range(count))
        return cls(leds)


def leds_crc(leds: tuple[LedPattern, ...] | list[LedPattern]) -> int:
    """The checksum of a whole board's LEDs (CRC-16 of their 4-byte forms in order): how an
    LED_DELTA names the frame it must produce."""
    return crc16(b"".join(bytes(led) for led in leds))


@dataclass(frozen=True, slots=True)
class LedDelta(Message):
    """Only the LEDs that change (protocol 2). Each names its LED's whole new state, so
    re-sending one is harmless; ``crc`` is the checksum of the whole frame that must result,
    so a board that missed something answers NAK(MISMATCH), changes nothing, and the host
    sends a whole LEDS frame: the board resynchronises as with v1 frames."""

    TYPE = 0x85
    NAME = "LED_DELTA"
    count: int  # the board's number of LEDs
    crc: int
    changes: tuple[tuple[int, LedPattern], ...]  # (LED index, its new state)

    def payload(self) -> bytes:
        body = bytearray(struct.pack(">HHB", self.count, self.crc, len(self.changes)))
        for index, led in self.changes:
            body += struct.pack(">H", index) + bytes(led)
        return bytes(body)

    @classmethod
    def from_payload(cls, data: bytes) -> Self:
        count, crc, n = _unpack(">HHB", data)
        if len(data) != 5 + 6 * n:
            raise FrameError("LED_DELTA length does not match its change count")
        changes = []
        for i in range(n):
            offset = 5 + 6 * i
            (index,) = _unpack(">H", data, offset)
            if index >= count:
                raise FrameError(f"LED_DELTA names LED {index} of {count}")
            changes.append((index, LedPattern(*data[offset + 2 : offset + 6])))
        return cls(count, crc, tuple(changes))

    def apply(self, leds: tuple[LedPattern, ...]) -> tuple[LedPattern, ...] | None:
        """The frame that results on a board showing ``leds``; None if it is not the one the
        checksum names (the board then keeps ``leds`` and answers NAK(MISMATCH))."""
        if len(leds) != self.count:
            return None
        result = list(leds)
        for index, led in self.changes:
            result[index] = led
        return tuple(result) if leds_crc(result) == self.crc else None


def led_delta(
    want: tuple[LedPattern, ...], maybe_shown: list[tuple[LedPattern, ...]]
) -> LedDelta | None:
    """The LED_DELTA that turns any of the frames ``maybe_shown`` (what the board may be
    showing: the one it acknowledged, any sent since) into ``want``; None if a whole LEDS frame
    is as short or the sizes differ."""
    if any(len(shown) != len(want) for shown in maybe_shown) or not maybe_shown:
        return None
    changed = sorted({i for shown in maybe_shown for i, led in enumerate(want) if shown[i] != led})
    if len(changed) > 255 or 6 * len(changed) + 5 >= 4 * len(want) + 2:
        return None
    return LedDelta(len(want), leds_crc(want), tuple((i, want[i]) for i in changed))


@dataclass(frozen=True, slots=True)
class Ping(Message):
    TYPE = 0x84
    NAME = "PING"
    token: int

    def payload(self) -> bytes:
        return struct.pack(">H", self.token)

    @classmethod
    def from_payload(cls, data: bytes) -> Self:
        if len(data) != 2:
            raise FrameError("PING has the wrong length")
        return cls(_unpack(">H", data)[0])


MESSAGES: dict[int, type[Message]] = {
    cls.TYPE: cls
    for cls in (Hello, Scan, Change, ButtonEvent, Ack, Nak, Fault, Pong,
                HostHello, ScanRequest, Leds, Ping, LedDelta)
}  # fmt: skip


# -- frames ----------------------------------------------------------------------------------


def encode_frame(message: Message, seq: int) -> bytes:
    """The bytes to write: the COBS-encoded frame followed by the 0x00 delimiter."""
    body = bytes((message.TYPE, seq & 0xFF)) + message.payload()
    if len(body) > MAX_BODY:
        raise ValueError(f"{message.NAME} frame is {len(body)} bytes; the limit is {MAX_BODY}")
    raw = body + crc16(body).to_bytes(2, "big")
    return cobs.encode(raw) + DELIMITER


def decode_frame(packet: bytes) -> tuple[int, Message]:
    """(sequence number, message) from the bytes between two delimiters."""
    if len(packet) > MAX_BODY + 8:
        raise FrameError(f"frame of {len(packet)} bytes is longer than any valid frame")
    try:
        raw = cobs.decode(packet)
    except cobs.CobsError as exc:
        raise FrameError(f"bad framing: {exc}") from exc
    if len(raw) < 4:
        raise FrameError("frame too short")
    body, check = raw[:-2], int.from_bytes(raw[-2:], "big")
    if crc16(body) != check:
        raise FrameError("CRC mismatch")
    cls = MESSAGES.get(body[0])
    if cls is None:
        raise FrameError(f"unknown message type 0x{body[0]:02x}")
    return body[1], cls.from_payload(body[2:])
