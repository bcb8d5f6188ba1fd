"""A game's timeline, from its flight recording (recorder.py): what an arbiter opens at the board
when a move is disputed (the kiosk's and the club view's Timeline).

The moves in the order they were made (those taken back too, marked), and under each what led
to it since the move before: each sensor the board reported (cell, what it read, when), the
LEDs the referee lit, the words it showed (with its reason for an illegal move), the buttons
and commands, the board's connection. Whatever came after the last move is its own group.
Times are the wall clock, from the recording's notes of it (once a minute) and the loop's own
monotonic time between them, so events within a move are exact relative to each other.

Pure: given the entries, the game and the board profile, it reads nothing and keeps nothing.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine import ConfigError, Game, IllegalMoveError, InvalidMoveError, Player, State
from engine.outcome import player_label
from firmware_bridge import words
from firmware_bridge.link import catalog
from firmware_bridge.link.leds import signals_from_frame
from firmware_bridge.link.profile import UNREADABLE, BoardProfile
from firmware_bridge.link.protocol import (
    LED_OFF,
    ButtonEvent,
    Change,
    Fault,
    FrameError,
    Hello,
    LedDelta,
    LedPattern,
    Leds,
    Reading,
    Scan,
    decode_frame,
)
from firmware_bridge.referee.journal import GameRecord, JournalError, read_recording, read_records
from firmware_bridge.referee.recorder import (
    COMMAND,
    CONNECT,
    CONNECTED,
    DAMAGED,
    DISCONNECTED,
    END,
    MOVE,
    RECEIVED,
    RESULT,
    SENT,
    SESSION,
    SHOWN,
    TAKEBACK,
    UNSENT,
    WALL,
)

AFTERMATH = 60  # events a move's aftermath takes at most (a capture's removal, the lights)
HEAD, TAIL = 40, 160  # events kept of a move's run-up past HEAD + TAIL: the first, the last
Entry = tuple[Any, ...]


@dataclass(frozen=True, slots=True)
class Event:
    """One thing under a move: ``kind`` sensor | scan | leds | shown | board | button |
    takeback | result | referee | gap; ``cell`` where it is about one cell."""

    at: str  # the wall clock, ISO with milliseconds ("" where no note of it was kept)
    kind: str
    text: str
    cell: str = ""

    def to_json(self) -> dict[str, str]:
        data = {"at": self.at, "kind": self.kind, "text": self.text}
        if self.cell:
            data["cell"] = self.cell
        return data


@dataclass(frozen=True, slots=True)
class Step:
    """A move and its run-up (``move`` empty: what came after the last move)."""

    number: int  # the move's number as made (1 = the first), 0 for the tail
    move: str
    player: str
    at: str
    taken_back: bool
    marks: tuple[str, ...]  # what to look at: illegal, taken back, board off, fault, ...
    events: tuple[Event, ...]
    recorded: bool = True  # False: made before the recording began (its moves only)
    words: str = ""  # the move as a hand made it ("stone c1 to c4"), "" once unknown

    def to_json(self) -> dict[str, object]:
        return {
            "number": self.number, "move": self.move, "words": self.words or self.move,
            "player": self.player, "at": self.at,
            "taken_back": self.taken_back, "marks": list(self.marks), "recorded": self.recorded,
            "events": [e.to_json() for e in self.events],
        }  # fmt: skip


@dataclass
class _Open:
    """The step being gathered."""

    events: list[Event]
    marks: list[str]


class _Builder:
    def __init__(self, game: Game, profile: BoardProfile, people: tuple[str, str]) -> None:
        self.game = game
        self.profile = profile
        self.people = people
        self.steps: list[Step] = []
        self.open = _Open([], [])
        self.anchor: tuple[float, dt.datetime] | None = None
        self.leds: tuple[LedPattern, ...] = (LED_OFF,) * len(profile.led_cells)
        self.lit: dict[str, str] = {}
        self.state: State | None = None
        self.emit = False  # False while reading an earlier game's entries of the same run
        self.swapping = False  # a new game on another board: its port goes and comes back
        self.aftermath: _Open | None = None  # what follows a move until the next turn begins

    # -- time --------------------------------------------------------------------------------
    def note_wall(self, now: float, text: object) -> None:
        try:
            wall = dt.datetime.strptime(str(text), "%Y-%m-%dT%H:%M:%S%z")
        except ValueError:
            return
        self.anchor = (now, wall)

    def wall(self, now: float) -> str:
        if self.anchor is None:
            return ""
        at, wall = self.anchor
        return (wall + dt.timedelta(seconds=now - at)).isoformat(timespec="milliseconds")

    # -- gathering ---------------------------------------------------------------------------
    def add(self, now: float, kind: str, text: str, cell: str = "", mark: str = "") -> None:
        if not self.emit:
            return
        event = Event(self.wall(now), kind, text, cell)
        if self.aftermath is not None:  # what the move made happen belongs to the move
            self.aftermath.events.append(event)
            if mark and mark not in self.aftermath.marks:
                self.aftermath.marks.append(mark)
            if (kind == "shown" and _settled(text)) or len(self.aftermath.events) >= AFTERMATH:
                self.settle()
            return
        self.open.events.append(event)
        if mark and mark not in self.open.marks:
            self.open.marks.append(mark)

    def settle(self) -> None:
        """The move's aftermath is over (the next player's turn is awaited): it joins it."""
        after, self.aftermath = self.aftermath, None
        if after is None or not self.steps:
            return
        step = self.steps[-1]
        marks = (*step.marks, *(m for m in after.marks if m not in step.marks))
        events = (*step.events, *_kept(after.events))
        self.steps[-1] = dataclasses.replace(step, marks=marks, events=events)

    def close(self, now: float, move: str) -> None:
        self.settle()
        who, said = self._made(move)
        self.steps.append(Step(len(self.steps) + 1, move, who, self.wall(now), False,
                               tuple(self.open.marks), _kept(self.open.events),
                               words=said))  # fmt: skip
        self.open = _Open([], [])
        self.aftermath = _Open([], [])

    def close_unrecorded(self, move: str) -> None:
        """A move made before the recording began: its text and player, nothing under it."""
        who, said = self._made(move)
        self.steps.append(Step(len(self.steps) + 1, move, who, "", False, (), (), False,
                               words=said))  # fmt: skip

    def _made(self, move: str) -> tuple[str, str]:
        """The move played on the rules' state: who made it and the move, in words ("" once
        unknown)."""
        if self.state is None:
            return "", ""
        try:
            effect = self.state.apply(self.state.parse(move))
        except (IllegalMoveError, InvalidMoveError, ValueError):
            self.state = None  # the recording and the rules part here: no more labels
            return "", ""
        said = words.move_words(self.game, effect.move, effect, self.people)
        return player_label(self.game.player_names, effect.player, self.people), said

    def take_back(self, now: float, count: int) -> None:
        self.add(now, "takeback", f"took back {count} move{'s' if count != 1 else ''}",
                 mark="take-back")  # fmt: skip
        live = [k for k, s in enumerate(self.steps) if not s.taken_back]
        for k in live[len(live) - count :] if count > 0 else []:
            step = self.steps[k]
            marks = (*step.marks, "taken back")
            self.steps[k] = dataclasses.replace(step, taken_back=True, marks=marks)
        if self.state is not None:
            for _ in range(count):
                try:
                    self.state.undo()
                except (IndexError, ValueError):
                    self.state = None
                    break

    # -- what the board said, what the referee sent ------------------------------------------
    def received(self, now: float, frame: str) -> None:
        try:
            _, message = decode_frame(bytes.fromhex(frame))
        except (FrameError, ValueError):
            return
        if isinstance(message, Change):
            for sensor, reading in message.changes:
                cell = self._sensor_cell(sensor)
                self.add(now, "sensor", f"{cell or f'sensor {sensor}'}: {self._reads(reading)}",
                         cell)  # fmt: skip
        elif isinstance(message, Scan):
            pieces = sum(1 for r in message.readings if r.code)
            self.add(now, "scan", f"the board reported every sensor: {pieces} read a piece")
        elif isinstance(message, ButtonEvent) and message.pressed:
            self.add(now, "button", f"{message.button.name.lower()} pressed on the board")
        elif isinstance(message, Fault):
            self.add(now, "board", f"board fault {message.code}: {message.text}", mark="fault")
        elif isinstance(message, Hello):
            self.add(now, "board", f"the board said hello: {message.firmware}")

    def _sensor_cell(self, sensor: int) -> str:
        cells = self.profile.sensor_cells
        cell = cells[sensor] if 0 <= sensor < len(cells) else None
        return "" if cell is None else self.game.board.name(cell)

    def _reads(self, reading: Reading) -> str:
        token = self.profile.reading_token(reading)
        if token is None:
            return "empty"
        if token is True:
            return "a piece"
        if token == UNREADABLE:
            return "a piece it cannot tell"
        if isinstance(token, Player):
            return f"{self.game.player_names[token.index]}'s piece"
        owner: Player = token[0]  # type: ignore[index]
        return f"{self.game.player_names[owner.index]}'s {token[1]}"  # type: ignore[index]

    def sent(self, now: float, frame: str) -> None:
        try:
            _, message = decode_frame(bytes.fromhex(frame))
        except (FrameError, ValueError):
            return
        # What the board shows after it, as the board takes it: a frame of another size, or a
        # delta whose checksum names another frame, leaves it as it was (NAK, then a whole one).
        if isinstance(message, Leds) and len(message.leds) == len(self.leds):
            self.leds = message.leds
        elif isinstance(message, LedDelta):
            self.leds = message.apply(self.leds) or self.leds
        else:
            return
        signals = signals_from_frame(Leds(self.leds), self.profile)
        lit = {self.game.board.name(c): s.value for c, s in signals.items()}
        if lit == self.lit:
            return
        self.lit = lit
        by_signal: dict[str, list[str]] = {}
        for cell, signal in sorted(lit.items()):
            by_signal.setdefault(signal, []).append(cell)
        self.add(now, "leds", words.lights_said(by_signal))


def _settled(words: str) -> bool:
    """Words that say the next turn is awaited (or the game is over): a move's aftermath ends."""
    return words.endswith(" to move") or " to move: " in words or words.startswith("game over")


