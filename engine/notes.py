"""Notes on pieces: state a board's sensors cannot see, but players must know about.

A stuck elephant or an immobilised piece looks like any other piece to the sensors, and a
charging rhinoceros like one standing still. The engine says so per cell, so the referee can
mark the cell with an LED and the display can say why a piece may not move.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class NoteKind(Enum):
    HELD = "held"  # this piece may not move now (stuck, immobilised)
    CHARGED = "charged"  # this piece carries momentum into its next move


@dataclass(frozen=True, slots=True)
class Note:
    kind: NoteKind
    text: str  # in words, for the display: "stuck until its lion ends a move beside it"
