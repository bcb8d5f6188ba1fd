"""Which rules implementation each ``rules:`` id in a game config names.

Each game's module is imported when a game of it is built, not before: a referee after a power
cut loads the one game it referees before its board's first LED frame, not all five.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping

from engine.config import Node
from engine.game import Game

# rules id -> (module, class): the class's own ``rules`` is the id (tests/test_conformance.py)
RULES: Mapping[str, tuple[str, str]] = {
    "three_dragons": ("engine.games.three_dragons", "ThreeDragons"),
    "protect_the_goat": ("engine.games.protect_the_goat", "ProtectTheGoat"),
    "vanguard": ("engine.games.vanguard", "Vanguard"),
    "goats_wintering": ("engine.games.goats_wintering", "GoatsWintering"),
    "the_lion_game": ("engine.games.the_lion_game", "TheLionGame"),
}


def rules_class(rules_id: str) -> type[Game] | None:
    """The Game class of a rules id (its module imported now), or None for an unknown id."""
    found = RULES.get(rules_id)
    if found is None:
        return None
    module, name = found
    cls: type[Game] = getattr(importlib.import_module(module), name)
    return cls


def build_game(
    data: object, options: Mapping[str, object] | None = None, source: str = "<game config>"
) -> Game:
    """Build a Game from a parsed config document (``source`` names it in error messages)."""
    node = Node(data, source)
    rules_node = node.get("rules")
    rules_id = rules_node.text()
    cls = rules_class(rules_id)
    if cls is None:
        rules_node.fail(f"unknown rules {rules_id!r} (known: {', '.join(sorted(RULES))})")
    return cls(node, options or {})
