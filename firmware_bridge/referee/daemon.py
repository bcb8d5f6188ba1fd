"""The referee daemon: one main loop that owns the link, the reconciler and the journal.

The serial reader thread only queues events; everything else happens here, in order:
frames are checked (sequence numbers, event counters: any gap, bad frame or reconnect asks the
board for a full SCAN), sensor readings become the reconciler's sensed layout, committed moves
are written to the journal, and only then is the new LED frame sent (and re-sent until the
board acknowledges it). When the board goes away the game state stays in memory and in the
journal; when it comes back (the same port path), a scan shows what happened meanwhile.

The board half of that loop (connecting, HELLO and its fit, sequence numbers and counters,
scans, faults, pings) is ``session.BoardSession``, which ``Daemon`` is; this module keeps the
game's half: the reconciler, the journal, the buttons and controls, the board check, the LEDs
and the snapshot for the faces. What stands alone has moved out: the start from the journal
(opening.py), the LED frames in flight (led_channel.py), the move list (history.py).
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import dataclasses
import logging
import queue
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from engine import Effect, Game, State
from engine.clock import TimeControl
from firmware_bridge import words
from firmware_bridge.link.leds import Signal, led_frame
from firmware_bridge.link.profile import BoardProfile, Token
from firmware_bridge.link.protocol import (
    EMPTY,
    PROTOCOL_DELTA,
    Button,
    ButtonEvent,
    HostHello,
    Reading,
)
from firmware_bridge.link.serial_link import (
    Link,
    LinkError,
    LinkEvent,
    Received,
    SerialLink,
)
from firmware_bridge.referee import clock_journal
from firmware_bridge.referee.check import BoardCheck
from firmware_bridge.referee.checking import Checking
from firmware_bridge.referee.clocks import GameClocks
from firmware_bridge.referee.command import Command, CommandResult
from firmware_bridge.referee.computer import DEFAULT_MOVETIME_MS, Answer, Computer, Playing
from firmware_bridge.referee.health import SensorHealth, hand_explains
from firmware_bridge.referee.history import MoveList, history_from_journal, iso_now, move_entry
from firmware_bridge.referee.journal import Journal, last_turn_layouts
from firmware_bridge.referee.led_channel import LedChannel
from firmware_bridge.referee.notify import Notifier
from firmware_bridge.referee.opening import open_game
from firmware_bridge.referee.reconcile import Committed, NewGame, Reconciler, Record, TookBack
from firmware_bridge.referee.recorder import (
    MOVE,
    RESULT,
    SHOWN,
    TAKEBACK,
    Recorder,
    turn_entry,
)
from firmware_bridge.referee.session import (
    SCAN_SPACING,
    BoardSession,
)
from firmware_bridge.referee.showing import Showing
from firmware_bridge.referee.snapshot import Snapshot
from firmware_bridge.referee.timekeeping import Timekeeping

HEARTBEAT = 2.0  # seconds between snapshots that only refresh the last-frame time
HELD_PRESSES = 4  # presses kept while the board is being scanned (a few; never a backlog)
REFUSED_FLASH = 1.0  # seconds the board flashes after a button press the rules refuse
NOTICE_SECONDS = 12.0  # an answer to a button or control is shown this long, then goes


Listener = Callable[[Snapshot], None]


@dataclass(frozen=True)
class Attach:
    """A listener to add, from a thread other than the loop's (Daemon.attach)."""

    listener: Listener


