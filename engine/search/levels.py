"""The computer's levels, 1 to 5: a beginner's opponent that makes mistakes on purpose up to
the full-strength search. A level caps the search's playouts and sometimes plays a random legal
move instead of the search's choice; level 5 uses all the time it is given."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, replace

from engine.game import State
from engine.search.mcts import DEFAULT, Settings, Thought, think


@dataclass(frozen=True, slots=True)
class Level:
    number: int
    name: str
    playouts: int | None  # the most the search may run; None: as many as the time allows
    slip: float  # the chance of a random legal move instead of the search's


# Measured in docs/engine.md: each level against the one below, level 1 against the greedy
# player (a beginner's opponent that a beginner who takes what is offered can beat).
LEVELS: dict[int, Level] = {
    1: Level(1, "beginner", 20, 0.6),
    2: Level(2, "casual", 150, 0.15),
    3: Level(3, "club player", 600, 0.05),
    4: Level(4, "strong", 2500, 0.0),
    5: Level(5, "full strength", None, 0.0),
}


# Where a game's measured levels asked for other settings than LEVELS' (docs/engine.md, the
# table of levels): Protect the Goat's beginner, at 60% random moves, still beat the greedy
# player (62.5% of 40): its search races for the goat, which greedy does not. At 80% it
# scores 48.8% (5 playouts at 60%: 47.5%; 5 at 80%: 57.5%; greedy is little better than a
# random player here, so a beginner near random is near even with it).
# In the two games with slow playouts, full strength at 1 s makes few more playouts than
# LEVELS' level 4 (Protect the Goat: about 1,600 in its tree, beside the goat's proof; The
# Lion Game: about 2,800), so the two were nearly one player (level 5 scored 56.2% and 61.2%
# of 40 against it). There level 4 is a third of level 5's second, and levels 3 and 2 come
# down in step, each about a third of the one above.
GAME_LEVELS: dict[str, dict[int, Level]] = {
    "protect-the-goat": {
        1: Level(1, "beginner", 20, 0.8),
        2: Level(2, "casual", 50, 0.15),
        3: Level(3, "club player", 150, 0.05),
        4: Level(4, "strong", 500, 0.0),
    },
    # The Lion Game is drawn often between near-equal searches (100 moves without a
    # capture): level 5 at 1 s scored 52.8% of 18 against 900 playouts, 5 wins and 9 draws,
    # as against 2,500. More playouts part them little; a slip is a piece given, and decides.
    # So here each level below 5 also slips: level 4 scored 58.8% of 40 against level 3 when
    # they slipped 5% and 10% of their moves, so the levels below 4 slip 15 points more
    # than the one above.
    "the-lion-game": {
        2: Level(2, "casual", 80, 0.35),
        3: Level(3, "club player", 250, 0.2),
        4: Level(4, "strong", 900, 0.05),
    },
    # Three Dragons stalls the same way: at the shared levels, level 5 at 1 s (some 9,000
    # playouts) scored 58.8% of 40 against level 4's 2,500, with 33 draws and no loss. Its
    # caps stay (level 4 is already under a third of level 5's second); its levels below 5
    # slip as The Lion Game's do, and level 5 then scored 73.8% of 40 against level 4.
    "three-dragons": {
        n: replace(LEVELS[n], slip=slip) for n, slip in ((2, 0.35), (3, 0.2), (4, 0.05))
    },
}


def level_of(game_id: str, level: int) -> Level:
    """Level ``level`` as it plays ``game_id``."""
    return GAME_LEVELS.get(game_id, {}).get(level) or LEVELS[level]


def think_at(
    state: State,
    rng: random.Random,
    level: int,
    *,
    playouts: int | None = None,
    time_up: Callable[[], bool] | None = None,
    settings: Settings = DEFAULT,
    report: Callable[[Thought], None] | None = None,
    report_every: int = 0,
    proof_up: Callable[[], bool] | None = None,
    analyse: bool = False,
) -> Thought:
    """The move ``level`` plays: the search within the level's cap (and ``playouts``, the
    caller's), then perhaps a slip. A slip is said in ``why`` so a log can tell."""
    chosen = level_of(state.game.id, level)
    cap = chosen.playouts
    if playouts is not None:
        cap = playouts if cap is None else min(cap, playouts)
    thought = think(state, rng, playouts=cap, time_up=time_up, settings=settings,
                    report=report, report_every=report_every, proof_up=proof_up,
                    analyse=analyse)  # fmt: skip
    if chosen.slip and rng.random() < chosen.slip:
        moves = list(state.legal_moves())
        move = moves[int(rng.random() * len(moves))]
        return Thought(move, thought.playouts, thought.depth, thought.chance, (move,), "slip")
    return thought
