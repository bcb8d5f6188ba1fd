"""The game journal: every committed move goes to SQLite (WAL mode, synchronous=FULL) before
the LEDs change, so after a crash or a power cut ``board-referee run`` resumes the unfinished
game exactly where the last acknowledged move left it.

Tables: ``games`` (one row a game: what was played, with which options and board, when, how it
ended), ``entries`` (append-only: each committed move or decision, and take-backs), and
``recordings`` (the flight recorder's chunks, recorder.py: every frame with the board, kept
within the operator's cap, the oldest finished games' first; their moves always stay).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import sqlite3
import sys
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

from engine import Cell, Game, Outcome, Piece, State
from firmware_bridge.referee.recorder import SESSION, RecordingError, pack, unpack

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
    ended TEXT,
    players TEXT                -- JSON: the people playing each side, ["Ann", "Bob"] ("": unnamed)
);
CREATE TABLE IF NOT EXISTS checks (
    id INTEGER PRIMARY KEY,
    board TEXT NOT NULL,        -- the board id its HELLO said
    profile TEXT NOT NULL,
    started TEXT NOT NULL,
    finished TEXT NOT NULL,
    summary TEXT NOT NULL,
    findings TEXT NOT NULL,     -- JSON: [{cell, kind, seen, fix}, ...]
    skipped TEXT NOT NULL       -- JSON: [cell, ...]
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


# Made with the first chunk, not at open: a journal only read (or refused) is left unchanged.
RECORDINGS = """
CREATE TABLE IF NOT EXISTS recordings (
    game_id INTEGER NOT NULL,
    chunk INTEGER NOT NULL,
    data BLOB NOT NULL,         -- the flight recorder's entries: zlib, JSON lines (recorder.py)
    PRIMARY KEY (game_id, chunk)
);
"""
HAS_RECORDINGS = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'recordings'"


class JournalError(Exception):
    """The journal cannot be opened or written; the message says why."""


class DamagedGameError(JournalError):
    """The unfinished game's row cannot be trusted (edited by hand, damaged)."""

    def __init__(self, game_id: int, message: str) -> None:
        super().__init__(message)
        self.game_id = game_id


FRESH = (
    "start fresh with --journal NEW-FILE (the file {path} is left as it is, for a look or a backup)"
)
COLUMNS = {
    "games": {"id", "game", "options", "profile", "start", "status", "outcome", "started"},
    "entries": {"game_id", "number", "action", "text", "at"},
}


def _take_lock(path: Path) -> TextIO:
    """Lock ``<journal>.lock`` for this process; a second referee is told who has it."""
    lock_path = path.with_name(path.name + ".lock")
    try:
        handle = open(lock_path, "a+", encoding="utf-8")  # noqa: SIM115 (held while open)
    except OSError as exc:
        raise JournalError(f"cannot lock the journal {path}: {exc.strerror or exc}") from exc
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.seek(0)
        holder = handle.read().strip() or "another process"
        handle.close()
        raise JournalError(
            f"the journal {path} is in use by another referee ({holder}): give each board its "
            "own --journal, or stop the other one"
        ) from None
    handle.seek(0)
    handle.truncate()
    command = " ".join(Path(sys.argv[0]).name.split() + sys.argv[1:])[:200]
    handle.write(f"pid {os.getpid()}: {command}, since {_now()}\n")
    handle.flush()
    return handle


@dataclass(frozen=True, slots=True)
class GameRow:
    id: int
    game: str
    options: dict[str, object]
    profile: str
    start: dict[str, object] | None
    entries: tuple[tuple[str, str], ...]  # (action, text)
    players: tuple[str, str] = ("", "")  # the people playing each side ("": not named)


MAX_NAME = 40  # characters of a player's name
HINT = "hint"  # an entry noting a hint the engine gave (its text: the move suggested)
# The move the computer chose, noted before it is shown: a referee restarted before it is
# carried out shows the same move. A note, not a move, as a hint is.
PLAN = "plan"
NOTES = (HINT, PLAN)


def people_of(value: object) -> tuple[str, str]:
    """The players' names a games row keeps (JSON text) or a result holds (a list), or two
    blanks for anything else (a journal or a result from before names, a row edited by
    hand)."""
    try:
        value = json.loads(value) if isinstance(value, str) else value
    except json.JSONDecodeError:
        value = None
    if not isinstance(value, list) or len(value) != 2:
        return ("", "")
    first, second = (str(v)[:MAX_NAME] if isinstance(v, str) else "" for v in value)
    return (first, second)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


