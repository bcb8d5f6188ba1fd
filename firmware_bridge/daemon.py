"""The referee daemon: one main loop that owns the link, the reconciler and the journal.

The serial reader thread only queues events; everything else happens here, in order:
frames are checked (sequence numbers, event counters: any gap, bad frame or reconnect asks the
board for a full SCAN), sensor readings become the reconciler's sensed layout, committed moves
are written to the journal, and only then is the new LED frame sent (and re-sent until the
board acknowledges it). When the board goes away the game state stays in memory and in the
journal; when it comes back (the same port path), a scan shows what happened meanwhile.
"""

from __future__ import annotations

import contextlib
import json
import logging
import queue
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from engine import Game, State
from firmware_bridge.journal import Journal, last_turn_layouts, replay
from firmware_bridge.leds import led_frame
from firmware_bridge.link import (
    BadFrame,
    Connected,
    Disconnected,
    Link,
    LinkError,
    LinkEvent,
    Received,
    SerialLink,
)
from firmware_bridge.profile import BoardProfile, Token
from firmware_bridge.protocol import (
    EMPTY,
    PROTOCOL_VERSION,
    Ack,
    ButtonEvent,
    Change,
    Fault,
    Hello,
    HostHello,
    Leds,
    Message,
    Nak,
    Ping,
    Pong,
    Reading,
    Scan,
    ScanRequest,
)
from firmware_bridge.reconcile import Committed, NewGame, Reconciler, Record, TookBack

RECONNECT_INTERVAL = 0.5
LED_RETRY = 0.25
HELLO_RETRY = 1.0
PING_AFTER = 2.0
DEAD_AFTER = 6.5
SCAN_RETRY = 1.0


class DaemonError(Exception):
    """A problem that stops the daemon (bad journal, wrong board); the message says why."""


@dataclass
class _Pending:
    seq: int
    frame: Leds
    sent: float


