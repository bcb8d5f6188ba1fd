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


def hexagon_cells(side_a: int, side_b: int) -> list[tuple[int, int]]:
    """(row, column) lattice cells of a hexagon whose sides alternate between ``side_a`` and
    ``side_b`` cells, as Ludii's ``(hex A B)`` (``(hex Limping n)`` is ``(hex n n+1)``): the
    cells whose centres lie inside or on the hexagon through the corner cells."""
    # Walk the outline: A-1 steps east, B-1 south-west, A-1 ..., in (row, column) steps.
    corners = [(0, 0)]
    row = column = 0
    for (d_row, d_col), length in zip(
        ((0, 1), (-1, 0), (-1, -1), (0, -1), (1, 0)), (side_a, side_b) * 3, strict=False
    ):
        row += d_row * (length - 1)
        column += d_col * (length - 1)
        corners.append((row, column))
    outline = [_lattice_point(r, c) for r, c in corners]
    rows = [r for r, _ in corners]
    columns = [c for _, c in corners]
    return [
        (r, c)
        for r in range(min(rows), max(rows) + 1)
        for c in range(min(columns), max(columns) + 1)
        if _inside(_lattice_point(r, c), outline)
    ]


def _lattice_point(row: int, column: int) -> tuple[float, float]:
    return column - row / 2.0, row * 0.8660254037844386


def _inside(point: tuple[float, float], outline: list[tuple[float, float]]) -> bool:
    """In a convex polygon, edges included."""
    count = len(outline)
    area = sum(
        outline[i][0] * outline[(i + 1) % count][1] - outline[(i + 1) % count][0] * outline[i][1]
        for i in range(count)
    )
    for i in range(count):
        (ax, ay), (bx, by) = outline[i], outline[(i + 1) % count]
        cross = (bx - ax) * (point[1] - ay) - (by - ay) * (point[0] - ax)
        if cross * area < -1e-9:
            return False
    return True
