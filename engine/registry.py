"""Which rules implementation each ``rules:`` id in a game config names."""

from __future__ import annotations

from collections.abc import Mapping

from engine.config import Node
from engine.game import Game
from engine.games.goats_wintering import GoatsWintering
from engine.games.protect_the_goat import ProtectTheGoat
from engine.games.the_lion_game import TheLionGame
from engine.games.three_dragons import ThreeDragons
from engine.games.vanguard import Vanguard

RULES: Mapping[str, type[Game]] = {
    cls.rules: cls
    for cls in (
        ThreeDragons,
        ProtectTheGoat,
        Vanguard,
        GoatsWintering,
        TheLionGame,
    )
}


def build_game(
    data: object, options: Mapping[str, object] | None = None, source: str = "<game config>"
) -> Game:
    """Build a Game from a parsed config document (``source`` names it in error messages)."""
    node = Node(data, source)
    rules_node = node.get("rules")
    rules_id = rules_node.text()
    cls = RULES.get(rules_id)
    if cls is None:
        rules_node.fail(f"unknown rules {rules_id!r} (known: {', '.join(sorted(RULES))})")
    return cls(node, options or {})
