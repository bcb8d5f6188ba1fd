"""What one turn can be, as the footprint search sees it: the sensors' tokens per cell and the
paths (a legal move, then the decisions inside its consequences) with what each step shows.
Shared by the search (reconcile.py) and the prompts (prompts.py)."""

from __future__ import annotations

from dataclasses import dataclass

from engine import Cell, Move
from firmware_bridge.link.profile import Token

Tokens = dict[Cell, Token]


@dataclass(frozen=True, slots=True)
class Path:
    """One way the rest of a turn can go: its steps and the layouts they lead to."""

    moves: tuple[Move, ...]
    tokens: tuple[Tokens, ...]  # what the sensors see after each step's hand action and result
    hand_cells: frozenset[Cell]  # cells the first step's hand action visibly changes
    # Cells with a sensor whose piece the first step's hand action changes, seen or not (a
    # capture by replacement on an occupancy board changes a piece, not what the sensor reads):
    # a hand must have been there.
    touch_cells: frozenset[Cell] = frozenset()
    # The same, between the turn's start and the path's end: where hands must have been for
    # the board to show the path's end straight away (a ram put on the cell it runs on to).
    end_touch: frozenset[Cell] = frozenset()
