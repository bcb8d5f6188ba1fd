"""Standings by person, for a tournament director: from the club's results (the boards' own,
docs/mqtt.md), for an evening or a range of dates.

Each game whose two sides were named counts for both people: a win 1 point, a draw ½, a loss
0 (a resignation is a loss, an agreed draw a draw); games abandoned count for nobody. Ties
are broken as tournaments break them, by the Sonneborn-Berger score (the points of each
opponent beaten, and half those of each opponent drawn: it compares like with like whatever
game was played), then by wins; people still level share their rank. The games' own scores
(Goats Wintering's) rank nobody, and are added up only when every game counted is the same
game with the same options: scores of different games or board sizes are not on one scale,
and a person with one scored game beside others' three is not on it either. The
cross-table says, for each pair of people, the points the row's person took from the
column's, game by game. Pure: the caller hands in the results and the dates.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from firmware_bridge.referee.records import csv_cell


@dataclass
class Standing:
    person: str
    games: int = 0
    won: int = 0
    drawn: int = 0
    lost: int = 0
    points: float = 0.0
    score: int = 0  # the games' own scores added up (where they keep one)
    scored: bool = False
    against: dict[str, list[float]] = field(default_factory=dict)  # opponent -> points a game
    tiebreak: float = 0.0  # Sonneborn-Berger
    rank: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"rank": self.rank, "person": self.person, "games": self.games, "won": self.won,
                "drawn": self.drawn, "lost": self.lost, "points": self.points,
                "tiebreak": self.tiebreak,
                "score": self.score if self.scored else None}  # fmt: skip


def day_of(iso: str) -> date | None:
    """The local date of an ISO 8601 time (the evening it belongs to), None if unreadable."""
    try:
        return datetime.fromisoformat(iso).astimezone().date()
    except (TypeError, ValueError):
        return None


def standings(results: Iterable[Mapping[str, Any]], first: date | None, last: date | None
              ) -> dict[str, Any]:  # fmt: skip
    """The standings of the games that ended from ``first`` to ``last`` (inclusive; None: no
    bound): people by points, then Sonneborn-Berger, then wins; the cross-table; the games
    counted."""
    table: dict[str, Standing] = {}
    counted: list[dict[str, Any]] = []
    unnamed = 0
    kinds: set[str] = set()  # the games (and options) counted
    for result in results:
        ended = day_of(str(result.get("ended") or ""))
        if ended is None or (first and ended < first) or (last and ended > last):
            continue
        if result.get("status", "finished") != "finished" or not result.get("outcome"):
            continue
        people = [str(p).strip() for p in (result.get("people") or ["", ""])][:2]
        if len(people) < 2 or not all(people) or people[0] == people[1]:
            unnamed += 1
            continue
        winner = result.get("winner")
        got = (1.0, 0.0) if winner == 1 else (0.0, 1.0) if winner == 2 else (0.5, 0.5)
        scores = result.get("scores")
        for side, person in enumerate(people):
            row = table.setdefault(person, Standing(person))
            other = people[1 - side]
            row.games += 1
            row.points += got[side]
            row.won += got[side] == 1.0
            row.drawn += got[side] == 0.5
            row.lost += got[side] == 0.0
            if isinstance(scores, list) and len(scores) == 2:
                row.score += int(scores[side])
                row.scored = True
            row.against.setdefault(other, []).append(got[side])
        kinds.add(f"{result.get('game')} {result.get('options')}")
        counted.append({k: result.get(k) for k in ("board", "game_number", "title", "people",
                                                   "outcome", "winner", "ended")})  # fmt: skip
    like = len(kinds) <= 1
    for row in table.values():
        row.tiebreak = sum(table[o].points * sum(got) for o, got in row.against.items())
        row.scored = row.scored and like

    def level(s: Standing) -> tuple[float, float, int]:
        return (s.points, s.tiebreak, s.won)

    order = sorted(table.values(), key=lambda s: (*(-v for v in level(s)), s.person.lower()))
    for index, row in enumerate(order):  # the level share a rank
        ahead = order[index - 1] if index else None
        row.rank = ahead.rank if ahead is not None and level(ahead) == level(row) else index + 1
    names = [s.person for s in order]
    cross = {s.person: {other: s.against.get(other, []) for other in names if other != s.person}
             for s in order}  # fmt: skip
    return {"people": [s.to_json() for s in order], "cross": cross, "games": counted,
            "unnamed": unnamed, "scores_unlike": not like}  # fmt: skip


def points_text(points: float) -> str:
    """``2½``, ``½``, ``3``."""
    whole, half = int(points), points - int(points) >= 0.5
    return (str(whole) if whole or not half else "") + ("½" if half else "")


def standings_csv(found: Mapping[str, Any]) -> str:
    """The standings as CSV: one person a row (rank, person, games, won, drawn, lost, points,
    Sonneborn-Berger, score), for a tournament's spreadsheet."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(["rank", "person", "games", "won", "drawn", "lost", "points",
                     "sonneborn_berger", "score"])  # fmt: skip
    for row in found["people"]:
        writer.writerow([row["rank"], csv_cell(row["person"]), row["games"], row["won"],
                         row["drawn"], row["lost"], row["points"], row["tiebreak"],
                         "" if row["score"] is None else row["score"]])  # fmt: skip
    return out.getvalue()


__all__ = ["Standing", "day_of", "points_text", "standings", "standings_csv"]
