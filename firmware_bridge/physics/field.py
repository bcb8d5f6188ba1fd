"""The field a piece's magnet makes at a sensor, by magpylib (the analytical field of a
cylinder magnet: Derby and Olbert's expressions), and what each kind of sensor makes of it.

magpylib is an extra of the board tools (``pip install 'board-referee[board]'``, in the
developer's install), not of the referee: a Pi at a club never needs it.

Every function takes the piece's place as (x, y) in metres from the sensor's cell's centre
(x east, y north) and its magnet's polarity: +1 a south pole down (player 2's pieces), -1 a
north pole down (player 1's).
"""

from __future__ import annotations

import math
from typing import Any

from engine import ConfigError
from firmware_bridge.physics.parts import SensorKind
from firmware_bridge.physics.stackup import Mount, Stackup

SAMPLES = 15  # points along a reed's glass


MISSING = (
    "the board's physics needs magpylib: pip install 'board-referee[board]' (make test installs it)"
)


def magpylib() -> Any:
    try:
        import magpylib as magpy
    except ImportError:
        raise ConfigError(MISSING) from None
    return magpy


def numpy() -> Any:
    try:
        import numpy as np
    except ImportError:  # magpylib brings it: a club's install has neither
        raise ConfigError(MISSING) from None
    return np


def _magnets(stack: Stackup, places: Any, polarity: float, lift: float = 0.0) -> Any:
    """One magnet at each place (an (n, 2) array), its lower face ``lift`` above its rest."""
    np = numpy()
    magpy = magpylib()
    z = stack.magnet_centre + lift
    # A south pole down: the magnetisation points up from south to north.
    magnet = magpy.magnet.Cylinder(
        polarization=(0.0, 0.0, stack.magnet.remanence * polarity),
        dimension=(stack.magnet.diameter, stack.magnet.thickness),
    )
    positions = np.column_stack([places[:, 0], places[:, 1], np.full(len(places), z)])
    return magnet, positions


def signal(stack: Stackup, places: Any, polarity: float = 1.0, lift: float = 0.0) -> Any:
    """What the sensor under the cell's centre sees of a piece at each of ``places``: the
    field through a hall sensor's face (T), or the field along a reed's glass averaged over
    its length (T). One value a place (a numpy array)."""
    np = numpy()
    magpy = magpylib()
    places = np.asarray(places, dtype=float).reshape(-1, 2)
    magnet, positions = _magnets(stack, places, polarity, lift)
    sensor = stack.sensor
    if sensor.kind is not SensorKind.REED:
        # The element at (0, 0, element_z); the magnet moved instead: the same field.
        points = np.column_stack(
            [-positions[:, 0], -positions[:, 1], stack.element_z - positions[:, 2]]
        )
        return np.asarray(magpy.getB(magnet, points))[..., 2].reshape(-1)
    length = sensor.body[1]
    t = (np.arange(SAMPLES) + 0.5) / SAMPLES
    if stack.mount is Mount.UPRIGHT:
        top, bottom = stack.reed_span
        along = np.column_stack([np.zeros(SAMPLES), np.zeros(SAMPLES), top + (bottom - top) * t])
        axis = 2
    else:
        start = 0.0 if stack.mount is Mount.FLAT else -length / 2
        along = np.column_stack(
            [start + length * t, np.zeros(SAMPLES), np.full(SAMPLES, stack.element_z)]
        )
        axis = 0
    # Every glass point seen from every magnet: (places, samples, 3).
    rel = along[None, :, :] - positions[:, None, :]
    field = np.asarray(magpy.getB(magnet, rel.reshape(-1, 3))).reshape(len(places), SAMPLES, 3)
    return field[:, :, axis].mean(axis=1)


def grid(reach: float, square: bool, step: float = 1e-3) -> Any:
    """Places a piece may stand and still be in its cell: within ``reach`` of its centre
    (a square of that half-side on a square cell), every ``step``."""
    np = numpy()
    n = max(1, math.ceil(reach / step - 1e-9))
    axis = np.linspace(-reach, reach, 2 * n + 1)  # its edges exactly
    xs, ys = np.meshgrid(axis, axis)
    places = np.column_stack([xs.ravel(), ys.ravel()])
    if not square:
        places = places[np.hypot(places[:, 0], places[:, 1]) <= reach + 1e-9]
    return places
