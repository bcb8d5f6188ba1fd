"""Monte Carlo tree search over any game's ``State``: the computer opponent's thinking.

Pure like the rest of the engine: no clock of its own. The caller passes ``time_up`` (asked
every few playouts: a deadline, a stop command) and a seeded ``random.Random``, so the same
position, seed and playout count give the same move every time.

What it does, and why (docs/engine.md has the measurements behind each choice):
- UCT selection over a tree grown one node a playout; the move played is the most visited.
- Playouts cut short after ``cutoff`` plies and judged by the game's evaluation
  (``evaluate.py``): a random Three Dragons playout runs hundreds of plies into a draw.
- Playouts prefer captures (``capture_bias``): a random player leaves pieces hanging that no
  real opponent would, and playouts that punish that judge a position far better.
- A move that wins at once is played at once, and a node whose player can win at once is
  known lost for the player who moved into it (a one-ply solver): the tree never spends
  playouts on a blunder it can see.
- Where a game can spot a winning move cheaply (``threats.py``), its playouts can be
  ``decisive``: they play such a move whenever there is one, and parry the opponent's when a
  move can (Teytaud and Teytaud, "On the huge benefit of decisive moves in Monte-Carlo tree
  search algorithms", 2010).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from engine.game import State
from engine.moves import Move, MoveKind
from engine.pieces import Piece
from engine.player import Player
from engine.search import alphabeta, flag, hunt, threats
from engine.search.evaluate import judge
from engine.search.proof import prove


@dataclass(frozen=True, slots=True)
class Settings:
    """The search's knobs; the defaults are the measured best (docs/engine.md)."""

    exploration: float = 0.2  # UCT's constant: how much a little-tried move is worth trying
    cutoff: int = 8  # playout plies before the position is judged instead of played out
    capture_bias: float = 0.75  # chance a playout ply takes a capture when one is there
    # How often a playout passes when it could do something else, against a random pick's
    # 1: in Goats Wintering two passes end the game, and random playouts that pass on a
    # whim end it long before real players would.
    pass_rate: float = 1.0
    # Search only the moves that lose no material two plies on (safe_moves), in the games
    # whose judgement is material (SAFETY_RULES).
    safety: bool = True
    # The tree's size limit: past it the search goes on from the leaves it has (playouts
    # only), so a long think's memory is bounded (about 60 MB at the limit, docs/engine.md).
    max_nodes: int = 250_000
    # GRAVE (Cazenave, "Generalized Rapid Action Value Estimation", 2015): a move's value
    # blends its own mean with how the playouts that played it anywhere later did ("all moves
    # as first"), read at the deepest ancestor with more than ``grave`` visits; 0: plain UCT.
    grave: int = 0
    grave_bias: float = 1e-4
    # GRAVE over placements only: a placement means the same whenever it is made (the layout
    # placed is what counts, not the order), so every playout that makes it says something of
    # it; a step means little apart from the position it is made in. Off while no move at the
    # root is a placement.
    grave_places: bool = False
    # Playouts that never miss a move that wins at once, and parry the opponent's where they
    # can, in the games that can spot one cheaply (DECISIVE).
    decisive: bool = False
    # How often a playout ply steps a piece nearer the enemy's royal piece when it can, in the
    # games that say which moves do (APPROACH): playouts that race as players do.
    approach: float = 0.0
    # How often a playout ply redraws a step that only gives its piece away (taken on
    # arrival, taking nothing), in the games that say which steps do (CARELESS): twice at most,
    # so a playout still blocks and baits now and then, as players do.
    careful: float = 0.0
    # Place the royal piece last, in the games that say how (HOLD_BACK): at the root, in the
    # tree and in playouts, for both sides.
    hold_back: bool = False
    # A proof search at the root (proof.py), in the games that can spot a winning move
    # cheaply (DECISIVE and RUNS): up to the opponent's ``proof``-th move, a move that
    # forces a win is played and those the opponent answers by forcing one are not searched;
    # 0: none. It looks at ``proof_budget`` positions at most (``proof_per_playout`` for each
    # playout asked, when a number is: a fixed search stays quick and repeatable, and a
    # level's cap weakens its look too), and stops at ``think``'s ``proof_up``.
    proof: int = 0
    proof_budget: int = 400_000
    proof_per_playout: int = 20
    # Implicit minimax backups (Lanctot, Winands, Pepels and Sturtevant, "Monte Carlo Tree
    # Search with Heuristic Evaluations using Implicit Minimax Backups", 2014): each node keeps
    # the minimax of the evaluation over the tree below it, and a move's value in selection
    # is ``minimax`` of that blended with its playouts' mean; 0: plain UCT. Tactics the tree
    # has seen (a piece hanging two moves on) count at once, not after many playouts.
    minimax: float = 0.0
    # A timed search at full strength (no playout cap, not a review) by alpha-beta instead
    # (alphabeta.py), in the games that say what a move takes (VICTIM): where tactics
    # decide, a full-width look sees them deeper than playouts do (Vanguard, docs/engine.md).
    alphabeta: bool = False


