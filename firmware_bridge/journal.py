"""The game journal: every committed move goes to SQLite (WAL mode, synchronous=FULL) before
the LEDs change, so after a crash or a power cut ``board-referee run`` resumes the unfinished
game exactly where the last acknowledged move left it.

Tables: ``games`` (one row a game: what was played, with which options and board, when, how it
ended) and ``entries`` (append-only: each committed move or decision, and take-backs).
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from engine import Cell, Game, Outcome, Piece, State

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    game TEXT NOT NULL,
    options TEXT NOT NULL,
    profile TEXT NOT NULL,
    start TEXT,                 -- the starting position (JSON), or NULL for the game's start
    status TEXT NOT NULL,       -- playing | finished | abandoned
    outcome TEXT,
    started TEXT NOT NULL,
    ended TEXT
);
CREATE TABLE IF NOT EXISTS entries (
    game_id INTEGER NOT NULL REFERENCES games(id),
    number INTEGER NOT NULL,
    action TEXT NOT NULL,       -- move | takeback
    text TEXT NOT NULL,         -- move notation; for a take-back, how many moves were undone
    at TEXT NOT NULL,
    PRIMARY KEY (game_id, number)
);
"""


class JournalError(Exception):
    """The journal cannot be opened or written; the message says why."""


@dataclass(frozen=True, slots=True)
class GameRow:
    id: int
    game: str
    options: dict[str, object]
    profile: str
    start: dict[str, object] | None
    entries: tuple[tuple[str, str], ...]  # (action, text)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


class Journal:
    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self.db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=FULL")
            self.db.executescript(SCHEMA)
        except (sqlite3.Error, OSError) as exc:
            raise JournalError(f"cannot open the journal {path}: {exc}") from exc

    def close(self) -> None:
        self.db.close()

    def _write(self, sql: str, args: tuple[object, ...]) -> int:
        try:
            cursor = self.db.execute(sql, args)
        except sqlite3.Error as exc:
            raise JournalError(f"cannot write the journal {self.path}: {exc}") from exc
        return int(cursor.lastrowid or 0)

    def unfinished(self) -> GameRow | None:
        row = self.db.execute(
            "SELECT id, game, options, profile, start FROM games WHERE status = 'playing' "
            "ORDER BY id DESC LIMIT 1"
        ).fetchone()
        if row is None:
            return None
        entries = self.db.execute(
            "SELECT action, text FROM entries WHERE game_id = ? ORDER BY number", (row[0],)
        ).fetchall()
        start = json.loads(row[4]) if row[4] else None
        return GameRow(row[0], row[1], json.loads(row[2]), row[3], start, tuple(entries))

    def start_game(self, game: Game, profile: str, start: dict[str, object] | None) -> int:
        return self._write(
            "INSERT INTO games (game, options, profile, start, status, started) "
            "VALUES (?, ?, ?, ?, 'playing', ?)",
            (game.id, json.dumps(dict(game.options), sort_keys=True), profile,
             json.dumps(start) if start else None, _now()),
        )  # fmt: skip

    def _append(self, game_id: int, action: str, text: str) -> None:
        (count,) = self.db.execute(
            "SELECT COUNT(*) FROM entries WHERE game_id = ?", (game_id,)
        ).fetchone()
        self._write(
            "INSERT INTO entries (game_id, number, action, text, at) VALUES (?, ?, ?, ?, ?)",
            (game_id, count + 1, action, text, _now()),
        )

    def record_move(self, game_id: int, text: str) -> None:
        self._append(game_id, "move", text)

    def record_takeback(self, game_id: int, count: int) -> None:
        self._append(game_id, "takeback", str(count))

    def finish(self, game_id: int, outcome: Outcome) -> None:
        self._write(
            "UPDATE games SET status = 'finished', outcome = ?, ended = ? WHERE id = ?",
            (json.dumps(outcome.to_json()), _now(), game_id),
        )

    def abandon(self, game_id: int) -> None:
        self._write(
            "UPDATE games SET status = 'abandoned', ended = ? WHERE id = ?", (_now(), game_id)
        )

    def timed_entries(self, game_id: int) -> list[tuple[str, str, str]]:
        """The game's entries with their times: (action, text, ISO time)."""
        rows = self.db.execute(
            "SELECT action, text, at FROM entries WHERE game_id = ? ORDER BY number", (game_id,)
        ).fetchall()
        return [(str(a), str(t), str(at)) for a, t, at in rows]

    def moves(self, game_id: int) -> list[str]:
        """The game's moves as they stand (take-backs applied), for tools and tests."""
        rows = self.db.execute(
            "SELECT action, text FROM entries WHERE game_id = ? ORDER BY number", (game_id,)
        ).fetchall()
        return fold(rows)


def fold(entries: list[tuple[str, str]] | tuple[tuple[str, str], ...]) -> list[str]:
    """Journal entries as the moves that stand: each take-back removes the moves it undid."""
    moves: list[str] = []
    for action, text in entries:
        if action == "takeback":
            del moves[len(moves) - int(text) :]
        else:
            moves.append(text)
    return moves


def replay(state: State, entries: tuple[tuple[str, str], ...]) -> State:
    """Apply a journal's entries to ``state`` (its starting position)."""
    for action, text in entries:
        if action == "takeback":
            for _ in range(int(text)):
                state.undo()
        else:
            state.apply(state.parse(text))
    return state


def last_turn_layouts(state: State) -> list[dict[Cell, Piece]]:
    """The layouts the turn containing the last move went through: its start, then each
    step's hand action and result. Used to prompt unfinished consequences after a resume."""
    probe = state.copy()
    undone = []
    while probe.plies:
        move = probe.undo()
        undone.append(move)
        if not move.is_decision:
            break
    layouts = [probe.layout()]
    for move in reversed(undone):
        before = probe.layout()
        effect = probe.apply(move, check=False)
        layouts += [effect.footprint().hand_layout(before), probe.layout()]
    return layouts
