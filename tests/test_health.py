"""Sensors going bad during play: the tracker names the cell, and lets players' hands be."""

from __future__ import annotations

import logging
import queue
from pathlib import Path
from typing import Any

from firmware_bridge import words
from firmware_bridge.link import catalog
from firmware_bridge.link.protocol import (
    Button,
    Change,
    Fault,
    FaultCode,
    Hello,
    LedKind,
    Pong,
    Reading,
    Scan,
    Sensing,
)
from firmware_bridge.link.serial_link import Link, Received
from firmware_bridge.referee.daemon import Daemon
from firmware_bridge.referee.health import FLAP_COUNT, PHANTOM_AFTER, QUIET_AFTER, SensorHealth
from firmware_bridge.referee.journal import Journal
from firmware_bridge.words import sensor_brief

NAMES = ("a1", "b1", "c1")


def test_a_sensor_changing_again_and_again_is_flapping_until_it_is_quiet() -> None:
    health = SensorHealth(NAMES)
    now = 0.0
    for k in range(FLAP_COUNT - 1):
        now += 0.5
        health.observe({} if k % 2 else {1: True}, {1: True} if k % 2 else {}, now)
    assert health.warnings() == ()
    assert health.observe({}, {1: True}, now + 0.5)  # the one too many
    (warning,) = health.warnings()
    assert (warning.cell, warning.kind) == ("b1", "flapping") and "b1" in warning.text
    assert not health.tick(now + QUIET_AFTER - 1)
    assert health.tick(now + 0.5 + QUIET_AFTER)  # quiet for a minute: over
    assert health.warnings() == ()


def test_moves_made_on_a_cell_are_hands_not_a_bad_sensor() -> None:
    health = SensorHealth(NAMES)
    for k in range(FLAP_COUNT - 1):
        health.observe({} if k % 2 else {1: True}, {1: True} if k % 2 else {}, k * 0.5)
    health.moved([1])
    health.observe({}, {1: True}, 10.0)
    assert health.warnings() == ()


def test_a_cell_asked_to_be_cleared_for_long_is_named_until_it_is_clear() -> None:
    health = SensorHealth(NAMES)
    assert not health.asked_to_clear([2], 0.0)
    assert not health.tick(PHANTOM_AFTER - 0.1)
    assert health.tick(PHANTOM_AFTER)
    (warning,) = health.warnings()
    assert (warning.cell, warning.kind) == ("c1", "phantom")
    assert "its sensor may be stuck" in warning.text
    assert health.brief() == "Check the sensors: c1 may be stuck"
    assert health.asked_to_clear([], PHANTOM_AFTER + 1)  # the piece came off: nothing to say
    assert health.warnings() == ()


def test_many_sensor_warnings_are_one_short_line() -> None:
    cells = [f"{c}{r}" for c in "abcdefgh" for r in "12"]
    line = sensor_brief(cells[:3], cells[3:])
    assert line.startswith("Check the sensors: ") and len(line) < 100, line
    assert "and 9 more may be stuck" in line and "keep changing" in line


class _Wire(Link):
    """A board's port that takes every frame and never reads (the test hands the daemon what
    the board says, at the times it chooses)."""

    def __init__(self, events: queue.Queue[Any]) -> None:
        super().__init__(events)
        self._open = False

    @property
    def is_open(self) -> bool:
        return self._open

    def open(self) -> None:
        self._open = True

    def _write(self, data: bytes) -> None:
        pass

    def close(self) -> None:
        self._open = False


class _Table:
    """A Three Dragons board at its start, wired straight to a Daemon on a fake clock: what
    the board says is handed to the daemon's turn as the link would."""

    def __init__(self, tmp_path: Path) -> None:
        self.game = catalog.load_game("three-dragons")
        self.profile = catalog.load_profile("three-dragons", self.game)
        self.journal = Journal(tmp_path / "j.sqlite3")
        self.now = 100.0
        self.daemon = Daemon(self.game, self.profile, self.journal, "wire",
                             log=logging.getLogger("test"), link_factory=_Wire,
                             clock=lambda: self.now)  # fmt: skip
        readings = [Reading(0, 0)] * len(self.profile.sensor_cells)
        for cell, piece in self.game.new_state().layout().items():
            readings[self.profile.sensor_cells.index(cell)] = Reading(1 + int(piece.owner), 0)
        self.readings = readings
        self.hello = Hello(1, len(readings), len(self.profile.led_cells), Sensing.OWNER,
                           LedKind.RGB, frozenset(Button), "test", "wire")  # fmt: skip

    def says(self, seq: int, message: Any, after: float) -> None:
        self.now += after
        self.daemon.turn(Received(seq, message, self.now, 8), self.now, early=False)

    def start(self) -> None:
        """Connected, HELLO and the first SCAN."""
        self.daemon._connect(self.now)
        self.says(0, self.hello, 0.1)
        self.says(1, Scan(0, tuple(self.readings)), 0.1)


