"""The MQTT contract as the club view checks it, and JSON read within limits: every game's real
state passes, and each kind of bad field is named."""

from __future__ import annotations

import json
import logging
import tempfile
from pathlib import Path

import pytest

from firmware_bridge.faces.contract import result_problem, state_problem, status_problem
from firmware_bridge.faces.safejson import JsonLimitError, depth, loads_limited
from firmware_bridge.link import catalog
from firmware_bridge.referee.daemon import Daemon
from firmware_bridge.referee.journal import Journal, read_records


@pytest.mark.parametrize("game_id", catalog.game_ids())
def test_every_games_state_keeps_the_contract(game_id: str, tmp_path: Path) -> None:
    game = catalog.load_game(game_id)
    profile = catalog.load_profile(None, game)
    journal = Journal(tmp_path / "j.sqlite3")
    daemon = Daemon(game, profile, journal, "unused", log=logging.getLogger("test"))
    state = daemon.state
    for _ in range(3):  # a few plies in, with moves, scores and captures where the game has them
        if state.outcome() is not None:
            break
        move = next(iter(state.legal_moves()))
        journal.record_move(daemon.game_id, state.notation(move))
        state.apply(move)
    daemon = Daemon(game, profile, journal, "unused", log=logging.getLogger("test"))
    body = json.loads(daemon.snapshot().to_text())
    assert state_problem(body) is None
    journal.close()


def good_state() -> dict[str, object]:
    game = catalog.load_game("vanguard")
    profile = catalog.load_profile(None, game)
    with tempfile.TemporaryDirectory() as folder:  # a journal beside its lock, not in the cwd
        journal = Journal(Path(folder) / "journal.sqlite3")
        daemon = Daemon(game, profile, journal, "unused", log=logging.getLogger("t"))
        text = daemon.snapshot().to_text()
        journal.close()
    state: dict[str, object] = json.loads(text)
    return state


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"status": 5}, "state.status: expected text"),
        ({"game": {"id": "x", "title": "X", "players": "White and Black"}},
         "state.game.players: expected a list"),
        ({"to_move": 3}, "state.to_move: expected 1 or 2"),
        ({"board": {"key": "k", "cells": [{"name": "a1"}]}}, "state.board.cells[0].x: missing"),
        ({"pieces": [{"cell": "a1", "kind": "k", "symbol": "s", "owner": True}]},
         "state.pieces[0].owner: expected 1 or 2"),
        ({"moves": [{"text": "a1-a2", "at": 5}]}, "state.moves[0].at: expected text"),
        ({"schema": 2}, "state.schema: expected one of (1,)"),
    ],
)  # fmt: skip
def test_a_bad_field_is_named(change: dict[str, object], problem: str) -> None:
    state = good_state()
    assert state_problem(state) is None
    state.update(change)
    assert state_problem(state) == problem


def test_status_and_result_checks() -> None:
    assert status_problem({"schema": 1, "state": "online", "reason": "connected"}) is None
    assert status_problem({"schema": 1, "state": "sideways"}) is not None
    result = {"board": "t1", "game_number": 1, "game": "vanguard", "title": "Vanguard",
              "options": {}, "profile": "vanguard", "players": ["White", "Black"],
              "outcome": "White wins", "winner": 1, "moves": [["A2-A3", "t"]],
              "ended": "t"}  # fmt: skip
    assert result_problem(result) is None
    assert result_problem({**result, "players": "White and Black"}) is not None


def test_json_is_read_within_its_limits() -> None:
    assert depth(b'[[1, "[[[["], {"a": [2]}]') == 3
    assert depth(b'["a\\\\", [["]]]"]]]') == 3  # an escaped backslash ends its string
    assert loads_limited(b'{"a": [1]}', max_bytes=100, max_depth=2) == {"a": [1]}
    with pytest.raises(JsonLimitError, match="nests more than 2"):
        loads_limited(b'{"a": [[1]]}', max_bytes=100, max_depth=2)
    with pytest.raises(JsonLimitError, match="more than the 10 accepted") as too_big:
        loads_limited(b'{"a": "0123456789"}', max_bytes=10, max_depth=2)
    assert too_big.value.too_big
    with pytest.raises(JsonLimitError):  # never a RecursionError
        loads_limited(b"[" * 100000 + b"]" * 100000, max_bytes=10**6, max_depth=50)
    with pytest.raises(ValueError, match="not JSON"):
        loads_limited(b"\xff{}", max_bytes=100, max_depth=2)