DEFAULT = Settings()
# A game whose measured best differs from the defaults (docs/engine.md): Goats Wintering's
# small boards reward a wider look (0.4 against 0.2: 30 of 40 games, 1,000 playouts a move).
# Protect the Goat is a race down one-hex lanes to the goats: material says nothing of it, so
# its playouts run to the end, take a goat whenever they can, save their own when they can
# (decisive), and half their plies step a piece nearer the enemy goat (approach). Against flat
# Monte Carlo (docs/engine.md) the cut playouts drew level; these win. Its playouts are noisy
# (a whole race each), and a wider look (0.35) did best there.
GAME_SETTINGS: dict[str, Settings] = {
    # Goats Wintering at full strength blends each move's playouts with the minimax of the
    # score below it in the tree (implicit minimax backups, 0.3): a goat walled in two moves
    # on counts at once. Against a plain UCT of some 5,000 whole playouts a move, as Ludii's
    # makes in 1 s, it scored 32 of 40 where the tree alone scored 24 (docs/engine.md).
    "goats_wintering": Settings(exploration=0.4, minimax=0.3),
    # Vanguard is lost by a flag hunted down a few moves on (docs/engine.md): the root's
    # proof search looks for it, up to the opponent's second move.
    "vanguard": Settings(proof=2, alphabeta=True),
    "protect_the_goat": Settings(
        exploration=0.35,
        decisive=True,
        approach=0.5,
        hold_back=True,
        proof=7,
        cutoff=400,
        safety=False,
        capture_bias=0.0,
    ),
}
# A game's quick finder of a move that wins at once, for ``decisive`` playouts and the root's
# proof search.
DECISIVE: dict[str, Callable[[State, Player | None], Move | None]] = {
    "protect_the_goat": threats.goat_taken,
    "vanguard": flag.flag_taken,
}
# A game's moves that might win within so many more moves (a few of all), for the root's proof.
RUNS: dict[str, Callable[[State, int], list[Move]]] = {
    "protect_the_goat": threats.goat_runs,
    "vanguard": flag.flag_runs,
}
# A game's piece taken at once by a move, and its royal piece in danger, for alpha-beta.
VICTIM: dict[str, alphabeta.Victim] = {"vanguard": flag.victim}
IN_DANGER: dict[str, alphabeta.InDanger] = {"vanguard": flag.flag_in_danger}
# A game's own score for alpha-beta's horizon (the player to move's), made for a position's
# game; else material.
JUDGE: dict[str, Callable[[State], Callable[[State], float]]] = {"vanguard": flag.judge_of}
# A game's solved endings for alpha-beta (made for a position's game).
ORACLE: dict[str, Callable[[State], alphabeta.Oracle]] = {
    "vanguard": lambda state: hunt.hunt_of(state).score,
}


