"""Players are numbered 1 (moves first) and 2, everywhere: engine, JSON and journal."""

from __future__ import annotations

from enum import IntEnum


class Player(IntEnum):
    ONE = 1
    TWO = 2

    # Set on each member below rather than computed by properties: rules code asks for these on
    # every ply, and a plain attribute is read about five times faster than a property on an enum.
    other: Player  # the opponent
    index: int  # 0 for player 1, 1 for player 2: for per-player tuples

    @classmethod
    def parse(cls, value: object) -> Player:
        """Accept 1/2 as int or string; raise ValueError otherwise."""
        if isinstance(value, bool):
            raise ValueError(f"expected player 1 or 2, got {value!r}")
        if isinstance(value, int | str) and str(value).strip() in ("1", "2"):
            return cls(int(str(value).strip()))
        raise ValueError(f"expected player 1 or 2, got {value!r}")


for _player, _other in ((Player.ONE, Player.TWO), (Player.TWO, Player.ONE)):
    vars(_player).update(other=_other, index=_player.value - 1)
