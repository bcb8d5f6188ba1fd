"""CRC-16/CCITT-FALSE (polynomial 0x1021, initial value 0xFFFF, no reflection): cheap on a
microcontroller (a 512-byte table or a bit loop) and catches every burst error up to 16 bits."""

from __future__ import annotations


def _table() -> tuple[int, ...]:
    table = []
    for byte in range(256):
        crc = byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
        table.append(crc & 0xFFFF)
    return tuple(table)


_TABLE = _table()


def crc16(data: bytes, crc: int = 0xFFFF) -> int:
    table = _TABLE
    for byte in data:
        crc = ((crc << 8) & 0xFFFF) ^ table[(crc >> 8) ^ byte]
    return crc
