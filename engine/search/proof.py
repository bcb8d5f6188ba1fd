"""A shallow proof search beside the tree: whether a player can force a win within a few
plies, whatever the other does.

Protect the Goat is a game of sudden death: the first piece to step next to a goat takes it.
A tree that runs about 1,800 playouts in a second reaches three or four plies; half the
arena's lost games were lost by a move after which the opponent forced the goat three or
four of its moves later, with a move beside it that did not (docs/engine.md). A minimax look
that asks only "is the goat taken by force" sees that far in a few thousand positions, and
the tree then searches the moves it leaves (Baier and Winands, "MCTS-Minimax hybrids", 2015:
a shallow proof at the root of a Monte Carlo search in games of sudden death).

Pure like the rest of the engine: the caller bounds the look by positions and by a
``time_up`` of its own; a look cut short says nothing, and the depth before it stands.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable

from engine.game import State
from engine.moves import Move
from engine.player import Player

# A game's quick finder of a move that wins at once (threats.goat_taken's form), and its
# list of the moves of the player to move that might win within so many more of its moves,
# a few of all (threats.goat_runs): with none to come, every move that might win at once (a
# step that takes the goat by a chain of captures is not a step next to it). The attacker's
# other moves are not tried, which can only miss a win, never claim one.
Finder = Callable[[State, Player | None], Move | None]
Runs = Callable[[State, int], list[Move]]


class _SpentError(Exception):
    """The look's budget ran out: what it was proving is unknown."""


class Prover:
    """Forced wins from one ``state`` (changed while it looks, and left as it was), found
    with ``finder`` and ``runs`` at the last plies and minimax before them, within ``budget``
    positions and until ``time_up()``. Results are kept per position (a transposition
    table), so a deeper look repeats little of a shallower one."""

    def __init__(
        self,
        state: State,
        finder: Finder,
        runs: Runs,
        budget: int,
        time_up: Callable[[], bool] | None = None,
    ) -> None:
        self.state = state
        self.finder = finder
        self.runs = runs
        self.budget = budget
        self.time_up = time_up
        self.positions = 0  # positions looked at so far
        # position and attacker -> (the most plies proven not enough, the fewest proven enough)
        self._known: dict[tuple[Hashable, ...], tuple[int, int]] = {}
        # position and attacker -> the move that decided it last time (the attacker's win or
        # the defender's escape), tried first when a deeper look comes back to it
        self._best: dict[tuple[Hashable, ...], Move] = {}
        # A draw was met below the position being looked at: a repeated position or the
        # quiet-move count drew it, which depends on the way there, so its result is not
        # kept for other ways there.
        self._drawn = False

    def wins(self, attacker: Player, plies: int) -> bool:
        """Whether ``attacker`` takes the goat (or has won) within ``plies`` plies of the
        current position, whatever the other player does. Raises ``_SpentError`` past the budget."""
        state = self.state
        outcome = state.outcome()
        if outcome is not None:
            if outcome.winner is None:
                self._drawn = True
            return outcome.winner is attacker
        if plies <= 0:
            return False
        self.positions += 1
        if self.positions > self.budget or (
            self.positions & 255 == 0 and self.time_up is not None and self.time_up()
        ):
            raise _SpentError
        deciding = state.deciding
        mover = state.to_move
        finder = self.finder
        if not deciding:  # a win at once decides it before any table or long list of moves
            if mover is attacker:
                if finder(state, attacker) is not None:
                    return True
                if plies < 3:  # no time to set one up: only a move that may win at once
                    return self._search(attacker, plies, True, self.runs(state, 0))
            elif finder(state, mover) is not None:
                return False  # the defender takes the attacker's goat first
        key = (tuple(state.cells), mover, state.phase, state.extra, attacker)
        known = self._known.get(key)
        if known is not None:
            if plies <= known[0]:
                return False
            if plies >= known[1]:
                return True
        attacking = mover is attacker
        if attacking and not deciding:
            moves = self.runs(state, (plies - 1) // 2)  # its moves after this one
        else:
            moves = list(state.legal_moves())
        best = self._best.get(key)
        if best is not None and best in moves:
            moves.remove(best)
            moves.insert(0, best)
        drawn = self._drawn
        self._drawn = False
        result = self._search(attacker, plies, attacking, moves, key)
        if not self._drawn:
            low, high = known if known is not None else (0, 1 << 30)
            self._known[key] = (low, min(high, plies)) if result else (max(low, plies), high)
        self._drawn = self._drawn or drawn
        return result

    def _search(
        self,
        attacker: Player,
        plies: int,
        attacking: bool,
        moves: list[Move],
        key: tuple[Hashable, ...] | None = None,
    ) -> bool:
        """Whether ``attacker`` wins by one of ``moves`` (``attacking``), or whatever the
        defender plays of them; the deciding move is kept under ``key``."""
        state = self.state
        for move in moves:
            state.apply(move, check=False)
            try:
                won = self.wins(attacker, plies - 1)
            finally:
                state.undo()
            if won is attacking:  # the attacker found its move, or the defender its escape
                if key is not None:
                    self._best[key] = move
                return attacking
        return not attacking


def prove(
    state: State,
    moves: list[Move],
    finder: Finder,
    runs: Runs,
    *,
    most: int,
    budget: int,
    time_up: Callable[[], bool] | None = None,
) -> tuple[Move | None, list[Move], int]:
    """Look deeper and deeper, up to the opponent's ``most``-th move, for a move of the
    player to move that forces a win, and for the moves the opponent answers by forcing one.
    Returns the forcing move if there is one (the quickest found), the moves kept (those not
    lost by force at the deepest look finished; when every move is lost at some depth, those
    of the depth before it, the game being lost anyway: the tree then chooses among the moves
    that lose latest), and the depth they were kept at, in the opponent's moves."""
    mover = state.to_move
    opponent = mover.other
    prover = Prover(state, finder, runs, budget, time_up)
    kept = moves
    finished = 0
    for reach in range(1, most + 1):
        # mine: a win with my reach-th move (2 reach - 1 plies from here); theirs: a win
        # with their reach-th move after mine
        safe: list[Move] = []
        try:
            for move in moves:
                state.apply(move, check=False)
                try:
                    if prover.wins(mover, 2 * reach - 2):  # a win now counts too
                        return move, [move], reach
                    if not prover.wins(opponent, 2 * reach - 1):
                        safe.append(move)
                finally:
                    state.undo()
        except _SpentError:
            break
        if not safe:  # lost whatever is played: keep what the shallower look kept
            break
        kept, finished = safe, reach
    return None, kept, finished
