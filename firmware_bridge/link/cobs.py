"""Consistent Overhead Byte Stuffing: removes every zero byte from a frame so that a single
0x00 can delimit frames on the wire. A receiver that joins mid-stream, or loses bytes to noise,
resynchronises at the next zero. Overhead: one byte per 254 bytes of payload, plus one."""

from __future__ import annotations


class CobsError(ValueError):
    """Bytes that are not a valid COBS encoding."""


def encode(data: bytes) -> bytes:
    out = bytearray()
    block = bytearray()
    for byte in data:
        if byte == 0:
            out.append(len(block) + 1)
            out += block
            block.clear()
        else:
            block.append(byte)
            if len(block) == 254:
                out.append(255)
                out += block
                block.clear()
    out.append(len(block) + 1)
    out += block
    return bytes(out)


def decode(data: bytes) -> bytes:
    out = bytearray()
    index = 0
    size = len(data)
    if size == 0:
        raise CobsError("empty frame")
    while index < size:
        code = data[index]
        if code == 0:
            raise CobsError("zero byte inside a frame")
        end = index + code
        if end > size:
            raise CobsError("frame ends inside a block")
        chunk = data[index + 1 : end]
        if 0 in chunk:
            raise CobsError("zero byte inside a frame")
        out += chunk
        index = end
        if code < 255 and index < size:
            out.append(0)
    return bytes(out)