def _kept(events: list[Event]) -> tuple[Event, ...]:
    """A run-up past HEAD + TAIL events keeps its first and last, saying how many went."""
    if len(events) <= HEAD + TAIL:
        return tuple(events)
    gone = len(events) - HEAD - TAIL
    gap = Event(events[HEAD].at, "gap", f"{gone} more events here, left out of the timeline "
                "(board-referee replay shows them all)")  # fmt: skip
    return (*events[:HEAD], gap, *events[-TAIL:])


def build_timeline(
    entries: Sequence[Entry],
    own: int,
    game: Game,
    profile: BoardProfile,
    *,
    people: tuple[str, str] = ("", ""),
    start: State | None = None,
) -> tuple[list[Step], Step]:
    """The steps (each move made, with its run-up) and the tail (what came since the last
    move) of the game whose own entries begin at ``own`` in ``entries`` (GameRecording)."""
    built = _Builder(game, profile, people)
    built.state = start.copy() if start is not None else game.new_state()
    now = 0.0  # the loop time of the turn the entries that follow belong to
    for index, entry in enumerate(entries):
        if index == own:
            built.emit = True
        kind = entry[0]
        if len(entry) > 1 and kind not in (SENT, UNSENT, MOVE, TAKEBACK, RESULT, SHOWN):
            now = float(entry[1]) if isinstance(entry[1], int | float) else now
        if kind == SESSION and len(entry) > 2 and isinstance(entry[2], dict):
            info = entry[2]
            built.note_wall(now, info.get("wall"))
            built.leds = (LED_OFF,) * len(profile.led_cells)  # a fresh run: the board is dark
            built.lit = {}
            if built.emit and not built.steps:  # moves made before the recording began
                for text in _moves_so_far(info.get("entries")):
                    built.close_unrecorded(text)
            resumed = " and resumed the game" if info.get("resumed") else ""
            built.add(now, "referee", f"the referee started{resumed}")
        elif kind == WALL and len(entry) > 2:
            built.note_wall(now, entry[2])
        elif kind == RECEIVED and len(entry) > 3:
            built.received(now, str(entry[3]))
        elif kind == SENT and len(entry) > 1:
            built.sent(now, str(entry[1]))
        elif kind == DAMAGED:
            built.add(now, "board", f"a damaged frame from the board ({entry[2]})")
        elif kind == CONNECTED:
            built.add(now, "board", "The board connected")
            built.swapping = False
        elif kind == DISCONNECTED and built.swapping:  # a new game's board swapped in: no fault
            built.add(now, "board", "The last game's board went, for the new game's board")
        elif kind == DISCONNECTED:
            built.add(now, "board", "The board disconnected: " + words.port_trouble(entry[2]),
                      mark="board off")  # fmt: skip
        elif kind == CONNECT and len(entry) > 2 and entry[2] != "ok":
            if not built.swapping:  # while a board is swapped, its port comes and goes
                why = str(entry[2]).split(": ", 1)[-1]  # "port: …" / "link: …"
                built.add(
                    now, "board", "Could not open the board's port: " + words.port_trouble(why)
                )
        elif kind == UNSENT:
            built.add(now, "board", "a message to the board could not be sent: "
                      + words.port_trouble(entry[1]))  # fmt: skip
        elif kind == COMMAND and len(entry) > 2 and isinstance(entry[2], dict):
            engine = entry[2].get("action") == "computer"  # the engine's answer, no control
            if entry[2].get("action") == "new_game" and entry[2].get("profile") != profile.id:
                built.swapping = True
            built.add(now, "referee" if engine else "control",
                      _command_words(entry[2], built.state, built.people))  # fmt: skip
        elif kind == SHOWN and len(entry) > 1:
            said = str(entry[1])
            built.add(now, "shown", said, mark="illegal" if "illegal" in said else "")
        elif kind == RESULT and len(entry) > 1:
            built.add(now, "result", str(entry[1]), mark="result")
        elif kind == TAKEBACK and len(entry) > 1:
            built.take_back(now, int(entry[1]) if str(entry[1]).isdigit() else 0)
        elif kind == MOVE and len(entry) > 1 and built.emit:
            built.add(now, "move", f"{entry[1]} accepted")
            built.close(now, str(entry[1]))
        elif kind == END:
            built.add(now, "referee", "the referee stopped")
    built.settle()
    tail = built.open
    return built.steps, Step(0, "", "", "", False, tuple(tail.marks), _kept(tail.events))


