"""Alpha-beta: a full-width look a fixed number of plies deep, for the games where tactics
decide and a few playouts cannot see them.

Vanguard is won by taking the flag, and the flag follows its captain: a chase of a few
moves decides it. Ludii's Alpha-Beta, on nothing but material, beat the Monte Carlo search
there (docs/engine.md, *Against Ludii*): its look is full-width and deep where playouts cut
at eight plies and judged by material guess. This is the same kind of search on this
engine's quicker moves, so it looks deeper in the same time:

- negamax with alpha-beta, deepened one ply at a time until ``time_up()`` (the best move of
  the deepest finished look is played; a look cut short counts only where it found better);
- a table of positions (key: the cells and who is to move) keeping each one's value bounds
  and best move, tried first the next time;
- moves ordered: the table's move, then captures (the most valuable victim first), then the
  two quiet moves that last cut off at the same ply (killers), then by history;
- at the horizon, a quiescence look: captures only, until none is left, so a piece en prise
  is never judged as safe; a side whose flag can be taken may play any move there (a flag
  in danger is the check of this game);
- the judgement is the game's own (Vanguard's: flag.Judge), else material as the search's
  evaluation counts it (evaluate.material), theirs less the other's.

Pure like the rest of the engine: no clock of its own (``time_up`` is asked every few
hundred positions), no I/O.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterable

from engine.game import State
from engine.moves import Move
from engine.pieces import Piece
from engine.player import Player
from engine.search.evaluate import PIECE_VALUES, material

WIN = 100_000.0  # a won game's score, less the plies to it (a quicker win is better)
_EXACT, _LOWER, _UPPER = 0, 1, 2
# A repetition's score for the player the look is for: a sixth of an outrider below level.
# At 0 the search took a repeated position over a move judged a tenth below level, and in an
# even ending the two sides walked one outrider each to and fro until the arena's 600 plies.
CONTEMPT = 0.5
MAX_DEPTH = 64
MAX_TABLE = 250_000  # positions kept at most (some 80 MB at the limit; then only those kept)

# A game's piece (if any) that ``move`` takes at once: its victim, for ordering and for the
# quiescence look. The default reads the cell the move goes to.
Victim = Callable[[State, Move], Piece | None]
# A game's solved ending: the exact score of a position (for the player to move, ``ply``
# plies from the root, as a finished game's) where it knows one, else None.
Oracle = Callable[[State, int], float | None]
# A game's check that ``player``'s royal piece can be taken at once by the other player.
InDanger = Callable[[State, Player], bool]


class _TimeUpError(Exception):
    """``time_up()`` said stop: the look in progress is abandoned."""


def _ended(state: State, ply: int) -> float | None:
    """The score of a finished game for the player to move (a win ``ply`` plies from the
    root, a loss, a draw); None while it goes on."""
    outcome = state.outcome()
    if outcome is None:
        return None
    if outcome.winner is None:
        return 0.0
    return WIN - ply if outcome.winner is state.to_move else -(WIN - ply)


def _move_key(move: Move) -> int:
    """A move as a number: its cells from and to."""
    return (move.frm + 1) * 4096 + move.to + 1


def _victim(state: State, move: Move) -> Piece | None:
    """The enemy piece on the cell ``move`` goes to, if any."""
    if move.to < 0:
        return None
    piece = state.cells[move.to]
    if piece is None or piece.owner is state.to_move:
        return None
    return piece


class AlphaBeta:
    """One search from ``state`` (changed while it looks, left as it was)."""

    def __init__(
        self,
        state: State,
        time_up: Callable[[], bool] | None,
        victim: Victim | None = None,
        in_danger: InDanger | None = None,
        nodes: int | None = None,
        *,
        table: bool = True,
        judge: Callable[[State], float] | None = None,
        extend: bool = True,
        oracle: Oracle | None = None,
    ) -> None:
        self.state = state
        self.oracle = oracle  # a game's solved endings: exact scores where it knows them
        self.use_table = table  # off: every position looked at afresh (a test's plain look)
        # A position whose mover's royal piece can be taken is looked at a ply deeper (as a
        # chess engine extends a check), up to twice the look's own depth: a flag hunted down
        # is a chase of threats, and a look that stops in its middle misjudges it.
        self.extend = extend
        self.reach = 0  # plies deep the extensions may go (set by each look)
        self.time_up = time_up
        self.victim = victim or _victim
        self.in_danger = in_danger
        self.most = nodes  # positions at most (a fixed search); None: until time_up
        self.values = PIECE_VALUES.get(state.game.rules, {})
        self.judge = judge  # the game's own score for the player to move; else material
        self.nodes = 0
        self.table: dict[tuple[object, ...], tuple[int, int, float, Move | None]] = {}
        # (a ply of the look: up to twice its depth, where a flag in danger extends it)
        self.killers: list[list[int]] = [[-1, -1] for _ in range(2 * MAX_DEPTH + 2)]
        self.history: dict[int, int] = {}
        self.codes: dict[int, tuple[Piece, int]] = {}
        self.kinds: dict[tuple[str, Player, int | None], int] = {}
        # Positions the game has been in, and those on the line being looked at: coming back
        # to one is scored as a draw a little worse than level for the player the look is
        # for (CONTEMPT). Vanguard has no rule against repeating, and a look that sees nothing
        # better walks to and fro for ever; a side ahead or level on the judgement avoids
        # that, a side clearly behind may take it (docs/engine.md).
        self.seen: set[tuple[object, ...]] = set()
        self.root = state.to_move  # who the look is for: a repetition is a little worse for it

    # -- the judgement ------------------------------------------------------------------------
    def evaluate(self) -> float:
        """The position for the player to move: material, theirs less the other's (or the
        game's own judgement)."""
        state = self.state
        if self.judge is not None:
            return self.judge(state)
        one, two = material(state, self.values)
        return one - two if state.to_move is Player.ONE else two - one

    def _key(self) -> tuple[object, ...]:
        return self.key_of(self.state)

    def key_of(self, state: State) -> tuple[object, ...]:
        """A position as a table key: a small number per cell for the piece's kind, owner and
        state, packed in bytes (some 140 bytes a key, against 600 as a tuple of pieces)."""
        codes = self.codes
        out: list[int] = []
        wide = False
        for piece in state.cells:
            if piece is None:
                out.append(0)
            else:
                known = codes.get(id(piece))
                if known is None:  # (the piece is kept with its code: its id stays its own)
                    number = self.kinds.setdefault((piece.kind, piece.owner, piece.state),
                                                   len(self.kinds) + 1)  # fmt: skip
                    known = codes[id(piece)] = (piece, number)
                wide = wide or known[1] > 255
                out.append(known[1])
        packed: object = tuple(out) if wide else bytes(out)
        return (packed, state.to_move, state.phase)

    # -- the look -------------------------------------------------------------------------------
    def _tick(self) -> None:
        self.nodes += 1
        if self.most is not None and self.nodes > self.most:
            raise _TimeUpError
        if self.nodes & 511 == 0 and self.time_up is not None and self.time_up():
            raise _TimeUpError

    def _ordered(self, moves: list[Move], first: Move | None, ply: int) -> list[Move]:
        """Captures by their victim's worth, then killers, then the rest by history; the
        table's move before all. Killers and history know a move by where it goes from and
        to (a number, quick to compare: a rare mix-up only orders worse)."""
        values = self.values
        killers = self.killers[ply]
        one, two = killers[0], killers[1]
        history = self.history
        state = self.state
        victim = self.victim
        scored: list[tuple[float, int, Move]] = []
        for index, move in enumerate(moves):
            if first is not None and (move is first or move == first):
                score = 1e9
                first = None
            else:
                taken = victim(state, move)
                if taken is not None:
                    worth = values.get(taken.kind, 1.0)
                    score = 1e6 + (WIN if worth == 0.0 else 100.0 * worth)
                else:
                    key = _move_key(move)
                    if key == one:
                        score = 5e5
                    elif key == two:
                        score = 4e5
                    else:
                        score = float(history.get(key, 0))
            scored.append((-score, index, move))
        scored.sort()
        return [move for _, _, move in scored]

    def negamax(self, depth: int, alpha: float, beta: float, ply: int) -> float:
        """The position's value for the player to move, looked at ``depth`` plies deep."""
        state = self.state
        ended = _ended(state, ply)
        if ended is not None:
            return ended
        if self.oracle is not None:
            known = self.oracle(state, ply)
            if known is not None:
                return known
        if depth <= 0:
            return self.quiesce(alpha, beta, ply, 0)
        self._tick()
        if (
            self.extend
            and ply < self.reach
            and self.in_danger is not None
            and self.in_danger(state, state.to_move)
        ):
            depth += 1  # a flag in danger: its answers looked at a ply deeper (a chase)
        key = self._key()
        if ply > 0 and key in self.seen:  # back where the game or this line has been
            return -CONTEMPT if state.to_move is self.root else CONTEMPT
        entry = self.table.get(key) if self.use_table else None
        first: Move | None = None
        if entry is not None:
            stored_depth, bound, value, first = entry
            if stored_depth >= depth and ply > 0:
                if bound == _EXACT:
                    return value
                if bound == _LOWER and value >= beta:
                    return value
                if bound == _UPPER and value <= alpha:
                    return value
        self.seen.add(key)
        try:
            best, best_move = self._children(depth, alpha, beta, ply, first)
        finally:
            self.seen.discard(key)
        bound = _UPPER if best <= alpha else _LOWER if best >= beta else _EXACT
        if self.use_table and (len(self.table) < MAX_TABLE or key in self.table):
            self.table[key] = (depth, bound, best, best_move)
        return best

    def _children(
        self, depth: int, alpha: float, beta: float, ply: int, first: Move | None
    ) -> tuple[float, Move | None]:
        """The best of the position's moves (alpha-beta), and its value."""
        state = self.state
        best = -math.inf
        best_move: Move | None = None
        for move in self._ordered(state.move_list(), first, ply):
            state.apply(move, check=False)
            try:
                if state.to_move is state.last_mover:  # the same player moves again
                    value = self.negamax(depth - 1, alpha, beta, ply + 1)
                else:
                    value = -self.negamax(depth - 1, -beta, -alpha, ply + 1)
            finally:
                state.undo()
            if value > best:
                best, best_move = value, move
                if value > alpha:
                    alpha = value
                    if alpha >= beta:
                        if self.victim(state, move) is None:
                            key_of = _move_key(move)
                            killers = self.killers[ply]
                            if killers[0] != key_of:
                                killers[1] = killers[0]
                                killers[0] = key_of
                            self.history[key_of] = self.history.get(key_of, 0) + depth * depth
                        break
        return best, best_move

    def quiesce(self, alpha: float, beta: float, ply: int, extra: int) -> float:
        """The position's value when only captures are looked at (and every move while the
        mover's royal piece can be taken)."""
        state = self.state
        ended = _ended(state, ply)
        if ended is not None:
            return ended
        self._tick()
        mover = state.to_move
        danger = self.in_danger is not None and extra < 4 and self.in_danger(state, mover)
        if not danger:
            stand = self.evaluate()
            if stand >= beta:
                return stand
            alpha = max(alpha, stand)
            best = stand
        else:
            best = -math.inf
        moves = state.move_list()
        victim = self.victim
        values = self.values
        chosen: list[tuple[float, int, Move]] = []
        for index, move in enumerate(moves):
            taken = victim(state, move)
            if taken is not None:
                worth = values.get(taken.kind, 1.0)
                chosen.append((-(WIN if worth == 0.0 else worth), index, move))
            elif danger:
                chosen.append((0.0, index, move))
        chosen.sort()
        for _, _, move in chosen:
            state.apply(move, check=False)
            try:
                if state.to_move is mover:
                    value = self.quiesce(alpha, beta, ply + 1, extra + int(danger))
                else:
                    value = -self.quiesce(-beta, -alpha, ply + 1, extra + int(danger))
            finally:
                state.undo()
            if value > best:
                best = value
                if value > alpha:
                    alpha = value
                    if alpha >= beta:
                        break
        if best == -math.inf:  # in danger with no move that helps: judged as it stands
            return self.evaluate()
        return best

    def principal(self, first: Move, most: int = 8) -> tuple[Move, ...]:
        """The line the table expects after ``first``."""
        state = self.state
        line = [first]
        state.apply(first, check=False)
        played = 1
        try:
            while len(line) < most and state.outcome() is None:
                entry = self.table.get(self._key())
                if entry is None or entry[3] is None or not state.is_legal(entry[3]):
                    break
                line.append(entry[3])
                state.apply(entry[3], check=False)
                played += 1
        finally:
            for _ in range(played):
                state.undo()
        return tuple(line)


