"""Players are numbered 1 (moves first) and 2, everywhere: engine, JSON and journal."""

from __future__ import annotations

from enum import IntEnum


class Player(IntEnum):
    ONE = 1
    TWO = 2

    @property
    def other(self) -> Player:
        return Player.TWO if self is Player.ONE else Player.ONE

    @property
    def index(self) -> int:
        """0 for player 1, 1 for player 2: for per-player tuples."""
        return self.value - 1

    @classmethod
    def parse(cls, value: object) -> Player:
        """Accept 1/2 as int or string; raise ValueError otherwise."""
        if isinstance(value, bool):
            raise ValueError(f"expected player 1 or 2, got {value!r}")
        if isinstance(value, int | str) and str(value).strip() in ("1", "2"):
            return cls(int(str(value).strip()))
        raise ValueError(f"expected player 1 or 2, got {value!r}")
