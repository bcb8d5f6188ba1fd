"""Replay: the referee of this checkout run again over a flight recording (recorder.py), turn by
turn with the recorded times, and every turn where it decides otherwise than the recorded one.

A recording holds sessions, one a run of the referee. Each is replayed from its start: a daemon
is made as that run's was (the game, its options, board profile and settle window, its moves so
far, its start position, in a journal of its own), its board a ``ReplayLink`` that gives back
what the recorded port did; then every recorded turn goes through ``Daemon.turn`` at its time,
and what the daemon sends, commits and shows is compared with what the recording says it did.
Nothing here touches the journal the recording came from.
"""

from __future__ import annotations

import dataclasses
import logging
import queue
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine import ConfigError
from engine.clock import ClockValue, TimeControl
from firmware_bridge.link import catalog
from firmware_bridge.link.protocol import (
    LED_OFF,
    Button,
    FrameError,
    HostHello,
    LedDelta,
    LedPattern,
    Leds,
    Ping,
    ScanRequest,
    decode_frame,
)
from firmware_bridge.link.serial_link import (
    BadFrame,
    Connected,
    Disconnected,
    Link,
    LinkError,
    LinkEvent,
    PortError,
    Received,
)
from firmware_bridge.referee import clock_journal
from firmware_bridge.referee.daemon import Command, Daemon
from firmware_bridge.referee.errors import DaemonError
from firmware_bridge.referee.journal import Journal
from firmware_bridge.referee.recorder import (
    COMMAND,
    CONNECT,
    CONNECTED,
    DAMAGED,
    DECISIONS,
    DISCONNECTED,
    END,
    FORMAT,
    MOVE,
    RECEIVED,
    RESULT,
    SENT,
    SESSION,
    SHOWN,
    TAKEBACK,
    TURN,
    TURNS,
    UNSENT,
    Recorder,
    RecordingError,
)

Entry = tuple[Any, ...]
QUIET = logging.getLogger("board-referee.replay")  # the replayed referee's log: not shown
QUIET.propagate = False
QUIET.addHandler(logging.NullHandler())


@dataclass(frozen=True, slots=True)
class Difference:
    """A turn after which the replayed referee did otherwise than the recorded one."""

    at: float  # seconds since its session began
    turn: str  # what the turn handled, in words
    recorded: tuple[str, ...]
    replayed: tuple[str, ...]

    def text(self) -> str:
        said = "; ".join(self.recorded) or "nothing"
        now = "; ".join(self.replayed) or "nothing"
        return f"{self.at:9.3f} s  after {self.turn}:\n    recorded: {said}\n    now:      {now}"


@dataclass(slots=True)
class Replayed:
    """What a replay found: turns replayed, the differences, and what could not be replayed."""

    sessions: int = 0
    turns: int = 0
    decisions: int = 0
    differences: list[Difference] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


class ReplayLink(Link):
    """The board's port as the recording has it: each try to open it goes as it went then;
    what the daemon writes is kept, and nothing is ever read (the recorded frames come as
    turns)."""

    def __init__(
        self, events: queue.Queue[LinkEvent], outcomes: list[str], writes: list[str | None]
    ) -> None:
        super().__init__(events)
        self.outcomes = outcomes  # the next tries' results, as recorded
        self.writes = writes  # each frame's fate in turn: None taken, or why it was not
        self._open = False

    @property
    def is_open(self) -> bool:
        return self._open

    def open(self) -> None:
        outcome = self.outcomes.pop(0) if self.outcomes else "ok"
        if outcome == "ok":
            self._open = True
            return
        kind, _, why = outcome.partition(": ")
        raise (PortError if kind == "port" else LinkError)(why)

    def _write(self, data: bytes) -> None:
        if not self._open:
            raise LinkError("the port is closed")
        refused = self.writes.pop(0) if self.writes else None
        if refused is not None:
            raise LinkError(refused)

    def close(self) -> None:
        self._open = False


def sessions(entries: Sequence[Entry]) -> list[list[Entry]]:
    """The recording's sessions, each from its SESSION entry on."""
    found: list[list[Entry]] = []
    for entry in entries:
        if entry[0] == SESSION:
            found.append([entry])
        elif found:
            found[-1].append(entry)
    return found