class Daemon(Checking, BoardSession, Showing, Playing, Timekeeping):
    def __init__(
        self,
        game: Game,
        profile: BoardProfile,
        journal: Journal,
        port: str,
        *,
        log: logging.Logger,
        start: State | None = None,
        new_game: bool = False,
        link_factory: Callable[[queue.Queue[LinkEvent]], Link] | None = None,
        opened: Link | None = None,
        clock: Callable[[], float] = time.monotonic,
        recorder: Recorder | None = None,
        time_control: TimeControl | None = None,
    ) -> None:
        self.game = game
        self.profile = profile
        self.journal = journal
        self.port = port
        self.log = log
        self.clock = clock
        # Set once the board has been sent its first LED frame: the faces start after it (the
        # players wait on the board, not on the web server's imports; commands/run.py).
        self.lit = threading.Event()
        # ``opened``: the board's link, opened by the caller before anything was logged (so a
        # port that can never work is one line); its events queue becomes the daemon's.
        self.events: queue.Queue[LinkEvent | Command | Attach] = (
            opened.events if opened is not None else queue.Queue()  # type: ignore[assignment]
        )
        self.opened = opened
        self.link_factory = link_factory or (
            lambda events: SerialLink(port, self.profile.baudrate, events)
        )
        self.link: Link | None = None
        self.start_json = start.to_json() if start is not None else None
        opened_game = open_game(journal, game, profile_id=profile.id, start=start,
                                start_json=self.start_json, new_game=new_game, log=log)  # fmt: skip
        state = opened_game.state
        self.game_id = opened_game.game_id
        self.game_start = opened_game.start
        self.people = opened_game.people  # who plays each side, when they said
        self.created = opened_game.created  # the game row was made by this run (may be forgotten)
        self.resumed = opened_game.resumed  # an unfinished game of the journal goes on
        self.rec = Reconciler(state, profile)
        self.rec.people = self.people
        self.rec.resumed = self.resumed
        self.time_control = time_control  # each new game's, until a New game says another
        self.clocks = GameClocks(time_control)
        self.clocks_saved = 0.0
        if self.resumed:  # its clocks as the journal kept them: the time it was down is free
            saved = clock_journal.load(journal, self.game_id)
            if saved is not None:
                self.clocks = GameClocks(saved.control)
                self.clocks.restore(saved.value, saved.moves)
        # The computer opponent (computer.py): asked only where ``thinks`` (run.py sets it).
        self.thinks = False
        self.computer: Computer | None = None
        self.computer_asked = ""
        self.computer_failed = ""
        self.movetime_ms = DEFAULT_MOVETIME_MS
        self.hints = True
        self._seat_computer()
        if state.plies:
            self.rec.restart_turn_from(last_turn_layouts(state))
        self.readings: list[Reading] = [EMPTY] * len(profile.sensor_cells)
        self.leds = LedChannel(profile)
        self.now = clock()  # the time of the loop's turn under way
        self._reset_link_state()
        self.next_connect = 0.0
        self.evaluate_at: float | None = None
        self.last_status = ""
        self.connect_failures = 0
        self.waiting_since = 0.0
        self.next_reminder = 0.0
        self.listeners: list[Listener] = []
        self.moves: MoveList = history_from_journal(journal, game, self.game_id, self.game_start,
                                                    self.people)  # fmt: skip
        self._resume_plan()
        self.faults: list[tuple[float, int, str]] = []
        self.mismatch = ""  # why the connected board does not fit the profile
        # A new game on another board profile: until a fitting board says HELLO, a misfit or
        # a disconnect is the expected swap of boards, told as such instead of as a fault.
        self.switched_for: str | None = None
        self.fitted = False  # a board has fitted the profile since start
        self.last_frame: float | None = None  # wall time of the last frame from the board
        self.notice = ""
        # When the notice was first shown: an answer is gone after NOTICE_SECONDS, and a
        # take-back's "put the board back" once the board is back.
        self.notice_since: tuple[str, float] = ("", 0.0)
        self.notice_until_back = False  # the notice asks for the board to be put back
        self.refused_until: float | None = None  # the board flashes "refused" until then
        self.dirty = True
        self.serial = 0
        self.published: Snapshot | None = None
        self.published_at = 0.0
        self.alert: tuple[str, float | None] = ("", None)  # (kind, wall time it began)
        # The board check (check mode): while it runs, the sensors, buttons and LEDs are its;
        # the game waits. A finished check stays shown until it is dismissed.
        self.check: BoardCheck | None = None
        self.health = SensorHealth(game.board.names)
        self.warned: set[tuple[str, str]] = set()
        self.check_started = ""
        self.check_recorded = False
        # The flight recorder (recorder.py): each turn of the loop, each frame sent, each
        # decision, into the journal beside the moves. ``shown``: the words last recorded.
        self.recorder = recorder
        self.shown = ""
        self.record_now = False  # a move was made this turn: its recording is written after it

    @property
    def state(self) -> State:
        return self.rec.state

    def _board_away(self) -> str:
        """Why nothing can be scored on the board now: it is away, or being read."""
        connected = self.link is not None and self.board is not None
        return words.BOARD_BEING_READ if connected else words.BOARD_AWAY

    @property
    def board_live(self) -> bool:
        """A fitting board is connected and its scan is in: what it senses is the board now."""
        return self.link is not None and self.board is not None and self.have_scan

    # -- main loop --------------------------------------------------------------------------
    def run(self, stop: threading.Event) -> None:
        self.log.info(
            "refereeing %s (%s) on %s with board profile %s (%s sensing)",
            self.game.title, words.options_said(self.game), self.where(), self.profile.id,
            self.profile.sensing.name.lower(),
        )  # fmt: skip
        notifier = Notifier()
        notifier.send("READY=1", f"STATUS=refereeing {self.game.title} on {self.where()}")
        next_watchdog = 0.0
        told = ""
        self.start_recording(self.clock())
        try:
            while not stop.is_set():
                now = self.clock()
                if notifier.watchdog is not None and now >= next_watchdog:
                    notifier.send("WATCHDOG=1")  # from the loop itself: a hung loop is restarted
                    next_watchdog = now + notifier.watchdog
                if self.last_status != told:
                    told = self.last_status
                    notifier.send(f"STATUS={told}")
                if self.link is None and now >= self.next_connect:
                    self._connect(now)
                wait = max(0.0, min(self._next_wake(now) - now, 0.25))
                try:
                    event: LinkEvent | Command | Attach | None = self.events.get(timeout=wait)
                except queue.Empty:
                    event = None
                now = self.clock()
                if isinstance(event, Attach):
                    self.add_listener(event.listener)
                    event = None
                self.turn(event, now, early=self.clock is time.monotonic)
                if self.listeners and (self.dirty or now - self.published_at >= HEARTBEAT):
                    self._publish(now)
        finally:
            notifier.send("STOPPING=1")
            notifier.close()
            self._shutdown()
            if self.recorder is not None:
                self.recorder.end(self.clock())

    def turn(self, event: LinkEvent | Command | None, now: float, *, early: bool) -> None:
        """One turn of the loop: ``event`` (or none: a timer's turn) at ``now``, then what
        fell due. Recorded first; a replay (replay.py) calls this with the recorded ones."""
        self.now = now  # the turn is one instant: what it does is dated by it, as a replay dates it
        if self.recorder is not None:
            self.recorder.turn(turn_entry(event, now), now)
        if isinstance(event, Received) and early:
            # What fell due before the board said this happens first, as of then: a busy loop
            # (a Pi rendering its kiosk) that reads a CHANGE late must not judge the settled
            # move before it together with the next hand's piece.
            self._timers(min(event.at, now))
        if isinstance(event, Command):
            self._command(event, now)
        elif event is not None:
            self._handle(event, now)
        self._timers(now)
        self._computer_turn()
        if self.recorder is not None:
            self._record_after_turn()

    def start_recording(self, now: float) -> None:
        """A session of the flight recorder begins: what a replay needs to start as this run
        did (the game, its moves so far, the settle window, the start position)."""
        if self.recorder is None:
            return
        outcome = self.state.outcome()
        self.recorder.session(self.game_id, now, {
            "plies": self.state.plies, "created": self.created, "resumed": self.resumed,
            "game_id": self.game.id,
            "options": {k: str(v) for k, v in self.game.options.items()},
            "profile": self.profile.id, "settle": self.profile.settle,
            "start": self.start_json, "people": list(self.people),
            "early": self.clock is time.monotonic,
            "entries": [[a, t] for a, t, _ in self.journal.timed_entries(self.game_id)],
            "outcome": None if outcome is None else outcome.to_json(),
            "clocks": self.clocks.session(self.time_control),
        })  # fmt: skip

    def _record_after_turn(self) -> None:
        recorder = self.recorder
        assert recorder is not None
        if self.rec.status != self.shown:
            self.shown = self.rec.status
            recorder.add((SHOWN, self.shown))
        if recorder.game_id != self.game_id:
            recorder.switch(self.game_id)
        elif self.record_now:
            recorder.flush()
        self.record_now = False

    def _post_answer(self, answer: Answer) -> None:
        """The computer's answer, from its thread, onto the loop's queue (and its recording)."""
        self.events.put(Command("computer", what=answer.move, cells=(answer.key, answer.error),
                                source="computer"))  # fmt: skip

    def _shutdown(self) -> None:
        if self.computer is not None:
            self.computer.close()
            self.computer = None
        if self.link is not None and self.board is not None:
            with contextlib.suppress(LinkError):
                self.link.send(led_frame({}, self.profile))  # leave the board dark
        if self.link is not None:
            self.link.close()
            self.link = None

    def _next_wake(self, now: float) -> float:
        wakes = [now + 0.25]
        if self.evaluate_at is not None:
            wakes.append(self.evaluate_at)
        due = self.leds.due()
        if due is not None:
            wakes.append(due)
        if self.scan_due is not None:
            wakes.append(self.scan_due)
        if self.refused_until is not None:
            wakes.append(self.refused_until)
        if self.link is None:
            wakes.append(self.next_connect)
        tick = self.clocks.next_change(now)
        if tick is not None:
            wakes.append(tick)
        return min(wakes)

    def _observe(self, now: float) -> None:
        if self.check is not None:
            self.check.observe(self.readings, now)
            self._check_update(now)
            return
        sensed: dict[int, Token] = {}
        for sensor, reading in enumerate(self.readings):
            cell = self.profile.sensor_cells[sensor]
            token = self.profile.reading_token(reading)
            if cell is not None and token is not None:
                sensed[cell] = token
        if self.health.observe(self.rec.sensed, sensed, now):
            self.dirty = True
            self._warn()
        self.rec.observe(sensed, now)
        self.evaluate_at = self.rec.settle_deadline()
        self._process(self.rec.evaluate(now))

    # -- faces: listeners and commands ------------------------------------------------------
    def add_listener(self, listener: Listener) -> None:
        """Call ``listener`` with a fresh snapshot after each change (from the main loop: it
        only hands the snapshot on, never blocks). Before the loop runs; then ``attach``."""
        self.listeners.append(listener)
        self.dirty = True
        self.published = None  # the newcomer gets the state as it is, changed or not

    def attach(self, listener: Listener) -> None:
        """``add_listener`` from any thread while the loop runs (a face started beside it):
        through the loop's queue, as the faces' commands come."""
        self.events.put(Attach(listener))

    def submit(self, command: Command) -> concurrent.futures.Future[CommandResult]:
        """Queue a control from a face (any thread); the future says how it went."""
        self.events.put(command)
        return command.reply

    def _command(self, command: Command, now: float) -> None:
        self.dirty = True
        try:
            if command.action == "press" and command.button is not None:
                self.log.info("button %s pressed on the %s", command.button.name, command.source)
                refused, notice = self._press(command.button, now)
                result = CommandResult(not refused, notice or "done")
            elif command.action == "check":
                result = self._check_command(command, now)
            elif command.action == "new_game" and command.game is not None:
                profile = command.profile or self.profile
                if profile.id == self.profile.id:  # the same board: its settle window as
                    profile = dataclasses.replace(profile, settle=self.profile.settle)  # run
                # Names go with the game they were given for: a new game without names has
                # none (never the last game's people, unseen).
                self.people = command.players or ("", "")
                settings = dict(p.split(":", 1) for p in command.what.split(";") if ":" in p)
                self.movetime_ms = int(settings.get("movetime", DEFAULT_MOVETIME_MS))
                self.hints = settings.get("hints", "on") != "off"
                clock = settings.get("clock")  # checked by the face that sent it; none said:
                if clock is not None:  # the referee's own (run --time-control) goes on
                    self.time_control = None if clock == "none" else TimeControl.parse(clock)
                self._switch(command.game, profile)
                result = CommandResult(True, words.NEW_GAME.format(title=command.game.title))
            elif command.action == "declare":
                result = self._declare(command.what, now)
            elif command.action == "clock":
                result = self._clock_command(command.what, command.source, now)
            elif command.action == "computer" and command.cells is not None:
                key, error = command.cells
                result = CommandResult(not error, self._computer_answer(key, command.what, error))
            elif command.action == "computer-restart":
                result = CommandResult(True, self._restart_computer())
            elif command.action in ("hint", "review"):  # the engine's answers (computer.py)
                result = CommandResult(*self._engine_shown(command.action, command))
            else:
                result = CommandResult(False, f"unknown command {command.action!r}")
        except Exception as exc:  # a face's command must never stop the referee
            self.log.exception("the %s's command %s failed", command.source, command.action)
            result = CommandResult(False, f"failed: {exc}")
        if not command.reply.done():
            command.reply.set_result(dataclasses.replace(result, serial=self.serial + 1))

    def _warn(self) -> None:
        """Say each sensor warning once, as it begins."""
        for warning in self.health.warnings():
            key = (warning.cell, warning.kind)
            if key not in self.warned:
                self.warned.add(key)
                self.log.warning("%s", warning.text)
        current = {(w.cell, w.kind) for w in self.health.warnings()}
        self.warned &= current

    def _declare(self, what: str, now: float) -> CommandResult:
        """A result the players declare at the kiosk: a resignation or an agreed draw. It is
        journaled as the game's last entry (replayed, taken back like a move)."""
        try:
            move = self.state.parse(what)
        except ValueError:
            move = None
        if move is None or not move.is_declared:
            return CommandResult(False, words.DECLARE_HOW.format(what=what))
        if self.check is not None:
            return CommandResult(False, words.CHECK_FIRST)
        outcome = self.state.outcome()
        if outcome is not None:
            return CommandResult(False, words.GAME_OVER_ALREADY)
        # A result is scored on the position it ends: one the board shows, never a disturbed
        # board or one nobody can see.
        if not self.board_live:
            return CommandResult(False, self._board_away())
        if not self.rec.shows_position():
            return CommandResult(False, words.board_differs(self.rec.status))
        records = self.rec.declare(move, now)
        self._process(records)
        return CommandResult(True, words.declared_result(move, self.game.player_names,
                                                         self.people))  # fmt: skip

    def _switch(self, game: Game, profile: BoardProfile) -> None:
        """Start a new game (of this or another game) chosen from a face."""
        if self.state.outcome() is None and not self.journal.timed_entries(self.game_id):
            # Nothing was ever played in it (a run's first game, replaced at once by a game
            # against the computer, say): forgotten, so no phantom game is listed, and the
            # new game takes its number.
            self.journal.discard(self.game_id)
            self.log.info("set aside game %d: nothing was played in it", self.game_id)
        elif self.state.outcome() is None:
            self.journal.abandon(self.game_id)
            said = words.count(self.state.plies, "move")
            self.log.info("abandoned game %d after %s", self.game_id, said)
        old_profile = self.profile
        self.game, self.profile = game, profile
        self.start_json = self.game_start = None
        state = game.new_state()
        self.rec = Reconciler(state, profile)
        self.rec.people = self.people
        self.clocks = GameClocks(self.time_control)
        self._seat_computer()
        self.rec.start_setup()
        self.game_id = self.journal.start_game(game, profile.id, None, self.people)
        self.moves = []
        self.notice = ""
        self.last_status = ""
        self.log.info("new game %d: %s (%s) with board profile %s",
                      self.game_id, game.title, words.options_said(game), profile.id)  # fmt: skip
        self.readings = [EMPTY] * len(profile.sensor_cells)
        self.evaluate_at = None
        # The LEDs wanted are the new board's (a frame of the old board's size would be
        # refused by the new one), and what a board shows is unknown until it answers.
        self.leds.forget(profile)
        self.switched_for = profile.id if profile != old_profile else None
        self.switched_at = self.now
        if self.link is None:
            return
        hello = self.board
        if hello is not None and profile != old_profile and self._misfit(hello):
            self._hello(hello, self.now)  # says why, and waits for a fitting board
            self._send(HostHello(PROTOCOL_DELTA, socket.gethostname()))
            return
        if hello is None:
            self._send(HostHello(PROTOCOL_DELTA, socket.gethostname()))
            self.hello_sent = self.now
            return
        self.have_scan = False
        self.scan_sent = -SCAN_SPACING
        self._request_scan(self.now, "new game")
        self._process([])

    def _remember(self, text: str, effect: Effect) -> None:
        """Keep the move list with times and captures beside the journal, for the faces."""
        self.moves.append(move_entry(self.game, len(self.moves) + 1, text, iso_now(), effect,
                                     people=self.people))  # fmt: skip

    def _publish(self, now: float) -> None:
        self.dirty = False
        self.published_at = now
        snapshot = self.snapshot()
        if snapshot == self.published:  # Connection compares last_frame too
            return
        self.published = snapshot
        for listener in self.listeners:
            try:
                listener(snapshot)
            except Exception:  # a face must never stop the referee
                self.log.exception("a listener failed")

    # -- results ----------------------------------------------------------------------------
    def _process(self, records: list[Record]) -> None:
        self.dirty = True
        for record in records:  # the journal first ...
            self._journal(record)
        now = self.now
        if self.rec.notice:
            self.log.info("%s", self.rec.notice)
            self.notice = self.rec.notice
            self.notice_until_back = self.rec.taking_back  # a take-back's "put the board back"
            self.rec.notice = ""
        if self.notice_until_back and not self.rec.taking_back:
            self.notice, self.notice_until_back = "", False  # what it asked is done
        if self.rec.status != self.last_status:
            self.last_status = self.rec.status
            self.log.info("%s", self.rec.status)
        signals = self.rec.signals or self._flag_signals()
        asked = [c for c, s in signals.items() if s is Signal.ILLEGAL]
        if asked and hand_explains(signals, self.state):
            asked = []  # a piece missing elsewhere, or one in hand: a player's move, not a sensor
        if asked:
            layout = self.state.layout()
            asked = [c for c in asked if c not in layout]
        if self.health.asked_to_clear(asked, now):
            self._warn()
        if self.refused_until is not None:
            if now < self.refused_until:
                flash = dict.fromkeys(self.profile.led_of, Signal.REFUSED)
                signals = {**flash, **signals}
            else:
                self.refused_until = None
        wake = self.rec.wake_at()
        if wake is not None and (self.evaluate_at is None or wake < self.evaluate_at):
            self.evaluate_at = max(wake, now + 0.01)  # offer look-alike moves on time
        if self.leds.wanted(led_frame(signals, self.profile)):  # ... then the LEDs
            self._send_leds(now)

    def _hold_press(self, event: ButtonEvent) -> None:
        """A press before the board's scan is in: kept (a few at most) and acted on after it."""
        if event.pressed and len(self.held_presses) < HELD_PRESSES:
            self.log.info("button %s pressed while the board is being scanned: acted on once "
                          "the scan is in", event.button.name)  # fmt: skip
            self.held_presses.append(event.button)

    def _press(self, button: Button, now: float) -> tuple[bool, str]:
        """A button, from the board or a face. One the rules refuse is answered on the board
        too, not only in the log: a brief flash of every unlit LED."""
        if self.check is not None:  # in the check, the buttons answer its questions
            self.check.press(button, now)
            self._check_update(now)
            return False, ""
        if button in (Button.PASS, Button.CONFIRM) and not self.board_live:
            records = []  # a face's press, the board away: nothing seen to pass or confirm on
            refused, notice = True, self._board_away()
        else:
            records = self.rec.press(button, now)
            refused, notice = self.rec.refused, self.rec.notice
        if refused:
            self.refused_until = now + REFUSED_FLASH
            self.log.info("%s refused: %s", button.name, notice)
            self.rec.notice = ""
            self.notice, self.notice_until_back = notice, False
        self._process(records)
        return refused, notice

    def _journal(self, record: Record) -> None:
        if self.recorder is not None:
            self._record_decision(record)
        if isinstance(record, Committed):
            if record.effect.move.is_declared:
                self.clocks.ended(self.now)
            else:
                self.clocks.moved(self.now)
                if record.effect.outcome is not None:
                    self.clocks.ended(self.now)
            self.journal.record_move(self.game_id, record.text, record.effect.outcome)
            footprint = record.effect.footprint()
            self.health.moved({*footprint.hand, *footprint.result})
            self.notice = ""
            self._remember(record.text, record.effect)
            who = self.game.player_names[record.effect.player.index]
            self.log.info("move %d: %s %s", self.state.plies, who, record.text)
            for event in record.effect.events[1:]:
                self.log.info("  %s", event.text)
            scores = self.state.scores()
            if scores is not None:
                names = self.game.player_names
                self.log.info("  score: %s", ", ".join(f"{names[p.index]} {n}"
                                                       for p, n in scores.items()))  # fmt: skip
            if record.effect.outcome is not None:
                self.log.info("game over: %s", record.effect.outcome.describe(
                    self.game.player_names, self.people))  # fmt: skip
            self._save_clocks()
        elif isinstance(record, TookBack):
            self.clocks.took_back(len(record.moves), self.now)
            self._save_clocks()
            self.journal.record_takeback(self.game_id, len(record.moves), reopen=record.reopened)
            del self.moves[len(self.moves) - len(record.moves) :]
            self.log.info("took back %s", " ".join(reversed(record.moves)))
        elif isinstance(record, NewGame):
            # The same people play on (the New game control names new ones).
            self.game_id = self.journal.start_game(self.game, self.profile.id, None, self.people)
            self.moves = []
            self.clocks = GameClocks(self.time_control)
            self.log.info("new game %d: %s", self.game_id, self.game.title)

    def _record_decision(self, record: Record) -> None:
        recorder = self.recorder
        assert recorder is not None
        if isinstance(record, Committed):
            recorder.add((MOVE, record.text))
            if record.effect.outcome is not None:
                recorder.add((RESULT, record.effect.outcome.describe(self.game.player_names)))
            self.record_now = True  # each move's frames are written with the turn that made it
        elif isinstance(record, TookBack):
            recorder.add((TAKEBACK, len(record.moves)))

    def _send_leds(self, now: float) -> None:
        """Send the wanted LEDs (a delta to a board that speaks protocol 2, LedChannel)."""
        if self.board is None:
            return
        seq = self._send(self.leds.message(self.board.protocol >= PROTOCOL_DELTA))
        if seq is not None:
            self.lit.set()
        self.leds.sent_as(seq, now)

    def _timers(self, now: float) -> None:
        if self.notice != self.notice_since[0]:
            self.notice_since = (self.notice, now)
        elif (self.notice and not self.rec.taking_back
              and now - self.notice_since[1] >= NOTICE_SECONDS):  # fmt: skip
            self.notice = ""
            self.dirty = True
        if self.health.tick(now):
            self.dirty = True
            self._warn()
        if self.check is not None:
            self.check.tick(now)
            self._check_update(now)
        if self.evaluate_at is not None and now >= self.evaluate_at:
            self.evaluate_at = None
            self._process(self.rec.evaluate(now))
        if self.refused_until is not None and now >= self.refused_until:
            self._process([])  # the flash is over
        self._clock_timers(now)
        self._link_timers(now)


__all__ = ["Attach", "Command", "CommandResult", "Daemon", "Listener"]
