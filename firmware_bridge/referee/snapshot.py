"""Immutable snapshots of what the referee knows, for the faces (the kiosk page, later MQTT and
the club view).

The daemon's main loop is the one owner of game state. After each change it builds a
``Snapshot`` (plain values only, nothing that points back into the reconciler or the engine)
and hands it to its listeners, python-can Notifier style; a face turns it into JSON with
``to_json`` in its own thread. The board's picture (``BoardPicture``) depends only on the game
and is built once per game, with its JSON text cached, so a snapshot stays cheap to build.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from engine import Game
from engine.moves import NO_CELL
from firmware_bridge.referee.check import CheckView
from firmware_bridge.referee.clocks import ClocksView
from firmware_bridge.referee.health import SensorWarning

SCHEMA_VERSION = 1


@dataclass(frozen=True, slots=True)
class CellPicture:
    name: str
    x: float
    y: float  # north-up, in units of one cell
    shape: str  # square | diamond | hex | point
    zone: str | None  # a zone outside the grid (reserve, burrow), or None
    region: str | None  # the terrain the cell is (mountains, caves: each in its own shade)
    blocked: bool


@dataclass(frozen=True, slots=True)
class BoardPicture:
    """Everything needed to draw a game's board, from the engine's geometry alone."""

    key: str  # game id and options: a page redraws the board when it changes
    cells: tuple[CellPicture, ...]
    links: tuple[tuple[int, int], ...]  # lines to draw between spots (custom boards, zones)
    # The key: each piece kind in play (symbol, name, what it does) and each terrain
    # (region or "blocked", its glyph, what it is), in the order the config gives them.
    kinds: tuple[tuple[str, str, str], ...] = ()
    terrain: tuple[tuple[str, str, str], ...] = ()
    text: str = field(default="", compare=False)  # the cached JSON form

    def to_json(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "cells": [
                {
                    "name": c.name,
                    "x": round(c.x, 4),
                    "y": round(c.y, 4),
                    "shape": c.shape,
                    "zone": c.zone,
                    "region": c.region,
                    "blocked": c.blocked,
                }
                for c in self.cells
            ],
            "links": [list(pair) for pair in self.links],
            "kinds": [{"symbol": s, "name": n, "doc": d} for s, n, d in self.kinds],
            "terrain": [{"region": r, "glyph": g, "words": w} for r, g, w in self.terrain],
        }


def game_key(game: Game) -> str:
    options = ",".join(f"{k}={v}" for k, v in sorted(game.options.items()))
    return f"{game.id}?{options}"


def board_picture(game: Game) -> BoardPicture:
    return _picture(game_key(game), game)


@lru_cache(maxsize=64)
def _picture(key: str, game: Game) -> BoardPicture:
    board = game.board
    cells = []
    for cell, name in enumerate(board.names):
        zone = board.zone_of.get(cell)
        region = next((r for r in board.terrain if cell in board.region(r)), None)
        x, y = board.coords[cell]
        cells.append(
            CellPicture(
                name,
                x,
                y,
                "point" if zone or board.shape == "point" else board.shape,
                zone,
                region,
                cell in board.blocked,
            )
        )
    links: set[tuple[int, int]] = set()
    for cell in range(board.size):
        # Spots have no edges to touch, so their adjacency is drawn as lines.
        if cells[cell].shape != "point":
            continue
        for table in board.step.values():
            other = table[cell]
            if other != NO_CELL:
                links.add((min(cell, other), max(cell, other)))
    kinds = tuple((game.pieces[k].symbol, k, game.pieces[k].doc) for k in game.kinds_in_play())
    terrain = tuple((r, board.glyphs.get(r, ""), words) for r, words in board.terrain.items())
    picture = BoardPicture(key, tuple(cells), tuple(sorted(links)), kinds, terrain)
    text = json.dumps(picture.to_json(), separators=(",", ":"))
    return BoardPicture(key, picture.cells, picture.links, kinds, terrain, text)


@dataclass(frozen=True, slots=True)
class PieceView:
    cell: str
    kind: str
    symbol: str
    owner: int  # 1 or 2
    state: int | None  # a die's strength, a score


@dataclass(frozen=True, slots=True)
class MoveView:
    number: int
    player: str  # the side
    text: str  # the notation (the journal's, the record's)
    at: str  # ISO 8601 wall time, UTC
    events: tuple[str, ...]  # what it made happen, its result last (in words)
    words: str = ""  # the move as a hand made it: "goat on e1", "stone c1 to c4"
    who: str = ""  # the person who made it, when named, else the side


@dataclass(frozen=True, slots=True)
class Connection:
    state: str  # connected | connecting | waiting | wrong-board | emulator
    port: str
    message: str  # in words, for the page
    board_id: str = ""
    firmware: str = ""
    last_frame: float | None = None  # wall time (seconds since the epoch) of the last frame
    faults: tuple[tuple[float, int, str], ...] = ()  # (wall time, code, text), latest last


@dataclass(frozen=True, slots=True)
class Snapshot:
    """The referee's view after one change. Equal snapshots mean nothing a face shows changed
    (``serial`` and ``at`` are left out of the comparison)."""

    serial: int = field(compare=False)
    at: float = field(compare=False)  # wall time it was taken
    game_number: int  # the journal's id of this game
    game_id: str
    title: str
    options: tuple[tuple[str, str], ...]
    players: tuple[str, str]
    people: tuple[str, str]  # who plays each side ("": not named)
    profile: str
    sensing: str
    board: BoardPicture
    pieces: tuple[PieceView, ...]
    lifted: tuple[str, ...]  # cells whose piece the sensors no longer see (in a hand)
    unexpected: tuple[str, ...]  # cells where the sensors see a piece the game does not have
    ghosts: tuple[PieceView, ...]  # of those, the ones whose piece is known (still to remove)
    # ... and the others, as the words name them (a piece put on the wrong cell): their owner,
    # and their kind where it is known (else the symbol "?")
    misplaced: tuple[PieceView, ...]
    signals: tuple[tuple[str, str], ...]  # (cell, signal value) as on the board's LEDs
    last_move: tuple[str, ...]  # cells the last move touched
    status: str  # what must happen now, in one sentence
    notice: str  # the answer to the last button or control
    alert: str  # "illegal" (illegal move or disturbed board shown), "knocked", or ""
    alert_since: float | None  # wall time the alert began
    to_move: int | None  # 1 or 2; None once the game is over
    acting: int | None  # whose hands the status asks for now (1 or 2; None: anyone's)
    phase: str
    deciding: bool
    scores: tuple[int, int] | None
    details: tuple[str, ...]  # game state that is not on the board (reserves, caves)
    captured: tuple[tuple[str, ...], tuple[str, ...]]  # symbols of each player's lost pieces
    outcome: str | None
    winner: int | None
    moves: tuple[MoveView, ...]
    connection: Connection
    check: CheckView | None = None  # the board check, while it runs or until dismissed
    sensor_warnings: tuple[SensorWarning, ...] = ()  # sensors going bad during play
    sensor_brief: str = ""  # all of them in one short line
    next_game: str = ""  # once the game is over: setting the board up starts the next one
    buttons: tuple[str, ...] = ()  # the board's buttons the game can use now (pass, confirm, …)
    lost: tuple[str, str] = ("", "")  # each player's captured pieces, in words
    started: str = ""  # when the game was started (set up), ISO 8601 UTC: its one start time
    clocks: ClocksView | None = None  # the game's clocks, where it has a time control

    def to_json(self) -> dict[str, Any]:
        """The JSON form a face sends (docs/kiosk.md). ``board`` is left out: faces splice in
        ``board.text`` (see ``to_text``)."""
        c = self.connection
        return {
            "schema": SCHEMA_VERSION,
            "serial": self.serial,
            "at": self.at,
            "game_number": self.game_number,
            "game": {
                "id": self.game_id,
                "title": self.title,
                "options": dict(self.options),
                "players": list(self.players),
                "people": list(self.people),
                "profile": self.profile,
                "sensing": self.sensing,
            },
            "pieces": [
                {
                    "cell": p.cell,
                    "kind": p.kind,
                    "symbol": p.symbol,
                    "owner": p.owner,
                    "state": p.state,
                }
                for p in self.pieces
            ],
            "lifted": list(self.lifted),
            "unexpected": list(self.unexpected),
            "ghosts": [
                {
                    "cell": p.cell,
                    "kind": p.kind,
                    "symbol": p.symbol,
                    "owner": p.owner,
                    "state": p.state,
                }
                for p in self.ghosts
            ],
            "clocks": None if self.clocks is None else self.clocks.to_json(),
            "misplaced": [
                {
                    "cell": p.cell,
                    "kind": p.kind,
                    "symbol": p.symbol,
                    "owner": p.owner,
                    "state": p.state,
                }
                for p in self.misplaced
            ],
            "signals": dict(self.signals),
            "last_move": list(self.last_move),
            "status": self.status,
            "notice": self.notice,
            "alert": self.alert or None,
            "alert_since": self.alert_since,
            "to_move": self.to_move,
            "acting": self.acting,
            "phase": self.phase,
            "deciding": self.deciding,
            "scores": None if self.scores is None else list(self.scores),
            "details": list(self.details),
            "captured": [list(self.captured[0]), list(self.captured[1])],
            "outcome": self.outcome,
            "winner": self.winner,
            "moves": [
                {
                    "number": m.number,
                    "player": m.player,
                    "text": m.text,
                    "words": m.words or m.text,
                    "who": m.who or m.player,
                    "at": m.at,
                    "events": list(m.events),
                }
                for m in self.moves
            ],
            "connection": {
                "state": c.state,
                "port": c.port,
                "message": c.message,
                "board_id": c.board_id,
                "firmware": c.firmware,
                "last_frame": c.last_frame,
                "faults": [{"at": at, "code": code, "text": text} for at, code, text in c.faults],
            },
            "check": None if self.check is None else self.check.to_json(),
            "sensor_warnings": [w.to_json() for w in self.sensor_warnings],
            "sensor_brief": self.sensor_brief,
            "next_game": self.next_game,
            "buttons": list(self.buttons),
            "lost": list(self.lost),
            "started": self.started,
        }

    def to_text(self) -> str:
        """Compact JSON with the board's cached picture spliced in."""
        body = json.dumps(self.to_json(), separators=(",", ":"))
        return '{"board":' + self.board.text + "," + body[1:]


__all__ = [
    "BoardPicture",
    "CellPicture",
    "Connection",
    "MoveView",
    "PieceView",
    "Snapshot",
    "board_picture",
    "game_key",
]