def prepare(state: State) -> None:
    """Make what a game's search needs once (Vanguard's solved hunt, a few hundred ms) before
    any clock runs: a first ``go`` then keeps to its time like every other."""
    oracle = ORACLE.get(state.game.id)
    if oracle is not None:
        oracle(state)


# A game's check of a step that only gives its piece away, for ``careful`` playouts.
CARELESS: dict[str, Callable[[State, Move], bool]] = {
    "protect_the_goat": threats.goat_loses_piece,
}
# A game's root moves less those of its royal piece, while others are left to place.
HOLD_BACK: dict[str, Callable[[State, list[Move]], list[Move]]] = {
    "protect_the_goat": threats.goat_placed_last,
}
# A game's moves that step nearer the enemy's royal piece, for ``approach`` playouts.
APPROACH: dict[str, Callable[[State, list[Move]], list[Move]]] = {
    "protect_the_goat": threats.goat_approaches,
}
# The games where safe_moves applies: their judgement is material, so moves tie on it unless
# something is taken (in Goats Wintering every move changes the score).
SAFETY_RULES = frozenset({"vanguard", "protect_the_goat", "the_lion_game", "three_dragons"})


@dataclass(frozen=True, slots=True)
class Thought:
    """What the search found: the move, and what it says about it (the protocol's info)."""

    move: Move
    playouts: int
    depth: int  # the deepest the tree reached, in plies
    chance: float  # the player to move's expected result with ``move``: 1 a win, 0 a loss
    pv: tuple[Move, ...]  # the line the search expects
    why: str = ""  # set when no search was needed: "only move", "wins at once"


class Node:
    """A position in the tree, reached by ``move`` made by ``mover``."""

    __slots__ = (
        "amaf", "children", "judged", "move", "mover", "reward", "untried", "visits", "winner",
    )  # fmt: skip

    def __init__(self, move: Move | None, mover: Player) -> None:
        self.move = move
        self.mover = mover
        self.children: list[Node] = []
        self.untried: list[Move] | None = None  # moves not yet expanded; None: not listed yet
        self.visits = 0
        self.reward = 0.0  # summed results for ``mover``
        self.winner: Node | None = None  # a child whose move wins at once
        # Implicit minimax: the evaluation's minimax below this node, for ``mover`` (0 to 1).
        self.judged = 0.5
        # GRAVE: (mover's index, move) -> [summed results for that mover, times played] over
        # the simulations through this node that played it after it.
        self.amaf: dict[tuple[int, Move], list[float]] | None = None  # made when first heard


def _result(state: State) -> float | None:
    """Player 1's result if the game is over (1, 0, or 0.5 for a draw), else None."""
    outcome = state.outcome()
    if outcome is None:
        return None
    if outcome.winner is None:
        return 0.5
    return 1.0 if outcome.winner is Player.ONE else 0.0


def _is_capture(move: Move, cells: list[Piece | None], mover: Player) -> bool:
    """Whether ``move`` takes a piece, as far as the move itself says (a custodial capture
    shows only once played)."""
    kind = move.kind
    if move.cells:
        return kind is MoveKind.MOVE or kind is MoveKind.REMOVE
    if kind is MoveKind.CAPTURE:
        return True
    if kind is MoveKind.MOVE:
        target = cells[move.to]
        return target is not None and target.owner is not mover
    return False