def describe(entry: Entry) -> str:
    """A turn in words, for a difference's line."""
    kind = entry[0]
    if kind == RECEIVED:
        try:
            seq, message = decode_frame(bytes.fromhex(entry[3]))
        except (FrameError, ValueError):
            return "a frame from the board"
        return f"{message.NAME} seq {seq} from the board"
    if kind == COMMAND:
        return f"a command ({entry[2].get('action', '?')})"
    words = {
        TURN: "a timer's turn", DAMAGED: "a damaged frame", CONNECTED: "the port opening",
        DISCONNECTED: "the port closing", CONNECT: "a try to open the port",
    }  # fmt: skip
    return words.get(str(kind), str(kind))


def frame_words(message: object) -> str:
    """A frame the referee sent, in words a person compares: what it asks of the board, and
    each light it sets (LED number and colour), never the class's repr. The host's name in a
    hello is the machine's, not a decision: left out."""
    if isinstance(message, HostHello):
        return f"hello to the board (protocol {message.protocol})"
    if isinstance(message, ScanRequest):
        return "a request for every sensor's reading"
    if isinstance(message, Ping):
        return f"a ping ({message.token})"
    if isinstance(message, Leds):
        lit = [f"LED {i} {_colour(p)}" for i, p in enumerate(message.leds) if p != LED_OFF]
        return f"all {len(message.leds)} lights: " + (", ".join(lit) if lit else "every one off")
    if isinstance(message, LedDelta):
        changed = ", ".join(f"LED {i} {_colour(p)}" for i, p in message.changes)
        return f"a change of lights: {changed} (checksum {message.crc})"
    return str(getattr(message, "NAME", "a frame")).lower().replace("_", " ")


def _colour(pattern: LedPattern) -> str:
    if pattern == LED_OFF:
        return "off"
    steady = " steady" if pattern.pattern == 0xFF else f" blinking {pattern.pattern:08b}"
    return f"red {pattern.red} green {pattern.green} blue {pattern.blue}{steady}"


def decision_words(entry: Entry) -> str:
    kind = entry[0]
    if kind == SENT:
        try:
            seq, message = decode_frame(bytes.fromhex(entry[1]))
        except (FrameError, ValueError):
            return f"sent a damaged frame {entry[1][:24]}"
        return f"sent {frame_words(message)} (frame {seq})"
    if kind == MOVE:
        return f"move {entry[1]}"
    if kind == TAKEBACK:
        return f"took back {entry[1]} move(s)"
    if kind == RESULT:
        return f"result: {entry[1]}"
    if kind == SHOWN:
        return f"showed: {entry[1]}"
    if kind == UNSENT:
        return f"the port would not take a frame: {entry[1]}"
    return repr(entry)


def replay(
    entries: Sequence[Entry],
    *,
    config_dir: Path | None = None,
    pace: Callable[[float], None] | None = None,
    on_turn: Callable[[float, str, list[str]], None] | None = None,
) -> Replayed:
    """Replay every session of ``entries``. ``pace(seconds)`` is called before each turn with
    the recorded time since the last one (for --speed and --step); ``on_turn(at, turn,
    decisions)`` after each turn that decided something."""
    result = Replayed()
    found = sessions(entries)
    for session in found:
        result.sessions += 1
        try:
            _replay_session(session, result, config_dir, pace, on_turn)
        except RecordingError as exc:
            result.problems.append(str(exc))
    if not found and entries:
        result.problems.append("the recording has no session's start: nothing to replay from")
    return result