def _moves_so_far(entries: object) -> list[str]:
    """The moves of a session's start (its journal entries: moves and take-backs)."""
    moves: list[str] = []
    for item in entries if isinstance(entries, list) else []:
        if not isinstance(item, list) or len(item) < 2:
            continue
        action, text = str(item[0]), str(item[1])
        if action == "move":
            moves.append(text)
        elif action == "takeback" and text.isdigit():
            del moves[len(moves) - int(text) :]
    return moves


WHERE = {"kiosk": "at the kiosk", "terminal": "from the terminal", "board": "on the board",
         "club (MQTT)": "from the club view"}  # fmt: skip


def _command_words(said: dict[str, Any], state: State | None, people: words.People) -> str:
    """A control from a face, or the engine's answer, as a sentence: "PASS pressed at the
    kiosk", "New game of vanguard started at the kiosk", "The computer chose stone c1 to c4"."""
    action = str(said.get("action", "?"))
    source = str(said.get("source", ""))
    where = WHERE.get(source, f"from the {source}" if source else "")
    what = str(said.get("what", ""))
    if action == "computer":
        cells = said.get("cells") or ["", ""]
        key, error = (str(cells[0]), str(cells[1])) if len(cells) > 1 else ("", "")
        move = what
        if state is not None:
            with contextlib.suppress(ValueError):
                move = words.said(state, state.parse(what), people)
        if error:
            return f"The computer's engine failed: {error}"
        if key.startswith("hint|"):
            return f"The engine's hint: {move}"
        return f"The computer chose {move}"
    if action == "press" and "button" in said:
        text = f"{said['button']} pressed"
    elif action == "new_game":
        text = f"New game of {said.get('game', '?')} started"
    elif action == "declare":
        text = "An agreed draw recorded" if what == "draw" else (
            f"The resignation of player {what.rpartition(':')[2]} recorded")  # fmt: skip
    elif action == "hint":
        text = "A hint asked for"
    elif action == "clock":
        added = re.fullmatch(r"add:([12]):(-?\d+)", what)
        text = {"pause": "Clocks paused", "resume": "Clocks running again"}.get(what) or (
            words.clock_adjusted(f"player {added[1]}", int(added[2])).rstrip(".").capitalize()
            if added
            else "A clock control"
        )
    elif action == "computer-restart":
        text = "Restart computer pressed"
    elif action == "check":
        text = f"Board check: {what or 'asked'}"
    elif action == "review":
        text = "A review's better move lit on the board" if said.get("cells") else (
            "A review's move taken off the board")  # fmt: skip
    else:
        text = action.replace("_", " ").replace("-", " ").capitalize()
    return f"{text} {where}" if where else text


