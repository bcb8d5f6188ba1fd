"""The MQTT contract (docs/mqtt.md), checked: what a board publishes, and what the club keeps.

The club view reads payloads from anyone the broker lets publish. A payload is used only when
every field it will read has the type the contract gives it (a status sentence that is a number,
players that are one string, a picture without cells are refused); fields may be added within a
version, so unknown keys are allowed and newer fields are optional. ``state_problem`` and
friends return the first problem in words (with its path), or None for a good payload.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

Check = Callable[[Any, str], str | None]  # (value, path) -> the problem, or None

MAX_ITEMS = 5000  # any list or object in a payload
SHAPES = frozenset({"square", "diamond", "hex", "point"})


def _text(value: Any, path: str) -> str | None:
    return None if isinstance(value, str) else f"{path}: expected text"


def _number(value: Any, path: str) -> str | None:
    ok = isinstance(value, int | float) and not isinstance(value, bool)
    return None if ok else f"{path}: expected a number"


def _whole(value: Any, path: str) -> str | None:
    ok = isinstance(value, int) and not isinstance(value, bool)
    return None if ok else f"{path}: expected a whole number"


def _flag(value: Any, path: str) -> str | None:
    return None if isinstance(value, bool) else f"{path}: expected true or false"


def _player(value: Any, path: str) -> str | None:
    return None if value in (1, 2) and not isinstance(value, bool) else f"{path}: expected 1 or 2"


def _scalar(value: Any, path: str) -> str | None:
    ok = isinstance(value, str | int | float | bool)
    return None if ok else f"{path}: expected text, a number or true/false"


def _maybe(check: Check) -> Check:
    def inner(value: Any, path: str) -> str | None:
        return None if value is None else check(value, path)

    return inner


def _one_of(*allowed: Any) -> Check:
    def inner(value: Any, path: str) -> str | None:
        return None if value in allowed else f"{path}: expected one of {allowed}"

    return inner


def _list(check: Check, length: int | None = None) -> Check:
    def inner(value: Any, path: str) -> str | None:
        if not isinstance(value, list) or len(value) > MAX_ITEMS:
            return f"{path}: expected a list"
        if length is not None and len(value) != length:
            return f"{path}: expected {length} items"
        for i, item in enumerate(value):
            if problem := check(item, f"{path}[{i}]"):
                return problem
        return None

    return inner


def _mapping(check: Check) -> Check:
    def inner(value: Any, path: str) -> str | None:
        if not isinstance(value, dict) or len(value) > MAX_ITEMS:
            return f"{path}: expected an object"
        for key, item in value.items():
            if problem := check(item, f"{path}.{key}"):
                return problem
        return None

    return inner


def _object(fields: Mapping[str, Check], required: tuple[str, ...] = ()) -> Check:
    def inner(value: Any, path: str) -> str | None:
        if not isinstance(value, dict):
            return f"{path}: expected an object"
        for key in required:
            if key not in value:
                return f"{path}.{key}: missing"
        for key, check in fields.items():
            if key in value and (problem := check(value[key], f"{path}.{key}")):
                return problem
        return None

    return inner


_PIECE = _object({"cell": _text, "kind": _text, "symbol": _text, "owner": _player,
                  "state": _maybe(_whole)}, ("cell", "kind", "symbol", "owner"))  # fmt: skip
_CELL = _object({"name": _text, "x": _number, "y": _number, "shape": _one_of(*SHAPES),
                 "zone": _maybe(_text), "region": _maybe(_text), "blocked": _flag},
                ("name", "x", "y", "shape"))  # fmt: skip
_TEXTS = _list(_text)
PICTURE = _object({"key": _text, "cells": _list(_CELL), "links": _list(_list(_whole, 2)),
                   "kinds": _list(_mapping(_text)), "terrain": _list(_mapping(_text))},
                  ("key", "cells"))  # fmt: skip
# The game's clocks (referee/clocks.py), where it is played under a time control.
CLOCKS = _object(
    {"control": _text, "left_ms": _list(_whole, 2), "text": _list(_text, 2),
     "running": _maybe(_player), "paused": _flag, "held": _flag, "flagged": _maybe(_player),
     "low": _list(_flag, 2), "started": _flag},
    ("control", "left_ms", "running"),
)  # fmt: skip
STATE = _object(
    {
        "schema": _one_of(1),
        "at": _number,
        "game_number": _whole,
        "game": _object(
            {
                "id": _text,
                "title": _text,
                "options": _mapping(_scalar),
                "players": _list(_text, 2),
                "people": _list(_text, 2),
                "profile": _text,
                "sensing": _text,
            },
            ("id", "title", "players"),
        ),
        "board": PICTURE,
        "pieces": _list(_PIECE),
        "ghosts": _list(_PIECE),
        "misplaced": _list(_PIECE),
        "lifted": _TEXTS,
        "unexpected": _TEXTS,
        "last_move": _TEXTS,
        "details": _TEXTS,
        "signals": _mapping(_text),
        "status": _text,
        "notice": _text,
        "alert": _maybe(_text),
        "alert_since": _maybe(_number),
        "to_move": _maybe(_player),
        "acting": _maybe(_player),
        "next_game": _text,
        "phase": _text,
        "deciding": _flag,
        "scores": _maybe(_list(_number, 2)),
        "captured": _list(_TEXTS, 2),
        "outcome": _maybe(_text),
        "winner": _maybe(_player),
        "moves": _list(
            _object(
                {
                    "number": _whole,
                    "player": _text,
                    "text": _text,
                    "at": _text,
                    "events": _TEXTS,
                    "words": _text,
                    "who": _text,
                },
                ("text", "at"),
            )
        ),
        "connection": _object(
            {
                "state": _text,
                "port": _text,
                "message": _text,
                "board_id": _text,
                "firmware": _text,
                "last_frame": _maybe(_number),
                "faults": _list(_object({"at": _number, "code": _whole, "text": _text})),
            }
        ),
        "check": _maybe(
            _object(
                {
                    "phase": _text,
                    "cell": _maybe(_text),
                    "owner": _maybe(_text),
                    "instruction": _text,
                    "done": _whole,
                    "total": _whole,
                    "findings": _list(_mapping(_text)),
                    "summary": _text,
                }
            )
        ),
        "sensor_warnings": _list(_mapping(_text)),
        "sensor_brief": _text,
        "buttons": _TEXTS,
        "lost": _list(_text, 2),
        "started": _text,
        "clocks": _maybe(CLOCKS),
    },
    ("schema", "game", "board", "pieces", "status", "moves"),
)
STATUS = _object(
    {
        "schema": _one_of(1),
        "state": _one_of("online", "offline"),
        "reason": _text,
        "at": _number,
        "commands": _flag,
        "refused": _TEXTS,
        "taken_over": _list(_number),
    },
    ("schema", "state"),
)
EVENT = _object({"schema": _one_of(1), "type": _text, "at": _number}, ("schema", "type"))
RESULT = _object(
    {
        "board": _text,
        "game_number": _whole,
        "game": _text,
        "title": _text,
        "options": _mapping(_scalar),
        "profile": _text,
        "players": _list(_text, 2),
        "people": _list(_text, 2),
        "outcome": _maybe(_text),
        "winner": _maybe(_player),
        "moves": _list(_list(_text, 2)),
        "started": _text,
        "ended": _maybe(_text),
        "status": _one_of("finished", "abandoned"),
        "scores": _maybe(_list(_number, 2)),
    },
    ("board", "game_number", "game", "title", "options", "profile", "players", "outcome", "moves"),
)
RESULTS = _object(
    {"schema": _one_of(1), "board": _text, "at": _number, "since": _whole,
     "results": _list(RESULT)},
    ("schema", "board", "since", "results"),
)  # fmt: skip


_TIMELINE_EVENT = _object({"at": _text, "kind": _text, "text": _text, "cell": _text},
                          ("at", "kind", "text"))  # fmt: skip
_TIMELINE_STEP = _object(
    {"number": _whole, "move": _text, "words": _text, "player": _text, "at": _text,
     "taken_back": _flag,
     "marks": _TEXTS, "recorded": _flag, "events": _list(_TIMELINE_EVENT)},
    ("number", "move", "player", "at", "taken_back", "marks", "events"),
)  # fmt: skip
TIMELINE = _object(
    {"board": _text, "game": _whole, "game_id": _text, "title": _text, "profile": _text,
     "status": _text, "recorded": _flag, "problem": _text, "steps": _list(_TIMELINE_STEP),
     "tail": _TIMELINE_STEP},
    ("board", "game", "title", "status", "steps", "tail"),
)  # fmt: skip


_REVIEW_TURN = _object(
    {"number": _whole, "text": _text, "pieces": _list(_PIECE),
     "signals": _mapping(_one_of("move_from", "move_to", "remove"))},
    ("number", "text", "signals", "pieces"),
)  # fmt: skip
_REVIEW = _object(
    {"game": _whole, "title": _text, "result": _text, "names": _list(_text, 2),
     "moves": _whole, "chances": _list(_number), "turns": _list(_REVIEW_TURN),
     "picture": _text},
    ("game", "title", "result", "names", "moves", "chances", "turns", "picture"),
)  # fmt: skip
REVIEWS = _object({"board": _text, "reviews": _list(_REVIEW), "pictures": _mapping(PICTURE)},
                  ("board", "reviews", "pictures"))  # fmt: skip


def state_problem(body: Any) -> str | None:
    return STATE(body, "state")


def status_problem(body: Any) -> str | None:
    return STATUS(body, "status")


def event_problem(body: Any) -> str | None:
    return EVENT(body, "event")


def result_problem(body: Any) -> str | None:
    return RESULT(body, "result")


def results_problem(body: Any) -> str | None:
    return RESULTS(body, "results")


def timeline_problem(body: Any) -> str | None:
    return TIMELINE(body, "timeline")


def reviews_problem(body: Any) -> str | None:
    """A board's published reviews: the contract's shape, then what the page relies on (each
    review's board picture among those sent, a chance per position at most)."""
    if problem := REVIEWS(body, "reviews"):
        return problem
    for k, review in enumerate(body["reviews"]):
        if review["picture"] not in body["pictures"]:
            return f"reviews.reviews[{k}].picture: not among the pictures sent"
        if len(review["chances"]) > review["moves"] + 1:
            return f"reviews.reviews[{k}].chances: more than a chance a position"
    return None


__all__ = ["event_problem", "result_problem", "results_problem", "reviews_problem",
           "state_problem", "status_problem", "timeline_problem"]  # fmt: skip