def _replay_session(
    session: list[Entry],
    result: Replayed,
    config_dir: Path | None,
    pace: Callable[[float], None] | None,
    on_turn: Callable[[float, str, list[str]], None] | None,
) -> None:
    head = session[0]
    info = head[2] if len(head) > 2 and isinstance(head[2], dict) else {}
    if info.get("format") != FORMAT:
        raise RecordingError(
            f"session of game {info.get('game', '?')}: recorded by board-referee "
            f"{info.get('version', '?')} in recording format {info.get('format')!r}; this "
            f"version reads format {FORMAT}"
        )
    directory = catalog.config_dir(str(config_dir) if config_dir else None)
    try:
        game = catalog.load_game(str(info["game_id"]), info.get("options") or {}, directory)
        profile = catalog.load_profile(str(info["profile"]), game, directory)
        profile = dataclasses.replace(profile, settle=float(info["settle"]))
        start = game.state_from_json(info["start"]) if info.get("start") else None
    except (ConfigError, KeyError, TypeError, ValueError) as exc:
        raise RecordingError(
            f"session of game {info.get('game', '?')}: its game or board cannot be made here "
            f"({exc})"
        ) from exc
    with tempfile.TemporaryDirectory(prefix="board-referee-replay-") as tmp:
        journal = Journal(Path(tmp) / "replay.sqlite3", lock=False)
        try:
            journal.seed(int(info["game"]), game, profile.id, info)
            new_games = _seed_clocks(journal, int(info["game"]), info.get("clocks"))
            captured: list[Entry] = []
            recorder = Recorder(lambda _game, entries: captured.extend(entries), "replay")
            clock = [float(head[1])]
            outcomes: list[str] = []
            writes: list[str | None] = [
                None if e[0] == SENT else str(e[1]) for e in session if e[0] in (SENT, UNSENT)
            ]
            try:
                daemon = Daemon(
                    game, profile, journal, "replay", log=QUIET, start=start,
                    link_factory=lambda events: ReplayLink(events, outcomes, writes),
                    clock=lambda: clock[0], recorder=recorder, time_control=new_games,
                )  # fmt: skip
            except DaemonError as exc:
                raise RecordingError(f"session of game {info.get('game')}: {exc}") from exc
            daemon.start_recording(clock[0])
            run = _Run(daemon, info, clock, outcomes, config_dir, recorder, captured)
            run.go(session, result, pace, on_turn)
            recorder.flush()
            _compare(session, captured, float(head[1]), result)
        finally:
            journal.close()


def _seed_clocks(journal: Journal, game_id: int, clocks: object) -> TimeControl | None:
    """The clocks as the recorded session began (GameClocks.session): a game that went on
    gets its restored figures in the replay's journal; returns the control new games got."""
    if not isinstance(clocks, dict):
        return None
    try:
        new_games = TimeControl.parse(clocks["new_games"]) if clocks.get("new_games") else None
        if clocks.get("restored") and clocks.get("control") and clocks.get("value"):
            moves = [int(ms) for ms in clocks.get("moves") or []]
            clock_journal.save(journal, game_id, control=TimeControl.parse(clocks["control"]),
                               value=ClockValue.from_json(clocks["value"]), moves=moves,
                               at="")  # fmt: skip
    except (ConfigError, KeyError, TypeError, ValueError) as exc:
        raise RecordingError(f"session of game {game_id}: its clocks do not read ({exc})") from exc
    return new_games


def _event(entry: Entry, daemon: Daemon, config_dir: Path | None) -> LinkEvent | Command | None:
    kind = entry[0]
    if kind == TURN:
        return None
    if kind == RECEIVED:
        packet = bytes.fromhex(entry[3])
        seq, message = decode_frame(packet)
        return Received(seq, message, float(entry[2]), len(packet) + 1)
    if kind == DAMAGED:
        return BadFrame(str(entry[2]), int(entry[3]) if len(entry) > 3 else 0)
    if kind == CONNECTED:
        return Connected(str(entry[2]))
    if kind == DISCONNECTED:
        return Disconnected(str(entry[2]))
    said = dict(entry[2])
    directory = catalog.config_dir(str(config_dir) if config_dir else None)
    game = None
    if "game" in said:
        game = catalog.load_game(str(said["game"]), said.get("options") or {}, directory)
    profile = None
    if "profile" in said and game is not None:
        profile = catalog.load_profile(str(said["profile"]), game, directory)
        if profile.id == daemon.profile.id:  # as the referee does: the board's window as run
            profile = dataclasses.replace(profile, settle=daemon.profile.settle)
    return Command(
        str(said.get("action", "")),
        button=Button[said["button"]] if "button" in said else None,
        game=game, profile=profile, source=str(said.get("source", "kiosk")),
        what=str(said.get("what", "")),
        cells=tuple(said["cells"]) if "cells" in said else None,
        players=tuple(said["players"]) if "players" in said else None,
    )  # fmt: skip


