"""The flight recorder: everything the referee and its board said to each other, and when, kept
in the journal beside the moves, so that a session can be replayed (``board-referee replay``)
and a disputed move shown from the record (docs/recorder.md).

A recording is a list of entries in the order the main loop met them. Each turn of the loop is
one entry, with the loop's time (the link's monotonic clock, as the daemon's ``clock`` gives
it) and what the turn handled: a frame from the board, a damaged frame, the port opening or
closing, a face's command, or nothing (a timer's turn). Between them come what the turn did:
every frame sent to the board, each try to open the port and how it went, and the referee's
decisions (a move accepted, a take-back, a result, the words shown). A session starts with the
game's number and how many moves it had; the wall clock is noted once a minute.

Entries are JSON arrays, one a line, packed in zlib-compressed chunks of the journal's
``recordings`` table: a chunk is written every CHUNK_SECONDS, at each move, and when the session
ends. Times are written as Python writes floats (``repr``), so a replay compares them exactly as
the referee did.
"""

from __future__ import annotations

import json
import time
import zlib
from collections.abc import Iterable, Iterator
from typing import Any

from firmware_bridge.link.protocol import Message, encode_frame
from firmware_bridge.link.serial_link import BadFrame, Connected, Disconnected, Received

FORMAT = 1  # the recording's format; a newer one is refused by name
# At most this long between two chunks written (besides one at each move and at the end): each
# is a commit of the journal, and an SD card took 4 pages of it every 10 s for a board left
# alone (7.5 MB an hour a referee, measured on the booted Pi by make pi-check). A power cut
# loses at most this much of the frames between two moves, never a move.
CHUNK_SECONDS = 60.0
# ... and while nothing happens but the loop's timers and the link's pings (a board left alone
# between games), this long: a quiet hour then costs six commits, not sixty.
QUIET_CHUNK_SECONDS = 600.0
CHUNK_ENTRIES = 2000  # ... or this many entries
WALL_EVERY = 60.0  # seconds of loop time between two wall-clock notes

# Entry kinds. A turn: (kind, now, ...); the rest belong to the turn before them.
TURN = "t"  # a timer's turn: (t, now)
RECEIVED = "i"  # (i, now, at, frame hex): a frame from the board, decoded at ``at``
DAMAGED = "b"  # (b, now, reason, bytes)
CONNECTED = "c"  # (c, now, description)
DISCONNECTED = "d"  # (d, now, reason)
COMMAND = "k"  # (k, now, command as JSON)
CONNECT = "C"  # (C, now, "ok" | "port: why" | "link: why"): a try to open the port
SENT = "o"  # (o, frame hex)
UNSENT = "x"  # (x, why): a frame the port would not take (the link is dropped)
MOVE = "m"  # (m, move text)
TAKEBACK = "u"  # (u, moves taken back)
RESULT = "r"  # (r, the result in words)
SHOWN = "s"  # (s, the words the players are shown)
SESSION = "S"  # (S, now, {"format", "game", "plies", "version", "wall", ...}): a run starts
WALL = "w"  # (w, now, ISO wall time)
END = "E"  # (E, now): the session ended as it should (none: cut short, a power cut)
TURNS = frozenset({TURN, RECEIVED, DAMAGED, CONNECTED, DISCONNECTED, COMMAND, CONNECT})
DECISIONS = frozenset({SENT, UNSENT, MOVE, TAKEBACK, RESULT, SHOWN})
# What makes a chunk worth writing within CHUNK_SECONDS: something happened (the words the
# players read changed, a command, the cable); frames alone are a board's pings and scans.
EVENTFUL = frozenset({DAMAGED, CONNECTED, DISCONNECTED, COMMAND, UNSENT, MOVE, TAKEBACK, RESULT,
                      SHOWN, SESSION})  # fmt: skip


def software_version() -> str:
    """This referee's version, as a recording names the one that made it."""
    from firmware_bridge import __version__

    return __version__


class RecordingError(Exception):
    """A recording that cannot be read; the message names the first bad entry."""


def pack(entries: Iterable[tuple[Any, ...]]) -> bytes:
    """Entries as a chunk's bytes: JSON lines, compressed."""
    text = "".join(json.dumps(list(entry), separators=(",", ":")) + "\n" for entry in entries)
    return zlib.compress(text.encode(), 6)


