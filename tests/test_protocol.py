"""Frame codec: COBS, CRC-16 and every message type round-trip; corruption is rejected."""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from firmware_bridge.link import cobs
from firmware_bridge.link.crc import crc16
from firmware_bridge.link.protocol import (
    Ack,
    Button,
    ButtonEvent,
    Change,
    Fault,
    FrameError,
    Hello,
    HostHello,
    LedDelta,
    LedKind,
    LedPattern,
    Leds,
    Message,
    Nak,
    NakReason,
    Ping,
    Pong,
    Reading,
    Scan,
    ScanRequest,
    Sensing,
    decode_frame,
    encode_frame,
    led_delta,
)

u8 = st.integers(0, 255)
u16 = st.integers(0, 0xFFFF)
u32 = st.integers(0, 0xFFFFFFFF)
readings = st.builds(Reading, st.integers(0, 3), u8)
texts = st.text(max_size=40).filter(lambda t: len(t.encode()) <= 255)

messages: st.SearchStrategy[Message] = st.one_of(
    st.builds(
        Hello, u8, u16, u16, st.sampled_from(Sensing), st.sampled_from(LedKind),
        st.frozensets(st.sampled_from(Button)), texts, texts,
    ),
    st.builds(Scan, u32, st.lists(readings, max_size=200).map(tuple)),
    st.builds(Change, u32, st.lists(st.tuples(u16, readings), max_size=20).map(tuple)),
    st.builds(ButtonEvent, u32, st.sampled_from(Button), st.booleans()),
    st.builds(Ack, u8),
    st.builds(Nak, u8, st.sampled_from(NakReason)),
    st.builds(Fault, u8, texts),
    st.builds(Pong, u16),
    st.builds(HostHello, u8, texts),
    st.just(ScanRequest()),
    st.builds(Leds, st.lists(st.builds(LedPattern, u8, u8, u8, u8), max_size=150).map(tuple)),
    st.builds(Ping, u16),
    st.integers(1, 300).flatmap(
        lambda n: st.builds(
            LedDelta, st.just(n), u16,
            st.lists(st.tuples(st.integers(0, n - 1), st.builds(LedPattern, u8, u8, u8, u8)),
                     max_size=40).map(tuple),
        )
    ),
)  # fmt: skip


def test_crc16_check_value() -> None:
    assert crc16(b"123456789") == 0x29B1  # the CRC-16/CCITT-FALSE catalogue check value


@given(st.binary(max_size=1200))
def test_cobs_round_trips_and_removes_zeros(data: bytes) -> None:
    encoded = cobs.encode(data)
    assert 0 not in encoded
    assert len(encoded) <= len(data) + len(data) // 254 + 1
    assert cobs.decode(encoded) == data


@pytest.mark.parametrize("size", [253, 254, 255, 508, 509])
def test_cobs_block_boundaries(size: int) -> None:
    for data in (b"\x01" * size, b"\x00" * size, b"\x01" * size + b"\x00"):
        assert cobs.decode(cobs.encode(data)) == data


@given(messages, u8)
def test_every_message_round_trips(message: Message, seq: int) -> None:
    wire = encode_frame(message, seq)
    assert wire.endswith(b"\x00") and 0 not in wire[:-1]
    assert decode_frame(wire[:-1]) == (seq, message)


def test_payloads_full_of_zero_bytes_round_trip() -> None:
    message = Scan(0, tuple(Reading(0, 0) for _ in range(300)))
    wire = encode_frame(message, 0)
    assert decode_frame(wire[:-1]) == (0, message)


def _raw(message: Message, seq: int) -> bytes:
    return cobs.decode(encode_frame(message, seq)[:-1])


