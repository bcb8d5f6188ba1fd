"""Link (framing over real pyserial URLs and the virtual link), hardware profiles, journal."""

from __future__ import annotations

import contextlib
import logging
import queue
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from engine import ConfigError, Outcome, Piece, Player
from firmware_bridge.link import catalog
from firmware_bridge.link.profile import BoardProfile, build_profile
from firmware_bridge.link.protocol import (
    Ack,
    Button,
    Change,
    Hello,
    HostHello,
    LedDelta,
    LedKind,
    Leds,
    Ping,
    Reading,
    Scan,
    ScanRequest,
    Sensing,
    encode_frame,
)
from firmware_bridge.link.serial_link import (
    BadFrame,
    Connected,
    Disconnected,
    FrameProtocol,
    Received,
    SerialLink,
    VirtualLink,
)
from firmware_bridge.referee.daemon import Daemon
from firmware_bridge.referee.journal import Journal, JournalError, last_turn_layouts, replay
from tests.helpers import load

TD = load("three-dragons")


def events_of(q: queue.Queue[Any], count: int, timeout: float = 5.0) -> list[Any]:
    out: list[Any] = []
    deadline = time.monotonic() + timeout
    while len(out) < count and time.monotonic() < deadline:
        with contextlib.suppress(queue.Empty):
            out.append(q.get(timeout=0.05))
    return out


def test_serial_link_over_pyserial_loop_url_round_trips_frames() -> None:
    link = SerialLink("loop://")
    link.open()
    try:
        link.send(Ping(7))
        link.send(ScanRequest())
        events = events_of(link.events, 3)
        assert isinstance(events[0], Connected)
        assert [e.message for e in events[1:]] == [Ping(7), ScanRequest()]
        assert [e.seq for e in events[1:]] == [0, 1]
    finally:
        link.close()


def test_a_host_hello_ends_a_half_frame_left_on_the_line_first() -> None:
    """After a reconnect the board may still hold half a frame; the HOST_HELLO leads with a
    delimiter, so the board sees the half frame end (and drops it) and the HELLO whole."""
    link = SerialLink("loop://")
    link.open()
    try:
        half = encode_frame(Ping(5), 9)[:4]
        link._write(half)  # what the last connection left unfinished
        link.send(HostHello(2, "host"))
        events = events_of(link.events, 3)
        assert isinstance(events[1], BadFrame)
        assert isinstance(events[2], Received) and events[2].message == HostHello(2, "host")
    finally:
        link.close()


def test_a_port_that_vanishes_under_the_reader_is_a_disconnect_not_a_dead_thread(
    mocker: Any,
) -> None:
    """An unplugged USB board can fail pyserial's ``in_waiting`` with a bare OSError (EIO), not
    a SerialException: the main loop must still hear that the link is gone."""
    import serial.urlhandler.protocol_loop as loop

    link = SerialLink("loop://")
    link.open()
    try:
        assert isinstance(events_of(link.events, 1)[0], Connected)
        mocker.patch.object(loop.Serial, "in_waiting", new_callable=mocker.PropertyMock,
                            side_effect=OSError(5, "Input/output error"))  # fmt: skip
        gone = link.events.get(timeout=5)
        assert isinstance(gone, Disconnected) and "Input/output error" in gone.reason
        assert not link.is_open
    finally:
        link.close()


def test_unopenable_port_is_a_readable_link_error() -> None:
    link = SerialLink("/dev/does-not-exist")
    with pytest.raises(Exception, match="cannot open /dev/does-not-exist"):
        link.open()


def test_framing_survives_split_reads_noise_and_empty_frames() -> None:
    q: queue.Queue[Any] = queue.Queue()
    protocol = FrameProtocol(q)
    wire = encode_frame(Ping(1), 3) + encode_frame(Ack(9), 4)
    protocol.data_received(b"\x13\x37noise\x00\x00")  # noise, then an empty frame
    for byte in wire:  # one byte at a time
        protocol.data_received(bytes([byte]))
    events = events_of(q, 3)
    assert isinstance(events[0], BadFrame)
    assert [(e.seq, e.message) for e in events[1:]] == [(3, Ping(1)), (4, Ack(9))]


def test_endless_noise_without_a_delimiter_is_dropped() -> None:
    q: queue.Queue[Any] = queue.Queue()
    protocol = FrameProtocol(q)
    protocol.data_received(b"\x01" * 20000)
    (event,) = events_of(q, 1)
    assert isinstance(event, BadFrame) and "without a frame delimiter" in event.reason
    protocol.data_received(encode_frame(Ping(2), 0))
    assert isinstance(events_of(q, 1)[0], Received)