@dataclass
class _Run:
    """One session's replay under way: its daemon, the clock it reads, the port's outcomes."""

    daemon: Daemon
    info: dict[str, Any]
    clock: list[float]
    outcomes: list[str]
    config_dir: Path | None
    recorder: Recorder  # the replayed daemon's, writing into ``captured``
    captured: list[Entry]

    def go(
        self,
        session: list[Entry],
        result: Replayed,
        pace: Callable[[float], None] | None,
        on_turn: Callable[[float, str, list[str]], None] | None,
    ) -> None:
        early = bool(self.info.get("early", True))
        began = last = self.clock[0]
        for number, entry in enumerate(session[1:], start=2):
            kind = entry[0]
            if kind not in TURNS:
                continue
            before = len(self.captured)
            now = last
            try:
                now = float(entry[1])
                if pace is not None:
                    pace(max(0.0, now - last))
                last = self.clock[0] = now
                if kind == CONNECT:
                    self.outcomes.append(str(entry[2]))
                    self.daemon._connect(now)  # the loop's own step, as it ran then
                else:
                    event = _event(entry, self.daemon, self.config_dir)
                    self.daemon.turn(event, now, early=early)
            except DaemonError as exc:
                result.problems.append(f"the replayed referee stopped at {now - began:.3f} s: "
                                       f"{exc}")  # fmt: skip
                return
            except (FrameError, ValueError, TypeError, KeyError, IndexError, ConfigError) as exc:
                raise RecordingError(
                    f"session of game {self.info.get('game')}, entry {number}: cannot be "
                    f"replayed ({exc}): {str(entry)[:80]}"
                ) from exc
            result.turns += 1
            if on_turn is not None:
                self.recorder.flush()  # into ``captured``: what this turn did is its tail
                decided = [decision_words(e) for e in self.captured[before:] if e[0] in DECISIONS]
                if decided:
                    on_turn(now - began, describe(entry), decided)


def _turns(entries: Sequence[Entry]) -> Iterator[tuple[Entry, list[str]]]:
    """Each turn with the words of the decisions after it."""
    current: Entry | None = None
    decided: list[str] = []
    for entry in entries:
        if entry[0] in TURNS:
            if current is not None:
                yield current, decided
            current, decided = entry, []
        elif entry[0] in DECISIONS and current is not None:
            decided.append(decision_words(entry))
    if current is not None:
        yield current, decided


def _compare(recorded: list[Entry], replayed: list[Entry], began: float, result: Replayed) -> None:
    theirs = list(_turns(recorded))
    ours = list(_turns(replayed))
    # A session without its end was cut short (a power cut): its last turn's decisions may
    # be only partly written, so the replay need only begin with them there.
    cut = not any(entry[0] == END for entry in recorded)
    for number, ((turn, said), (_, done)) in enumerate(zip(theirs, ours, strict=False), 1):
        result.decisions += len(said)
        last = number == len(theirs)
        if said != done and not (cut and last and done[: len(said)] == said):
            result.differences.append(
                Difference(float(turn[1]) - began, describe(turn), tuple(said), tuple(done))
            )
    if len(theirs) != len(ours):
        result.problems.append(f"{len(theirs)} turns recorded, {len(ours)} replayed")


def sleeper(speed: float | None, step: bool) -> Callable[[float], None] | None:
    """The pace of a replay: the recorded gaps divided by ``speed``, or Enter at each turn."""
    if step:

        def wait_for_enter(_gap: float) -> None:
            input()

        return wait_for_enter
    if speed:
        return lambda gap: time.sleep(gap / speed)
    return None


__all__ = ["Difference", "ReplayLink", "Replayed", "replay", "sessions", "sleeper"]
