"""Pieces and piece kinds.

A ``Piece`` is what physically sits on a cell: its kind, its owner and, for games that need it,
a small integer of per-piece state (a die's strength). Pieces are values: changing a die's face
replaces the piece on the cell, so layouts can be compared with ``==``. A piece is always true
and an empty cell is None, so rules code finds a board's occupied cells with
``itertools.compress(range(size), cells)``: give ``Piece`` no ``__len__`` or ``__bool__``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.player import Player


@dataclass(frozen=True, slots=True)
class PieceKind:
    """Static description of a kind of piece, from the game's config."""

    name: str
    symbol: str  # one upper-case letter; player 2's pieces are shown in lower case
    has_state: bool = False  # whether pieces of this kind carry an integer state
    doc: str = ""  # what it does, in a few words (the kiosk's key)


@dataclass(frozen=True, slots=True)
class Piece:
    kind: str
    owner: Player
    state: int | None = None
    # Positions are hashed for the repetition rule every turn: hash each piece once.
    _hash: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_hash", hash((self.kind, self.owner, self.state)))

    def __hash__(self) -> int:
        return self._hash

    def to_json(self) -> dict[str, object]:
        data: dict[str, object] = {"owner": int(self.owner), "piece": self.kind}
        if self.state is not None:
            data["state"] = self.state
        return data

    def with_state(self, state: int | None) -> Piece:
        return Piece(self.kind, self.owner, state)
