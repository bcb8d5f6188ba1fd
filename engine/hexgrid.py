"""Axial coordinates for pointy-topped hex grids, with north up.

``Hex(q, r)``: ``r`` counts rows northwards, ``q`` runs east along a row and shifts with it, so
the six neighbours are fixed vector offsets. Direction names follow the compass-point
convention used by Ludii's hex boards: the six adjacent cells are E, W, NNE, NNW, SSE, SSW and
the six "diagonal" cells (two steps apart, between two neighbours) are N, S, ENE, ESE, WSW, WNW.
"""

from __future__ import annotations

from typing import NamedTuple


class Hex(NamedTuple):
    q: int
    r: int

    def __add__(self, other: object) -> Hex:
        if not isinstance(other, Hex):
            return NotImplemented
        return Hex(self.q + other.q, self.r + other.r)

    @property
    def s(self) -> int:
        return -self.q - self.r

    def distance(self, other: Hex) -> int:
        dq, dr = self.q - other.q, self.r - other.r
        return (abs(dq) + abs(dr) + abs(dq + dr)) // 2

    def neighbour(self, direction: str) -> Hex:
        return self + ALL_DIRECTIONS[direction]


ADJACENT: dict[str, Hex] = {
    "E": Hex(1, 0),
    "NNE": Hex(0, 1),
    "NNW": Hex(-1, 1),
    "W": Hex(-1, 0),
    "SSW": Hex(0, -1),
    "SSE": Hex(1, -1),
}

DIAGONAL: dict[str, Hex] = {
    "N": Hex(-1, 2),
    "ENE": Hex(1, 1),
    "ESE": Hex(2, -1),
    "S": Hex(1, -2),
    "WSW": Hex(-1, -1),
    "WNW": Hex(-2, 1),
}

ALL_DIRECTIONS: dict[str, Hex] = {**ADJACENT, **DIAGONAL}


def from_offset(row: int, index: int) -> Hex:
    """Offset layout with odd rows shifted half a hex east ("odd-r"), row 0 at the south."""
    return Hex(index - (row - (row & 1)) // 2, row)


def to_offset(h: Hex) -> tuple[int, int]:
    """Inverse of ``from_offset``: (row, index within the row)."""
    return h.r, h.q + (h.r - (h.r & 1)) // 2


def centre(h: Hex) -> tuple[float, float]:
    """Cartesian centre for drawing, in units of one hex width; y grows northwards."""
    return h.q + h.r / 2.0, h.r * 0.8660254037844386