# -- profiles --------------------------------------------------------------------------------


def profile(**data: Any) -> BoardProfile:
    base: dict[str, Any] = {"id": "p", "game": "three-dragons", "sensing": "owner",
                            "sensors": {"order": "rows"}}  # fmt: skip
    base.update(data)
    return build_profile(base, TD, "boards/p.yaml")


def names(cells: tuple[int | None, ...]) -> list[str | None]:
    return [None if c is None else TD.board.names[c] for c in cells]


def test_wiring_orders_corners_serpentine_and_skips() -> None:
    rows = profile(sensors={"order": "rows", "start": "south-west", "skip": ["mountains"]})
    assert names(rows.sensor_cells)[:3] == ["b1", "c1", "d1"] and len(rows.sensor_cells) == 77
    snake = profile(sensors={"order": "rows", "start": "north-east", "serpentine": True})
    assert names(snake.sensor_cells)[8:11] == ["a9", "a8", "b8"]
    columns = profile(sensors={"order": "columns", "start": "south-east"})
    assert names(columns.sensor_cells)[:3] == ["i1", "i2", "i3"]
    listed = profile(sensors={"cells": ["e5", None, "a1"]})
    assert names(listed.sensor_cells) == ["e5", None, "a1"]
    assert listed.led_cells == listed.sensor_cells


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"game": "protect-the-goat"}, "game: this profile is for protect-the-goat"),
        ({"sensing": "x-ray"}, "sensing: expected one of occupancy, owner, identity"),
        ({"sensors": {"cells": ["a1", "a1"]}}, "a cell is wired twice"),
        ({"sensors": {"order": "diagonal"}}, "sensors.order: expected one of rows, columns"),
        ({"sensors": {"order": "rows", "skip": ["z9"]}}, "unknown cell 'z9'"),
        ({"sensing": "identity"}, "identity sensing needs a code for every kind"),
        ({"identity": {"stone": 1, "die": 1}}, "identity code 1 is used twice"),
        ({"buttons": ["panic"]}, "buttons"),
        ({"settle_ms": -1}, "settle_ms: expected a whole number >= 0"),
        ({"colour": "red"}, "unknown key 'colour'"),
    ],
)
def test_bad_profiles_name_the_key(data: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=f"^boards/p.yaml: .*{message}"):
        profile(**data)


def test_tokens_follow_the_sensing_kind() -> None:
    piece = Piece("stone", Player.TWO)
    owner = profile()
    assert owner.token(piece) is Player.TWO
    assert owner.reading_token(owner.reading(piece)) is Player.TWO
    assert owner.reading_token(Reading(1, 0)) == "?"  # occupied, owner unknown: matches nothing
    occupancy = profile(sensing="occupancy")
    assert occupancy.reading_token(occupancy.reading(piece)) is True
    identity = profile(sensing="identity", identity={"stone": 1, "die": 2, "dragon": 3})
    assert identity.reading(piece) == Reading(3, 1)
    assert identity.reading_token(Reading(3, 1)) == (Player.TWO, "stone")
    assert identity.reading_token(Reading(3, 9)) == "?"


def test_unknown_profile_lists_the_known_ones() -> None:
    with pytest.raises(ConfigError, match="unknown board profile 'x' .*three-dragons-reed"):
        catalog.load_profile("x", TD)


# -- journal ---------------------------------------------------------------------------------


def test_journal_records_replays_and_resumes(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "j.sqlite3")
    game_id = journal.start_game(TD, "three-dragons", None)
    for text in ("c1-c4", "c9-c6", "d2-d3"):
        journal.record_move(game_id, text)
    journal.record_takeback(game_id, 1)
    journal.close()
    again = Journal(tmp_path / "j.sqlite3")
    row = again.unfinished()
    assert row is not None and row.id == game_id and row.game == "three-dragons"
    assert again.moves(game_id) == ["c1-c4", "c9-c6"]
    state = replay(TD.new_state(), row.entries)
    assert [state.notation(m) for m in state.history] == ["c1-c4", "c9-c6"]
    again.abandon(game_id)
    assert again.unfinished() is None


