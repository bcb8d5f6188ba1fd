"""The computer opponent's search: pure like the rest of the engine (no I/O, no clock of its
own: a ``time_up`` callable and a seeded ``random.Random`` are passed in)."""

from engine.search.baselines import flat_monte_carlo, greedy_move, random_move
from engine.search.levels import LEVELS, Level, level_of, think_at
from engine.search.mcts import Settings, Thought, prepare, think

__all__ = [
    "LEVELS", "Level", "Settings", "Thought", "flat_monte_carlo", "greedy_move", "level_of",
    "prepare", "random_move", "think", "think_at",
]  # fmt: skip
