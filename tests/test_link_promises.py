"""Promises of the link and the daemon that only a test aimed at them holds (each of these
failed under a deliberate mutation of the code before it existed):

- each move is written to the journal before the LEDs change;
- a lost frame asks for a SCAN, even when only a PONG or an ACK follows it (no event counter
  to reveal the gap);
- a SCAN asked for within the spacing of the last one is deferred, never dropped;
- COBS rejects a zero byte inside a frame;
- a button pressed while the board is being scanned is acted on once the scan is in.
"""

from __future__ import annotations

import dataclasses
import logging
import queue
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine import Outcome
from firmware_bridge.link import catalog, cobs
from firmware_bridge.link.protocol import (
    Ack,
    Button,
    ButtonEvent,
    Change,
    Hello,
    HostHello,
    LedKind,
    Leds,
    Message,
    Ping,
    Pong,
    Reading,
    Scan,
    ScanRequest,
    Sensing,
)
from firmware_bridge.link.serial_link import Received, VirtualLink
from firmware_bridge.referee.daemon import Daemon
from firmware_bridge.referee.journal import Journal
from tests.helpers import load, position

TD = load("three-dragons")
PROFILE = dataclasses.replace(catalog.load_profile("three-dragons", TD), settle=0.0)
# White's c2-c4 captures d4 (custodial, with e4): the LEDs then ask for d4 to be removed.
START = position(TD, {"c2": "S", "e4": "S", "h2": "S", "i3": "S", "d4": "s", "h8": "s",
                      "i7": "s"})  # fmt: skip


class ScriptedBoard:
    """The board's end of a virtual link: answers the host as firmware does, records what the
    host sent (with times), and can lose its next frame on the wire."""

    def __init__(self, link: VirtualLink) -> None:
        self.link = link
        layout = START.layout()
        self.readings = [PROFILE.reading(layout.get(c)) if c is not None else Reading(0, 0)
                         for c in PROFILE.sensor_cells]  # fmt: skip
        self.counter = 0
        self.received: list[tuple[float, Message]] = []
        self.lock = threading.Lock()
        self.hold_scans = threading.Event()  # while set, SCAN requests wait for release_scan()
        self.scan_waiting = False

    def send(self, message: Message, *, lose: bool = False) -> None:
        if lose:  # the frame is sent, but never arrives: its sequence number is used up
            self.link._seq = (self.link._seq + 1) & 0xFF
        else:
            self.link.send(message)

    def move(self, frm: str, to: str, *, lose: bool = False) -> None:
        """A hand moves a piece: one CHANGE with both sensors."""
        a, b = (PROFILE.sensor_of[TD.board.cell(n)] for n in (frm, to))
        self.readings[a], self.readings[b] = Reading(0, 0), self.readings[a]
        self.counter += 1
        self.send(Change(self.counter, ((a, self.readings[a]), (b, self.readings[b]))),
                  lose=lose)  # fmt: skip

    def press(self, button: Button) -> None:
        self.counter += 1
        self.send(ButtonEvent(self.counter, button, True))

    def release_scan(self) -> None:
        self.hold_scans.clear()
        if self.scan_waiting:
            self.scan_waiting = False
            self.link.send(Scan(self.counter, tuple(self.readings)))

    def pump(self, stop: threading.Event) -> None:
        while not stop.is_set():
            try:
                event = self.link.events.get(timeout=0.005)
            except queue.Empty:
                continue
            if not isinstance(event, Received):
                continue
            message = event.message
            with self.lock:
                self.received.append((time.monotonic(), message))
            if isinstance(message, HostHello):
                self.link.send(Hello(1, len(self.readings), len(PROFILE.led_cells), Sensing.OWNER,
                                     LedKind.RGB, frozenset(Button), "t", "b"))  # fmt: skip
            elif isinstance(message, ScanRequest):
                if self.hold_scans.is_set():
                    self.scan_waiting = True
                else:
                    self.link.send(Scan(self.counter, tuple(self.readings)))
            elif isinstance(message, Leds):
                self.link.send(Ack(event.seq))
            elif isinstance(message, Ping):
                self.link.send(Pong(message.token))

    def scans_after(self, since: float) -> list[float]:
        with self.lock:
            return [t for t, m in self.received if isinstance(m, ScanRequest) and t > since]


