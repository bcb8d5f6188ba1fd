"""The club view's game reviews: what each board publishes on its ``reviews`` topic (the
finished review of each of its latest games, worked out on the board by
faces/review_page.py's ``published_review``), kept per board and shown as the kiosk's own
review page, which at the club lights nothing: it is not at the board.

The board does the work (it has the game's rules, its journal and the engine's analysis): the
club view only checks what arrives against the contract (faces/contract.py) and draws it, so a
hostile payload is text and numbers in their places, escaped on the page, never moves replayed.
"""

from __future__ import annotations

import json
from typing import Any

from firmware_bridge.faces.review_page import Paths, club_view, problem_page, review_page
from firmware_bridge.referee.review import ReviewError

# All boards' reviews together: past it a board's new reviews are refused (a board publishing
# huge reviews cannot crowd the others out); one board's are at most a message (MAX_PAYLOAD).
REVIEW_BYTES_KEPT = 48 * 1024 * 1024


class ClubReviews:
    """Each board's latest published reviews: game number -> its entry, with the pictures."""

    def __init__(self) -> None:
        self._held: dict[str, tuple[dict[int, dict[str, Any]], dict[str, str], int]] = {}

    @property
    def size(self) -> int:
        return sum(held[2] for held in self._held.values())

    def take(self, name: str, body: dict[str, Any], size: int) -> str | None:
        """A board's ``reviews`` message, checked against the contract already: it replaces
        what that board published before. The problem in words, or None when kept."""
        before = self._held.get(name, ({}, {}, 0))[2]
        if self.size - before + size > REVIEW_BYTES_KEPT:
            return "the club view holds as many reviews as it keeps"
        reviews = {int(r["game"]): r for r in body["reviews"]}
        pictures = {key: json.dumps(p, separators=(",", ":"))
                    for key, p in body["pictures"].items()}  # fmt: skip
        self._held[name] = (reviews, pictures, size)
        return None

    def forget(self, name: str) -> None:
        self._held.pop(name, None)

    def has(self, name: str, number: int) -> bool:
        return number in self._held.get(name, ({}, {}, 0))[0]

    def page(self, name: str, number: int, at: int | None) -> tuple[int, str]:
        """Game ``number`` of board ``name``'s review page, or the page that says why there
        is none: (HTTP status, HTML)."""
        paths = club_paths(name)
        reviews, pictures, _ = self._held.get(name, ({}, {}, 0))
        entry = reviews.get(number)
        if entry is None:
            return 404, problem_page(number, (
                f"The club view holds no review of game {number} of {name}: a board publishes "
                "a game's review once its engine has analysed it, a minute or so after the "
                "game ends (its kiosk has every game's)."), paths)  # fmt: skip
        previous = max((n for n in reviews if n < number), default=0)
        try:
            view = club_view(entry, pictures[entry["picture"]], at, previous)
        except ReviewError as exc:
            return 404, problem_page(number, str(exc), paths)
        return 200, review_page(view, paths)


def club_paths(name: str) -> Paths:
    """A board's review pages in the club view (``name`` is a board name: letters, digits,
    '.', '_' and '-', checked when its messages arrive)."""
    return Paths(back="/", back_words="The club view", record=f"/records/{name}/{{n}}",
                 review=f"/board/{name}/review/{{n}}", lights=False)  # fmt: skip


__all__ = ["REVIEW_BYTES_KEPT", "ClubReviews", "club_paths"]