def test_a_winning_move_and_the_result_are_written_together_or_not_at_all(
    tmp_path: Path, mocker: Any
) -> None:
    journal = Journal(tmp_path / "j.sqlite3")
    game_id = journal.start_game(TD, "three-dragons", None)
    journal.record_move(game_id, "c1-c4")
    mocker.patch.object(journal, "finish", side_effect=JournalError("disk full"))
    with pytest.raises(JournalError):
        journal.record_move(game_id, "c9-c6", Outcome(Player.TWO, "a test"))
    assert journal.moves(game_id) == ["c1-c4"]  # the move went with the result it ended in
    mocker.stopall()
    journal.record_move(game_id, "c9-c6", Outcome(Player.TWO, "a test"))
    assert journal.moves(game_id) == ["c1-c4", "c9-c6"] and journal.unfinished() is None


def test_last_turn_layouts_cover_the_whole_turn() -> None:
    state = load("protect-the-goat").state_from_json({
        "layout": {"a1": {"owner": 1, "piece": "goat"}, "i6": {"owner": 2, "piece": "goat"},
                   "c4": {"owner": 1, "piece": "phant"}, "b6": {"owner": 2, "piece": "yafbeest"},
                   "c6": {"owner": 2, "piece": "lyon"}},
        "to_move": 1, "phase": "movement", "south": 1,
    })  # fmt: skip
    start = state.layout()
    state.apply(state.parse("c4-c5"))
    state.apply(state.parse("c5xb6"))
    layouts = last_turn_layouts(state)
    assert layouts[0] == start and layouts[-1] == state.layout()
    assert len(layouts) == 1 + 2 * 2


def test_unwritable_journal_is_a_clear_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(Exception, match="cannot open the journal"):
        Journal(blocker / "journal.sqlite3")


# -- the daemon over the virtual link --------------------------------------------------------


class SilentBoard:
    """A board that answers HELLO and SCAN but never acknowledges LED frames."""

    def __init__(self, link: VirtualLink, profile_sensors: int, leds: int) -> None:
        self.link = link
        self.sensors = profile_sensors
        self.leds = leds
        self.led_frames: list[float] = []

    def pump(self, stop: threading.Event) -> None:
        while not stop.is_set():
            try:
                event = self.link.events.get(timeout=0.02)
            except queue.Empty:
                continue
            if not isinstance(event, Received):
                continue
            message = event.message
            if isinstance(message, HostHello):
                self.link.send(Hello(1, self.sensors, self.leds, Sensing.OWNER, LedKind.RGB,
                                     frozenset(Button), "test", "silent"))  # fmt: skip
            elif isinstance(message, ScanRequest):
                self.link.send(Scan(0, tuple(Reading(0, 0) for _ in range(self.sensors))))
            elif isinstance(message, Leds):
                self.led_frames.append(time.monotonic())


def test_daemon_resends_unacknowledged_led_frames(tmp_path: Path) -> None:
    profile = catalog.load_profile("three-dragons", TD)
    host, board_end = VirtualLink.pair()
    board_end.open()
    board = SilentBoard(board_end, len(profile.sensor_cells), len(profile.led_cells))
    journal = Journal(tmp_path / "j.sqlite3")

    def factory(events: queue.Queue[Any]) -> VirtualLink:
        host.events = events
        host._protocol.events = events
        return host

    daemon = Daemon(TD, profile, journal, "virtual", log=logging.getLogger("test"),
                    link_factory=factory)  # fmt: skip
    stop = threading.Event()
    threads = [threading.Thread(target=daemon.run, args=(stop,)),
               threading.Thread(target=board.pump, args=(stop,))]  # fmt: skip
    for thread in threads:
        thread.start()
    time.sleep(1.2)
    stop.set()
    for thread in threads:
        thread.join(5)
    journal.close()
    # The empty board wants every start square "put back": that frame is sent again until
    # acknowledged (when: test_an_unacknowledged_led_frame_is_sent_again_later_each_time; the
    # arrival times here are the board thread's, bunched on a busy machine).
    assert len(board.led_frames) >= 3


