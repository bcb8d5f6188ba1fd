"""The clocks in the journal: what a restarted referee restores, and each move's clock for
the record (PGN's ``[%clk]``).

One row a game in a ``clocks`` table beside the journal's own: the time control, the clocks'
value (engine/clock.py's ClockValue) as of ``at``, and the mover's time left after each move
(a list, cut back by a take-back). The referee writes it with each move, each take-back, each
result, and once a second while a clock runs, so a crash or a power cut loses at most a second
of what the clocks showed; the time the referee is down is charged to no one.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from engine import ConfigError
from engine.clock import ClockValue, TimeControl
from firmware_bridge.referee.journal import Journal, JournalError

SCHEMA = (
    "CREATE TABLE IF NOT EXISTS clocks (game_id INTEGER PRIMARY KEY, control TEXT NOT NULL, "
    "value TEXT NOT NULL, moves TEXT NOT NULL, at TEXT NOT NULL)"
)


@dataclass(frozen=True, slots=True)
class SavedClocks:
    control: TimeControl
    value: ClockValue
    moves: tuple[int, ...]  # the mover's time left (ms) after each move, in order
    at: str  # when it was written (ISO 8601 UTC)


def save(
    journal: Journal, game_id: int, *, control: TimeControl, value: ClockValue, moves: list[int],
    at: str,
) -> None:  # fmt: skip
    try:
        journal.db.execute(SCHEMA)
        journal.db.execute(
            "INSERT OR REPLACE INTO clocks (game_id, control, value, moves, at) "
            "VALUES (?, ?, ?, ?, ?)",
            (game_id, str(control), json.dumps(value.to_json()), json.dumps(moves), at),
        )
    except sqlite3.Error as exc:
        raise JournalError(f"cannot write the clocks to the journal {journal.path}: {exc}") from exc


def load(journal: Journal, game_id: int) -> SavedClocks | None:
    """The game's clocks as last written, or None (no clock, or a row that does not read)."""
    try:
        journal.db.execute(SCHEMA)
        rows = journal.db.execute(
            "SELECT control, value, moves, at FROM clocks WHERE game_id = ?", (game_id,)
        ).fetchall()
    except sqlite3.Error:
        return None
    return _row(rows[0]) if rows else None


def read(path: Path, game_id: int) -> SavedClocks | None:
    """As ``load``, from a journal file read only (``records``, the record pages)."""
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    except sqlite3.Error:
        return None
    try:
        rows = db.execute(
            "SELECT control, value, moves, at FROM clocks WHERE game_id = ?", (game_id,)
        ).fetchall()
    except sqlite3.Error:  # a journal from before clocks: none
        return None
    finally:
        db.close()
    return _row(rows[0]) if rows else None


def _row(row: tuple[object, ...]) -> SavedClocks | None:
    control, value, moves, at = row
    try:
        parsed = json.loads(str(value))
        listed = json.loads(str(moves))
        if not isinstance(parsed, dict) or not isinstance(listed, list):
            return None
        return SavedClocks(
            TimeControl.parse(str(control)),
            ClockValue.from_json(parsed),
            tuple(int(ms) for ms in listed),
            str(at),
        )
    except (ValueError, TypeError, ConfigError):
        return None
