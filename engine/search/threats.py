"""Moves that win at once, found without trying every move: what ``decisive`` playouts ask at
every ply (mcts.py), so they must cost far less than a ply.

A random playout walks past a win and into a loss a real player would see at a glance. In
Protect the Goat that decides everything (a goat is taken by the first piece to step next to
it), and a playout that never misses such a step, and saves its own goat when a step can,
judges a position by the race to the goats instead of by chance.
"""

from __future__ import annotations

from typing import cast

from engine.game import State
from engine.games.protect_the_goat import BATTLE, MOVEMENT, PLACEMENT, GoatExtra, ProtectTheGoat
from engine.moves import Move, MoveKind
from engine.pieces import Piece
from engine.player import Player


def cell_of(cells: list[Piece | None], owner: Player, kind: str) -> int:
    """The cell of ``owner``'s piece of ``kind`` (its goat, its flag), or -1 when it has none
    on the board."""
    for cell, piece in enumerate(cells):
        if piece is not None and piece.owner is owner and piece.kind == kind:
            return cell
    return -1


def goat_taken(state: State, player: Player | None = None) -> Move | None:
    """Protect the Goat: a step by ``player`` (the player to move unless said) next to the
    other goat, which takes it at once (the mover's captures come first), or in a battle's
    choice the capture of the goat, if there is one."""
    game = cast(ProtectTheGoat, state.game)
    cells = state.cells
    mover = state.to_move if player is None else player
    royal = game.royal
    if state.phase == BATTLE and mover is state.to_move:  # a battle's choice: take the goat
        for move in state.legal_moves():
            victim = cells[move.to]
            if victim is not None and victim.kind == royal:
                return move
        return None
    if state.phase != MOVEMENT:
        return None
    goat = cell_of(cells, mover.other, royal)
    if goat < 0:
        return None
    steps = game.steps
    for target in steps[goat]:
        if cells[target] is not None:
            continue
        for cell in steps[target]:
            piece = cells[cell]
            if piece is not None and piece.owner is mover and piece.kind != royal:
                for to, move in game.step_moves[cell]:
                    if to == target:
                        return move
    return None


# Per game (by id, with the game kept so an id is never reused): steps between every pair of
# light hexes, over light hexes, ignoring pieces.
_APART: dict[int, tuple[ProtectTheGoat, tuple[tuple[int, ...], ...]]] = {}


def _apart(game: ProtectTheGoat) -> tuple[tuple[int, ...], ...]:
    found = _APART.get(id(game))
    if found is not None and found[0] is game:
        return found[1]
    size = game.board.size
    steps = game.steps
    rows: list[tuple[int, ...]] = []
    for start in range(size):
        distance = [size] * size
        distance[start] = 0
        frontier = [start]
        while frontier:
            following: list[int] = []
            for cell in frontier:
                for n in steps[cell]:
                    if distance[n] == size:
                        distance[n] = distance[cell] + 1
                        following.append(n)
            frontier = following
        rows.append(tuple(distance))
    table = tuple(rows)
    _APART[id(game)] = (game, table)
    return table


def goat_approaches(state: State, moves: list[Move]) -> list[Move]:
    """Protect the Goat: the moves among ``moves`` that bring a piece (not the goat) a step
    nearer the other goat: what a playout that races for the goats prefers."""
    if state.phase != MOVEMENT:
        return []
    game = cast(ProtectTheGoat, state.game)
    cells = state.cells
    mover = state.to_move
    royal = game.royal
    goat = cell_of(cells, mover.other, royal)
    if goat < 0:
        return []
    apart = _apart(game)[goat]
    nearer: list[Move] = []
    for move in moves:
        if move.kind is MoveKind.MOVE:
            piece = cells[move.frm]
            if piece is not None and piece.kind != royal and apart[move.to] < apart[move.frm]:
                nearer.append(move)
    return nearer


