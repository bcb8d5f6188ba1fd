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

    def describe(self, player_names: tuple[str, str]) -> str:
        if self.winner is None:
            return f"draw ({self.reason})"
        return f"{player_label(player_names, self.winner)} wins: {self.reason}"


def player_label(player_names: tuple[str, str], player: Player) -> str:
    """``White (player 1)``, or just ``Player 1`` where the game uses the default names."""
    name = player_names[player.index]
    number = f"player {int(player)}"
    return name if name.lower() == number else f"{name} ({number})"
