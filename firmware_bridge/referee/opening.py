"""Which game a referee starts on: the journal's unfinished game of these settings, resumed
by replaying its moves; its last game, if that is over with these settings; or a new one.
(Split from daemon.py: the daemon's start reads the journal once, here.)"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Any

from engine import Game, State
from firmware_bridge import words
from firmware_bridge.referee.errors import DaemonError
from firmware_bridge.referee.journal import DamagedGameError, Journal, replay


@dataclass(frozen=True)
class Opening:
    state: State
    game_id: int
    start: dict[str, Any] | None  # the position the game started from (None: the usual one)
    people: tuple[str, str]  # who plays each side, as the journal has them
    created: bool  # the journal's game row was made now (and may be forgotten if unplayed)
    resumed: bool  # an unfinished game goes on


def open_game(
    journal: Journal,
    game: Game,
    *,
    profile_id: str,
    start: State | None,
    start_json: dict[str, Any] | None,
    new_game: bool,
    log: logging.Logger,
) -> Opening:
    """The journal's unfinished game of these settings, resumed; else its last game if that
    is over with these settings (its result shown until the board is set up); else a new
    game. Raises DaemonError when an unfinished game of other settings is in the way."""
    options = json.loads(json.dumps(dict(game.options), sort_keys=True))
    try:
        row = journal.unfinished()
    except DamagedGameError as exc:
        if not new_game:
            raise
        journal.abandon(exc.game_id)
        log.warning("abandoned damaged game %d (kept in the journal)", exc.game_id)
        row = None
    if (
        row is not None
        and not row.entries
        and (row.game != game.id or row.options != options or row.profile != profile_id)
    ):
        # A game nothing was played in (a board that did not fit, say) loses nothing.
        journal.abandon(row.id)
        log.info("set aside game %d of %s: nothing was played in it", row.id, row.game)
        row = None
    if row is not None:
        same = row.game == game.id and row.options == options and row.profile == (profile_id)
        if same and (start is None or row.start == start_json):
            try:
                state = game.state_from_json(row.start) if row.start else game.new_state()
                replay(state, row.entries)
            except ValueError as exc:
                raise DaemonError(
                    f"cannot replay game {row.id} from the journal {journal.path}: "
                    f"{exc}; start a new game with --new"
                ) from exc
            log.info(
                "resuming game %d (%s) after %s; checking the board matches it",
                row.id, game.title, words.count(state.plies, "move"),
            )  # fmt: skip
            return Opening(state, row.id, row.start, row.players, created=False, resumed=True)
        if not new_game:
            shown = " ".join(f"--option {k}={v}" for k, v in row.options.items())
            raise DaemonError(
                f"the journal {journal.path} has an unfinished game {row.id}: "
                f"{row.game} {shown} --board {row.profile}; run with those settings to "
                "resume it, or add --new to abandon it"
            )
        journal.abandon(row.id)
        log.info("abandoned unfinished game %d", row.id)
    if row is None and not new_game:
        over = _finished_game(journal, game, profile_id=profile_id, options=options,
                              start_json=start_json, log=log)  # fmt: skip
        if over is not None:
            return over
    state = start.copy(stack=False) if start is not None else game.new_state()
    game_id = journal.start_game(game, profile_id, start_json)
    log.info("new game %d: %s", game_id, game.title)
    return Opening(state, game_id, start_json, ("", ""), created=True, resumed=False)


def _finished_game(
    journal: Journal,
    game: Game,
    *,
    profile_id: str,
    options: dict[str, object],
    start_json: dict[str, Any] | None,
    log: logging.Logger,
) -> Opening | None:
    """The journal's newest game, if it is over and has these settings: a restart shows
    its result, and the next game begins (in the journal too) when the board is set up
    for it, as after any game's end."""
    try:
        row = journal.last_finished()
    except DamagedGameError:
        return None
    if row is None or (row.game, row.options, row.profile, row.start) != (
        game.id, options, profile_id, start_json):  # fmt: skip
        return None
    try:
        state = game.state_from_json(row.start) if row.start else game.new_state()
        replay(state, row.entries)
    except ValueError:
        return None
    outcome = state.outcome()
    if outcome is None:
        return None
    log.info("game %d is over (%s): set the board up for a new game", row.id,
             outcome.describe(game.player_names))  # fmt: skip
    return Opening(state, row.id, row.start, row.players, created=False, resumed=False)