def playout(
    state: State,
    rng: random.Random,
    settings: Settings,
    record: list[tuple[int, Move]] | None = None,
) -> float:
    """Play on from ``state`` for at most ``settings.cutoff`` plies (on a copy, ``push``ed:
    nothing recorded, ``state`` unchanged); player 1's result, or the evaluation's chance where
    the playout stopped. ``record`` hears each move with its mover's index (GRAVE; only the
    placements with ``grave_places``)."""
    result = _result(state)
    if result is not None:
        return result
    state = state.copy(stack=False)
    chance = judge(state)
    bias = settings.capture_bias
    pass_rate = settings.pass_rate
    plies = 0
    finder = DECISIVE.get(state.game.rules) if settings.decisive else None
    approach = settings.approach
    nearer = APPROACH.get(state.game.rules) if approach > 0.0 else None
    hold_back = HOLD_BACK.get(state.game.rules) if settings.hold_back else None
    careful = settings.careful
    places_only = settings.grave_places
    careless = CARELESS.get(state.game.rules) if careful > 0.0 else None
    while result is None and plies < settings.cutoff:
        moves = state.move_list()
        if hold_back is not None:
            moves = hold_back(state, moves)
        if finder is not None:
            win = finder(state, None)
            if win is not None:
                if record is not None and not places_only:  # a step, never a placement
                    record.append((state.to_move.index, win))
                state.push(win)
                plies += 1
                result = _result(state)
                continue
            parry = _a_parry(state, moves, finder, rng)
            if parry is not None:
                moves = [parry]
        check = careless if careless is not None and rng.random() < careful else None
        move = _draw(state, moves, rng, check)
        if nearer is not None and rng.random() < approach:
            racing = nearer(state, moves)
            if racing:
                move = _draw(state, racing, rng, check)
        if move.kind is MoveKind.PASS and len(moves) > 1 and rng.random() >= pass_rate:
            others = [m for m in moves if m.kind is not MoveKind.PASS]
            move = others[int(rng.random() * len(others))]
        if bias > 0.0 and rng.random() < bias:
            mover = state.to_move
            cells = state.cells
            captures = [m for m in moves if _is_capture(m, cells, mover)]
            if captures:
                move = captures[int(rng.random() * len(captures))]
        if record is not None and (not places_only or move.kind is MoveKind.PLACE):
            record.append((state.to_move.index, move))
        state.push(move)
        plies += 1
        result = _result(state)
    return chance(state) if result is None else result


def random_playout(state: State, rng: random.Random, limit: int = 100_000) -> int:
    """Play ``state`` on to the end of the game (``limit`` plies at most) by uniformly random
    moves, ``push``ed: the plies played. The workload the engine's speed is measured by beside
    Ludii's (tools/bench_engine.py): the search's own playout step, compiled with it."""
    plies = 0
    while plies < limit and state.outcome() is None:
        moves = state.move_list()
        state.push(moves[int(rng.random() * len(moves))])
        plies += 1
    return plies


def _draw(
    state: State,
    moves: list[Move],
    rng: random.Random,
    careless: Callable[[State, Move], bool] | None,
) -> Move:
    """One of ``moves`` at random; with ``careless``, one that gives its piece away is drawn
    again, twice at most (a few checks instead of one for every move)."""
    move = moves[int(rng.random() * len(moves))]
    if careless is not None:
        for _ in range(2):
            if not careless(state, move):
                break
            move = moves[int(rng.random() * len(moves))]
    return move


def _parried(
    state: State,
    move: Move,
    finder: Callable[[State, Player | None], Move | None],
    opponent: Player,
) -> bool:
    """Whether, after ``move`` by the player to move, ``opponent`` has not won and cannot
    win at once: the move won, or the game goes on with no such threat. The state is left as
    it was."""
    state.apply(move, check=False)
    outcome = state.outcome()
    if outcome is None:
        parried = finder(state, opponent) is None
    else:
        parried = outcome.winner is opponent.other
    state.undo()
    return parried


def _a_parry(
    state: State,
    moves: list[Move],
    finder: Callable[[State, Player | None], Move | None],
    rng: random.Random,
) -> Move | None:
    """One of ``moves`` after which the opponent cannot win at once, drawn at random, when
    the opponent threatens to now; None when there is no threat, or no parry (the game is
    lost anyway). The moves are tried in a random order and the first parry is taken: a
    parry drawn evenly from all of them, found after trying a few instead of every move."""
    opponent = state.to_move.other
    if state.deciding or finder(state, opponent) is None:
        return None
    order = list(range(len(moves)))
    for k in range(len(order) - 1, -1, -1):
        j = int(rng.random() * (k + 1))
        order[k], order[j] = order[j], order[k]
        move = moves[order[k]]
        if _parried(state, move, finder, opponent):
            return move
    return None