def unpack(data: bytes, where: str) -> Iterator[tuple[Any, ...]]:
    """A chunk's entries; RecordingError names the first that cannot be read (``where``: the
    chunk's name in the message). What came before it is given."""
    stream = zlib.decompressobj()
    try:
        text = stream.decompress(data).decode("utf-8", "replace")
    except zlib.error as exc:
        raise RecordingError(f"{where} is damaged ({exc}): nothing of it can be read") from exc
    lines = text.split("\n")
    if not stream.eof:  # cut short (a disk full, a copy broken off): its whole lines are read
        lines = lines[:-1]
    for number, line in enumerate(lines, start=1):
        if not line:
            continue
        try:
            entry = json.loads(line)
        except ValueError:
            raise RecordingError(f"{where}, entry {number}: not an entry ({line[:60]!r})") from None
        if not isinstance(entry, list) or not entry or not isinstance(entry[0], str):
            raise RecordingError(f"{where}, entry {number}: not an entry ({line[:60]!r})")
        yield tuple(entry)
    if not stream.eof:
        raise RecordingError(f"{where} is cut short after entry {len(lines)}: what follows "
                             "it is lost")  # fmt: skip


def wire(message: Message, seq: int) -> str:
    """A frame as it goes on the wire (COBS, CRC; the delimiter left off), in hex."""
    return encode_frame(message, seq)[:-1].hex()


def turn_entry(event: object, now: float) -> tuple[Any, ...]:
    """The entry of a loop turn that handled ``event`` (None: a timer's turn)."""
    if event is None:
        return (TURN, now)
    if isinstance(event, Received):
        return (RECEIVED, now, event.at, wire(event.message, event.seq))
    if isinstance(event, BadFrame):
        return (DAMAGED, now, event.reason, event.size)
    if isinstance(event, Connected):
        return (CONNECTED, now, event.description)
    if isinstance(event, Disconnected):
        return (DISCONNECTED, now, event.reason)
    command: dict[str, Any] = {"action": getattr(event, "action", "?")}
    for name in ("button", "game", "profile", "source", "what", "cells", "players"):
        value = getattr(event, name, None)
        if value is None:
            continue
        if name == "button":
            value = value.name
        elif name == "game":
            command["options"] = {k: str(v) for k, v in value.options.items()}
            value = value.id
        elif name == "profile":
            value = value.id
        command[name] = list(value) if isinstance(value, tuple) else value
    return (COMMAND, now, command)


def _wall() -> str:
    """The wall clock, as a recording notes it."""
    return time.strftime("%Y-%m-%dT%H:%M:%S%z")


class Recorder:
    """Collects a session's entries and hands them to ``write`` (the journal) in chunks."""

    def __init__(self, write: Any, version: str) -> None:
        self.write = write  # write(game_id, entries): stores one chunk
        self.version = version
        self.game_id: int | None = None
        self.pending: list[tuple[Any, ...]] = []
        self.flushed_at = 0.0
        self.wall_at = -WALL_EVERY
        self.eventful = False  # anything but timers and frames since the last chunk

    def session(self, game_id: int, now: float, info: dict[str, Any]) -> None:
        """A session (a run of the referee) starts, in game ``game_id``; ``info``: what a
        replay needs to start as it did."""
        self.flush()
        self.game_id = game_id
        self.flushed_at = now
        said = {"format": FORMAT, "game": game_id, "version": self.version, "wall": _wall()}
        self.pending.append((SESSION, now, {**said, **info}))
        self.eventful = True
        self.wall_at = now

    def switch(self, game_id: int) -> None:
        """The referee moved on to game ``game_id``: what is pending belongs to the last."""
        self.flush()
        self.game_id = game_id

    def add(self, entry: tuple[Any, ...]) -> None:
        if self.game_id is None:
            return
        self.pending.append(entry)
        self.eventful = self.eventful or entry[0] in EVENTFUL

    def turn(self, entry: tuple[Any, ...], now: float) -> None:
        """A turn of the loop; chunks go out every CHUNK_SECONDS or CHUNK_ENTRIES."""
        if self.game_id is None:
            return
        if now - self.wall_at >= WALL_EVERY:
            self.wall_at = now
            self.pending.append((WALL, now, _wall()))
        self.pending.append(entry)
        self.eventful = self.eventful or entry[0] in EVENTFUL
        every = CHUNK_SECONDS if self.eventful else QUIET_CHUNK_SECONDS
        if now - self.flushed_at >= every or len(self.pending) >= CHUNK_ENTRIES:
            self.flushed_at = now
            self.flush()

    def end(self, now: float) -> None:
        """The session ends as it should: said, and everything written."""
        self.add((END, now))
        self.flush()

    def flush(self) -> None:
        if self.game_id is not None and self.pending:
            entries, self.pending = self.pending, []
            self.eventful = False
            self.write(self.game_id, entries)


__all__ = [
    "CHUNK_SECONDS",
    "COMMAND",
    "CONNECT",
    "CONNECTED",
    "DAMAGED",
    "DECISIONS",
    "DISCONNECTED",
    "FORMAT",
    "MOVE",
    "QUIET_CHUNK_SECONDS",
    "RECEIVED",
    "RESULT",
    "SENT",
    "SESSION",
    "SHOWN",
    "TAKEBACK",
    "TURN",
    "TURNS",
    "WALL",
    "Recorder",
    "RecordingError",
    "pack",
    "turn_entry",
    "unpack",
]