class TracingJournal(Journal):
    def __init__(self, path: Path, trace: list[str]) -> None:
        super().__init__(path)
        self.trace = trace

    def record_move(self, game_id: int, text: str, outcome: Outcome | None = None) -> None:
        self.trace.append(f"journal {text}")
        super().record_move(game_id, text, outcome)


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[tuple[Daemon, ScriptedBoard, list[str]]]:
    host, board_end = VirtualLink.pair()
    board_end.open()
    board = ScriptedBoard(board_end)
    trace: list[str] = []
    journal = TracingJournal(tmp_path / "j.sqlite3", trace)
    sent = host.send

    def traced_send(message: Message) -> tuple[int, int]:
        if isinstance(message, Leds):
            trace.append("leds")
        return sent(message)

    host.send = traced_send  # type: ignore[method-assign]

    def factory(events: queue.Queue[Any]) -> VirtualLink:
        host.events = events
        host._protocol.events = events
        return host

    daemon = Daemon(TD, PROFILE, journal, "virtual", log=logging.getLogger("test"),
                    link_factory=factory, start=START)  # fmt: skip
    stop = threading.Event()
    threads = [threading.Thread(target=daemon.run, args=(stop,)),
               threading.Thread(target=board.pump, args=(stop,))]  # fmt: skip
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + 5
    while not (daemon.have_scan and daemon.rec.synced) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert daemon.have_scan and daemon.rec.synced
    time.sleep(0.3)  # well past the scan spacing
    yield daemon, board, trace
    stop.set()
    for thread in threads:
        thread.join(5)
    journal.close()


def _wait(check: Any, timeout: float = 3.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.002)
    return False


def test_each_move_is_journaled_before_the_leds_change(rig: Any) -> None:
    _, board, trace = rig
    trace.clear()
    board.move("c2", "c4")  # its capture lights d4
    assert _wait(lambda: "journal c2-c4" in trace and "leds" in trace), trace
    assert trace.index("journal c2-c4") < trace.index("leds"), trace


def test_a_lost_last_change_followed_only_by_a_pong_brings_a_scan_at_once(rig: Any) -> None:
    daemon, board, _ = rig
    board.move("c2", "c4", lose=True)  # the move's only CHANGE is lost on the wire
    time.sleep(0.05)
    sent = time.monotonic()
    board.send(Pong(7))  # the next frame the board sends: no event counter in it
    assert _wait(lambda: board.scans_after(sent), 1.0), "no SCAN was asked for"
    # At once: well inside the SCAN retry (1 s) and the ping (2 s) that would find it later,
    # with room for a busy machine's scheduling.
    assert board.scans_after(sent)[0] - sent < 0.5
    assert _wait(lambda: daemon.journal.moves(daemon.game_id) == ["c2-c4"])


def test_a_loss_right_after_a_scan_request_is_not_forgotten(rig: Any, mocker: Any) -> None:
    daemon, board, _ = rig
    # The spacing widened from 0.1 s so that the test lands inside it on a busy machine too.
    mocker.patch("firmware_bridge.referee.session.SCAN_SPACING", 0.5)
    first = time.monotonic()
    host = board.link.peer
    assert host is not None
    host.receive(b"\x05garbage\x00")  # a damaged frame: the host asks for a SCAN
    assert _wait(lambda: board.scans_after(first), 1.0)
    asked = board.scans_after(first)[0]
    board.move("c2", "c4", lose=True)  # lost within the scan spacing ...
    board.send(Ack(0))  # ... and revealed by an ACK's sequence number
    revealed = time.monotonic()
    assert revealed - asked < 0.5, "the test was too slow to land inside the spacing"
    assert _wait(lambda: board.scans_after(asked), 3.0), "the second SCAN was dropped"
    # Sent when the spacing ends (0.5 s), not at the SCAN retry a second after the first: a
    # busy machine's loop may be late by some hundreds of milliseconds, never by the retry.
    assert board.scans_after(asked)[0] - asked < 0.95
    assert _wait(lambda: daemon.journal.moves(daemon.game_id) == ["c2-c4"])


def test_cobs_rejects_a_zero_byte_inside_a_frame() -> None:
    assert cobs.decode(cobs.encode(b"\x01\x00\x02")) == b"\x01\x00\x02"
    with pytest.raises(cobs.CobsError, match="zero byte"):
        cobs.decode(b"\x03\x01\x00")  # a zero inside a block
    with pytest.raises(cobs.CobsError, match="zero byte"):
        cobs.decode(b"\x02\x01\x00\x01")  # a zero where a block code belongs


def test_a_press_while_the_board_is_being_scanned_is_acted_on_after_the_scan(rig: Any) -> None:
    daemon, board, _ = rig
    board.move("c2", "c4")
    assert _wait(lambda: daemon.journal.moves(daemon.game_id) == ["c2-c4"])
    time.sleep(0.3)  # past the scan spacing
    board.hold_scans.set()
    asked = time.monotonic()
    host = board.link.peer
    assert host is not None
    host.receive(b"\x05garbage\x00")  # a damaged frame: the host asks for a SCAN ...
    assert _wait(lambda: board.scans_after(asked), 1.0)
    board.press(Button.TAKEBACK)  # ... and the player presses take-back before it comes
    time.sleep(0.2)
    assert daemon.journal.moves(daemon.game_id) == ["c2-c4"], "acted on before the scan"
    board.release_scan()
    assert _wait(lambda: daemon.journal.moves(daemon.game_id) == []), "the press was lost"
