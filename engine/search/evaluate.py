"""What a position is worth when a playout stops before the game ends: a per-game judgement.

A Monte Carlo playout in Three Dragons runs for hundreds of plies and mostly ends in the
no-capture draw; in The Lion Game a random playout wastes most of its plies. So the search cuts
its playouts short and asks this module for the chance that player 1 wins from there, made
from what a player would count: material (weighted by what a piece can do), pieces still in
hand, and Goats Wintering's score. The weights are plain numbers per piece kind, chosen from
what each piece can take and how it moves (docs/engine.md says how they were checked).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping

from engine.game import State
from engine.player import Player

# Per rules id: a value per piece kind. A royal piece (whose loss ends the game) is not counted:
# the game's outcome says it.
PIECE_VALUES: Mapping[str, Mapping[str, float]] = {
    "vanguard": {"captain": 4.0, "outrider": 3.0, "ram": 2.0, "flag": 0.0},
    "protect_the_goat": {
        "goat": 0.0,
        "phant": 3.0,
        "sugarmouse": 3.0,
        "lyon": 3.0,
        "yafbeest": 2.0,
    },
    "the_lion_game": {
        "lion": 0.0,
        "tiger": 6.0,
        "spider": 3.0,
        "cobra": 3.0,
        "rhinoceros": 5.0,
        "elephant": 5.0,
        "frog": 1.0,
        "butterfly": 3.0,
    },
    "three_dragons": {"stone": 1.0, "die": 1.0, "dragon": 1.5},
    "goats_wintering": {"goat": 0.3},
}
# How sharply a material lead turns into a winning chance: a lead of ``1 / SHARPNESS`` of the
# material on the board is worth about 73%.
SHARPNESS: Mapping[str, float] = {
    "vanguard": 4.0,
    "protect_the_goat": 4.0,
    "the_lion_game": 4.0,
    "three_dragons": 6.0,
    "goats_wintering": 1.0,
}


def material(state: State, values: Mapping[str, float]) -> tuple[float, float]:
    """Each player's material on the board and in hand."""
    totals = [0.0, 0.0]
    dice = state.game.rules == "three_dragons"
    for piece in state.cells:
        if piece is not None:
            worth = values.get(piece.kind, 1.0)
            if dice and piece.state is not None:
                worth += 0.05 * piece.state  # a stronger die is worth a little more
            totals[piece.owner.index] += worth
    for player in Player:
        for kind, count in state.reserve(player).items():
            totals[player.index] += values.get(kind, 1.0) * count
    return totals[0], totals[1]


def _squash(lead: float, scale: float) -> float:
    """A lead (positive: player 1 ahead) as a chance in (0, 1)."""
    return 1.0 / (1.0 + math.exp(-lead * scale))


def material_chance(state: State) -> float:
    """Player 1's chance from material alone."""
    rules = state.game.rules
    one, two = material(state, PIECE_VALUES.get(rules, {}))
    total = one + two
    if total <= 0.0:
        return 0.5
    return _squash((one - two) / total, SHARPNESS.get(rules, 4.0))


def goats_chance(state: State) -> float:
    """Goats Wintering: the score (adjacent pairs) decides the end; goats alive make pairs."""
    scores = state.scores() or {}
    one_goats = two_goats = 0
    for piece in state.cells:
        if piece is not None:
            if piece.owner is Player.ONE:
                one_goats += 1
            else:
                two_goats += 1
    lead = scores.get(Player.ONE, 0) - scores.get(Player.TWO, 0) + 0.3 * (one_goats - two_goats)
    return _squash(lead, 0.8)


JUDGES: Mapping[str, Callable[[State], float]] = {"goats_wintering": goats_chance}


def judge(state: State) -> Callable[[State], float]:
    """The judgement for ``state``'s game: player 1's chance of winning from a position."""
    return JUDGES.get(state.game.rules, material_chance)
