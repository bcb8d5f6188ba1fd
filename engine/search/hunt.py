"""Vanguard's last hunt solved: captain and flag against captain and flag, with nothing else
on the board, worked out backwards from every catch (a retrograde analysis, as chess endgame
tables are made).

Why: against Ludii's Alpha-Beta at a quarter of its time, seven of the search's 27 lost games
in Vanguard (docs/engine.md) ended in this hunt: the two captains, each with its flag behind
it, walking about until one was cornered and taken. Nothing there is material, so the look's
judgement was level until the catch, some twenty plies past its horizon. The whole ending is
small (about 31,000 positions seen from the player to move), so it is solved instead: won in
so many plies, lost in so many, or neither side can force it.

The rules used are Vanguard's (engine/games/vanguard.py), from its own table of captain steps:
a captain steps to an adjacent cell, not its own flag's, and its flag follows onto the cell it
left; a captain that steps onto the enemy flag wins, and one that steps onto the enemy captain
leaves the other side only a flag, which never moves by itself: that side has no legal move
and loses at once. tests/test_search.py checks the table against a plain look over the
engine's own moves.
"""

from __future__ import annotations

from engine.game import State
from engine.games.vanguard import CAPTAIN, FLAG, Vanguard
from engine.search.alphabeta import WIN

UNDECIDED, WON, LOST = 0, 1, 2


class Hunt:
    """The solved ending for one Vanguard board: ``result(a, af, b, bf)`` is (WON, LOST or
    UNDECIDED, plies to the end) for the player to move, whose captain is on ``a`` and flag
    on ``af``, against the captain on ``b`` and flag on ``bf``."""

    def __init__(self, game: Vanguard) -> None:
        self.game = game
        size = game.board.size
        self.size = size
        self.steps: list[tuple[int, ...]] = [
            tuple(target for target, _ in game.captain_moves[cell]) for cell in range(size)
        ]
        steps = self.steps
        number: dict[int, int] = {}
        places: list[tuple[int, int, int, int]] = []
        for a in range(size):
            for af in steps[a]:
                for b in range(size):
                    if b in (a, af):
                        continue
                    for bf in steps[b]:
                        if bf not in (a, af):
                            number[self._key(a, af, b, bf)] = len(places)
                            places.append((a, af, b, bf))
        count = len(places)
        self.number = number
        self.outcome = bytearray(count)
        self.plies = [0] * count
        left = [0] * count  # moves not yet known to lose, for each undecided position
        before: list[list[int]] = [[] for _ in range(count)]
        decided: list[int] = []
        for i, (a, af, b, bf) in enumerate(places):
            catches = False
            for t in steps[a]:
                if t == af:
                    continue
                if t in (b, bf):
                    catches = True
                    continue
                j = number[self._key(b, bf, t, a)]  # the other to move; this flag on ``a``
                before[j].append(i)
                left[i] += 1
            if catches:
                self.outcome[i] = WON
                self.plies[i] = 1
                decided.append(i)
            elif left[i] == 0:  # no step at all: no legal move, lost at once
                self.outcome[i] = LOST
                decided.append(i)
        # Backwards a ply at a time: a position with a step to one lost for the other is won
        # (in the fewest plies: the first layer to reach it); one whose every step goes to a
        # position won for the other is lost (in the most: the last of its steps decided).
        while decided:
            layer: list[int] = []
            for j in decided:
                lost_there = self.outcome[j] == LOST
                for i in before[j]:
                    if self.outcome[i] != UNDECIDED:
                        continue
                    if lost_there:
                        self.outcome[i] = WON
                        self.plies[i] = self.plies[j] + 1
                        layer.append(i)
                    else:
                        left[i] -= 1
                        if left[i] == 0:
                            self.outcome[i] = LOST
                            self.plies[i] = self.plies[j] + 1
                            layer.append(i)
            decided = layer

    def _key(self, a: int, af: int, b: int, bf: int) -> int:
        size = self.size
        return ((a * size + af) * size + b) * size + bf

    def result(self, a: int, af: int, b: int, bf: int) -> tuple[int, int]:
        """(WON, LOST or UNDECIDED, plies to the end) for the player to move; (UNDECIDED, 0)
        for a position the hunt cannot reach (a flag not beside its captain)."""
        i = self.number.get(self._key(a, af, b, bf))
        if i is None:
            return UNDECIDED, 0
        return self.outcome[i], self.plies[i]

    def of(self, state: State) -> tuple[int, int] | None:
        """The hunt's result for ``state``'s player to move, or None if the board holds
        anything but the two captains and their flags."""
        cells = state.cells
        pieces = 0
        for cell in range(len(cells)):  # (asked at every node: it stops at a fifth piece)
            if cells[cell] is not None:
                pieces += 1
                if pieces > 4:
                    return None
        if pieces != 4:
            return None
        found = [-1, -1, -1, -1]  # mover's captain, mover's flag, other's captain, other's flag
        mover = state.to_move
        for cell in range(len(cells)):
            piece = cells[cell]
            if piece is None:
                continue
            slot = 0 if piece.owner is mover else 2
            if piece.kind == CAPTAIN:
                found[slot] = cell
            elif piece.kind == FLAG:
                found[slot + 1] = cell
            else:
                return None
        if min(found) < 0:
            return None
        return self.result(found[0], found[1], found[2], found[3])

    def score(self, state: State, ply: int) -> float | None:
        """Alpha-beta's score of ``state`` (``ply`` plies from the look's root) where the hunt
        is decided: a win or a loss so many plies on, as the look scores a finished game.
        None where it is not the hunt, or neither side can force it (the look goes on)."""
        found = self.of(state)
        if found is None or found[0] == UNDECIDED:
            return None
        outcome, plies = found
        return WIN - (ply + plies) if outcome == WON else -(WIN - (ply + plies))


_HUNTS: dict[int, Hunt] = {}


def hunt_of(state: State) -> Hunt:
    """The solved hunt of ``state``'s game (worked out once a game)."""
    game = state.game
    found = _HUNTS.get(id(game))
    if found is None or found.game is not game:
        assert isinstance(game, Vanguard)
        found = _HUNTS[id(game)] = Hunt(game)
    return found
