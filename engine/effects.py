"""What a move does to the physical board.

``Effect`` is returned by ``State.apply``: the cell changes made by the player's hand action,
the automatic consequences that followed, and readable events. ``Footprint`` is the same
information as a pair of target layouts, which is what a referee compares sensor readings with.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from types import MappingProxyType
from typing import NamedTuple

from engine.moves import Cell, Move
from engine.outcome import Outcome
from engine.pieces import Piece
from engine.player import Player

Layout = Mapping[Cell, Piece]
"""Physical contents of a board: occupied cells only."""

Changes = Mapping[Cell, Piece | None]
"""New contents of the cells that change; None means the cell becomes empty."""


class Change(NamedTuple):
    """One cell's contents changing. (Effects and changes are made on every apply, so they are
    named tuples: immutable values like the frozen dataclasses elsewhere, but cheaper to build
    in the hot path of playouts and footprint searches.)"""

    cell: Cell
    before: Piece | None
    after: Piece | None


class EventKind(Enum):
    MOVE = "move"
    PLACE = "place"
    PASS = "pass"
    CAPTURE = "capture"
    STRENGTH = "strength"  # a piece's state changed (a die turned)
    SPAWN = "spawn"  # a piece entered play by a rule (a dragon)
    DECISION = "decision"  # a player must choose how the consequences continue
    END = "end"


class Event(NamedTuple):
    """What a move did, in words (a named tuple like ``Change``: made on every apply)."""

    kind: EventKind
    text: str
    cells: tuple[Cell, ...] = ()


def net_changes(changes: tuple[Change, ...]) -> dict[Cell, Piece | None]:
    """Collapse a sequence of cell changes to each cell's final content, dropping no-ops."""
    first: dict[Cell, Piece | None] = {}
    last: dict[Cell, Piece | None] = {}
    for change in changes:
        first.setdefault(change.cell, change.before)
        last[change.cell] = change.after
    return {cell: after for cell, after in last.items() if first[cell] != after}


def apply_changes(layout: Layout, changes: Changes) -> dict[Cell, Piece]:
    """The layout that results from ``changes``."""
    result = dict(layout)
    for cell, piece in changes.items():
        if piece is None:
            result.pop(cell, None)
        else:
            result[cell] = piece
    return result


class Effect(NamedTuple):
    move: Move
    player: Player  # who made the move
    hand: tuple[Change, ...]  # the player's own physical action
    consequences: tuple[Change, ...]  # automatic steps that followed, in order
    events: tuple[Event, ...]
    to_move: Player  # who acts next (the chooser, in a decision phase)
    phase: str
    decision: bool  # a decision is pending: the next legal moves are its options
    outcome: Outcome | None

    @property
    def captured(self) -> int:
        return sum(1 for e in self.events if e.kind is EventKind.CAPTURE)

    def footprint(self) -> Footprint:
        return Footprint(
            move=self.move,
            hand=MappingProxyType(net_changes(self.hand)),
            result=MappingProxyType(net_changes(self.hand + self.consequences)),
            to_move=self.to_move,
            phase=self.phase,
            decision=self.decision,
            outcome=self.outcome,
            captured=self.captured,
        )


@dataclass(frozen=True, slots=True)
class Footprint:
    """Where a legal move leaves the physical board.

    ``hand``: cells whose contents the player's hand action changes, and to what.
    ``result``: cells that differ after the hand action and every automatic consequence up to
    the next turn, decision or end of game. Both are relative to the layout before the move.
    """

    move: Move
    hand: Changes
    result: Changes
    to_move: Player
    phase: str
    decision: bool
    outcome: Outcome | None
    captured: int

    def hand_layout(self, before: Layout) -> dict[Cell, Piece]:
        return apply_changes(before, self.hand)

    def result_layout(self, before: Layout) -> dict[Cell, Piece]:
        return apply_changes(before, self.result)