def test_an_unacknowledged_led_frame_is_sent_again_later_each_time() -> None:
    """The LED channel's schedule, in its own terms (no clock): 250 ms, then twice as long
    each time up to 2 s, so a board slow to answer is not flooded; an ACK of any copy ends
    it, and a NAK asks for a whole frame at once."""
    from firmware_bridge.link.leds import Signal, led_frame
    from firmware_bridge.referee.led_channel import LedChannel

    profile = catalog.load_profile("three-dragons", TD)
    channel = LedChannel(profile)
    first = next(cell for cell in profile.led_cells if cell is not None)
    lit = led_frame({first: Signal.MOVE_TO}, profile)
    assert channel.wanted(lit) and not channel.wanted(lit)
    now, seq, dues = 10.0, 0, []
    for _ in range(6):
        assert channel.message(deltas=True) == lit  # nothing acknowledged: the whole frame
        channel.sent_as(seq, now)
        due = channel.due()
        assert due is not None
        dues.append(round(due - now, 3))
        now, seq = due, seq + 1
    assert dues == [0.25, 0.5, 1.0, 2.0, 2.0, 2.0]
    assert not channel.acknowledged(99)  # a frame it never sent
    assert not channel.acknowledged(1)  # an earlier copy: shown, nothing more to send
    assert channel.due() is None and channel.acked == lit
    dark = led_frame({}, profile)
    assert channel.wanted(dark)
    delta = channel.message(deltas=True)
    assert isinstance(delta, LedDelta) and len(delta.changes) == 1  # only the LED that changes
    channel.sent_as(7, now)
    assert channel.refused()  # NAK: what it shows is unknown
    assert channel.message(deltas=True) == dark  # a whole frame next


def test_a_busy_loop_judges_a_settled_move_as_the_board_stood_then(tmp_path: Path) -> None:
    """The referee's loop is late (a Pi rendering its kiosk; the demos under pytest -n 4): it
    reads the next player's placement after the last one had settled, but before it judged
    it. Timers that fell due before a frame arrived run first, as of then: two moves, not one
    disturbed board. (A listener that blocks stands for the busy loop.)"""
    game = load("goats-wintering")
    profile = catalog.load_profile("goats-wintering", game)
    host, board_end = VirtualLink.pair()
    board_end.open()
    sensors = len(profile.sensor_cells)

    def answer(stop: threading.Event) -> None:
        while not stop.is_set():
            try:
                event = board_end.events.get(timeout=0.02)
            except queue.Empty:
                continue
            if isinstance(event, Received) and isinstance(event.message, HostHello):
                board_end.send(Hello(1, sensors, len(profile.led_cells), Sensing.OWNER,
                                     LedKind.RGB, frozenset(Button), "test", "late"))  # fmt: skip
            elif isinstance(event, Received) and isinstance(event.message, ScanRequest):
                board_end.send(Scan(0, tuple(Reading(0, 0) for _ in range(sensors))))

    def factory(events: queue.Queue[Any]) -> VirtualLink:
        host.events = events
        host._protocol.events = events
        return host

    journal = Journal(tmp_path / "j.sqlite3")
    daemon = Daemon(game, profile, journal, "virtual", log=logging.getLogger("test"),
                    link_factory=factory)  # fmt: skip
    moves: list[tuple[str, ...]] = []
    seen = threading.Condition()
    busy = threading.Event()

    def listener(snapshot: Any) -> None:
        with seen:
            moves.append(tuple(m.text for m in snapshot.moves))
            seen.notify_all()
        if busy.is_set():
            busy.clear()
            time.sleep(profile.settle * 2.5)  # the loop is away well past the settle deadline

    daemon.add_listener(listener)
    stop = threading.Event()
    threads = [threading.Thread(target=daemon.run, args=(stop,)),
               threading.Thread(target=answer, args=(stop,))]  # fmt: skip
    for thread in threads:
        thread.start()
    try:
        assert wait_for(lambda: daemon.have_scan, 10)
        d1, d3 = (profile.sensor_cells.index(game.board.index[name]) for name in ("D1", "D3"))
        busy.set()
        board_end.send(Change(1, ((d1, Reading(2, 0)),)))  # White places a goat on D1
        time.sleep(profile.settle * 1.5)  # it settles; the referee is busy
        board_end.send(Change(2, ((d3, Reading(3, 0)),)))  # Black places one on D3
        with seen:
            assert seen.wait_for(lambda: moves and len(moves[-1]) == 2, timeout=10), moves[-1:]
        assert moves[-1] == ("G@D1", "g@D3")
    finally:
        stop.set()
        for thread in threads:
            thread.join(5)
        journal.close()


