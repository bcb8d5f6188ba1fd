"""Protocol frames on the wire: CRC-16/CCITT-FALSE and COBS, into buffers made once.

A frame is COBS(type, seq, payload..., crc-hi, crc-lo) followed by 0x00 (docs/protocol.md).
Nothing here allocates per frame: the board's whole traffic goes through two bytearrays, so
the heap stays flat however long the board runs. The host's codec must give the same bytes:
both are held to docs/protocol-vectors.json by the tests.
"""

from array import array

from micropython import const

_POLY = const(0x1021)
MAX_BODY = const(4096)  # type, seq and payload: a longer frame is noise (docs/protocol.md)
TOO_LONG = const(-2)


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
    0 while a frame is still coming, -1 for a damaged one, or TOO_LONG for an intact frame too
    long for the buffer: then ``buf[0:4]`` holds its type, seq and first two payload bytes and
    ``length`` its decoded length (so the board can answer it by its sequence number, as it
    answers an LEDS frame for another number of LEDs however long)."""

    def __init__(self, size):
        self.buf = bytearray(size + size // 254 + 4)
        self.count = 0
        self.overflow = False
        self.length = 0
        # The overflow path decodes as the bytes come: what is left of the COBS block, its
        # code, and the CRC over every byte but the last two (``tail``, still to come).
        self.left = 0
        self.code = 0
        self.crc = 0
        self.tail = 0

    def push(self, byte):
        if byte:
            if self.count < len(self.buf):
                self.buf[self.count] = byte
                self.count += 1
            elif self.overflow:
                self._decode(byte)
            else:
                self._spill(byte)
            return 0
        count = self.count
        self.count = 0
        if self.overflow:
            self.overflow = False
            return self._finish()
        if count == 0:
            return 0  # an empty frame: a sender flushing noise
        length = cobs_decode(self.buf, count)
        if length < 4:
            return -1
        if crc16(self.buf, 0, length - 2) != (self.buf[length - 2] << 8 | self.buf[length - 1]):
            return -1
        return length - 2

    # -- a frame longer than the buffer: decoded byte by byte, only its head kept --------------
    def _spill(self, byte):
        self.overflow = True
        self.left = 0
        self.code = 0
        self.crc = 0xFFFF
        self.length = 0
        for i in range(len(self.buf)):  # the head is written over bytes already read
            self._decode(self.buf[i])
        self._decode(byte)

    def _decode(self, byte):
        if self.length < 0:
            return  # already damaged: wait for the 0x00
        if self.left:
            self.left -= 1
            self._out(byte)
            return
        if self.code and self.code < 0xFF:
            self._out(0)  # the zero a short block stands for, now that another follows
        self.code = byte
        self.left = byte - 1

    def _out(self, byte):
        n = self.length
        if n < 4:
            self.buf[n] = byte
        if n >= 2:  # the byte two back is not part of the CRC: feed it now
            old = self.tail >> 8
            self.crc = ((self.crc << 8) & 0xFF00) ^ _TABLE[((self.crc >> 8) ^ old) & 0xFF]
        self.tail = ((self.tail << 8) | byte) & 0xFFFF
        self.length = n + 1 if n < MAX_BODY + 2 else -1

    def _finish(self):
        if self.length < 4 or self.left or self.crc != self.tail:
            return -1
        self.length -= 2
        return TOO_LONG
