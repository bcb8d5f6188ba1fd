"""Controls from the faces, checked once for all of them: the kiosk page's requests and the
club's MQTT commands become the same ``Command`` on the daemon's queue.

A control is a JSON object: ``{"action": "takeback"}``, ``{"action": "button", "button":
"pass"}`` or ``{"action": "new-game", "game": ID, "options": {NAME: VALUE}}``. A bad one raises
``ControlError`` with a sentence for the person who sent it; nothing is queued.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from engine import ConfigError
from engine.clock import TimeControl
from firmware_bridge import words
from firmware_bridge.link import catalog
from firmware_bridge.link.protocol import Button
from firmware_bridge.referee.computer import (
    DEFAULT_MOVETIME_MS,
    MAX_MOVETIME_MS,
    MIN_MOVETIME_MS,
)
from firmware_bridge.referee.daemon import Command
from firmware_bridge.referee.journal import MAX_NAME

FACE_BUTTONS = {"pass": Button.PASS, "confirm": Button.CONFIRM, "select": Button.SELECT,
                "takeback": Button.TAKEBACK}  # fmt: skip
MAX_OPTIONS = 32  # options in one control
MAX_OPTION_TEXT = 64  # characters of an option's name or value


class ControlError(ValueError):
    """A control that cannot be carried out as sent; the message says why."""


def button_command(name: object, source: str) -> Command:
    button = FACE_BUTTONS.get(name) if isinstance(name, str) else None
    if button is None:
        raise ControlError(f"unknown button {name!r} (pass, confirm, select, takeback)")
    return Command("press", button=button, source=source)


def player_names(value: object) -> tuple[str, str] | None:
    """The people playing each side, as a control gives them: two names (either may be
    blank), each a line of at most MAX_NAME printable characters. None: not given."""
    if value is None:
        return None
    if not isinstance(value, list) or len(value) > 2 or any(not isinstance(v, str) for v in value):
        raise ControlError('players are up to two names, like {"players": ["Ann", "Bob"]}')
    names = [" ".join(v.split()) for v in value] + [""] * (2 - len(value))
    for name in names:
        if len(name) > MAX_NAME:
            raise ControlError(f"a player's name is at most {MAX_NAME} characters")
        if not name.isprintable():
            raise ControlError("a player's name is letters, digits, spaces and punctuation")
    return (names[0], names[1])


def computer_players(
    people: tuple[str, str] | None, computer: object, movetime: object, hints: object = True
) -> tuple[tuple[str, str] | None, str]:
    """The sides the computer plays (``{"2": 3}``: side 2 at level 3) seated among the people,
    as the name ``Computer, level 3``; and the computer's settings as the command says them
    (its time a move, whether hints may be asked)."""
    if not isinstance(hints, bool):
        raise ControlError("hints is true or false")
    off = "" if hints else ";hints:off"
    if computer is None or computer == {}:  # people only: a time a move is for hints
        settings = f"movetime:{_movetime(movetime)}" if movetime is not None else ""
        return people, settings + off
    if not isinstance(computer, dict) or len(computer) > 2:
        raise ControlError('the computer plays sides by level, like {"computer": {"2": 3}}')
    names = list(people or ("", ""))
    for side, level in computer.items():
        if side not in ("1", "2"):
            raise ControlError(f"the computer plays side 1 or 2, not {side!r}")
        if isinstance(level, bool) or not isinstance(level, int) or not 1 <= level <= 5:
            raise ControlError("the computer's level is 1 (a beginner) to 5 (full strength)")
        names[int(side) - 1] = words.computer_name(level)
    return (names[0], names[1]), f"movetime:{_movetime(movetime)}{off}"


def clock_setting(clock: object) -> str:
    """The new game's clock as the command says it: ``;clock:TC``, ``;clock:none`` (blank),
    or nothing (not said: the referee's own)."""
    if clock is None:
        return ""
    if not isinstance(clock, str) or len(clock) > 60:
        raise ControlError("the clock is a time control like 300+3 (blank: no clock)")
    if not clock.strip():
        return ";clock:none"
    try:
        return f";clock:{TimeControl.parse(clock)}"
    except ConfigError as exc:
        raise ControlError(str(exc)) from exc


def _movetime(movetime: object) -> int:
    if movetime is None:
        return DEFAULT_MOVETIME_MS
    if (isinstance(movetime, bool) or not isinstance(movetime, int)
            or not MIN_MOVETIME_MS <= movetime <= MAX_MOVETIME_MS):  # fmt: skip
        raise ControlError(f"the computer's time a move is {MIN_MOVETIME_MS} to "
                           f"{MAX_MOVETIME_MS} milliseconds")  # fmt: skip
    return movetime


def new_game_command(
    game_id: object,
    options: object,
    *,
    config_dir: Path,
    known: set[str],
    current: tuple[str, str],
    source: str,
    players: object = None,
    computer: object = None,
    movetime: object = None,
    hints: object = True,
    clock: object = None,
) -> Command:
    """A new game of ``game_id``: on the board profile in use when it is the same game, else
    on the game's default profile. ``known``: the games the face offers. ``computer``: the
    sides the computer plays, with their levels; ``movetime``: its time a move (ms)."""
    if not isinstance(game_id, str) or not game_id:
        raise ControlError('say which game, like {"game": "three-dragons"}')
    if options is None:
        options = {}
    if not isinstance(options, dict):
        raise ControlError("options must be an object of option names and values")
    if len(options) > MAX_OPTIONS or any(len(str(k)) > MAX_OPTION_TEXT for k in options):
        raise ControlError(f"at most {MAX_OPTIONS} options, each named in a few words")
    if any(not isinstance(v, str | int | bool) for v in options.values()):
        raise ControlError("option values are text, numbers or true/false")
    if any(len(str(v)) > MAX_OPTION_TEXT for v in options.values()):
        raise ControlError(f"an option's value is at most {MAX_OPTION_TEXT} characters")
    people, what = computer_players(player_names(players), computer, movetime, hints)
    what += clock_setting(clock)
    if game_id not in known:
        raise ControlError(f"unknown game {game_id!r} (known games: {', '.join(sorted(known))})")
    try:
        game = catalog.load_game(game_id, options, config_dir)
        current_game, current_profile = current
        profile_id = current_profile if game_id == current_game else None
        profile = catalog.load_profile(profile_id, game, config_dir)
    except ConfigError as exc:
        raise ControlError(str(exc)) from exc
    return Command("new_game", game=game, profile=profile, source=source, players=people,
                   what=what)  # fmt: skip


MAX_ADJUST_S = 3600


def clock_command(body: dict[str, Any], source: str) -> Command:
    """The arbiter's clock control: pause or resume the clocks (a dispute), or add time to a
    player's clock (negative: take it; a penalty)."""
    what = body.get("clock")
    if what in ("pause", "resume"):
        return Command("clock", what=str(what), source=source)
    if what == "add":
        player, seconds = body.get("player"), body.get("seconds")
        if player not in (1, 2) or isinstance(player, bool):
            raise ControlError("the player whose clock changes is 1 or 2")
        if (isinstance(seconds, bool) or not isinstance(seconds, int) or seconds == 0
                or abs(seconds) > MAX_ADJUST_S):  # fmt: skip
            raise ControlError(f"seconds to add (negative: to take) is 1 to {MAX_ADJUST_S}")
        return Command("clock", what=f"add:{player}:{seconds * 1000}", source=source)
    raise ControlError('clock: {"clock": "pause"}, {"clock": "resume"}, or {"clock": "add", '
                       '"player": 1, "seconds": 60} (negative seconds take time)')  # fmt: skip


def control_command(
    body: dict[str, Any],
    *,
    config_dir: Path,
    known: set[str],
    current: tuple[str, str],
    source: str,
    allowed: frozenset[str] = frozenset({"takeback", "button", "new-game"}),
) -> Command:
    """The command a control object asks for (actions outside ``allowed`` are refused)."""
    action = body.get("action")
    if not isinstance(action, str) or action not in allowed:
        raise ControlError(f"unknown action {action!r} (known: {', '.join(sorted(allowed))})")
    if action == "takeback":
        return Command("press", button=Button.TAKEBACK, source=source)
    if action == "button":
        return button_command(body.get("button"), source)
    if action == "clock":
        return clock_command(body, source)
    return new_game_command(body.get("game"), body.get("options"), config_dir=config_dir,
                            known=known, current=current, source=source,
                            players=body.get("players"), computer=body.get("computer"),
                            movetime=body.get("movetime"), clock=body.get("clock"),
                            hints=body.get("hints", True))  # fmt: skip


__all__ = [
    "FACE_BUTTONS",
    "ControlError",
    "button_command",
    "control_command",
    "new_game_command",
]