def chance_of(score: float, sharpness: float = 0.35) -> float:
    """A score (material, or a won game) as the player to move's chance (0 to 1)."""
    if score >= WIN - 1000:
        return 1.0
    if score <= -(WIN - 1000):
        return 0.0
    return 1.0 / (1.0 + math.exp(-score * sharpness))


def search(
    state: State,
    moves: list[Move],
    time_up: Callable[[], bool] | None,
    *,
    victim: Victim | None = None,
    in_danger: InDanger | None = None,
    nodes: int | None = None,
    most: int = MAX_DEPTH,
    judge: Callable[[State], float] | None = None,
    oracle: Oracle | None = None,
    before: Iterable[State] = (),
    report: Callable[[Move, float, int, int, tuple[Move, ...]], None] | None = None,
    rng: random.Random | None = None,
) -> tuple[Move, float, int, int, tuple[Move, ...]]:
    """Deepen one ply at a time over ``moves`` (the root's, at least one) until ``time_up()``
    or ``nodes`` positions: the best move, its score for the player to move, the depth of
    the deepest finished look, the positions looked at, and the line expected. ``before``:
    the positions the game has been in (a return to one scores as a draw). ``report``
    hears each finished look's result (as this returns it). ``rng``: a move drawn among
    those a look scores alike (else the first listed of them)."""
    look = AlphaBeta(state, time_up, victim, in_danger, nodes, judge=judge, oracle=oracle)
    look.seen.add(look._key())
    for earlier in before:
        look.seen.add(look.key_of(earlier))
    mover = state.to_move
    best_move = moves[0]
    best_score = 0.0
    finished = 0
    order = list(moves)
    if rng is not None:
        # The root's moves in a random order: of moves a look scores alike, the first it
        # meets is kept (the sort below keeps their order), so the draw costs nothing and a
        # game is not the same every time (a player who beat the computer once could
        # otherwise play the same game again).
        rng.shuffle(order)
    for depth in range(1, most + 1):
        look.reach = 2 * depth
        alpha = -math.inf
        found: Move | None = None
        found_score = -math.inf
        scores: dict[Move, float] = {}
        try:
            for move in order:
                state.apply(move, check=False)
                try:
                    if state.to_move is mover:
                        value = look.negamax(depth - 1, alpha, math.inf, 1)
                    else:
                        value = -look.negamax(depth - 1, -math.inf, -alpha, 1)
                finally:
                    state.undo()
                scores[move] = value
                if value > found_score:
                    found, found_score = move, value
                    alpha = max(alpha, value)
        except _TimeUpError:
            # The look cut short. Its first move was the last look's best: a move found
            # better than that one at this depth is better, and kept.
            if found is not None:
                best_move, best_score = found, found_score
            break
        assert found is not None
        best_move, best_score, finished = found, found_score, depth
        if report is not None:
            report(best_move, best_score, depth, look.nodes, look.principal(best_move))
        # Next look: this one's best first, the rest as they scored (fail-low values are
        # bounds, still a fair order).
        order.sort(key=lambda m: -scores.get(m, -math.inf))
        if abs(best_score) >= WIN - 1000:  # a forced result: deeper says nothing new
            break
    line = look.principal(best_move)
    return best_move, best_score, finished, look.nodes, line