def test_every_kind_of_message_a_board_sends_keeps_the_club_views_contract(
    tmp_path: Path,
) -> None:
    """What a board publishes, built as its publisher builds it (events_between over the
    daemon's own snapshots, the status, the timeline, the results): none is refused by the
    contract the club view checks. (Every move event once was: its own ``at`` overwrote the
    message's number.)"""
    import dataclasses
    import time

    from engine import Outcome, Player
    from firmware_bridge.faces.contract import (
        event_problem,
        results_problem,
        timeline_problem,
    )
    from firmware_bridge.faces.mqtt import events_between
    from firmware_bridge.referee.health import SensorWarning
    from firmware_bridge.referee.records import played, result_of
    from firmware_bridge.referee.snapshot import Connection
    from firmware_bridge.referee.timeline import timeline_of

    game = catalog.load_game("three-dragons")
    profile = catalog.load_profile(None, game)
    journal = Journal(tmp_path / "j.sqlite3")
    daemon = Daemon(game, profile, journal, "unused", log=logging.getLogger("t"))
    first = daemon.snapshot()
    journal.record_move(daemon.game_id, "c1-c4")
    journal.record_move(daemon.game_id, "resign:2", Outcome(Player.ONE, "Black resigned"))
    moved = Daemon(game, profile, journal, "unused", log=logging.getLogger("t")).snapshot()
    warned = dataclasses.replace(
        moved, alert="illegal", status="illegal move: ...",
        sensor_warnings=(SensorWarning("c7", "phantom", "c7 keeps reading a piece"),),
        connection=Connection("connected", "p", "m", "b", "f", 1.0, ((2.0, 1, "sensor 3"),)),
        outcome="White wins: Black resigned", winner=1,
    )  # fmt: skip
    kinds: set[str] = set()
    steps = [(None, first), (first, moved), (moved, warned),
             (warned, dataclasses.replace(moved, alert="", game_number=2, moves=())),
             (moved, dataclasses.replace(moved, moves=moved.moves[:0]))]  # fmt: skip
    for old, new in steps:
        for event in events_between(old, new):
            body = {"schema": 1, "board": "table1", "at": time.time(), **event}
            assert event_problem(body) is None, (event["type"], event_problem(body))
            kinds.add(event["type"])
    assert {"move", "takeback", "illegal", "corrected", "game-end", "new-game", "fault",
            "sensor-warning", "connection"} <= kinds, kinds  # fmt: skip
    timeline = {"schema": 1, "board": "table1", "at": time.time(),
                **timeline_of(tmp_path / "j.sqlite3", 1)}  # fmt: skip
    assert timeline_problem(json.loads(json.dumps(timeline))) is None
    records = played(read_records(tmp_path / "j.sqlite3"))
    ended = [result_of(r, None, "table1") for r in records if r.status != "playing"]
    results = {"schema": 1, "board": "table1", "at": time.time(), "since": 1, "results": ended}
    assert results_problem(json.loads(json.dumps(results))) is None and results["results"]
    journal.close()


def test_the_pieces_still_to_place_name_the_movers_kinds_and_count_the_others(
    tmp_path: Path,
) -> None:
    """Issue 51: in Protect the Goat's placements the kiosk listed both players' five kinds,
    five lines on a 7" screen, and its move list had room for two moves. The player to move's
    pieces are listed kind by kind, first; the other's are counted."""
    game = catalog.load_game("protect-the-goat")
    profile = catalog.load_profile(None, game)
    journal = Journal(tmp_path / "j.sqlite3")
    daemon = Daemon(game, profile, journal, "unused", log=logging.getLogger("test"))
    state = daemon.state
    for _ in range(3):
        move = next(m for m in state.legal_moves() if m.piece != "goat")
        journal.record_move(daemon.game_id, state.notation(move))
        state.apply(move)
    daemon = Daemon(game, profile, journal, "unused", log=logging.getLogger("test"))
    details = daemon.snapshot().details
    mover = daemon.state.to_move
    names = game.player_names
    assert details[0].startswith(f"{names[mover.index]} still to place: 1 goat, ")
    left = sum(daemon.state.reserve(mover.other).values())
    assert details[1] == f"{names[mover.other.index]} still to place: {left} pieces"
    journal.close()
