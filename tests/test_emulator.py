"""The board emulator's own promises (its use over a pty is in the end-to-end tests)."""

from __future__ import annotations

import json
import queue
import threading
import time
from collections.abc import Callable
from pathlib import Path

import serial

from engine import Piece, Player
from firmware_bridge.boards.emulated import Emulator
from firmware_bridge.link import catalog
from firmware_bridge.link.protocol import (
    Change,
    Fault,
    Hello,
    HostHello,
    LedDelta,
    LedPattern,
    Leds,
    Message,
    Nak,
    NakReason,
    Ping,
    Pong,
    encode_frame,
)
from firmware_bridge.link.serial_link import FrameProtocol, LinkEvent, Received, drain


class SlowPipe:
    """An output that lets other threads run between writes, as a busy pipe does."""

    def __init__(self) -> None:
        self.parts: list[str] = []

    def write(self, text: str) -> int:
        self.parts.append(text)
        time.sleep(0.0002)
        return len(text)

    def flush(self) -> None:
        pass


def test_events_from_two_threads_each_arrive_as_one_json_line(tmp_path: Path) -> None:
    # The command thread and the I/O thread both emit; a JSON reader (the end-to-end harness,
    # a builder's script) drops a line it cannot decode, and with it two events.
    game = catalog.load_game("three-dragons")
    profile = catalog.load_profile("three-dragons", game)
    out = SlowPipe()
    emulator = Emulator(game, profile, {}, link_path=tmp_path / "board", out=out,  # type: ignore[arg-type]
                        json_mode=True)  # fmt: skip

    def emit_many(kind: str) -> None:
        for number in range(150):
            emulator.emit(kind, number=number)

    threads = [threading.Thread(target=emit_many, args=(k,)) for k in ("leds", "pieces")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    lines = "".join(out.parts).splitlines()
    events = [json.loads(line) for line in lines]
    assert len(events) == 300
    for kind in ("leds", "pieces"):
        assert [e["number"] for e in events if e["event"] == kind] == list(range(150))


def test_a_put_back_never_places_the_piece_just_taken_off_that_cell_as_wrong(
    tmp_path: Path,
) -> None:
    # Following the LEDs: "illegal" on a cell takes a wrong piece off it; the "put back" that
    # follows must not place that same piece again (the two would alternate for ever).
    game = catalog.load_game("protect-the-goat")
    profile = catalog.load_profile("protect-the-goat", game)
    emulator = Emulator(game, profile, {}, link_path=tmp_path / "board", out=SlowPipe(),  # type: ignore[arg-type]
                        json_mode=True)  # fmt: skip
    h6, c1 = game.board.cell("h6"), game.board.cell("c1")
    lyon, mouse = Piece("lyon", Player.TWO), Piece("sugarmouse", Player.TWO)
    emulator.box = [(c1, lyon), (h6, mouse)]  # the mouse was just taken off h6 as wrong there
    assert emulator.put_back(h6, avoid=mouse)
    assert emulator.pieces == {h6: lyon} and emulator.box == [(h6, mouse)]
    emulator.pieces.clear()
    assert not emulator.put_back(h6, avoid=mouse)  # nothing else in the hand: left to the players
    assert emulator.put_back(h6)  # without a piece to avoid, the one from h6 goes back
    assert emulator.pieces == {h6: mouse}


def test_the_box_offers_only_the_pieces_the_variant_plays_with(tmp_path: Path) -> None:
    kinds = {}
    for variant in ("base", "strength", "dragons"):
        game = catalog.load_game("three-dragons", {"variant": variant})
        profile = catalog.load_profile("three-dragons", game)
        emulator = Emulator(game, profile, {}, link_path=tmp_path / variant, out=SlowPipe(),  # type: ignore[arg-type]
                            json_mode=True)  # fmt: skip
        kinds[variant] = sorted({p["kind"] for p in emulator.view()["supply"]})
    assert kinds == {"base": ["stone"], "strength": ["die"], "dragons": ["die", "dragon"]}


class Host:
    """The host's end of a started Three Dragons emulator's pty: the messages heard, in order."""

    def __init__(self, tmp_path: Path) -> None:
        self.game = catalog.load_game("three-dragons")
        self.profile = catalog.load_profile("three-dragons", self.game)
        self.emulator = Emulator(self.game, self.profile, {}, link_path=tmp_path / "board",
                                 out=SlowPipe(), json_mode=True)  # type: ignore[arg-type]  # fmt: skip
        self.emulator.board.start()
        self.port = serial.serial_for_url(str(tmp_path / "board"), timeout=0.05)
        self.events: queue.Queue[LinkEvent] = queue.Queue()
        self.decoder = FrameProtocol(self.events)
        self.heard: list[Message] = []

    def send(self, message: Message, seq: int) -> None:
        self.port.write(encode_frame(message, seq))

    def until(self, test: Callable[[Message], bool], seconds: float = 3.0) -> list[Message]:
        """What was heard, once a message heard passes ``test``."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            self.decoder.data_received(self.port.read(4096))
            self.heard.extend(e.message for e in drain(self.events) if isinstance(e, Received))
            if any(test(m) for m in self.heard):
                return self.heard
        raise AssertionError(f"not heard in {seconds} s: {self.heard}")

    def close(self) -> None:
        self.port.close()
        self.emulator.board.close()


def test_the_emulator_answers_wrong_led_counts_and_noise_as_the_firmware_does(
    tmp_path: Path,
) -> None:
    """The Python board keeps to the firmware's answers (issue 30, items 10 and 11): an LED
    frame or delta for another number of LEDs is NAK(seq, WRONG_SIZE) at any size, and noise
    gets at most one NAK per 100 ms and a FAULT that counts the damaged frames left unanswered."""
    host = Host(tmp_path)
    try:
        host.send(HostHello(2, "referee"), 20)  # LED_DELTA is protocol 2's
        host.until(lambda m: isinstance(m, Hello) and m.protocol == 2)
        for seq, count in enumerate((76, 78, 79, 300)):
            host.send(Leds((LedPattern(1, 2, 3, 0xFF),) * count), seq)
            host.until(lambda m, seq=seq: m == Nak(seq, NakReason.WRONG_SIZE))  # type: ignore[misc]
        host.send(LedDelta(300, 0, ((0, LedPattern(1, 1, 1, 0xFF)),)), 9)
        host.until(lambda m: m == Nak(9, NakReason.WRONG_SIZE))
        host.heard.clear()
        host.port.write(b"\x01\x00" * 2048)
        heard = host.until(lambda m: isinstance(m, Fault) and m.code == 5)
        naks = [m for m in heard if m == Nak(255, NakReason.BAD_FRAME)]
        fault = next(m for m in heard if isinstance(m, Fault))
        assert 1 <= len(naks) <= 5
        assert fault.text == f"noise on the line: {2048 - len(naks)} damaged frames not answered"
        host.send(Ping(5), 10)
        host.until(lambda m: m == Pong(5))
    finally:
        host.close()


def test_a_lift_held_past_the_debounce_is_reported_though_the_board_thread_ran_late(
    tmp_path: Path,
) -> None:
    """A piece held in the air longer than the debounce and put back is a lift a real board
    reports (a squash is made that way); the emulator's I/O thread running late (a busy
    machine, here held off by its lock) must not swallow it."""
    host = Host(tmp_path)
    emulator = host.emulator
    sensor = host.profile.sensor_cells.index(host.game.board.cell("e5"))

    def codes() -> list[int]:  # e5's readings, as reported, in order
        return [r.code for m in host.heard if isinstance(m, Change)
                for s, r in m.changes if s == sensor]  # fmt: skip

    try:
        host.send(HostHello(2, "referee"), 1)
        host.until(lambda m: isinstance(m, Hello))
        emulator.place("e5", "S")
        host.until(lambda _: len(codes()) == 1)
        occupied = codes()[0]
        with emulator.lock:  # the board's thread cannot run its timers meanwhile
            emulator.lift("e5")
            time.sleep(host.profile.debounce + 0.05)  # held past the debounce ...
            emulator.place("e5", "S")  # ... and put back
        host.until(lambda _: len(codes()) == 3)
        assert codes()[1:] == [0, occupied]
    finally:
        host.close()
