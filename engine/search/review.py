"""A finished game's review: the chances position by position, and the moves where they turned.

Pure like the search: the engine's judgement of each position (``Judged``, made by the engine
process, one ``go`` a position) comes in; the chances for a graph and the turning points come
out. A turning point is a move after which its mover's chance was well below what the search
gave the position before it with best play: the drop is what the move gave away.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

# A drop smaller than this is the search's own noise at a review's few hundred milliseconds a
# position (two searches of one position differ by some 5-10 points): not a turning point.
LEAST_DROP = 0.15
MOST_TURNS = 5  # the turning points a review names: the few a person looks at


@dataclass(frozen=True, slots=True)
class Judged:
    """The search's word on one position of a game."""

    mover: int  # the player to move there, 1 or 2; 0 once the game is over
    first: float  # player 1's chance of winning from here, 0 to 1 (a draw counts a half)
    best: str = ""  # the move the search found best, in notation; "" once the game is over
    playouts: int = 0
    # False when the search answered without weighing the position (its only move, the only
    # one that does not lose): the chance is then the next position's (``filled``).
    known: bool = True


def filled(judged: Sequence[Judged]) -> list[Judged]:
    """The judgements with each unknown chance taken from the position after it: a forced
    move changes nothing, so the chance before it is the chance after it."""
    out = list(judged)
    for k in range(len(out) - 2, -1, -1):
        if not out[k].known and out[k + 1].known:
            out[k] = Judged(out[k].mover, out[k + 1].first, out[k].best, out[k].playouts)
    return out


@dataclass(frozen=True, slots=True)
class Turn:
    """A move that gave chances away: move ``number`` (1-based, of the moves played)."""

    number: int
    mover: int  # 1 or 2
    played: str
    before: float  # the mover's chance before it, with the search's best move
    after: float  # the mover's chance after it
    better: str  # the search's move there

    @property
    def drop(self) -> float:
        return self.before - self.after


def mover_chance(judged: Judged, mover: int) -> float:
    return judged.first if mover == 1 else 1.0 - judged.first


def turning_points(
    judged: Sequence[Judged],
    played: Sequence[str],
    *,
    least: float = LEAST_DROP,
    most: int = MOST_TURNS,
) -> list[Turn]:
    """The moves whose mover's chance fell by ``least`` or more, the ``most`` largest falls,
    in the order they were played. ``judged[k]`` is the position before ``played[k]``;
    positions not judged yet (a review under way) end the list early."""
    judged = filled(judged)
    found = []
    for k, move in enumerate(played):
        if k + 1 >= len(judged):
            break
        here, there = judged[k], judged[k + 1]
        if here.mover not in (1, 2):
            continue
        before = mover_chance(here, here.mover)
        after = mover_chance(there, here.mover)
        # The search's own move falling short is its misjudging the position, not the
        # mover's mistake: only a move other than the one it found best is a turning point.
        if before - after >= least and here.best and here.best != move:
            found.append(Turn(k + 1, here.mover, move, before, after, here.best))
    found.sort(key=lambda t: (-t.drop, t.number))
    return sorted(found[:most], key=lambda t: t.number)