def winning_move(state: State) -> Move | None:
    """A legal move that wins at once, if there is one."""
    mover = state.to_move
    for move in list(state.legal_moves()):
        state.apply(move, check=False)
        outcome = state.outcome()
        state.undo()
        if outcome is not None and outcome.winner is mover:
            return move
    return None


def safe_moves(state: State, moves: list[Move]) -> list[Move]:
    """The moves whose worst case two plies on (the opponent's best reply, judged by material)
    is as good as any move's: a move that hangs a piece is never searched while one that does
    not is there. A player's own decision after its move is its own, not a reply."""
    mover = state.to_move
    chance = judge(state)
    flip = mover is not Player.ONE
    worst_of: list[float] = []
    for move in moves:
        state.apply(move, check=False)
        result = _result(state)
        if result is not None:
            worst = 1.0 - result if flip else result
        elif state.to_move is mover:
            value = chance(state)
            worst = 1.0 - value if flip else value
        else:
            worst = 1.0
            for reply in list(state.legal_moves()):
                state.apply(reply, check=False)
                after = _result(state)
                value = chance(state) if after is None else after
                state.undo()
                worst = min(worst, 1.0 - value if flip else value)
        state.undo()
        worst_of.append(worst)
    best = max(worst_of)
    return [move for move, worst in zip(moves, worst_of, strict=True) if worst >= best - 1e-9]


def _uct(
    node: Node, exploration: float, ref: Node | None = None, bias: float = 0.0,
    minimax: float = 0.0,
) -> Node:  # fmt: skip
    """The child to descend to: UCT, its means blended with ``ref``'s AMAF values (GRAVE) and
    with the children's minimax of the evaluation (``minimax``, implicit minimax backups)."""
    if node.winner is not None:
        return node.winner
    log_n = math.log(node.visits)
    best = node.children[0]
    best_score = -1.0
    amaf = ref.amaf if ref is not None else None
    for child in node.children:
        mean = child.reward / child.visits
        if amaf is not None:
            assert child.move is not None
            seen = amaf.get((child.mover.index, child.move))
            if seen is not None and seen[1] > 0:
                n = seen[1]
                beta = n / (n + child.visits + bias * n * child.visits)
                mean = (1.0 - beta) * mean + beta * seen[0] / n
        if minimax > 0.0:
            mean = (1.0 - minimax) * mean + minimax * child.judged
        score = mean + exploration * math.sqrt(log_n / child.visits)
        if score > best_score:
            best, best_score = child, score
    return best


def _remember(path: list[Node], played: list[tuple[int, Move]], value: float) -> None:
    """GRAVE's tables: each node on the path hears every move played after it in this
    simulation (the first time each was played), with the result for its mover. A move not
    heard (mover -1) only keeps the tree's moves in step with the path."""
    for depth, node in enumerate(path):
        table = node.amaf
        if table is None:
            table = node.amaf = {}
        seen: set[tuple[int, Move]] = set()
        for key in played[depth:]:
            if key[0] < 0 or key in seen:
                continue
            seen.add(key)
            entry = table.get(key)
            if entry is None:
                entry = table[key] = [0.0, 0.0]
            entry[0] += value if key[0] == 0 else 1.0 - value
            entry[1] += 1.0