class Journal:
    """The journal file, opened by one referee at a time (a lock file beside it says which)."""

    def __init__(self, path: Path, *, lock: bool = True, record_cap: int | None = None) -> None:
        self.path = path
        self._lock: TextIO | None = None
        self.record_cap = record_cap  # bytes of flight recordings kept at most (None: all)
        self._recordings_made = False  # the recordings table is there (known once true)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise JournalError(f"cannot open the journal {path}: {exc.strerror or exc}") from exc
        if lock:
            self._lock = _take_lock(path)
        try:
            self.db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
            self._check()
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=FULL")
            self.db.executescript(SCHEMA)
            have = {row[1] for row in self.db.execute("PRAGMA table_info(games)")}
            if "players" not in have:  # a journal from before player names: add the column
                self.db.execute("ALTER TABLE games ADD COLUMN players TEXT")
        except sqlite3.Error as exc:
            self._release()
            raise JournalError(
                f"the journal {path} cannot be read: it is damaged or not a journal ({exc}): "
                f"{FRESH.format(path=path)}"
            ) from exc
        except JournalError:
            self._release()
            raise

    def _check(self) -> None:
        """Refuse a damaged file or another program's database before writing anything."""
        path = self.path
        rows = self.db.execute("PRAGMA quick_check").fetchall()
        if rows != [("ok",)]:
            first = rows[0][0] if rows else "no answer"
            raise JournalError(f"the journal {path} is damaged ({first}): "
                               f"{FRESH.format(path=path)}")  # fmt: skip
        tables = {name for (name,) in self.db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")}  # fmt: skip
        if tables and not {"games", "entries"} <= tables:
            listed = ", ".join(sorted(tables)[:4])
            raise JournalError(
                f"{path} is another program's SQLite database (tables: {listed}), not a game "
                f"journal: {FRESH.format(path=path)}"
            )
        for table, columns in COLUMNS.items():
            if table in tables:
                have = {row[1] for row in self.db.execute(f"PRAGMA table_info({table})")}
                if not columns <= have:
                    raise JournalError(
                        f"the journal {path} has a {table} table of another shape (no "
                        f"{', '.join(sorted(columns - have))}): {FRESH.format(path=path)}"
                    )

    def close(self) -> None:
        self.db.close()
        self._release()

    def _release(self) -> None:
        if self._lock is not None:
            self._lock.close()  # closing the file drops the lock
            self._lock = None

    def _write(self, sql: str, args: tuple[object, ...]) -> int:
        try:
            cursor = self.db.execute(sql, args)
        except sqlite3.Error as exc:
            raise JournalError(f"cannot write the journal {self.path}: {exc}") from exc
        return int(cursor.lastrowid or 0)

    def _read(self, sql: str, args: tuple[object, ...] = ()) -> list[tuple[Any, ...]]:
        try:
            return self.db.execute(sql, args).fetchall()
        except sqlite3.Error as exc:
            raise JournalError(
                f"the journal {self.path} cannot be read ({exc}): {FRESH.format(path=self.path)}"
            ) from exc

    def unfinished(self) -> GameRow | None:
        """The unfinished game, checked: a row edited by hand raises ``DamagedGameError``."""
        rows = self._read(
            "SELECT id, game, options, profile, start, players FROM games WHERE status = 'playing' "
            "ORDER BY id DESC LIMIT 1"
        )
        return self._checked(rows[0]) if rows else None

    def last_finished(self) -> GameRow | None:
        """The newest game, if it is finished (the result a restarted referee still shows)."""
        rows = self._read(
            "SELECT id, game, options, profile, start, players, status FROM games "
            "ORDER BY id DESC LIMIT 1"
        )
        if not rows or rows[0][6] != "finished":
            return None
        return self._checked(rows[0][:6])

    def _checked(self, row: tuple[Any, ...]) -> GameRow:
        entries = self._read(
            "SELECT action, text FROM entries WHERE game_id = ? ORDER BY number", (row[0],)
        )
        game_id = int(row[0])

        def damaged(what: str) -> DamagedGameError:
            return DamagedGameError(
                game_id,
                f"game {game_id} in the journal {self.path} is damaged ({what}): start the next "
                "game with --new (the damaged one is kept, marked abandoned), or use another "
                "--journal",
            )

        try:
            options = json.loads(row[2])
            start = json.loads(row[4]) if row[4] else None
        except (TypeError, json.JSONDecodeError) as exc:
            raise damaged(f"its options or start position are not JSON: {exc}") from exc
        if not isinstance(options, dict) or not (start is None or isinstance(start, dict)):
            raise damaged("its options or start position are not JSON objects")
        if not isinstance(row[1], str) or not isinstance(row[3], str):
            raise damaged("its game or board is not text")
        standing = 0
        for action, text in entries:
            if action == "move" and isinstance(text, str) and text.strip():
                standing += 1
            elif action == "takeback" and str(text).isdigit() and 0 < int(text) <= standing:
                standing -= int(text)
            elif action in NOTES and isinstance(text, str):
                pass  # a note, not a move
            else:
                raise damaged(f"an entry {action!r} {text!r} is not a move or a take-back")
        return GameRow(game_id, row[1], options, row[3], start,
                       tuple((str(a), str(t)) for a, t in entries),
                       people_of(row[5]))  # fmt: skip

    def start_game(
        self,
        game: Game,
        profile: str,
        start: dict[str, object] | None,
        players: tuple[str, str] = ("", ""),
    ) -> int:
        return self._write(
            "INSERT INTO games (game, options, profile, start, status, started, players) "
            "VALUES (?, ?, ?, ?, 'playing', ?, ?)",
            (game.id, json.dumps(dict(game.options), sort_keys=True), profile,
             json.dumps(start) if start else None, _now(), json.dumps(list(players))),
        )  # fmt: skip

    def _append(self, game_id: int, action: str, text: str) -> None:
        ((count,),) = self._read("SELECT COUNT(*) FROM entries WHERE game_id = ?", (game_id,))
        self._write(
            "INSERT INTO entries (game_id, number, action, text, at) VALUES (?, ?, ?, ?, ?)",
            (game_id, count + 1, action, text, _now()),
        )

    def record_move(self, game_id: int, text: str, outcome: Outcome | None = None) -> None:
        """A move, and the end of the game when the move ends it, in one transaction: a power
        cut never leaves the winning move without the result (nor a result before its move)."""
        if outcome is None:
            self._append(game_id, "move", text)
            return
        self._write("BEGIN IMMEDIATE", ())
        try:
            self._append(game_id, "move", text)
            self.finish(game_id, outcome)
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                self.db.execute("ROLLBACK")
            raise
        self._write("COMMIT", ())

    def record_hint(self, game_id: int, text: str) -> None:
        """A hint the engine gave the player to move (its move, suggested, not played): a
        note in the game's record, never a move (``fold`` and ``replay`` pass over it)."""
        self._append(game_id, HINT, text)

    def record_plan(self, game_id: int, text: str) -> None:
        """The move the computer chose, before it is shown (``PLAN``)."""
        self._append(game_id, PLAN, text)

    def planned(self, game_id: int) -> str:
        """The computer's chosen move still to be carried out: a ``PLAN`` entry with nothing
        after it ("" when there is none)."""
        rows = self._read("SELECT action, text FROM entries WHERE game_id = ? "
                          "ORDER BY number DESC LIMIT 1", (game_id,))  # fmt: skip
        return str(rows[0][1]) if rows and rows[0][0] == PLAN else ""

    def started(self, game_id: int) -> str:
        """When game ``game_id`` was started (set up), ISO 8601 UTC; "" if unknown."""
        rows = self._read("SELECT started FROM games WHERE id = ?", (game_id,))
        return str(rows[0][0]) if rows and rows[0][0] else ""

    def record_takeback(self, game_id: int, count: int, *, reopen: bool = False) -> None:
        """A take-back of ``count`` entries; ``reopen``: it took back the end of the game (the
        winning move, a resignation), so the game is played on and its result is withdrawn,
        in the same transaction (never a reopened game that still shows its result)."""
        if not reopen:
            self._append(game_id, "takeback", str(count))
            return
        self._write("BEGIN IMMEDIATE", ())
        try:
            self._append(game_id, "takeback", str(count))
            self._write("UPDATE games SET status = 'playing', outcome = NULL, ended = NULL "
                        "WHERE id = ?", (game_id,))  # fmt: skip
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                self.db.execute("ROLLBACK")
            raise
        self._write("COMMIT", ())

    def finish(self, game_id: int, outcome: Outcome) -> None:
        self._write(
            "UPDATE games SET status = 'finished', outcome = ?, ended = ? WHERE id = ?",
            (json.dumps(outcome.to_json()), _now(), game_id),
        )

    def discard(self, game_id: int) -> None:
        """Forget a game that has no entries (started, but nothing was ever played)."""
        self._write("DELETE FROM games WHERE id = ? AND NOT EXISTS "
                    "(SELECT 1 FROM entries WHERE game_id = ?)", (game_id, game_id))  # fmt: skip

    def abandon(self, game_id: int) -> None:
        self._write(
            "UPDATE games SET status = 'abandoned', ended = ? WHERE id = ?", (_now(), game_id)
        )

    def record_check(self, board: str, profile: str, started: str, summary: str, *,
                     findings: list[dict[str, str]], skipped: list[str]) -> int:  # fmt: skip
        """A board check's report (board-referee check, or the kiosk's)."""
        return self._write(
            "INSERT INTO checks (board, profile, started, finished, summary, findings, skipped) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (board, profile, started, _now(), summary, json.dumps(findings), json.dumps(skipped)),
        )

    def checks(self) -> list[dict[str, object]]:
        """Every board check kept, newest last."""
        rows = self._read("SELECT id, board, profile, started, finished, summary, findings, "
                          "skipped FROM checks ORDER BY id")  # fmt: skip
        return [{"id": r[0], "board": r[1], "profile": r[2], "started": r[3], "finished": r[4],
                 "summary": r[5], "findings": json.loads(r[6]), "skipped": json.loads(r[7])}
                for r in rows]  # fmt: skip

    def seed(self, game_id: int, game: Game, profile: str, info: dict[str, Any]) -> None:
        """A fresh journal as a recorded run found its own (a replay's, replay.py; ``info``: the
        run's session entry): the game it went on with, at its number, with its moves so far;
        or, for a game the run made, nothing but that number's place."""
        if info.get("created"):
            if game_id > 1:  # the game the run makes gets the number it got then
                self._write("INSERT INTO games (id, game, options, profile, status, started) "
                            "VALUES (?, 'none', '{}', 'none', 'abandoned', '')",
                            (game_id - 1,))  # fmt: skip
            return
        outcome = info.get("outcome")
        start = info.get("start")
        self._write(
            "INSERT INTO games (id, game, options, profile, start, status, outcome, started, "
            "players) VALUES (?, ?, ?, ?, ?, ?, ?, '', ?)",
            (game_id, game.id, json.dumps(dict(game.options), sort_keys=True), profile,
             json.dumps(start) if start else None, "finished" if outcome else "playing",
             json.dumps(outcome) if outcome else None,
             json.dumps(info.get("people") or ["", ""])),
        )  # fmt: skip
        for number, (action, text) in enumerate(info.get("entries") or []):
            self._write("INSERT INTO entries (game_id, number, action, text, at) VALUES "
                        "(?, ?, ?, ?, '')", (game_id, number, action, text))  # fmt: skip

    def record_chunk(self, game_id: int, entries: list[tuple[Any, ...]]) -> None:
        """One chunk of a game's flight recording; then, with a cap set, the oldest finished
        games' recordings go (whole games, never their moves) until the rest fit."""
        data = pack(entries)
        if not self._has_recordings():
            self.db.executescript(RECORDINGS)
            self._recordings_made = True
        self._write(
            "INSERT INTO recordings (game_id, chunk, data) VALUES (?, (SELECT COALESCE("
            "MAX(chunk), -1) + 1 FROM recordings WHERE game_id = ?), ?)",
            (game_id, game_id, data),
        )
        if self.record_cap is not None:
            self._trim_recordings(game_id, self.record_cap)

    def _has_recordings(self) -> bool:
        """Is there a recordings table (made with the first chunk; asked once it is)?"""
        if not self._recordings_made:
            self._recordings_made = bool(self._read(HAS_RECORDINGS))
        return self._recordings_made

    def _trim_recordings(self, keep: int, cap: int) -> None:
        total = self._read("SELECT COALESCE(SUM(LENGTH(data)), 0) FROM recordings")[0][0]
        if total <= cap:
            return
        sizes = self._read(
            "SELECT r.game_id, SUM(LENGTH(r.data)) FROM recordings r JOIN games g ON "
            "g.id = r.game_id WHERE g.status != 'playing' AND r.game_id != ? "
            "GROUP BY r.game_id ORDER BY r.game_id", (keep,))  # fmt: skip
        for game_id, size in sizes:
            if total <= cap:
                break
            self._write("DELETE FROM recordings WHERE game_id = ?", (game_id,))
            total -= int(size)

    def recorded_games(self) -> list[int]:
        """The games that have a recording, oldest first."""
        if not self._has_recordings():
            return []
        return [int(g) for (g,) in self._read(
            "SELECT DISTINCT game_id FROM recordings ORDER BY game_id")]  # fmt: skip

    def recording_for(self, game_id: int) -> list[tuple[Any, ...]]:
        """What a replay of game ``game_id`` needs: its recording, from the start of the run
        (session) its first entries belong to, which may have begun in an earlier game.
        RecordingError names the first entry that cannot be read; ``readable`` on it holds
        every entry before it."""
        return list(self.game_recording(game_id).entries)

    def game_recording(self, game_id: int) -> GameRecording:
        """``recording_for`` with where the game's own entries begin (``own``: those before
        are an earlier game's of the same run, which a replay needs to get there)."""
        if not self._has_recordings():
            return GameRecording((), 0, None)
        found = _recording(self._read, game_id)
        if found.problem is not None:
            found.problem.readable = list(found.entries)  # type: ignore[attr-defined]
            found.problem.own = found.own  # type: ignore[attr-defined]
            raise found.problem
        return found

    def timed_entries(self, game_id: int) -> list[tuple[str, str, str]]:
        """The game's entries with their times: (action, text, ISO time)."""
        rows = self._read(
            "SELECT action, text, at FROM entries WHERE game_id = ? ORDER BY number", (game_id,)
        )
        return [(str(a), str(t), str(at)) for a, t, at in rows]

    def moves(self, game_id: int) -> list[str]:
        """The game's moves as they stand (take-backs applied), for tools and tests."""
        rows = self._read(
            "SELECT action, text FROM entries WHERE game_id = ? ORDER BY number", (game_id,)
        )
        return fold([(str(a), str(t)) for a, t in rows])


def fold(entries: list[tuple[str, str]] | tuple[tuple[str, str], ...]) -> list[str]:
    """Journal entries as the moves that stand: each take-back removes the moves it undid."""
    moves: list[str] = []
    for action, text in entries:
        if action == "takeback":
            del moves[len(moves) - int(text) :]
        elif action not in NOTES:
            moves.append(text)
    return moves


def replay(state: State, entries: tuple[tuple[str, str], ...]) -> State:
    """Apply a journal's entries to ``state`` (its starting position)."""
    for action, text in entries:
        if action == "takeback":
            for _ in range(int(text)):
                state.undo()
        elif action not in NOTES:
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


@dataclass(frozen=True, slots=True)
class GameRecord:
    """One game as the journal holds it, for ``board-referee records``."""

    journal: str
    id: int
    game: str
    options: dict[str, object]
    profile: str
    start: dict[str, object] | None
    status: str  # playing | finished | abandoned
    outcome: dict[str, object] | None
    started: str
    ended: str | None
    moves: tuple[tuple[str, str], ...]  # (move, ISO time), take-backs applied
    players: tuple[str, str] = ("", "")  # the people playing each side ("": not named)
    # Hints the engine gave, as (the number of the move it was asked before, the move it
    # suggested); a hint before a move taken back stays noted.
    hints: tuple[tuple[int, str], ...] = ()

    def to_json(self) -> dict[str, object]:
        return {
            "journal": self.journal, "id": self.id, "game": self.game, "options": self.options,
            "board": self.profile, "start": self.start, "status": self.status,
            "outcome": self.outcome, "started": self.started, "ended": self.ended,
            "moves": [{"move": m, "at": at} for m, at in self.moves],
            "players": list(self.players),
            "hints": [{"before_move": n, "move": m} for n, m in self.hints],
        }  # fmt: skip


@dataclass(frozen=True)
class GameRecording:
    """A game's flight recording as read: ``entries`` from the start of the session its first
    entry belongs to; ``own`` the index of the first entry of the game's own chunks (those
    before it are an earlier game's, in the same run); ``problem`` what stopped the reading."""

    entries: tuple[tuple[Any, ...], ...]
    own: int
    problem: RecordingError | None


def _recording(
    read: Callable[[str, tuple[object, ...]], list[tuple[Any, ...]]], game_id: int
) -> GameRecording:
    rows = read("SELECT rowid, game_id, chunk FROM recordings ORDER BY rowid", ())
    mine = [k for k, (_, g, _) in enumerate(rows) if g == game_id]
    if not mine:
        return GameRecording((), 0, None)

    def chunk(row: tuple[Any, ...]) -> tuple[list[tuple[Any, ...]], RecordingError | None]:
        rowid, of_game, number = row
        data = read("SELECT data FROM recordings WHERE rowid = ?", (rowid,))[0][0]
        entries: list[tuple[Any, ...]] = []
        try:
            for entry in unpack(bytes(data), f"game {of_game}'s recording, chunk {number}"):
                entries.append(entry)
        except RecordingError as exc:
            return entries, exc
        return entries, None

    # Each chunk read once, walking back and then forward.
    done: dict[int, tuple[list[tuple[Any, ...]], RecordingError | None]] = {}
    start = mine[0]
    while True:  # back to the chunk where the session began
        done[start] = chunk(rows[start])
        if start == 0 or any(entry[0] == SESSION for entry in done[start][0]):
            break
        start -= 1
    found: list[tuple[Any, ...]] = []
    own = 0
    for k in range(start, mine[-1] + 1):
        entries, problem = done.pop(k) if k in done else chunk(rows[k])
        if k == start:
            begins = [i for i, e in enumerate(entries) if e[0] == SESSION]
            entries = entries[begins[-1] :] if begins else entries
        if k == mine[0]:
            own = len(found)
        found.extend(entries)
        if problem is not None:
            return GameRecording(tuple(found), own, problem)
    return GameRecording(tuple(found), own, None)


def read_recording(path: Path, game_id: int) -> GameRecording:
    """Game ``game_id``'s recording from the journal at ``path``, read without locking or
    changing it (a referee may be writing it meanwhile): for the kiosk's timeline."""
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise JournalError(f"cannot read the journal {path}: {exc}") from exc

    def read(sql: str, args: tuple[object, ...]) -> list[tuple[Any, ...]]:
        return db.execute(sql, args).fetchall()

    try:
        made = read(HAS_RECORDINGS, ())
        return _recording(read, game_id) if made else GameRecording((), 0, None)
    except sqlite3.Error as exc:
        raise JournalError(f"the journal {path} cannot be read: {exc}") from exc
    finally:
        db.close()


def read_records(path: Path, game_id: int | None = None) -> list[GameRecord]:
    """Every game in the journal at ``path`` (or only game ``game_id``: one game read, not the
    journal), read without locking or changing it (a referee may be writing it meanwhile)."""
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise JournalError(f"cannot read the journal {path}: {exc}") from exc
    only = "" if game_id is None else " WHERE id = ?"
    only_entries = "" if game_id is None else " WHERE game_id = ?"
    given = () if game_id is None else (game_id,)
    try:
        columns = {row[1] for row in db.execute("PRAGMA table_info(games)")}
        people = "players" if "players" in columns else "NULL"  # a journal from before names
        games = db.execute(
            f"SELECT id, game, options, profile, start, status, outcome, started, ended, {people} "
            f"FROM games{only} ORDER BY id",
            given,
        ).fetchall()
        entries = db.execute(
            f"SELECT game_id, action, text, at FROM entries{only_entries} ORDER BY game_id, number",
            given,
        ).fetchall()
    except sqlite3.Error as exc:
        raise JournalError(
            f"the journal {path} cannot be read: it is damaged or not a journal ({exc})"
        ) from exc
    finally:
        db.close()
    by_game: dict[int, list[tuple[str, str, str]]] = {}
    for of_game, action, text, at in entries:
        by_game.setdefault(int(of_game), []).append((str(action), str(text), str(at)))
    records = []
    for gid, game, options, profile, start, status, outcome, started, ended, names in games:
        moves: list[tuple[str, str]] = []
        hints: list[tuple[int, str]] = []
        for action, text, at in by_game.get(int(gid), []):
            if action == "takeback" and text.isdigit():
                del moves[len(moves) - int(text) :]
            elif action == "move":
                moves.append((text, at))
            elif action == HINT:
                hints.append((len(moves) + 1, text))
        try:
            record = GameRecord(
                str(path), int(gid), str(game), json.loads(options), str(profile),
                json.loads(start) if start else None, str(status),
                json.loads(outcome) if outcome else None, str(started),
                None if ended is None else str(ended), tuple(moves), people_of(names),
                tuple(hints),
            )  # fmt: skip
        except (TypeError, json.JSONDecodeError):
            continue  # a row edited by hand: left out of the records, never guessed at
        records.append(record)
    return records
