"""The fab's rules and prices, as data with their sources.

JLCPCB (jlcpcb.com/capabilities/pcb-capabilities, read 2026-12): a two-layer FR-4 board of
at most 400 x 500 mm; least drill 0.2 mm; on one- and two-layer boards a via's hole at least
0.3 mm and its pad 0.6 mm; least track and space 0.127 mm (5 mil) at 1 oz; annular ring of a
plated hole 0.15 mm at least (they enlarge it to that in production).
The board is drawn well inside them (0.25 mm tracks, 0.2 mm clearance), so a hand-soldered
first board and a cheaper fab's slower process both take it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Fab:
    name: str
    source: str
    largest: tuple[float, float]  # mm: the largest board it makes
    least_track: float
    least_space: float
    least_drill: float
    via_drill: float  # the smallest a two-layer board may have
    via_diameter: float
    annular_ring: float
    hole_to_hole: float
    edge_clearance: float  # copper from the board's edge (routed outline)
    # Price: a rough model of its online quote for five two-layer 1.6 mm HASL boards, green,
    # (US$): a set-up charge and a rate by the area of one board. Check the fab's own quote:
    # prices change, and shipping and duty are not in it.
    setup_usd: float
    usd_per_dm2: float  # for five boards, by one board's area

    def fits(self, width: float, height: float) -> bool:
        small, large = sorted((width, height))
        return small <= min(self.largest) and large <= max(self.largest)

    def price_five(self, width: float, height: float) -> float:
        area_dm2 = width * height / 10_000
        return round(self.setup_usd + self.usd_per_dm2 * area_dm2, 0)


JLCPCB = Fab(
    name="JLCPCB",
    source="https://jlcpcb.com/capabilities/pcb-capabilities",
    largest=(400.0, 500.0),
    least_track=0.127,
    least_space=0.127,
    least_drill=0.2,
    via_drill=0.3,
    via_diameter=0.6,
    annular_ring=0.15,
    hole_to_hole=0.5,
    edge_clearance=0.3,
    setup_usd=8.0,
    usd_per_dm2=9.0,
)


@dataclass(frozen=True, slots=True)
class Design:
    """What the board is drawn with: wider than the fab's least, for margin."""

    pitch: float = 0.635  # the router's grid: 25 thou, half the SOIC's pin pitch
    track: float = 0.25
    clearance: float = 0.2
    edge_clearance: float = 0.5


def track_width(amps: float, rise_c: float = 10.0, copper_um: float = 35.0) -> float:
    """A top or bottom layer track's width (mm) for ``amps`` at a ``rise_c`` temperature rise,
    by IPC-2221's chart formula for outer layers: I = 0.048 dT^0.44 A^0.725 (A in mil²)."""
    area_mil2 = float((amps / (0.048 * rise_c**0.44)) ** (1 / 0.725))
    thickness_mil = copper_um / 25.4
    return math.ceil(area_mil2 / thickness_mil * 0.0254 * 20) / 20