def think(
    root_state: State,
    rng: random.Random,
    *,
    playouts: int | None = None,
    time_up: Callable[[], bool] | None = None,
    settings: Settings = DEFAULT,
    report: Callable[[Thought], None] | None = None,
    report_every: int = 0,
    proof_up: Callable[[], bool] | None = None,
    analyse: bool = False,
) -> Thought:
    """Search ``root_state`` (left unchanged) until ``playouts`` are done or ``time_up()`` says
    stop (asked before every playout), whichever comes first: the best move so far is always
    ready.
    ``report`` hears the search's view every ``report_every`` playouts. ``proof_up()`` ends the
    root's proof search (``time_up`` if not given): the caller's share of the time for it.
    ``analyse``: a review's question, the position's chance more than the move: a single
    move left (the only one, the only one that does not lose) is searched too, never
    answered at once without a chance."""
    moves = list(root_state.legal_moves())
    if not moves:
        raise ValueError("the game is over: no move to search")
    if len(moves) == 1 and not analyse:
        return Thought(moves[0], 0, 0, 0.5, (moves[0],), "only move")
    if settings is DEFAULT:
        settings = GAME_SETTINGS.get(root_state.game.rules, settings)
    state = root_state.copy(stack=False)
    win = winning_move(state)
    if win is not None:
        return Thought(win, 0, 1, 1.0, (win,), "wins at once")
    rules = state.game.rules
    # A timed search at full strength: no cap (a level's, ``go nodes``) and not a review.
    # Its own parts (alpha-beta, implicit minimax) stay out of the tree the levels were
    # measured with.
    full_strength = playouts is None and not analyse
    if settings.alphabeta and full_strength and rules in VICTIM:
        chosen = report if report_every else None
        return _alpha_beta(root_state, state, moves, rng, time_up=time_up, report=chosen)
    hold_back = HOLD_BACK.get(state.game.rules) if settings.hold_back else None
    if hold_back is not None:
        moves = hold_back(state, moves)
        if len(moves) == 1 and not analyse:
            return Thought(moves[0], 0, 0, 0.5, (moves[0],), "only move")
    finder = DECISIVE.get(state.game.rules)
    runs = RUNS.get(state.game.rules)
    if finder is not None and runs is not None and settings.proof:
        budget = settings.proof_budget
        if playouts is not None:
            budget = min(budget, playouts * settings.proof_per_playout)
        forced, moves, reach = prove(
            state, moves, finder, runs,
            most=settings.proof, budget=budget, time_up=proof_up or time_up,
        )  # fmt: skip
        if forced is not None:
            return Thought(forced, 0, 2 * reach - 1, 1.0, (forced,), "forces a win")
        if len(moves) == 1 and not analyse:
            only = moves[0]
            return Thought(only, 0, 2 * reach, 0.5, (only,), "the only move that does not lose")
    if settings.safety and state.game.rules in SAFETY_RULES:
        moves = safe_moves(state, moves)
        if len(moves) == 1 and not analyse:
            return Thought(moves[0], 0, 2, 0.5, (moves[0],), "the only move that keeps material")
    root = Node(None, state.to_move.other)
    root.untried = moves
    rng.shuffle(root.untried)
    done = 0
    depth = 0
    exploration = settings.exploration
    max_nodes = settings.max_nodes
    nodes = 1
    grave = settings.grave
    bias = settings.grave_bias
    played: list[tuple[int, Move]] | None = None
    places_only = settings.grave_places
    if places_only and not any(move.kind is MoveKind.PLACE for move in moves):
        grave = 0
    minimax = settings.minimax if full_strength else 0.0
    chance = judge(state)
    while playouts is None or done < playouts:
        if time_up is not None and time_up():
            break
        node = root
        path = [root]
        applied = 0
        ref: Node | None = root if grave else None
        if grave:
            played = []
        while True:
            untried = node.untried
            if untried is None:  # first visit after expansion: list the moves
                untried = list(state.legal_moves())
                if hold_back is not None:
                    untried = hold_back(state, untried)
                node.untried = untried
                rng.shuffle(untried)
            if untried or not node.children:
                break
            if grave and node.visits > grave:
                ref = node
            node = _uct(node, exploration, ref, bias, minimax)
            assert node.move is not None
            if played is not None:
                heard = not places_only or node.move.kind is MoveKind.PLACE
                played.append((node.mover.index if heard else -1, node.move))
            state.apply(node.move, check=False)
            applied += 1
            path.append(node)
        value = _result(state)
        if value is None and node.untried and nodes < max_nodes:
            move = node.untried.pop()
            mover = state.to_move
            if played is not None:
                heard = not places_only or move.kind is MoveKind.PLACE
                played.append((mover.index if heard else -1, move))
            state.apply(move, check=False)
            applied += 1
            child = Node(move, mover)
            nodes += 1
            node.children.append(child)
            path.append(child)
            value = _result(state)
            if minimax > 0.0:
                seen = chance(state) if value is None else value
                child.judged = seen if mover is Player.ONE else 1.0 - seen
            if value is not None:
                child.untried = []
                if value == (1.0 if mover is Player.ONE else 0.0):
                    node.winner = child
            else:
                value = playout(state, rng, settings, played)
        elif value is None:
            value = playout(state, rng, settings, played)
        depth = max(depth, applied)
        for _ in range(applied):
            state.undo()
        for visited in path:
            visited.visits += 1
            visited.reward += value if visited.mover is Player.ONE else 1.0 - value
        if played is not None:
            _remember(path, played, value)
        if minimax > 0.0:
            _back_up(path)
        done += 1
        if report is not None and report_every and done % report_every == 0:
            report(_thought(root, done, depth))
    return _thought(root, done, depth)


