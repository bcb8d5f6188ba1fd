"""What a move does to the physical board.

``Effect`` is returned by ``State.apply``: the cell changes made by the player's hand action,
the automatic consequences that followed, and readable events. ``Footprint`` is the same
information as a pair of target layouts, which is what a referee compares sensor readings with.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import Enum
from types import MappingProxyType
from typing import Any, Final, NamedTuple

from engine.moves import Cell, Move
from engine.outcome import Outcome
from engine.pieces import Piece
from engine.player import Player
from engine.seen import SeenPosition

Layout = Mapping[Cell, Piece]
"""Physical contents of a board: occupied cells only."""

Changes = Mapping[Cell, Piece | None]
"""New contents of the cells that change; None means the cell becomes empty."""


class Change(NamedTuple):
    """One cell's contents changing."""

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
    """What a move did, in words."""

    kind: EventKind
    text: str
    cells: tuple[Cell, ...] = ()


RawChange = tuple[Cell, Piece | None, Piece | None]
"""A ``Change`` as an apply records it: a plain tuple (cell, before, after)."""

RawEvent = tuple[EventKind, str, tuple[Cell, ...]]
"""An ``Event`` as an apply records it: a plain tuple (kind, text, cells)."""

_new: Final = tuple.__new__


def net_changes(changes: Iterable[RawChange]) -> dict[Cell, Piece | None]:
    """Collapse a sequence of cell changes to each cell's final content, dropping no-ops."""
    first: dict[Cell, Piece | None] = {}
    last: dict[Cell, Piece | None] = {}
    for cell, before, after in changes:
        if cell not in first:
            first[cell] = before
        last[cell] = after
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


class MoveRecord:
    """One applied move, as ``State.apply`` records it: enough to undo it (the cells it changed
    and the state before it) and to describe what it did. Engine-internal."""

    __slots__ = ("auto", "events", "hand", "known", "move", "player", "seen_key", "snapshot")

    def __init__(
        self, move: Move, player: Player, snapshot: tuple[Any, ...], known: tuple[Any, ...]
    ) -> None:
        self.move = move
        self.player = player
        self.snapshot = snapshot
        # What the position before was found to allow (its outcome, moves): an undo puts it back,
        # so a footprint (apply, undo) does not list the position's moves again.
        self.known = known
        self.hand: list[RawChange] = []  # what the player's hand did
        self.auto: list[RawChange] = []  # the automatic consequences, in order
        self.events: list[RawEvent] = []
        self.seen_key: SeenPosition | None = None


class Effect:
    """What one ``State.apply`` did: the player's hand action, the automatic consequences that
    followed, readable events, and where the game stands after it. A value: never changed once
    made (its attributes are Final).

    One is made on every ply of every playout and footprint search, where nobody reads its
    changes one by one; so it keeps the apply's own record and makes the ``Change`` and
    ``Event`` values when they are read. ``footprint()`` and ``captured`` read the record.
    """

    __slots__ = ("_record", "decision", "outcome", "phase", "to_move")

    def __init__(
        self,
        record: MoveRecord,
        to_move: Player,
        phase: str,
        decision: bool,
        outcome: Outcome | None,
    ) -> None:
        self._record: Final = record
        self.to_move: Final = to_move  # who acts next (the chooser, in a decision phase)
        self.phase: Final = phase
        self.decision: Final = decision  # a decision is pending: the next moves are its options
        self.outcome: Final = outcome

    @property
    def move(self) -> Move:
        return self._record.move

    @property
    def player(self) -> Player:
        """Who made the move."""
        return self._record.player

    @property
    def hand(self) -> tuple[Change, ...]:
        """The player's own physical action."""
        return tuple([_new(Change, change) for change in self._record.hand])

    @property
    def consequences(self) -> tuple[Change, ...]:
        """The automatic steps that followed, in order."""
        return tuple([_new(Change, change) for change in self._record.auto])

    @property
    def events(self) -> tuple[Event, ...]:
        return tuple([_new(Event, event) for event in self._record.events])

    @property
    def captured(self) -> int:
        return sum(1 for event in self._record.events if event[0] is EventKind.CAPTURE)

    def footprint(self) -> Footprint:
        record = self._record
        return Footprint(
            move=record.move,
            hand=MappingProxyType(net_changes(record.hand)),
            result=MappingProxyType(net_changes(record.hand + record.auto)),
            to_move=self.to_move,
            phase=self.phase,
            decision=self.decision,
            outcome=self.outcome,
            captured=self.captured,
        )

    def __repr__(self) -> str:
        return (
            f"Effect(move={self.move!r}, player={self.player!r}, hand={self.hand!r}, "
            f"consequences={self.consequences!r}, events={self.events!r}, "
            f"to_move={self.to_move!r}, phase={self.phase!r}, decision={self.decision!r}, "
            f"outcome={self.outcome!r})"
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