class Daemon:
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
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.game = game
        self.profile = profile
        self.journal = journal
        self.port = port
        self.log = log
        self.clock = clock
        self.events: queue.Queue[LinkEvent] = queue.Queue()
        self.link_factory = link_factory or (
            lambda events: SerialLink(port, profile.baudrate, events)
        )
        self.link: Link | None = None
        self.start_json = start.to_json() if start is not None else None
        state = self._resume_or_start(start, new_game)
        self.rec = Reconciler(state, profile)
        if state.plies:
            self.rec.restart_turn_from(last_turn_layouts(state))
        self.readings: list[Reading] = [EMPTY] * len(profile.sensor_cells)
        self._reset_link_state()
        self.next_connect = 0.0
        self.evaluate_at: float | None = None
        self.want: Leds = led_frame({}, profile)
        self.pending: _Pending | None = None
        self.acked: Leds | None = None
        self.last_status = ""
        self.connect_failures = 0

    # -- start-up ---------------------------------------------------------------------------
    def _resume_or_start(self, start: State | None, new_game: bool) -> State:
        game = self.game
        options = json.loads(json.dumps(dict(game.options), sort_keys=True))
        row = self.journal.unfinished()
        if row is not None:
            same = (
                row.game == game.id and row.options == options and row.profile == (self.profile.id)
            )
            if same and (start is None or row.start == self.start_json):
                state = game.state_from_json(row.start) if row.start else game.new_state()
                try:
                    replay(state, row.entries)
                except ValueError as exc:
                    raise DaemonError(
                        f"cannot replay game {row.id} from the journal {self.journal.path}: "
                        f"{exc}; start a new game with --new"
                    ) from exc
                self.game_id = row.id
                self.log.info(
                    "resuming game %d (%s) after %d moves; checking the board matches it",
                    row.id, game.title, state.plies,
                )  # fmt: skip
                return state
            if not new_game:
                shown = " ".join(f"--option {k}={v}" for k, v in row.options.items())
                raise DaemonError(
                    f"the journal {self.journal.path} has an unfinished game {row.id}: "
                    f"{row.game} {shown} --board {row.profile}; run with those settings to "
                    "resume it, or add --new to abandon it"
                )
            self.journal.abandon(row.id)
            self.log.info("abandoned unfinished game %d", row.id)
        state = start.copy(stack=False) if start is not None else game.new_state()
        self.game_id = self.journal.start_game(game, self.profile.id, self.start_json)
        self.log.info("new game %d: %s", self.game_id, game.title)
        return state

    @property
    def state(self) -> State:
        return self.rec.state

    def _reset_link_state(self) -> None:
        self.board: Hello | None = None
        self.have_scan = False
        self.counter = 0
        self.board_seq: int | None = None
        self.hello_sent = 0.0
        self.scan_sent = 0.0
        self.last_rx = self.clock()
        self.last_ping = 0.0
        self.acked = None
        self.pending = None

    # -- main loop --------------------------------------------------------------------------
    def run(self, stop: threading.Event) -> None:
        self.log.info(
            "refereeing %s (%s) on %s with board profile %s (%s sensing)",
            self.game.title, _options(self.game), self.port, self.profile.id,
            self.profile.sensing.name.lower(),
        )  # fmt: skip
        try:
            while not stop.is_set():
                now = self.clock()
                if self.link is None and now >= self.next_connect:
                    self._connect(now)
                wait = max(0.0, min(self._next_wake(now) - now, 0.25))
                try:
                    event: LinkEvent | None = self.events.get(timeout=wait)
                except queue.Empty:
                    event = None
                now = self.clock()
                if event is not None:
                    self._handle(event, now)
                self._timers(now)
        finally:
            self._shutdown()

    def _shutdown(self) -> None:
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
        if self.pending is not None:
            wakes.append(self.pending.sent + LED_RETRY)
        if self.link is None:
            wakes.append(self.next_connect)
        return min(wakes)

    def _connect(self, now: float) -> None:
        link = self.link_factory(self.events)
        try:
            link.open()
        except LinkError as exc:
            self.next_connect = now + RECONNECT_INTERVAL
            if self.connect_failures == 0:
                self.log.warning("%s; retrying every %.1f s", exc, RECONNECT_INTERVAL)
            self.connect_failures += 1
            return
        self.connect_failures = 0
        self.link = link
        self._reset_link_state()
        self._send(HostHello(PROTOCOL_VERSION, socket.gethostname()))
        self.hello_sent = now

    def _drop_link(self, reason: str) -> None:
        if self.link is not None:
            self.link.close()
            self.link = None
        self.log.warning("board disconnected (%s); waiting for it on %s", reason, self.port)
        self._reset_link_state()
        self.next_connect = self.clock() + RECONNECT_INTERVAL

    def _send(self, message: Message) -> int | None:
        if self.link is None:
            return None
        try:
            seq, size = self.link.send(message)
        except LinkError as exc:
            self._drop_link(str(exc))
            return None
        self.log.debug("-> %s seq=%d (%d bytes)", message.NAME, seq, size)
        return seq

    def _request_scan(self, now: float, why: str) -> None:
        if now - self.scan_sent < 0.1:
            return
        self.log.info("asking the board for a full scan (%s)", why)
        self.have_scan = False
        self.scan_sent = now
        self._send(ScanRequest())

    # -- events -----------------------------------------------------------------------------
    def _handle(self, event: LinkEvent, now: float) -> None:
        if isinstance(event, Received):
            self.last_rx = now
            self.log.debug("<- %s seq=%d (%d bytes)", event.message.NAME, event.seq, event.size)
            expected = self.board_seq
            self.board_seq = (event.seq + 1) & 0xFF
            if expected is not None and event.seq != expected and self.have_scan:
                self._request_scan(now, f"frame {expected} from the board was lost")
            self._message(event.message, now)
        elif isinstance(event, BadFrame):
            self.log.warning("bad frame from the board: %s", event.reason)
            if self.board is not None:
                self._request_scan(now, "a frame was damaged")
        elif isinstance(event, Disconnected):
            if self.link is not None:
                self._drop_link(event.reason)
        elif isinstance(event, Connected):
            self.log.info("port open: %s", event.description)

    def _message(self, message: Message, now: float) -> None:
        if isinstance(message, Hello):
            self._hello(message, now)
        elif self.board is None:
            if not isinstance(message, (Ack, Nak, Pong)):
                self._send(HostHello(PROTOCOL_VERSION, socket.gethostname()))
                self.hello_sent = now
        elif isinstance(message, Scan):
            if len(message.readings) != len(self.readings):
                self.log.error("SCAN with %d readings from a board with %d sensors: ignored",
                               len(message.readings), len(self.readings))  # fmt: skip
                return
            self.readings = list(message.readings)
            self.counter = message.counter
            if not self.have_scan:
                self.log.info(
                    "board scanned: %d pieces seen", sum(r.code != 0 for r in self.readings)
                )
            self.have_scan = True
            self._observe(now)
        elif isinstance(message, Change):
            if self.have_scan and message.counter != (self.counter + 1) & 0xFFFFFFFF:
                self._request_scan(now, f"board events {self.counter + 1}.."
                                        f"{message.counter - 1} were lost")  # fmt: skip
            self.counter = message.counter
            for sensor, reading in message.changes:
                if 0 <= sensor < len(self.readings):
                    self.readings[sensor] = reading
            if self.have_scan:
                self._observe(now)
        elif isinstance(message, ButtonEvent):
            if self.have_scan and message.counter != (self.counter + 1) & 0xFFFFFFFF:
                self._request_scan(now, "board events were lost")
            self.counter = message.counter
            if message.pressed and self.have_scan:
                self.log.info("button %s pressed", message.button.name)
                self._process(self.rec.press(message.button, now))
        elif isinstance(message, Ack):
            if self.pending is not None and message.seq == self.pending.seq:
                self.acked = self.pending.frame
                self.pending = None
                if self.acked != self.want:
                    self._send_leds(now)
        elif isinstance(message, Nak):
            self.log.warning("board rejected frame %d: %s", message.seq, message.reason.name)
            if self.pending is not None:
                self._send_leds(now)
        elif isinstance(message, Fault):
            self.log.warning("board fault %d: %s", message.code, message.text)

    def _hello(self, hello: Hello, now: float) -> None:
        profile = self.profile
        problems = []
        if hello.protocol != PROTOCOL_VERSION:
            problems.append(f"speaks protocol {hello.protocol}, not {PROTOCOL_VERSION}")
        if hello.sensors != len(profile.sensor_cells):
            problems.append(f"has {hello.sensors} sensors, the profile wires "
                            f"{len(profile.sensor_cells)}")  # fmt: skip
        if hello.leds != len(profile.led_cells):
            problems.append(f"has {hello.leds} LEDs, the profile wires {len(profile.led_cells)}")
        if hello.sensing != profile.sensing:
            problems.append(f"senses {hello.sensing.name.lower()}, the profile expects "
                            f"{profile.sensing.name.lower()}")  # fmt: skip
        if problems:
            raise DaemonError(
                f"board {hello.board_id!r} does not fit profile {profile.id!r}: "
                + "; ".join(problems) + " (choose the right --board)"
            )  # fmt: skip
        missing = sorted(b.name.lower() for b in profile.buttons - hello.buttons)
        if missing:
            self.log.warning("the board has no %s button(s)", ", ".join(missing))
        first = self.board is None
        self.board = hello
        if first:
            self.log.info("board %r, firmware %s: %d sensors, %d LEDs",
                          hello.board_id, hello.firmware, hello.sensors, hello.leds)  # fmt: skip
        self.have_scan = False
        self.scan_sent = 0.0
        self._request_scan(now, "board connected")
        self.acked = None
        self._send_leds(now)

    def _observe(self, now: float) -> None:
        sensed: dict[int, Token] = {}
        for sensor, reading in enumerate(self.readings):
            cell = self.profile.sensor_cells[sensor]
            token = self.profile.reading_token(reading)
            if cell is not None and token is not None:
                sensed[cell] = token
        self.rec.observe(sensed, now)
        self.evaluate_at = self.rec.settle_deadline()
        self._process(self.rec.evaluate(now))

    # -- results ----------------------------------------------------------------------------
    def _process(self, records: list[Record]) -> None:
        for record in records:  # the journal first ...
            self._journal(record)
        now = self.clock()
        if self.rec.notice:
            self.log.info("%s", self.rec.notice)
            self.rec.notice = ""
        if self.rec.status != self.last_status:
            self.last_status = self.rec.status
            self.log.info("%s", self.rec.status)
        frame = led_frame(self.rec.signals, self.profile)  # ... then the LEDs
        if frame != self.want:
            self.want = frame
            self._send_leds(now)

    def _journal(self, record: Record) -> None:
        if isinstance(record, Committed):
            self.journal.record_move(self.game_id, record.text)
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
                self.journal.finish(self.game_id, record.effect.outcome)
                self.log.info("game over: %s", record.effect.outcome.describe(
                    self.game.player_names))  # fmt: skip
        elif isinstance(record, TookBack):
            self.journal.record_takeback(self.game_id, len(record.moves))
            self.log.info("took back %s", " ".join(reversed(record.moves)))
        elif isinstance(record, NewGame):
            self.game_id = self.journal.start_game(self.game, self.profile.id, None)
            self.log.info("new game %d: %s", self.game_id, self.game.title)

    def _send_leds(self, now: float) -> None:
        if self.board is None:
            return
        seq = self._send(self.want)
        self.pending = None if seq is None else _Pending(seq, self.want, now)

    def _timers(self, now: float) -> None:
        if self.evaluate_at is not None and now >= self.evaluate_at:
            self.evaluate_at = None
            self._process(self.rec.evaluate(now))
        if self.link is None:
            return
        if self.board is None and now - self.hello_sent >= HELLO_RETRY:
            self._send(HostHello(PROTOCOL_VERSION, socket.gethostname()))
            self.hello_sent = now
        if self.board is not None and not self.have_scan and now - self.scan_sent >= SCAN_RETRY:
            self._request_scan(now, "no scan arrived")
        if self.pending is not None and now - self.pending.sent >= LED_RETRY:
            self._send_leds(now)
        if now - self.last_rx >= PING_AFTER and now - self.last_ping >= PING_AFTER:
            self.last_ping = now
            self._send(Ping(int(now * 1000) & 0xFFFF))
        if now - self.last_rx >= DEAD_AFTER:
            self._drop_link(f"no answer for {DEAD_AFTER:.0f} s")


def _options(game: Game) -> str:
    return ", ".join(f"{k}={v}" for k, v in game.options.items())