def _alpha_beta(
    root_state: State,
    state: State,
    moves: list[Move],
    rng: random.Random,
    *,
    time_up: Callable[[], bool] | None,
    report: Callable[[Thought], None] | None,
) -> Thought:
    """``think`` by alpha-beta (``Settings.alphabeta``): each finished look reported."""
    rules = state.game.rules
    judging = JUDGE.get(rules)
    solved = ORACLE.get(rules)

    def told(move: Move, score: float, reached: int, looked: int, line: tuple[Move, ...]) -> None:
        if report is not None:
            report(Thought(move, looked, reached, alphabeta.chance_of(score), line))

    move, score, reached, looked, line = alphabeta.search(
        state, moves, time_up, victim=VICTIM[rules], in_danger=IN_DANGER.get(rules),
        judge=None if judging is None else judging(state),
        oracle=None if solved is None else solved(state), before=_earlier(root_state),
        report=told if report is not None else None, rng=rng,
    )  # fmt: skip
    return Thought(move, looked, reached, alphabeta.chance_of(score), line)


def _earlier(state: State) -> Iterator[State]:
    """The positions ``state``'s game was in before it (as far as it can undo), each in turn
    on one copy taken back a move at a time: read each before asking for the next."""
    walk = state.copy()
    while walk.plies:
        walk.undo()
        yield walk


def _back_up(path: list[Node]) -> None:
    """Implicit minimax: each node of ``path`` (deepest first) takes the best of its children's
    evaluations for the player who chooses among them, seen from its own mover."""
    for k in range(len(path) - 2, -1, -1):
        node = path[k]
        best = 0.0
        chooser = node.children[0].mover
        for child in node.children:
            best = max(best, child.judged)
        node.judged = best if chooser is node.mover else 1.0 - best


def _best_child(node: Node) -> Node:
    if node.winner is not None:
        return node.winner
    return max(node.children, key=lambda child: (child.visits, child.reward))


def _thought(root: Node, done: int, depth: int) -> Thought:
    if not root.children:  # stopped before a single playout: any move is as good as another
        move = root.untried[-1] if root.untried else None
        assert move is not None
        return Thought(move, done, depth, 0.5, (move,))
    best = _best_child(root)
    line: list[Move] = []
    node = best
    while True:
        assert node.move is not None
        line.append(node.move)
        if not node.children or len(line) >= 8:
            break
        node = _best_child(node)
    assert best.move is not None
    return Thought(best.move, done, depth, best.reward / max(best.visits, 1), tuple(line))
