"""Helpers for building games and positions in tests."""

from __future__ import annotations

from typing import Any

from engine import Game, Move, Piece, Player, State
from firmware_bridge.link import catalog

# Protect the Goat, Player 1 to move: their lyon (a5) one step from Player 2's goat (b6), whose
# capture ends the game (a5-a6: the battle takes it).
GOAT_IN_REACH: dict[str, Any] = {
    "game": "protect-the-goat", "to_move": 1, "phase": "movement", "south": 1,
    "layout": {"a1": {"owner": 1, "piece": "goat"}, "b6": {"owner": 2, "piece": "goat"},
               "a5": {"owner": 1, "piece": "lyon"}, "i1": {"owner": 2, "piece": "lyon"}},
    "reserve": {"1": {}, "2": {}},
}  # fmt: skip


def load(game_id: str, **options: object) -> Game:
    return catalog.load_game(game_id, options)


def piece_json(game: Game, token: str) -> dict[str, Any]:
    """``"P"`` = player 1's phant, ``"p"`` = player 2's, ``"D5"`` = a die of strength 5."""
    symbol, digits = token[0], token[1:]
    kind = game.kind_by_symbol[symbol.upper()]
    data: dict[str, Any] = {"owner": 1 if symbol.isupper() else 2, "piece": kind}
    if digits:
        data["state"] = int(digits)
    return data


def position(
    game: Game, pieces: dict[str, str], to_move: int = 1, phase: str | None = None, **extra: Any
) -> State:
    """A state built through the JSON position form, as puzzles and tools do."""
    data: dict[str, Any] = {
        "layout": {cell: piece_json(game, token) for cell, token in pieces.items()},
        "to_move": to_move,
        "phase": phase or game.phases[0],
    }
    data.update(extra)
    return game.state_from_json(data)


def cell(game: Game, name: str) -> int:
    return game.board.cell(name)


def at(state: State, name: str) -> Piece | None:
    return state.cells[state.game.board.cell(name)]


def tokens(state: State) -> dict[str, str]:
    """The layout as {cell name: token} (the inverse of ``position``'s pieces)."""
    game = state.game
    result: dict[str, str] = {}
    for c, piece in state.layout().items():
        symbol = game.pieces[piece.kind].symbol
        symbol = symbol if piece.owner is Player.ONE else symbol.lower()
        result[game.board.names[c]] = symbol + ("" if piece.state is None else str(piece.state))
    return result


def mover(state: State) -> Player:
    """Who acts next (a call, so type checkers do not pin it across apply())."""
    return state.to_move


def texts(state: State) -> list[str]:
    return [state.notation(m) for m in state.legal_moves()]


def play(state: State, *moves: str) -> None:
    for text in moves:
        state.apply(state.parse(text))


def move(state: State, text: str) -> Move:
    return state.parse(text)
