"""The board session: the referee's side of the conversation with one board.

Connecting (and waiting for a board that is not there, with a reminder a minute), HOST_HELLO and
the board's HELLO and whether it fits the profile, the frames' sequence numbers and event
counters (any gap asks for a full SCAN), scans, faults, pings and the silence that drops a
link. ``Daemon`` (daemon.py) is a ``BoardSession``: the same loop owns both, and this half
hands the game's half what the board saw (``_observe``), pressed (``_press``) and must show
(``_send_leds``), which daemon.py defines.
"""

from __future__ import annotations

import logging
import queue
import socket
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from engine import Game, State
from firmware_bridge.link.profile import BoardProfile
from firmware_bridge.link.protocol import (
    PROTOCOL_DELTA,
    PROTOCOL_VERSION,
    Ack,
    Button,
    ButtonEvent,
    Change,
    Fault,
    FaultCode,
    Hello,
    HostHello,
    Message,
    Nak,
    Ping,
    Pong,
    Reading,
    Scan,
    ScanRequest,
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
from firmware_bridge.referee.check import BoardCheck
from firmware_bridge.referee.errors import DaemonError
from firmware_bridge.referee.journal import Journal
from firmware_bridge.referee.led_channel import LedChannel
from firmware_bridge.referee.recorder import CONNECT, SENT, UNSENT, Recorder, wire

if TYPE_CHECKING:
    from firmware_bridge.referee.snapshot import Snapshot

RECONNECT_INTERVAL = 0.5
HELLO_RETRY = 1.0
PING_AFTER = 2.0
DEAD_AFTER = 6.5
SCAN_RETRY = 1.0  # a SCAN asked for and not answered is asked for again after this
SCAN_SPACING = 0.1  # at most one SCAN request per this many seconds
MAX_FAULTS = 5
REMINDER = 60.0  # seconds between "still waiting for the board" lines


class BoardSession:
    """The board half of the daemon (see the module's docstring). What it reads of the
    daemon's state is declared here; daemon.py sets it."""

    game: Game
    profile: BoardProfile
    journal: Journal
    port: str
    log: logging.Logger
    clock: Callable[[], float]
    now: float  # the time of the loop's turn under way (every step of a turn is dated by it)
    events: queue.Queue[Any]
    opened: Link | None
    link_factory: Callable[[queue.Queue[LinkEvent]], Link]
    link: Link | None
    created: bool
    game_id: int
    readings: list[Reading]
    leds: LedChannel
    faults: list[tuple[float, int, str]]
    mismatch: str
    switched_for: str | None
    misfit: Hello | None
    fitted: bool
    last_frame: float | None
    dirty: bool
    listeners: list[Callable[[Snapshot], None]]
    check: BoardCheck | None
    next_connect: float
    connect_failures: int
    waiting_since: float
    next_reminder: float
    recorder: Recorder | None

    @property
    def state(self) -> State:
        raise NotImplementedError

    # -- what the game's half does with what the board says (daemon.py) ----------------------
    def _observe(self, now: float) -> None:
        raise NotImplementedError

    def _press(self, button: Button, now: float) -> tuple[bool, str]:
        raise NotImplementedError

    def _hold_press(self, event: ButtonEvent) -> None:
        raise NotImplementedError

    def _send_leds(self, now: float) -> None:
        raise NotImplementedError

    def _check_update(self, now: float) -> None:
        raise NotImplementedError

    # -- the link -----------------------------------------------------------------------------
    def _reset_link_state(self) -> None:
        self.board: Hello | None = None
        self.halted = ""  # the board's firmware could not start: what it says (FAULT 6)
        self.unpowered = False  # the board says its sensors have no power (FAULT 7)
        # Sensors the board says read outside every band (FAULT 1, until FAULT 2): a board
        # check started later is told them (the board says them once, and after each HELLO).
        self.out_of_band: set[int] = set()
        # The board's notices (a restart, no calibration) heard on this connection: it says
        # them after each HELLO until it knows they were heard, so a retried HELLO repeats them.
        self.notices_heard: set[tuple[int, str]] = set()
        self.have_scan = False
        # Presses that came while the board was being (re)scanned: acted on once the scan is in
        # (a player pressing as the referee comes back must not be ignored without a word).
        self.held_presses: list[Button] = []
        self.counter = 0
        self.board_seq: int | None = None
        self.hello_sent = 0.0
        self.scan_sent = -SCAN_SPACING
        self.scan_due: float | None = None
        self.scan_why = ""
        self.last_rx = self.now
        self.last_ping = 0.0
        self.leds.forget()

    def _connect(self, now: float) -> None:
        self.now = now
        link, self.opened = self.opened or self.link_factory(self.events), None
        try:
            if not link.is_open:
                link.open()
        except LinkError as exc:
            if self.recorder is not None:
                kind = "port" if isinstance(exc, PortError) else "link"
                self.recorder.turn((CONNECT, now, f"{kind}: {exc}"), now)
            self._not_connected(exc, now, getattr(link, "every", RECONNECT_INTERVAL))
            return
        if self.recorder is not None:
            self.recorder.turn((CONNECT, now, "ok"), now)
        self._connected(link, now)

    def _not_connected(self, exc: LinkError, now: float, every: float = RECONNECT_INTERVAL
                       ) -> None:  # fmt: skip
        """``every``: how often the link looks again (--port auto probes every 2 s)."""
        if isinstance(exc, PortError):
            if not self.fitted:  # at the start: a setting to fix, said in one line
                if self.created and not self.state.plies:
                    self.journal.discard(self.game_id)  # nothing was played: leave nothing
                raise DaemonError(str(exc)) from exc
            # The board was ours before: whoever holds its port now may let go; keep the game
            # and wait, saying so (a reminder follows every minute).
            self.next_connect = now + RECONNECT_INTERVAL
            if now >= self.next_reminder:
                self.next_reminder = now + REMINDER
                self.log.error("%s; waiting for the port", exc)
        else:
            self.next_connect = now + RECONNECT_INTERVAL
            if self.connect_failures == 0:
                self.waiting_since = now
                self.next_reminder = now + REMINDER
                self.log.warning("waiting for the board on %s (%s); trying every %s s",
                                 self.where(), exc, f"{every:g}")  # fmt: skip
            elif now >= self.next_reminder:
                self.next_reminder = now + REMINDER
                minutes = (now - self.waiting_since) / 60
                self.log.warning(
                    "still waiting for the board on %s after %.0f min (%s): is it plugged in "
                    "and switched on?", self.where(), minutes, exc,
                )  # fmt: skip
            self.connect_failures += 1

    def where(self) -> str:
        """The board's port in words: ``--port auto`` before it has found one is any port."""
        return "any serial port (--port auto)" if self.port == "auto" else self.port

    def _connected(self, link: Link, now: float) -> None:
        if self.connect_failures:
            self.log.info("the board's port %s is there after %.0f s", self.port,
                          now - self.waiting_since)  # fmt: skip
        self.connect_failures = 0
        self.link = link
        self._reset_link_state()
        self._send(HostHello(PROTOCOL_DELTA, socket.gethostname()))
        self.hello_sent = now

    def _drop_link(self, reason: str) -> None:
        self.dirty = True
        if self.link is not None:
            self.link.close()
            self.link = None
        if self.switched_for is not None:  # a board being swapped for the new game's
            self.log.info("board disconnected after the switch to %s; waiting for its board "
                          "on %s", self.game.title, self.port)  # fmt: skip
        else:
            self.log.warning("board disconnected (%s); waiting for it on %s", reason, self.port)
        self._reset_link_state()
        self.next_connect = self.now + RECONNECT_INTERVAL

    def _send(self, message: Message) -> int | None:
        if self.link is None:
            return None
        try:
            seq, size = self.link.send(message)
        except LinkError as exc:
            if self.recorder is not None:
                self.recorder.add((UNSENT, str(exc)))
            self._drop_link(str(exc))
            return None
        self.log.debug("-> %s seq=%d (%d bytes)", message.NAME, seq, size)
        if self.recorder is not None:
            self.recorder.add((SENT, wire(message, seq)))
        return seq

    def _request_scan(self, now: float, why: str) -> None:
        """Ask for a SCAN at once; one asked for within SCAN_SPACING of the last is sent when
        the spacing is over, never dropped (a burst of damage sends one request per spacing,
        and the first is never delayed)."""
        self.have_scan = False  # the view is stale from now on, whenever the request goes out
        if now - self.scan_sent < SCAN_SPACING:
            if self.scan_due is None:
                self.scan_due, self.scan_why = self.scan_sent + SCAN_SPACING, why
            return
        self.scan_due = None
        self.log.info("asking the board for a full scan (%s)", why)
        self.scan_sent = now
        self._send(ScanRequest())

    # -- events -----------------------------------------------------------------------------
    def _handle(self, event: LinkEvent, now: float) -> None:
        self.dirty = self.dirty or not isinstance(event, Received)
        if isinstance(event, Received):
            self.last_rx = now
            self.last_frame = time.time()
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
            if isinstance(message, ButtonEvent):
                self._hold_press(message)
            if isinstance(message, Fault):  # a board whose firmware cannot start says why
                self._fault(message, now)  # instead of HELLO: asked again at HELLO_RETRY
            elif not isinstance(message, (Ack, Nak, Pong)):
                self._send(HostHello(PROTOCOL_DELTA, socket.gethostname()))
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
            held, self.held_presses = self.held_presses, []
            for button in held:
                self.log.info("button %s (pressed during the scan) acted on", button.name)
                self._press(button, now)
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
                self._press(message.button, now)
            else:
                self._hold_press(message)
        elif isinstance(message, Ack):
            if self.leds.acknowledged(message.seq):
                self._send_leds(now)
        elif isinstance(message, Nak):
            self.log.warning("board rejected frame %d: %s", message.seq, message.reason.name)
            if self.leds.refused():
                self._send_leds(now)
        elif isinstance(message, Fault):
            self._fault(message, now)

    def _fault(self, message: Fault, now: float) -> None:
        said = (message.code, message.text)
        if message.code in (FaultCode.RESTART, FaultCode.CALIBRATION):
            if said in self.notices_heard:
                return
            self.notices_heard.add(said)
        if self.faults and self.faults[-1][1:] == said:  # said again (FAULT 6 every HELLO)
            self.faults = [*self.faults[:-1], (time.time(), *said)]
        else:
            self.log.warning("board fault %d: %s", message.code, message.text)
            self.faults = [*self.faults, (time.time(), *said)][-MAX_FAULTS:]
        faulty = _fault_sensor(message)
        if faulty is not None and message.code == FaultCode.SENSOR_OK:
            self.out_of_band.discard(faulty)
            if self.check is not None:
                self.check.back(faulty)
        if faulty is not None and message.code == FaultCode.SENSOR:
            self.out_of_band.add(faulty)
            if self.check is not None:
                self.check.fault(faulty, now)
                self._check_update(now)
        if message.code == FaultCode.START:
            self.halted = message.text
        if message.code == FaultCode.POWER:
            self.unpowered = True
        if message.code == FaultCode.POWER_OK:
            self.unpowered = False
            self.out_of_band.clear()  # a sensor still out is said again, on its own
        self.dirty = True

    def _hello(self, hello: Hello, now: float) -> None:
        self.dirty = True
        self.halted = ""
        self.unpowered = False  # a board that still has none says so again after HELLO
        problems = self._misfit(hello)
        if problems:
            message = (
                f"board {hello.board_id!r} does not fit profile {self.profile.id!r}: "
                + "; ".join(problems)
            )  # fmt: skip
            if not self.fitted and not self.listeners and not self.state.plies:
                # A wrong board at the start of a game is a setting to fix: say so and stop,
                # leaving no empty game behind to block the next, correct start.
                if self.created:
                    self.journal.discard(self.game_id)
                raise DaemonError(message + " (choose the right --board)")
            if self.switched_for is not None:  # expected: the new game needs another board
                if message != self.mismatch:
                    self.log.info(
                        "the new game needs a %s board: waiting for it (the board connected %s)",
                        self.profile.id, "; ".join(problems),
                    )  # fmt: skip
            elif message != self.mismatch:
                self.log.error("%s: connect the board for %s, or start a game for this board",
                               message, self.game.title)  # fmt: skip
            self.mismatch = message
            self.misfit = hello
            self.board = None
            self.hello_sent = now
            return
        self.mismatch = ""
        self.misfit = None
        self.fitted = True
        self.switched_for = None
        self._fitting_hello(hello, now)

    def _misfit(self, hello: Hello) -> list[str]:
        profile = self.profile
        problems = []
        if hello.protocol not in (PROTOCOL_VERSION, PROTOCOL_DELTA):
            problems.append(f"speaks protocol {hello.protocol}; this referee speaks "
                            f"{PROTOCOL_VERSION} and {PROTOCOL_DELTA}")  # fmt: skip
        if hello.sensors != len(profile.sensor_cells):
            problems.append(f"has {hello.sensors} sensors, the profile wires "
                            f"{len(profile.sensor_cells)}")  # fmt: skip
        if hello.leds != len(profile.led_cells):
            problems.append(f"has {hello.leds} LEDs, the profile wires {len(profile.led_cells)}")
        if hello.sensing != profile.sensing:
            problems.append(f"senses {hello.sensing.name.lower()}, the profile expects "
                            f"{profile.sensing.name.lower()}")  # fmt: skip
        return problems

    def _fitting_hello(self, hello: Hello, now: float) -> None:
        profile = self.profile
        missing = sorted(b.name.lower() for b in profile.buttons - hello.buttons)
        if missing:
            self.log.warning("the board has no %s button(s)", ", ".join(missing))
        first = self.board is None
        self.board = hello
        if first:
            self.log.info("board %r, firmware %s: %d sensors, %d LEDs",
                          hello.board_id, hello.firmware, hello.sensors, hello.leds)  # fmt: skip
        self.have_scan = False
        self.scan_sent = -SCAN_SPACING
        self._request_scan(now, "board connected")
        self.leds.unknown()
        self._send_leds(now)

    def _link_timers(self, now: float) -> None:
        """HELLO and SCAN asked for again, LED frames resent, a ping when the board is quiet,
        and the link dropped after DEAD_AFTER of silence."""
        if self.link is None:
            return
        if self.board is None and now - self.hello_sent >= HELLO_RETRY:
            self._send(HostHello(PROTOCOL_DELTA, socket.gethostname()))
            self.hello_sent = now
        if self.scan_due is not None and now >= self.scan_due:
            self._request_scan(now, self.scan_why)
        elif self.board is not None and not self.have_scan and now - self.scan_sent >= SCAN_RETRY:
            self._request_scan(now, "no scan arrived")
        due = self.leds.due()
        if due is not None and now >= due:
            self._send_leds(now)
        if now - self.last_rx >= PING_AFTER and now - self.last_ping >= PING_AFTER:
            self.last_ping = now
            self._send(Ping(int(now * 1000) & 0xFFFF))
        if now - self.last_rx >= DEAD_AFTER:
            self._drop_link(f"no answer for {DEAD_AFTER:.0f} s")


def _fault_sensor(fault: Fault) -> int | None:
    """The sensor a board fault names ("sensor 12: ..."), if it names one."""
    words = fault.text.split(":", 1)[0].split()
    if len(words) == 2 and words[0] == "sensor" and words[1].isdigit():
        return int(words[1])
    return None