@given(messages, u8, st.data())
def test_any_burst_of_up_to_16_bits_in_a_frame_is_rejected(
    message: Message, seq: int, data: st.DataObject
) -> None:
    raw = bytearray(_raw(message, seq))
    bits = len(raw) * 8
    length = data.draw(st.integers(1, min(16, bits)))
    start = data.draw(st.integers(0, bits - length))
    pattern = data.draw(st.integers(1, (1 << length) - 1) | st.just((1 << length) - 1))
    pattern |= 1 | (1 << (length - 1))  # a burst starts and ends with a flipped bit
    for offset in range(length):
        if pattern >> offset & 1:
            bit = start + offset
            raw[bit // 8] ^= 0x80 >> (bit % 8)
    with pytest.raises(FrameError):
        decode_frame(cobs.encode(bytes(raw)))


@settings(derandomize=True, max_examples=1200, suppress_health_check=[HealthCheck.too_slow])
@given(messages, u8, st.data())
def test_random_corruption_on_the_wire_is_never_accepted(
    message: Message, seq: int, data: st.DataObject
) -> None:
    """Arbitrary damage to the encoded bytes: overwrites, insertions, deletions, truncation.
    Where the damage creates a 0x00, the receiver sees two frames; neither may be accepted."""
    original = encode_frame(message, seq)[:-1]
    wire = bytearray(original)
    action = data.draw(st.sampled_from(["overwrite", "insert", "delete", "truncate"]))
    position = data.draw(st.integers(0, len(wire) - 1))
    if action == "overwrite":
        value = data.draw(u8.filter(lambda v: v != wire[position]))
        wire[position] = value
    elif action == "insert":
        wire.insert(position, data.draw(u8))
    elif action == "delete":
        del wire[position]
    else:
        del wire[position:]
    for packet in bytes(wire).split(b"\x00"):
        if packet == original:
            continue  # a delimiter inserted next to the frame leaves the frame itself intact
        try:
            decoded = decode_frame(packet)
        except FrameError:
            continue
        raise AssertionError(f"corrupted frame accepted: {decoded!r}")


@given(st.binary(max_size=300))
def test_garbage_never_decodes_to_a_frame_by_accident_or_crashes(garbage: bytes) -> None:
    for packet in garbage.split(b"\x00"):
        with contextlib.suppress(FrameError):
            decode_frame(packet)


def test_overlong_frames_are_rejected() -> None:
    with pytest.raises(FrameError, match="longer than any valid frame"):
        decode_frame(b"\x01" * 10000)


leds = st.lists(st.builds(LedPattern, st.integers(0, 3), u8, u8, u8), min_size=1, max_size=80)


@given(leds, st.data())
def test_a_delta_turns_any_frame_the_board_may_show_into_the_one_wanted(
    want: list[LedPattern], data: st.DataObject
) -> None:
    n = len(want)
    frame = st.lists(st.builds(LedPattern, st.integers(0, 3), u8, u8, u8), min_size=n,
                     max_size=n).map(tuple)  # fmt: skip
    shown = data.draw(st.lists(frame, min_size=1, max_size=3))
    delta = led_delta(tuple(want), shown)
    if delta is None:  # a whole frame is as short
        return
    for board in shown:
        assert delta.apply(board) == tuple(want)
        assert delta.apply(delta.apply(board) or ()) == tuple(want)  # re-sending is harmless


@given(leds, st.data())
def test_a_delta_on_a_board_showing_something_else_is_refused(
    want: list[LedPattern], data: st.DataObject
) -> None:
    before = tuple(LedPattern(0, 0, 0, 0) for _ in want)
    delta = led_delta(tuple(want), [before])
    if delta is None or not delta.changes:
        return
    index = data.draw(st.integers(0, len(want) - 1))
    touched = {i for i, _ in delta.changes}
    if index in touched:
        return
    wrong = list(before)
    wrong[index] = LedPattern(9, 9, 9, 9)  # a cell the delta does not name differs
    assert delta.apply(tuple(wrong)) is None
    assert delta.apply(before[:-1]) is None  # another LED count


def test_a_typical_delta_is_a_fraction_of_a_whole_three_dragons_frame() -> None:
    off = LedPattern(0, 0, 0, 0)
    before = (off,) * 77
    after = list(before)
    after[10], after[20] = LedPattern(255, 0, 0, 0xA0), LedPattern(0, 255, 0, 0xFF)
    delta = led_delta(tuple(after), [before])
    assert delta is not None
    whole = len(encode_frame(Leds(tuple(after)), 0))
    assert whole == 316 and len(encode_frame(delta, 0)) < 30