def goat_loses_piece(state: State, move: Move) -> bool:
    """Protect the Goat: whether ``move`` steps a piece next to an enemy that takes it, and
    next to none it takes or trades with (the mover's captures come first): a step that only
    gives the piece away, which a player makes to bait or block and a random playout makes
    all the time. The goat, which takes nothing, is lost by any step next to an enemy."""
    if move.kind is not MoveKind.MOVE or state.phase != MOVEMENT:
        return False
    game = cast(ProtectTheGoat, state.game)
    cells = state.cells
    piece = cells[move.frm]
    if piece is None:
        return False
    beats = game.beats
    kind = piece.kind
    owner = piece.owner
    mine = beats[kind]
    trades = kind in game.mutual
    lost = False
    for neighbour in game.board.adjacent[move.to]:
        other = cells[neighbour]
        if other is None or other.owner is owner:
            continue
        if other.kind in mine or (trades and other.kind == kind):
            return False
        if kind in beats[other.kind]:
            lost = True
    return lost


def goat_placed_last(state: State, moves: list[Move]) -> list[Move]:
    """Protect the Goat's placement: ``moves`` less the goat's, while other pieces are still
    to place. A goat placed early tells the opponent which lane to send a runner down and
    which piece to put at its head; placed last, its cell is given away only when one cell is
    left for it, a placement or two before the end. The search keeps to it everywhere (its own moves
    and the opponent's, in the tree and in playouts): positions are then judged as the two
    sides will play them, and each placement has a fifth fewer moves to try."""
    if state.phase != PLACEMENT:
        return moves
    royal = cast(ProtectTheGoat, state.game).royal
    others = [move for move in moves if move.kind is not MoveKind.PLACE or move.piece != royal]
    return others or moves


# The placements goat_runs lists: those made with at most this many pieces left to place,
# both sides together (the last two of each side's, the goats last). By then a side's last
# free placement knows where the other goat goes, and a look through the last placements
# into the race is a few positions; earlier ones have dozens of options each.
LAST_PLACEMENTS = 4


def goat_runs(state: State, reach: int) -> list[Move]:
    """Protect the Goat: the moves of the player to move that might take the other goat
    within ``reach`` more of its moves after this one, a few of all: steps that start a
    battle (a step next to the goat is one; a step that takes a guard and then stands next to
    the goat is another, which ``goat_taken`` does not see; a step next to no enemy it fights
    takes nothing), and with moves to come, steps that end at most ``reach`` + 2 steps from
    the goat (one more for a capture that carries the piece on), or every move when the
    player's own goat is threatened: a parry comes first, whatever it is. In a battle's
    choice, every option. In the last placements (``LAST_PLACEMENTS``), every placement
    (each goat last): a placement can set up a race no defence stops; earlier, none."""
    if state.deciding:
        return list(state.legal_moves())
    if state.phase == PLACEMENT:
        extra = cast(GoatExtra, state.extra)
        if sum(extra.reserve[0]) + sum(extra.reserve[1]) > LAST_PLACEMENTS:
            return []
        return goat_placed_last(state, list(state.legal_moves()))
    if state.phase != MOVEMENT:
        return []
    game = cast(ProtectTheGoat, state.game)
    cells = state.cells
    mover = state.to_move
    royal = game.royal
    goat = cell_of(cells, mover.other, royal)
    if goat < 0:
        return []
    if reach > 0 and goat_taken(state, mover.other) is not None:
        return list(state.legal_moves())
    apart = _apart(game)[goat]
    near_enough = reach + 2 if reach else 1  # 1: next to the goat
    found: list[Move] = []
    for cell, piece in enumerate(cells):
        if piece is None or piece.owner is not mover or piece.kind == royal:
            continue
        for to, move in game.step_moves[cell]:
            if cells[to] is None and (
                apart[to] <= near_enough or game.meets_a_fight(cells, piece, to)
            ):
                found.append(move)
    return found
