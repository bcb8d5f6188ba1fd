"""Where a reed switch goes under a cell, worked out from a magnet's field (docs/build-a-board.md).

A reed switch closes when its two blades become opposite poles, and that takes a field along
the reed: the blades carry the flux that runs through the glass lengthwise. Its drive is the
field along the reed's axis summed over its length. A piece's disc magnet, magnetised through
its thickness, is a dipole seen from a few millimetres away; under its centre the field points
straight down, and along a flat reed lying centred beneath it the lengthwise field runs one way
under one half and the other way under the other: the drive sums to nothing, both blades take
the same pole, and the switch stays open. This module computes the drive for the three ways a
reed can lie, for a piece anywhere near the cell's centre, so the guide's choice is checked:
``board-template`` draws the one that keeps the most drive where the pieces stand.
"""

from __future__ import annotations

import math
from enum import Enum

MAGNET_HEIGHT_MM = 5.0  # the magnet's centre above the reed's top: a 3 mm top, a 2 mm base
REED_LENGTH_MM = 14.0  # the glass of a common 2 x 14 mm reed switch
STEPS = 120


class ReedLayout(Enum):
    FLAT_CENTRED = "flat, centred under the cell"
    FLAT_OFFSET = "flat, one end under the cell's centre"
    UPRIGHT = "upright under the cell's centre"


def _field(point: tuple[float, float, float], magnet: tuple[float, float, float]) -> tuple[
    float, float, float
]:  # fmt: skip
    """A unit dipole pointing up at ``magnet``: its field at ``point``, up to a constant (only
    ratios are used)."""
    rx, ry, rz = point[0] - magnet[0], point[1] - magnet[1], point[2] - magnet[2]
    r2 = rx * rx + ry * ry + rz * rz
    r5 = r2 * r2 * math.sqrt(r2)
    return 3 * rz * rx / r5, 3 * rz * ry / r5, 3 * rz * rz / r5 - 1 / (r2 * math.sqrt(r2))


def drive(layout: ReedLayout, offset: tuple[float, float] = (0.0, 0.0), *,
          height: float = MAGNET_HEIGHT_MM, length: float = REED_LENGTH_MM) -> float:  # fmt: skip
    """The field along the reed summed over its length, for a piece ``offset`` mm (east,
    north) from the cell's centre. The reed lies east-west when flat."""
    total = 0.0
    for i in range(STEPS):
        t = (i + 0.5) / STEPS * length
        if layout is ReedLayout.FLAT_CENTRED:
            point, axis = (t - length / 2, 0.0, 0.0), 0
        elif layout is ReedLayout.FLAT_OFFSET:
            point, axis = (t, 0.0, 0.0), 0
        else:
            point, axis = (0.0, 0.0, -t), 2
        total += _field(point, (offset[0], offset[1], height))[axis] * length / STEPS
    return total


def weakest(layout: ReedLayout, reach_mm: float, *, height: float = MAGNET_HEIGHT_MM,
            length: float = REED_LENGTH_MM) -> float:  # fmt: skip
    """The weakest drive for a piece anywhere within ``reach_mm`` of the cell's centre, as a
    share of an upright reed's drive under a centred piece (1: as good; 0: a dead spot)."""
    reference = abs(drive(ReedLayout.UPRIGHT, height=height, length=length))
    grid = [k * 0.5 for k in range(-int(reach_mm * 2), int(reach_mm * 2) + 1)]
    return min(
        abs(drive(layout, (x, y), height=height, length=length)) / reference
        for x in grid for y in grid if x * x + y * y <= reach_mm * reach_mm
    )  # fmt: skip


def best_layout(reach_mm: float = 8.0) -> ReedLayout:
    """The layout with the strongest weakest drive over a piece's likely placements."""
    return max(ReedLayout, key=lambda layout: weakest(layout, reach_mm))