def wait_for(test: Any, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while not test():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def test_resume_rules_for_an_unfinished_game(tmp_path: Path) -> None:
    from firmware_bridge.referee.errors import DaemonError

    log = logging.getLogger("test")
    profile = catalog.load_profile("three-dragons", TD)
    journal = Journal(tmp_path / "j.sqlite3")
    first = Daemon(TD, profile, journal, "unused", log=log)
    journal.record_move(first.game_id, "c1-c4")
    again = Daemon(TD, profile, journal, "unused", log=log)  # same settings: resumed
    assert again.game_id == first.game_id and again.state.plies == 1
    strength = load("three-dragons", variant="strength")
    with pytest.raises(DaemonError, match="unfinished game 1: three-dragons .*variant=base"):
        Daemon(strength, profile, journal, "unused", log=log)
    fresh = Daemon(strength, profile, journal, "unused", log=log, new_game=True)
    assert fresh.game_id != first.game_id and fresh.state.plies == 0
    journal.close()


def test_a_notice_ends_when_it_is_old_or_what_it_asked_is_done(tmp_path: Path) -> None:
    """A refusal is an answer of the moment: a page opened a minute later shows no old
    "nothing to select". A take-back's "put the board back" goes once the board is back."""
    from firmware_bridge.link.protocol import Button
    from firmware_bridge.referee.daemon import NOTICE_SECONDS

    now = [100.0]
    profile = catalog.load_profile("three-dragons", TD)
    journal = Journal(tmp_path / "j.sqlite3")
    daemon = Daemon(TD, profile, journal, "unused", log=logging.getLogger("test"),
                    clock=lambda: now[0])  # fmt: skip
    daemon._press(Button.SELECT, now[0])
    assert daemon.snapshot().notice == "nothing to select"
    daemon._timers(now[0])
    now[0] += NOTICE_SECONDS - 1
    daemon._timers(now[0])
    assert daemon.notice == "nothing to select"
    now[0] += 2
    daemon._timers(now[0])
    assert daemon.snapshot().notice == ""
    journal.close()


def test_faces_stopped_while_starting_are_not_left_running(tmp_path: Path) -> None:
    """The referee's loop can end (a board that does not fit, Ctrl-C) while the faces are
    still being started: a face started after Faces.stop is stopped at once, not left running
    with nobody to stop it (here the built-in emulator, a process of its own)."""
    import argparse
    import os

    from firmware_bridge.commands.run import Faces

    log = logging.getLogger("test")
    profile = catalog.load_profile("three-dragons", TD)
    journal = Journal(tmp_path / "j.sqlite3")
    daemon = Daemon(TD, profile, journal, "unused", log=log)
    args = argparse.Namespace(allow_host=[], board_id="", emulate="python",
                              emulator_web="127.0.0.1:0", position=None,
                              settle_ms=None)  # fmt: skip
    faces = Faces(args, directory=catalog.config_dir(None),
                  journal_path=tmp_path / "j.sqlite3", log=log)  # fmt: skip
    link = tmp_path / "board"
    faces.stop()  # the loop ended first
    faces.start(daemon, None, None, link, threading.Event())
    assert faces.error is None

    def running() -> list[int]:  # emulators on this link (Linux's /proc)
        found = []
        for pid in filter(str.isdigit, os.listdir("/proc")):
            with contextlib.suppress(OSError):
                if str(link).encode() in Path(f"/proc/{pid}/cmdline").read_bytes():
                    found.append(int(pid))
        return found

    deadline = time.monotonic() + 10
    while running() and time.monotonic() < deadline:
        time.sleep(0.05)
    leaked = running()
    for pid in leaked:
        os.kill(pid, 9)
    assert not leaked, "the emulator started after stop() was left running"
    journal.close()


def test_a_kiosk_on_port_0_is_logged_at_the_port_it_took(tmp_path: Path) -> None:
    import argparse
    import re
    import urllib.request

    from firmware_bridge.commands.run import Faces

    said: list[str] = []

    class Said(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            said.append(record.getMessage())

    log = logging.getLogger("test.kiosk-port")
    log.setLevel(logging.INFO)
    log.addHandler(Said())
    profile = catalog.load_profile("three-dragons", TD)
    journal = Journal(tmp_path / "j.sqlite3")
    daemon = Daemon(TD, profile, journal, "unused", log=log)
    daemon.lit.set()
    args = argparse.Namespace(allow_host=[], board_id="")
    faces = Faces(args, directory=catalog.config_dir(None),
                  journal_path=tmp_path / "j.sqlite3", log=log)  # fmt: skip
    faces.start(daemon, ("127.0.0.1", 0), None, None, threading.Event())
    try:
        line = next(text for text in said if text.startswith("kiosk page: "))
        found = re.match(r"kiosk page: (http://127\.0\.0\.1:(\d+)/)", line)
        assert found is not None and found.group(2) != "0", line
        with urllib.request.urlopen(found.group(1), timeout=10) as page:  # the page is there
            assert page.status == 200
    finally:
        faces.stop()
        journal.close()
