"""The opponents the search is measured against: a random player, the greedy policy of
``board-referee play``, and flat Monte Carlo. Each is a plain function of a state and a seeded
``random.Random`` (and, for flat Monte Carlo, when to stop), like the search itself."""

from __future__ import annotations

import random
from collections.abc import Callable

from engine.game import State
from engine.moves import Move


def random_move(state: State, rng: random.Random) -> Move:
    """Any legal move, each as likely."""
    return rng.choice(list(state.legal_moves()))


def greedy_move(state: State, rng: random.Random) -> Move:
    """A move that does best on material one ply ahead (a win first), ties at random: what
    ``board-referee play --policy greedy`` plays."""
    moves = list(state.legal_moves())
    if len(moves) == 1:
        return rng.choice(moves)  # as play always drew: a seeded game replays the same
    player = state.to_move
    best: list[Move] = []
    best_score: int | None = None
    before = state.layout()
    for footprint in state.footprints():
        after = footprint.result_layout(before)
        score = sum(1 if p.owner is player else -1 for p in after.values())
        if footprint.outcome is not None and footprint.outcome.winner is not None:
            score += 1000 if footprint.outcome.winner is player else -1000
        if best_score is None or score > best_score:
            best, best_score = [footprint.move], score
        elif score == best_score:
            best.append(footprint.move)
    return rng.choice(best)


def flat_monte_carlo(
    root_state: State,
    rng: random.Random,
    *,
    playouts: int | None = None,
    time_up: Callable[[], bool] | None = None,
    max_plies: int = 400,
) -> tuple[Move, int]:
    """The move whose uniformly random playouts (to the end, or a draw after ``max_plies``)
    score best, the playouts shared round-robin between the moves; and how many were run."""
    moves = list(root_state.legal_moves())
    if len(moves) == 1:
        return moves[0], 0
    state = root_state.copy(stack=False)
    mover = state.to_move
    totals = [0.0] * len(moves)
    counts = [0] * len(moves)
    done = 0
    while playouts is None or done < playouts:
        if time_up is not None and time_up():
            break
        index = done % len(moves)
        state.apply(moves[index], check=False)
        plies = 1
        outcome = state.outcome()
        while outcome is None and plies < max_plies:
            options = list(state.legal_moves())
            state.apply(options[int(rng.random() * len(options))], check=False)
            plies += 1
            outcome = state.outcome()
        if outcome is None or outcome.winner is None:
            totals[index] += 0.5
        elif outcome.winner is mover:
            totals[index] += 1.0
        for _ in range(plies):
            state.undo()
        counts[index] += 1
        done += 1
    best = max(range(len(moves)), key=lambda i: totals[i] / counts[i] if counts[i] else 0.0)
    return moves[best], done


__all__ = ["flat_monte_carlo", "greedy_move", "random_move"]
