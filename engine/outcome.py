"""How a game ended."""

from __future__ import annotations

from dataclasses import dataclass

from engine.player import Player


@dataclass(frozen=True, slots=True)
class Outcome:
    winner: Player | None  # None: a draw
    reason: str

    @property
    def draw(self) -> bool:
        return self.winner is None

    def to_json(self) -> dict[str, object]:
        return {"winner": None if self.winner is None else int(self.winner), "reason": self.reason}

    def describe(self, player_names: tuple[str, str], people: tuple[str, str] = ("", "")) -> str:
        """The result in words; ``people``: who played each side, when they said."""
        if self.winner is None:
            return f"Draw ({self.reason})"
        reason = self.reason
        loser = self.winner.other
        for how in ("resigned", "lost on time"):  # the person who resigned, or whose flag fell
            if reason == f"{player_names[loser.index]} {how}":
                reason = f"{player_label(player_names, loser, people)} {how}"
        return f"{player_label(player_names, self.winner, people)} wins: {reason}"


def player_label(
    player_names: tuple[str, str], player: Player, people: tuple[str, str] = ("", "")
) -> str:
    """A side as a result names it: ``White``, ``Player 1``; the person playing it first when
    there is one: ``Carol (White)``, ``Dana (Player 2)``. One wording everywhere (the kiosk,
    the move list, the records, the CSV, the club view)."""
    name = player_names[player.index]
    person = people[player.index].strip()
    return f"{person} ({name})" if person else name
