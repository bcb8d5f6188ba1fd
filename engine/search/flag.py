"""Vanguard's flag in danger, found without trying every move: what the root's proof search
(proof.py) asks at every position it looks at.

Of the search's lost games against Ludii's Alpha-Beta (docs/engine.md), eleven in twelve
ended the same way: an enemy outrider took the flag after a chase, the search's captain
running with its flag behind it (the flag follows its captain). That is decided a few moves
before the last, deeper than playouts cut at eight plies and judged by material see: a
minimax look that asks only "is the flag taken by force" sees it.
"""

from __future__ import annotations

from typing import cast

from engine.game import State
from engine.games.vanguard import CAPTAIN, FLAG, OUTRIDER, RAM, Vanguard, VanguardState
from engine.moves import Move
from engine.player import Player
from engine.search.threats import cell_of


def flag_taken(state: State, player: Player | None = None) -> Move | None:
    """A move by ``player`` (the player to move unless said) that takes the other flag at
    once: an outrider's or the captain's step onto it, or a ram's run ending on it."""
    game = cast(Vanguard, state.game)
    mover = state.to_move if player is None else player
    flag = cell_of(state.cells, mover.other, FLAG)
    if flag < 0:
        return None
    cells = state.cells
    for cell, piece in enumerate(cells):
        if piece is None or piece.owner is not mover:
            continue
        kind = piece.kind
        if kind == OUTRIDER:
            for target, move in game.outrider_moves[cell]:
                if target == flag:
                    return move
        elif kind == CAPTAIN:
            for target, move in game.captain_moves[cell]:
                if target == flag:
                    return move
        elif kind == RAM:
            rules = cast(VanguardState, state)
            for first, move in rules.ram_moves(cell, mover):
                if rules.ram_run(cell, first, mover).capture == flag:
                    return move
    return None


def flag_runs(state: State, more: int) -> list[Move]:
    """The moves of the player to move that might take the flag within ``more`` more of its
    moves: with none to come, the move that takes it now; else every move (the flag moves
    with its captain, so no distance rules a piece out)."""
    if more <= 0:
        win = flag_taken(state)
        return [] if win is None else [win]
    return list(state.legal_moves())
