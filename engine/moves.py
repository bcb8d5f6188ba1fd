"""Moves: small frozen values. Their text form needs the board's cell names, so it lives on
``Game`` (``game.move_text`` / ``game.parse_move``), the way a chess move needs square names."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

Cell = int
"""A cell is an index into the board's cell table; ``Board.names`` gives its human name."""

NO_CELL: Cell = -1


class MoveKind(Enum):
    MOVE = "move"  # a piece goes from one cell to another (step or slide)
    PLACE = "place"  # a piece from the player's reserve is put on a cell
    PASS = "pass"  # nothing changes on the board; physically a button press
    CAPTURE = "capture"  # decision: the piece on ``frm`` captures the piece on ``to``
    REMOVE = "remove"  # decision: the pieces on ``cells`` are removed
    # Results the players declare, not rules: nothing changes on the board, the game ends.
    # Either player may resign at any time (``piece`` holds the resigning player, "1" or "2");
    # a draw is agreed by both. Never among a position's legal moves; a take-back withdraws it.
    RESIGN = "resign"
    DRAW = "draw"
    # A flag fall: ``piece`` holds the player whose time ran out ("1" or "2"). Declared by the
    # referee's clock, not by a player; it ends the game as a resignation does.
    TIME = "time"


@dataclass(frozen=True, slots=True)
class Move:
    kind: MoveKind
    frm: Cell = NO_CELL
    to: Cell = NO_CELL
    piece: str = ""  # the kind placed, for PLACE
    # REMOVE: the cells removed. MOVE: cells off its landing cell whose pieces the move
    # captures where the two cells alone do not say which (a cobra's strike on the way, an
    # elephant's squash); written ``c2-c4xd3``. Sorted either way.
    cells: tuple[Cell, ...] = ()

    @classmethod
    def step(cls, frm: Cell, to: Cell, taking: tuple[Cell, ...] | list[Cell] = ()) -> Move:
        return cls(MoveKind.MOVE, frm, to, cells=tuple(sorted(taking)))

    @classmethod
    def place(cls, piece: str, to: Cell) -> Move:
        return cls(MoveKind.PLACE, NO_CELL, to, piece)

    @classmethod
    def pass_(cls) -> Move:
        return PASS

    @classmethod
    def capture(cls, attacker: Cell, victim: Cell) -> Move:
        return cls(MoveKind.CAPTURE, attacker, victim)

    @classmethod
    def remove(cls, cells: tuple[Cell, ...] | list[Cell]) -> Move:
        return cls(MoveKind.REMOVE, cells=tuple(sorted(cells)))

    @classmethod
    def resign(cls, player: int) -> Move:
        """Player ``player`` (1 or 2) resigns."""
        return cls(MoveKind.RESIGN, piece=str(int(player)))

    @classmethod
    def lost_on_time(cls, player: int) -> Move:
        """Player ``player``'s (1 or 2) time ran out."""
        return cls(MoveKind.TIME, piece=str(int(player)))

    @classmethod
    def agreed_draw(cls) -> Move:
        return AGREED_DRAW

    @property
    def is_decision(self) -> bool:
        return self.kind in (MoveKind.CAPTURE, MoveKind.REMOVE)

    @property
    def is_declared(self) -> bool:
        """A result declared (a resignation, an agreed draw, a flag fall), not a move."""
        return self.kind in (MoveKind.RESIGN, MoveKind.DRAW, MoveKind.TIME)


PASS = Move(MoveKind.PASS)
AGREED_DRAW = Move(MoveKind.DRAW)
