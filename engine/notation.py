"""Moves as text: ``a1-a4``, ``a1-a3xb2`` (a move that captures off its landing cell),
``S@c1`` (a placement), ``c2xd3`` and ``xd4+f4`` (decisions), ``pass``, the players' own
results ``resign:1``, ``resign:2``, ``draw``, and a flag fall ``time:1``, ``time:2`` (whose
time ran out). A move's text needs the board's cell names, so ``Game.move_text`` and
``Game.parse_move`` hand the game in. (Split from game.py.)"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Protocol

from engine.board import Board
from engine.errors import InvalidMoveError
from engine.moves import PASS, Cell, Move, MoveKind
from engine.pieces import PieceKind


class Game(Protocol):
    """What notation reads of a game (``engine.game.Game``, without importing it)."""

    @property
    def id(self) -> str: ...
    @property
    def board(self) -> Board: ...
    @property
    def pieces(self) -> Mapping[str, PieceKind]: ...
    @property
    def kind_by_symbol(self) -> Mapping[str, str]: ...


def move_text(game: Game, move: Move) -> str:
    names = game.board.names
    kind = move.kind
    if kind is MoveKind.MOVE:
        taking = "x" + "+".join(names[c] for c in move.cells) if move.cells else ""
        return f"{names[move.frm]}-{names[move.to]}{taking}"
    if kind is MoveKind.PLACE:
        return f"{game.pieces[move.piece].symbol}@{names[move.to]}"
    if kind is MoveKind.CAPTURE:
        return f"{names[move.frm]}x{names[move.to]}"
    if kind is MoveKind.REMOVE:
        return "x" + "+".join(names[c] for c in move.cells)
    if kind is MoveKind.RESIGN:
        return f"resign:{move.piece}"
    if kind is MoveKind.TIME:
        return f"time:{move.piece}"
    if kind is MoveKind.DRAW:
        return "draw"
    return "pass"


def declared(text: str) -> int | None:
    """Who declared the result a record's text holds: 1 or 2 for a resignation (the player
    who resigned, whoever was to move), 0 for a draw (both players agreed it); None for a
    move. A declared result is in the record but is no move: counts leave it out."""
    raw = text.strip().lower()
    if raw == "draw":
        return 0
    if raw in ("resign:1", "resign:2", "time:1", "time:2"):  # a flag fall: whose time ran out
        return int(raw[-1])
    return None


def moves_played(texts: Iterable[str]) -> int:
    """How many of a record's entries are moves (a resignation or a draw is not)."""
    return sum(1 for text in texts if declared(text) is None)


def parse_move(game: Game, text: str) -> Move:
    """Inverse of ``move_text``. Raises InvalidMoveError for text that names no move."""
    raw = text.strip()
    if raw.lower() == "pass":
        return PASS
    if raw.lower() == "draw":
        return Move.agreed_draw()
    if raw.lower() in ("resign:1", "resign:2"):
        return Move.resign(int(raw[-1]))
    if raw.lower() in ("time:1", "time:2"):
        return Move.lost_on_time(int(raw[-1]))
    if match := _PLACE.match(raw):
        symbol = match.group(1).upper()
        if symbol not in game.kind_by_symbol:
            known = ", ".join(sorted(game.kind_by_symbol))
            raise InvalidMoveError(f"{text!r}: no piece with symbol {symbol} ({known})")
        return Move.place(game.kind_by_symbol[symbol], _cell(game, match.group(2), text))
    if match := _MOVE.match(raw):
        frm, to = _cell(game, match.group(1), text), _cell(game, match.group(2), text)
        if not match.group(3):
            return Move.step(frm, to)
        taking = [_cell(game, name, text) for name in match.group(3).split("+")]
        if len(set(taking)) != len(taking):
            raise InvalidMoveError(f"{text!r}: a cell is named twice")
        return Move.step(frm, to, taking)
    if match := _CAPTURE.match(raw):
        return Move.capture(_cell(game, match.group(1), text), _cell(game, match.group(2), text))
    if match := _REMOVE.match(raw):
        cells = [_cell(game, name, text) for name in match.group(1).split("+")]
        if len(set(cells)) != len(cells):
            raise InvalidMoveError(f"{text!r}: a cell is named twice")
        return Move.remove(cells)
    raise InvalidMoveError(
        f"{text!r} is not a move (forms: a1-a4, a1-a3xb2, S@c1, c2xd3, xd4, xd4+f4, pass; "
        "the players' own results: resign:1, resign:2, draw)"
    )


def _cell(game: Game, name: str, text: str) -> Cell:
    cell = game.board.index.get(name)
    if cell is None:
        raise InvalidMoveError(f"{text!r}: {game.id} has no cell {name!r}")
    return cell


_NAME = r"[A-Za-wyz0-9]+"
_MOVE = re.compile(rf"^({_NAME})-({_NAME})(?:x({_NAME}(?:\+{_NAME})*))?$")
_PLACE = re.compile(rf"^([A-Za-z])@({_NAME})$")
_CAPTURE = re.compile(rf"^({_NAME})x({_NAME})$")
_REMOVE = re.compile(rf"^x({_NAME}(?:\+{_NAME})*)$")