def timeline_json(
    record: GameRecord,
    entries: Sequence[Entry],
    own: int,
    game: Game,
    profile: BoardProfile,
    *,
    problem: str = "",
) -> dict[str, object]:
    """The timeline as the pages get it (``/api/timeline/N``)."""
    start = game.state_from_json(record.start) if record.start else None
    steps, tail = build_timeline(entries, own, game, profile, people=record.players, start=start)
    return {
        "game": record.id, "game_id": record.game, "title": game.title,
        "profile": record.profile, "status": record.status, "recorded": bool(entries),
        "problem": problem, "steps": [s.to_json() for s in steps], "tail": tail.to_json(),
    }  # fmt: skip


def timeline_of(path: Path, number: int, config_dir: Path | None = None) -> dict[str, object]:
    """Game ``number``'s timeline from the journal at ``path``, read without changing it.
    LookupError: no such game; JournalError: the journal cannot be read; ConfigError: its game
    or board cannot be made here."""
    found = read_records(path, number)
    if not found:
        raise LookupError(f"no game {number} in the journal")
    record = found[0]
    recording = read_recording(path, number)
    game = catalog.load_game(record.game, {k: str(v) for k, v in record.options.items()},
                             config_dir)  # fmt: skip
    profile = catalog.load_profile(record.profile, game, config_dir)
    problem = "" if recording.problem is None else str(recording.problem)
    return timeline_json(record, recording.entries, recording.own, game, profile, problem=problem)


__all__ = [
    "ConfigError",
    "Event",
    "JournalError",
    "Step",
    "build_timeline",
    "timeline_json",
    "timeline_of",
]  # fmt: skip