def test_an_illegal_move_stays_the_headline_however_long_it_stays(tmp_path: Path) -> None:
    """Three Dragons, b8-c7 (no piece moves diagonally) left on the board past the stuck-sensor
    window: the kiosk's headline and the club's alert stay "illegal move", and no sensor is
    suspected: the stone missing from b8 explains the one on c7 (issue 51). A piece read on
    a cell with nothing missing anywhere is a sensor's doing: that one is named."""
    table = _Table(tmp_path)
    game, profile, daemon, board_says = table.game, table.profile, table.daemon, table.says
    table.start()
    assert daemon.snapshot().status == "White to move"
    b8, c7 = (profile.sensor_cells.index(game.board.index[n]) for n in ("b8", "c7"))
    board_says(2, Change(1, ((b8, Reading(0, 0)),)), 1.0)  # Black's stone lifted off b8 ...
    board_says(3, Change(2, ((c7, Reading(3, 0)),)), 0.2)  # ... and put down on c7
    for second in range(40):  # half a minute and more, well past the stuck-sensor window
        board_says(4 + second, Pong(0), 1.0)  # the board answers the referee's pings
        shown = daemon.snapshot()
        assert shown.status.startswith("illegal move"), shown.status
        assert "take Black's stone off c7" in shown.status and "b8" in shown.status
        assert shown.alert == "illegal"
    assert table.now - 100.0 > PHANTOM_AFTER
    assert shown.sensor_brief == ""  # a hand explains it: no sensor is suspected
    board_says(44, Change(3, ((c7, Reading(0, 0)), (b8, Reading(3, 0)))), 0.5)  # put right
    d5 = profile.sensor_cells.index(game.board.index["d5"])
    board_says(45, Change(4, ((d5, Reading(3, 0)),)), 0.5)  # nothing lifted: d5 reads a piece
    for second in range(25):
        board_says(46 + second, Pong(0), 1.0)
    shown = daemon.snapshot()
    assert shown.sensor_brief == "Check the sensors: d5 may be stuck", shown.status
    table.journal.close()


def test_the_boards_no_power_fault_is_said_in_plain_words_until_power_is_back(
    tmp_path: Path,
) -> None:
    """Issue 50: FAULT 7 (every sensor out of band at once) puts one plain sentence beneath
    the status; FAULT 8 takes it away; a new HELLO starts without it."""
    table = _Table(tmp_path)
    daemon = table.daemon

    def board_says(seq: int, message: Any) -> None:
        table.says(seq, message, 0.1)

    table.start()
    assert daemon.snapshot().sensor_brief == ""
    board_says(2, Fault(FaultCode.POWER, "the sensors have no power: ..."))
    shown = daemon.snapshot()
    assert shown.sensor_brief == words.NO_SENSOR_POWER
    assert "5 V supply plugged in" in shown.sensor_brief
    assert shown.status == "White to move"  # what the players must do stays the headline
    board_says(3, Fault(FaultCode.POWER_OK, "the sensors have power again"))
    assert daemon.snapshot().sensor_brief == ""
    board_says(4, Fault(FaultCode.POWER, "the sensors have no power: ..."))
    board_says(5, table.hello)
    assert daemon.snapshot().sensor_brief == ""
    table.journal.close()


def test_a_restart_told_after_each_retried_hello_is_logged_once_a_connection(
    tmp_path: Path, caplog: Any
) -> None:
    """The board says a restart (and no calibration) after each HOST_HELLO until the host goes
    on: a slow boot answering every queued HELLO tells it many times, and the log says it
    once; after a reconnect it is news again."""
    table = _Table(tmp_path)
    restart = Fault(FaultCode.RESTART, "restarted by its watchdog: the firmware stalled")
    calibration = Fault(FaultCode.CALIBRATION, "not calibrated: ...")
    caplog.set_level(logging.INFO, logger="test")
    table.daemon._connect(table.now)
    seq = 0
    for _ in range(3):
        for message in (table.hello, restart, calibration):
            table.says(seq, message, 0.1)
            seq += 1
    table.says(seq, Scan(0, tuple(table.readings)), 0.1)
    told = [r.getMessage() for r in caplog.records if r.getMessage().startswith("board fault")]
    assert told == [f"board fault 3: {restart.text}", f"board fault 4: {calibration.text}"]
    assert [f[1] for f in table.daemon.faults] == [3, 4]
    table.daemon._drop_link("unplugged")
    table.daemon._connect(table.now + 5)
    table.says(0, table.hello, 5.1)
    table.says(1, restart, 0.1)
    told = [r.getMessage() for r in caplog.records if r.getMessage().startswith("board fault")]
    assert told[-1] == f"board fault 3: {restart.text}" and len(told) == 3
    table.journal.close()
