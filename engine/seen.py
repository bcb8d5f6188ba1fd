"""A position as the repetition rule counts it."""

from __future__ import annotations

from collections.abc import Hashable

from engine.pieces import Piece
from engine.player import Player


class SeenPosition:
    """A position as the repetition rule counts it, hashed once: it is looked up every turn,
    and again when the turn is taken back (the same object then, found at once), where a
    tuple would hash all its cells each time."""

    __slots__ = ("_hash", "cells", "extra", "phase", "to_move")

    def __init__(self, cells: tuple[Piece | None, ...], to_move: Player, phase: str,
                 extra: Hashable) -> None:  # fmt: skip
        self.cells = cells
        self.to_move = to_move
        self.phase = phase
        self.extra = extra
        self._hash = hash((cells, to_move, phase, extra))

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, SeenPosition)
            and self._hash == other._hash
            and self.to_move is other.to_move
            and self.phase == other.phase
            and self.cells == other.cells
            and self.extra == other.extra
        )
