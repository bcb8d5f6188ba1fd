"""Just enough PNG to compare two screen pictures: 8-bit RGB or RGBA, not interlaced (what
grim and Chromium write). Pixels come back as rows of bytes, three per pixel."""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass
from pathlib import Path

SIGNATURE = b"\x89PNG\r\n\x1a\n"


@dataclass(frozen=True, slots=True)
class Picture:
    width: int
    height: int
    rgb: bytes  # width * height * 3

    def pixel(self, x: int, y: int) -> tuple[int, int, int]:
        at = (y * self.width + x) * 3
        return self.rgb[at], self.rgb[at + 1], self.rgb[at + 2]


def read_png(data: bytes | Path) -> Picture:
    raw = data.read_bytes() if isinstance(data, Path) else data
    if not raw.startswith(SIGNATURE):
        raise ValueError("not a PNG file")
    at = len(SIGNATURE)
    header = b""
    chunks = []
    while at < len(raw):
        (length,) = struct.unpack(">I", raw[at : at + 4])
        kind = raw[at + 4 : at + 8]
        body = raw[at + 8 : at + 8 + length]
        at += 12 + length
        if kind == b"IHDR":
            header = body
        elif kind == b"IDAT":
            chunks.append(body)
        elif kind == b"IEND":
            break
    width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", header)
    channels = {2: 3, 6: 4}.get(colour)
    if depth != 8 or channels is None or interlace:
        raise ValueError(f"unsupported PNG (depth {depth}, colour type {colour})")
    stride = width * channels
    data_ = zlib.decompress(b"".join(chunks))
    rows: list[bytearray] = []
    previous = bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind = data_[start]
        row = bytearray(data_[start + 1 : start + 1 + stride])
        _unfilter(kind, row, previous, channels)
        rows.append(row)
        previous = row
    if channels == 3:
        return Picture(width, height, b"".join(rows))
    rgb = bytearray()
    for row in rows:
        del row[3::4]
        rgb += row
    return Picture(width, height, bytes(rgb))


def _unfilter(kind: int, row: bytearray, up: bytearray, bpp: int) -> None:
    if kind == 0:
        return
    if kind == 1:
        for i in range(bpp, len(row)):
            row[i] = (row[i] + row[i - bpp]) & 255
    elif kind == 2:
        for i in range(len(row)):
            row[i] = (row[i] + up[i]) & 255
    elif kind == 3:
        for i in range(len(row)):
            left = row[i - bpp] if i >= bpp else 0
            row[i] = (row[i] + ((left + up[i]) >> 1)) & 255
    elif kind == 4:
        for i in range(len(row)):
            a = row[i - bpp] if i >= bpp else 0
            b = up[i]
            c = up[i - bpp] if i >= bpp else 0
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            pred = a if pa <= pb and pa <= pc else b if pb <= pc else c
            row[i] = (row[i] + pred) & 255
    else:
        raise ValueError(f"unknown PNG filter {kind}")


def difference(one: Picture, other: Picture) -> float:
    """The mean difference of two pictures of one size, per channel, 0 (the same) to 255."""
    if (one.width, one.height) != (other.width, other.height):
        raise ValueError(f"{one.width}x{one.height} against {other.width}x{other.height}")
    total = sum(abs(a - b) for a, b in zip(one.rgb, other.rgb, strict=True))
    return total / len(one.rgb)


def covered(
    picture: Picture, colour: tuple[int, int, int] = (0, 0, 0), block: int = 40
) -> list[str]:
    """The blocks of the picture (``block`` px square) that are all one ``colour``: the
    compositor's empty background showing where no window is."""
    empty = []
    for top in range(0, picture.height, block):
        for left in range(0, picture.width, block):
            if all(
                picture.pixel(x, y) == colour
                for y in range(top, min(top + block, picture.height), 4)
                for x in range(left, min(left + block, picture.width), 4)
            ):
                empty.append(f"{left},{top}")
    return empty
