"""Vanguard's flag in danger, found without trying every move: what the root's proof search
(proof.py) asks at every position it looks at.

Of the search's lost games against Ludii's Alpha-Beta (docs/engine.md), eleven in twelve
ended the same way: an enemy outrider took the flag after a chase, the search's captain
running with its flag behind it (the flag follows its captain). That is decided a few moves
before the last, deeper than playouts cut at eight plies and judged by material see: a
minimax look that asks only "is the flag taken by force" sees it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

from engine.game import State
from engine.games.vanguard import CAPTAIN, FLAG, OUTRIDER, RAM, Vanguard, VanguardState
from engine.moves import Move
from engine.pieces import Piece
from engine.player import Player
from engine.search.evaluate import PIECE_VALUES
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


def victim(state: State, move: Move) -> Piece | None:
    """The enemy piece ``move`` takes at once: where a step lands, or where a ram's run ends
    (alpha-beta's ordering and its quiescence look)."""
    cells = state.cells
    mover = state.to_move
    target = cells[move.to]
    if target is not None:
        return target if target.owner is not mover else None
    piece = cells[move.frm]
    if piece is None or piece.kind != RAM:
        return None
    rules = cast(VanguardState, state)
    capture = rules.ram_run(move.frm, move.to, mover).capture
    return cells[capture] if capture >= 0 else None


def flag_in_danger(state: State, player: Player) -> bool:
    """Whether the other player could take ``player``'s flag with its next move."""
    return flag_taken(state, player.other) is not None


class Judge:
    """Vanguard's position for the player to move, as alpha-beta reads it at its horizon:
    material (evaluate.PIECE_VALUES), and each outrider's reach of the enemy flag. With
    material alone a look of seven plies saw nothing to do in a level position and walked
    its captain to and fro while the other side came on (the first arena games against
    Ludii's Alpha-Beta, docs/engine.md): the flag is won by outriders near it."""

    def __init__(self, game: Vanguard, values: dict[str, float], approach: float,
                 room: float = 0.0) -> None:  # fmt: skip
        self.game = game
        self.values = values
        self.approach = approach
        self.room = room
        size = game.board.size
        # Outrider steps between any two cells (12 directions, never blocked).
        far = size
        self.steps = [[far] * size for _ in range(size)]
        for start in range(size):
            row = self.steps[start]
            row[start] = 0
            frontier = [start]
            while frontier:
                nxt: list[int] = []
                for cell in frontier:
                    for target, _ in game.outrider_moves[cell]:
                        if row[target] == far:
                            row[target] = row[cell] + 1
                            nxt.append(target)
                frontier = nxt
        self.reach = max(max(row) for row in self.steps) + 1

    def __call__(self, state: State) -> float:
        values = self.values
        mover = state.to_move
        cells = state.cells
        flags = [-1, -1]
        for cell in range(len(cells)):
            piece = cells[cell]
            if piece is not None and piece.kind == FLAG:
                flags[piece.owner.index] = cell
        score = 0.0
        reach = self.reach
        approach = self.approach
        captains = [-1, -1]
        outriders = 0
        for cell in range(len(cells)):
            piece = cells[cell]
            if piece is None:
                continue
            kind = piece.kind
            worth = values.get(kind, 1.0)
            if kind == OUTRIDER:
                outriders += 1
                target = flags[1 - piece.owner.index]
                if target >= 0:
                    worth += approach * (reach - self.steps[cell][target])
            elif kind == CAPTAIN:
                captains[piece.owner.index] = cell
            score += worth if piece.owner is mover else -worth
        if outriders == 0 and self.room and captains[0] >= 0 and captains[1] >= 0:
            mine = captains[mover.index]
            theirs = captains[1 - mover.index]
            score += self.room * (self._room(cells, mine, theirs) - self._room(cells, theirs, mine))
        return score

    def _room(self, cells: list[Piece | None], captain: int, enemy: int) -> int:
        """The captain's steps to a cell the enemy captain cannot take next: with no outrider
        left, the captains hunt each other (the flag follows its captain), and the one with no
        such step left is caught. Material alone saw nothing in those endings until the catch,
        and lost them to Ludii's Alpha-Beta at a quarter of its time (its own default judgement
        adds each side's mobility)."""
        owner = cells[captain]
        assert owner is not None
        near = self.game.captain_moves[enemy]
        room = 0
        for target, _ in self.game.captain_moves[captain]:
            held = cells[target]
            if held is not None and held.owner is owner.owner:
                continue
            if target != enemy and any(t == target for t, _ in near):
                continue
            room += 1
        return room


APPROACH = 0.1  # an outrider's step nearer the enemy flag, against its worth of 3
ROOM = 0.05  # with no outrider left: a captain's safe step more than the other's
_JUDGES: dict[int, Judge] = {}


def judge_of(state: State) -> Callable[[State], float]:
    """The Judge of ``state``'s game (made once a game: its table of distances)."""
    game = cast(Vanguard, state.game)
    found = _JUDGES.get(id(game))
    if found is None or found.game is not game:
        found = _JUDGES[id(game)] = Judge(game, dict(PIECE_VALUES["vanguard"]), APPROACH, ROOM)
    return found
