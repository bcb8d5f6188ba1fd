"""Protocol frames on the wire: CRC-16/CCITT-FALSE and COBS, into buffers made once.

A frame is COBS(type, seq, payload..., crc-hi, crc-lo) followed by 0x00 (docs/protocol.md).
Nothing here allocates per frame: the board's whole traffic goes through two bytearrays, so
the heap stays flat however long the board runs. The host's codec must give the same bytes:
both are held to docs/protocol-vectors.json by the tests.
"""

from array import array

from micropython import const

_POLY = const(0x1021)


def zeros(typecode, count):
    """An array of ``count`` zeros, made without a list of them first (which would take as
    much heap again, for a moment) and alike on every MicroPython version."""
    return array(typecode, (0 for _ in range(count)))


def _table():
    table = zeros("H", 256)
    for byte in range(256):
        crc = byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ _POLY) if crc & 0x8000 else (crc << 1)
        table[byte] = crc & 0xFFFF
    return table


_TABLE = _table()


def crc16(buf, start, end, crc=0xFFFF):
    """CRC-16/CCITT-FALSE of buf[start:end] (check value 0x29B1 for b"123456789")."""
    table = _TABLE
    for i in range(start, end):
        crc = ((crc << 8) & 0xFF00) ^ table[((crc >> 8) ^ buf[i]) & 0xFF]
    return crc


def cobs_encode(src, length, dst):
    """COBS-encode src[:length] into dst and end it with 0x00; returns the bytes written."""
    code_at = 0
    out = 1
    code = 1
    for i in range(length):
        byte = src[i]
        if byte:
            dst[out] = byte
            out += 1
            code += 1
            if code == 0xFF:
                dst[code_at] = 0xFF
                code_at = out
                out += 1
                code = 1
        else:
            dst[code_at] = code
            code_at = out
            out += 1
            code = 1
    dst[code_at] = code
    dst[out] = 0
    return out + 1


def cobs_decode(buf, length):
    """Decode buf[:length] (one frame without its 0x00) in place; returns the decoded length,
    or -1 if it is not a valid COBS encoding."""
    read = 0
    write = 0
    while read < length:
        code = buf[read]
        if code == 0:
            return -1
        end = read + code
        if end > length:
            return -1
        read += 1
        while read < end:
            byte = buf[read]
            if byte == 0:
                return -1
            buf[write] = byte
            write += 1
            read += 1
        if code < 0xFF and read < length:
            buf[write] = 0
            write += 1
    return write


class Framer:
    """Outgoing frames: the message is written into ``body`` from offset 2 on (after type
    and seq), then ``send`` adds the CRC, encodes and writes it in one go."""

    def __init__(self, size, port):
        self.body = bytearray(size + 4)
        self.wire = bytearray(size + 4 + size // 254 + 3)
        self.view = memoryview(self.wire)
        self.port = port
        self.seq = 0

    def send(self, kind, payload_length):
        body = self.body
        body[0] = kind
        body[1] = self.seq
        self.seq = (self.seq + 1) & 0xFF
        end = 2 + payload_length
        crc = crc16(body, 0, end)
        body[end] = crc >> 8
        body[end + 1] = crc & 0xFF
        size = cobs_encode(body, end + 2, self.wire)
        self.port.write(self.view[:size])
        return size


class Deframer:
    """Incoming bytes to frames. ``push`` takes one byte and returns the decoded length of a
    frame that ends with it (type at 0, seq at 1, payload from 2, the CRC checked and cut off),
    0 while a frame is still coming, or -1 for a damaged one. A frame too long for the buffer
    is damaged: its bytes are dropped up to the next 0x00."""

    def __init__(self, size):
        self.buf = bytearray(size + size // 254 + 4)
        self.count = 0
        self.overflow = False

    def push(self, byte):
        if byte:
            if self.count < len(self.buf):
                self.buf[self.count] = byte
                self.count += 1
            else:
                self.overflow = True
            return 0
        count = self.count
        self.count = 0
        if self.overflow:
            self.overflow = False
            return -1
        if count == 0:
            return 0  # an empty frame: a sender flushing noise
        length = cobs_decode(self.buf, count)
        if length < 4:
            return -1
        if crc16(self.buf, 0, length - 2) != (self.buf[length - 2] << 8 | self.buf[length - 1]):
            return -1
        return length - 2
