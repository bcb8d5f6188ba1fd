"""The Pico firmware's side of docs/protocol.md, frame by frame: the firmware runs in
MicroPython's Unix port (64 KB heap) and this test is its host, speaking through the host's own
codec, with the simulated board's sensors, buttons and LEDs under its hand."""

from __future__ import annotations

import json
import os
import select
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TypeVar

import pytest

from firmware_bridge.boards.firmware_files import board_config, firmware_dir, install
from firmware_bridge.boards.micropython import find_micropython
from firmware_bridge.link import catalog
from firmware_bridge.link.protocol import (
    Ack,
    Button,
    ButtonEvent,
    Change,
    Fault,
    FrameError,
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
    Scan,
    ScanRequest,
    decode_frame,
    encode_frame,
    led_delta,
)

OFF = LedPattern(0, 0, 0, 0)
M = TypeVar("M", bound=Message)
UNTIL_WAIT = 10.0  # seconds a test waits for an answer it names


class Pico:
    """The firmware in MicroPython with its simulated board, and a host at its serial port."""

    def __init__(
        self,
        folder: Path,
        profile_id: str = "three-dragons",
        *,
        reason: str = "power",
        calibrated: bool = True,
        heap: str = "64K",
        **changes: object,
    ):
        game = catalog.load_game(catalog.profile_game(profile_id))
        self.profile = catalog.load_profile(profile_id, game)
        self.config = board_config(self.profile, game, "bench-1")
        for key, value in changes.items():
            self.config["leds" if key in ("brightness", "budget_ma") else "sensors"][key] = value
        if not (folder / "main.py").exists():
            install(folder, self.config, compiled=True, host=True)
        self.count = len(self.profile.sensor_cells)
        self.rest = self.config["sensors"]["bands"]["centre"]
        if calibrated:
            (folder / "calibration.json").write_text(json.dumps({"base": [self.rest] * self.count}))
        control_r, self.control = os.pipe()
        self.events, events_w = os.pipe()
        env = {
            **os.environ,
            "BOARD_REFEREE_HW": f"{control_r},{events_w}",
            "BOARD_REFEREE_RESET": reason,
        }
        self.proc = subprocess.Popen(
            [find_micropython(), "-X", f"heapsize={heap}", "main.py"],
            cwd=folder,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            pass_fds=(control_r, events_w),
        )
        os.close(control_r)
        os.close(events_w)
        self.tell("".join(f"v {i} {self.rest} 100\n" for i in range(self.count)))
        self.buffer = bytearray()
        self.event_bytes = bytearray()
        self.seq = 0

    def tell(self, text: str) -> None:
        os.write(self.control, text.encode())

    def send(self, message: Message, seq: int | None = None) -> int:
        seq = self.seq if seq is None else seq
        self.seq = (seq + 1) & 0xFF
        self.raw(encode_frame(message, seq))
        return seq

    def raw(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def frames(self, seconds: float = 0.5, until: type[Message] | None = None) -> list[Message]:
        """The frames the board sends within ``seconds``, or until one of type ``until`` (then
        waited for up to UNTIL_WAIT: a busy machine's MicroPython answers late, never not)."""
        assert self.proc.stdout is not None
        found: list[Message] = []
        deadline = time.monotonic() + (seconds if until is None else max(seconds, UNTIL_WAIT))
        while time.monotonic() < deadline:
            out = self.proc.stdout.fileno()
            ready, _, _ = select.select([out, self.events], [], [], 0.02)
            if self.events in ready:
                self.event_bytes += os.read(self.events, 65536)
            if out in ready:
                data = os.read(self.proc.stdout.fileno(), 4096)
                assert data, self.proc.stderr.read() if self.proc.stderr else "board stopped"
                self.buffer += data
                while 0 in self.buffer:
                    end = self.buffer.index(0)
                    packet, self.buffer = bytes(self.buffer[:end]), self.buffer[end + 1 :]
                    if packet:
                        try:
                            found.append(decode_frame(packet)[1])
                        except FrameError as exc:
                            raise AssertionError(f"the board sent a bad frame: {exc}") from exc
                if until is not None and any(isinstance(m, until) for m in found):
                    return found
        return found

    def pixels(self) -> bytes:
        """The pixels the firmware lit last (its hardware layer's report)."""
        self.frames(0.3)
        leds = 4 * self.config["leds"]["count"]
        last = self.event_bytes.rfind(b"L")
        while last >= 0 and len(self.event_bytes) - last < 1 + 7 * leds // 4:
            last = self.event_bytes.rfind(b"L", 0, last)
        assert last >= 0
        return bytes(self.event_bytes[last + 1 + leds : last + 1 + leds + 3 * leds // 4])

    def writes(self) -> list[bytes]:
        """The pixels of every write to the LED chain so far (the hardware layer reports each:
        ``L``, the frame, the pixels; its text lines start with ``T``)."""
        leds = self.config["leds"]["count"]
        found: list[bytes] = []
        at = 0
        data = self.event_bytes
        while at < len(data):
            if data[at : at + 1] == b"T":
                end = data.find(b"\n", at)
                if end < 0:
                    break
                at = end + 1
            elif data[at : at + 1] == b"L" and len(data) >= at + 1 + 7 * leds:
                found.append(bytes(data[at + 1 + 4 * leds : at + 1 + 7 * leds]))
                at += 1 + 7 * leds
            else:
                break
        return found

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait()
        for fd in (self.control, self.events):
            os.close(fd)


@pytest.fixture
def pico(tmp_path: Path) -> Iterator[Pico]:
    board = Pico(tmp_path)
    yield board
    board.close()


def of(kind: type[M], frames: list[Message]) -> list[M]:
    return [f for f in frames if isinstance(f, kind)]


def test_hello_at_power_on_says_protocol_1_until_a_host_asks_for_2(pico: Pico) -> None:
    first = pico.frames(1.0, until=Hello)
    hello = of(Hello, first)[0]
    assert isinstance(hello, Hello)
    assert (hello.protocol, hello.sensors, hello.leds, hello.board_id) == (1, 77, 77, "bench-1")
    assert hello.buttons == frozenset(Button) and hello.firmware == "board-referee-pico 1.0"
    pico.send(HostHello(2, "referee"))
    assert of(Hello, pico.frames(0.5, until=Hello))[0].protocol == 2
    pico.send(HostHello(1, "an old referee"))  # a v1 host: v1, and LED_DELTA is unknown
    assert of(Hello, pico.frames(0.5, until=Hello))[0].protocol == 1
    seq = pico.send(LedDelta(77, 0, ((3, LedPattern(1, 2, 3, 0xFF)),)))
    assert Nak(seq, NakReason.UNKNOWN_TYPE) in pico.frames(0.5, until=Nak)


def test_every_nak_reason(pico: Pico) -> None:
    pico.frames(0.5, until=Hello)
    pico.send(HostHello(2, "referee"))
    pico.frames(0.5, until=Hello)
    frame = bytearray(encode_frame(Ping(7), pico.seq))
    frame[2] ^= 0x40  # damaged on the way: the CRC fails
    pico.raw(bytes(frame))
    assert Nak(255, NakReason.BAD_FRAME) in pico.frames(0.5, until=Nak)
    seq = pico.send(Ack(1))  # a board-to-host type, sent to the board
    assert Nak(seq, NakReason.UNKNOWN_TYPE) in pico.frames(0.5, until=Nak)
    body = bytes((0x84, 9, 1, 2, 3))  # a PING with a payload one byte too long
    from firmware_bridge.link import cobs
    from firmware_bridge.link.crc import crc16

    pico.raw(cobs.encode(body + crc16(body).to_bytes(2, "big")) + b"\x00")
    assert Nak(9, NakReason.BAD_PAYLOAD) in pico.frames(0.5, until=Nak)
    seq = pico.send(Leds((OFF,) * 76))  # a frame for another board's 76 LEDs
    assert Nak(seq, NakReason.WRONG_SIZE) in pico.frames(0.5, until=Nak)
    lit = tuple(LedPattern(0, 255, 0, 0xFF) if i in (1, 2) else OFF for i in range(77))
    seq = pico.send(Leds(lit))
    assert Ack(seq) in pico.frames(0.5, until=Ack)
    stale = led_delta(
        tuple(LedPattern(9, 9, 9, 0xFF) if i == 5 else OFF for i in range(77)), [(OFF,) * 77]
    )  # built against a frame the board is not showing
    assert stale is not None
    seq = pico.send(stale)
    assert Nak(seq, NakReason.MISMATCH) in pico.frames(0.5, until=Nak)
    good = led_delta(
        tuple(LedPattern(9, 9, 9, 0xFF) if i == 5 else led for i, led in enumerate(lit)), [lit]
    )
    assert good is not None
    seq = pico.send(good)
    assert Ack(seq) in pico.frames(0.5, until=Ack)


def test_an_led_frame_for_another_board_is_wrong_size_at_any_length(pico: Pico) -> None:
    """76 or 78 LEDs fit the board's buffer, 79, 100 or 300 do not: each is answered
    NAK(seq, WRONG_SIZE), by its sequence number (issue 30, item 10). An intact frame too long
    for the board is answered by its number too; a damaged one is a bad frame."""
    pico.frames(0.5, until=Hello)
    pico.send(HostHello(2, "referee"))
    pico.frames(0.5, until=Hello)
    for count in (76, 78, 79, 100, 300):
        seq = pico.send(Leds((LedPattern(1, 2, 3, 0xFF),) * count))
        assert Nak(seq, NakReason.WRONG_SIZE) in pico.frames(0.5, until=Nak), count
    changes = tuple((i, LedPattern(4, 5, 6, 0xFF)) for i in range(255))
    seq = pico.send(LedDelta(300, 0, changes))  # 1,537 bytes for a 300-LED board
    assert Nak(seq, NakReason.WRONG_SIZE) in pico.frames(0.5, until=Nak)
    from firmware_bridge.link import cobs
    from firmware_bridge.link.crc import crc16

    body = bytes((0x84, 41)) + bytes(range(1, 251)) * 4  # a PING 1,000 bytes too long
    pico.raw(cobs.encode(body + crc16(body).to_bytes(2, "big")) + b"\x00")
    assert Nak(41, NakReason.BAD_PAYLOAD) in pico.frames(0.5, until=Nak)
    frame = bytearray(encode_frame(Leds((OFF,) * 300), 42))
    frame[700] ^= 0x10  # the same length, damaged: its number cannot be trusted
    pico.raw(bytes(frame))
    assert Nak(255, NakReason.BAD_FRAME) in pico.frames(0.5, until=Nak)
    seq = pico.send(Leds((OFF,) * 77))  # and the board takes its own frames as before
    assert Ack(seq) in pico.frames(0.5, until=Ack)


def test_noise_is_answered_sparingly_and_what_went_unanswered_is_told(pico: Pico) -> None:
    """4 KB of noise (2,048 damaged frames) drew 2,048 NAKs, four times its bytes back (item
    11). Now at most one NAK per 100 ms, and a FAULT says how many were not answered."""
    pico.frames(0.5, until=Hello)
    pico.send(HostHello(2, "referee"))
    pico.frames(0.5, until=Hello)
    sent = time.monotonic()
    pico.raw(b"\x01\x00" * 2048)
    told = pico.frames(2.5, until=Fault)

    def said() -> tuple[list[Nak], list[Fault], int]:
        naks = [m for m in told if isinstance(m, Nak) and m == Nak(255, NakReason.BAD_FRAME)]
        faults = [m for m in told if isinstance(m, Fault) and m.code == 5]
        return naks, faults, sum(int(f.text.split(": ")[1].split()[0]) for f in faults)

    # A starved board (a loaded machine) is still reading the noise after its first report:
    # the rest is told a second later, and every damaged frame is answered or counted.
    deadline = time.monotonic() + 20
    while len(said()[0]) + said()[2] < 2048 and time.monotonic() < deadline:
        told += pico.frames(0.5)
    naks, faults, unanswered = said()
    assert faults, told
    # At most one NAK per 100 ms of the time the board took to read it all.
    most = max(5, 1 + int(10 * (time.monotonic() - sent)))
    assert 1 <= len(naks) <= most and len(naks) + unanswered == 2048, (len(naks), faults)
    assert faults[0].text.endswith("damaged frames not answered")
    pico.send(Ping(77))
    assert Pong(77) in pico.frames(0.5, until=Pong)


def test_scan_changes_buttons_and_pong_carry_the_event_counter(pico: Pico) -> None:
    pico.frames(0.5, until=Hello)
    pico.send(HostHello(2, "referee"))
    pico.send(ScanRequest())
    scan = of(Scan, pico.frames(1.0, until=Scan))[0]
    assert isinstance(scan, Scan) and all(r.code == 0 for r in scan.readings)
    pico.tell(f"v 10 {pico.rest + 12000} 100\nv 11 {pico.rest - 12000} 100\n")
    change = of(Change, pico.frames(1.0, until=Change))[0]
    assert isinstance(change, Change) and change.counter == scan.counter + 1
    assert {s: r.code for s, r in change.changes} == {10: 2, 11: 3}  # north pole reads high
    pico.tell("b pass 1\n")
    pressed = of(ButtonEvent, pico.frames(0.5, until=ButtonEvent))[0]
    pico.tell("b pass 0\n")
    released = of(ButtonEvent, pico.frames(0.5, until=ButtonEvent))[0]
    assert pressed == ButtonEvent(change.counter + 1, Button.PASS, True)
    assert released == ButtonEvent(change.counter + 2, Button.PASS, False)
    pico.send(Ping(0xABCD))
    assert Pong(0xABCD) in pico.frames(0.5, until=Pong)


def test_a_press_and_its_release_told_at_once_is_still_a_press(pico: Pico) -> None:
    """A loaded machine starves the simulated board: the host's press and release arrive in
    one read. A finger's press on a Pico lasts past the debounce, so the simulated button is
    held that long in the firmware's time (a lost CONFIRM once hung the board check)."""
    pico.frames(0.5, until=Hello)
    pico.send(HostHello(2, "referee"))
    pico.tell("b confirm 1\nb confirm 0\n")
    events = of(ButtonEvent, pico.frames(1.0, until=ButtonEvent))
    if len(events) < 2:  # the release comes a debounce later, and a busy machine is slow
        events += of(ButtonEvent, pico.frames(1.0, until=ButtonEvent))
    assert [(e.button, e.pressed) for e in events] == [
        (Button.CONFIRM, True),
        (Button.CONFIRM, False),
    ]


def test_a_flicker_shorter_than_the_debounce_is_never_reported(pico: Pico) -> None:
    pico.frames(0.5, until=Hello)
    pico.send(HostHello(2, "referee"))
    pico.tell(f"v 20 {pico.rest} 100\n")  # (a flicker's length is the firmware's clock's:
    pico.tell(f"f 20 {pico.rest + 12000} 8000\n")  # two lines 8 ms apart here arrive as late
    assert not of(Change, pico.frames(0.6))  # as a loaded machine lets them)
    pico.tell(f"v 20 {pico.rest + 12000} 100\n")  # the same reading, held, is reported
    assert of(Change, pico.frames(0.6, until=Change))


def test_a_reading_in_no_band_is_one_fault_and_a_restart_is_told(tmp_path: Path) -> None:
    board = Pico(tmp_path, reason="watchdog", calibrated=False)
    try:
        board.frames(0.5, until=Hello)
        board.send(HostHello(2, "referee"))
        told = board.frames(1.0, until=Fault)
        faults = of(Fault, told + board.frames(0.3))
        assert Fault(3, "restarted by its watchdog: the firmware stalled") in faults
        assert any(f.code == 4 and "not calibrated" in f.text for f in faults)
        board.tell("v 30 12 5\n")  # a broken wire: the SIG pull-down, near 0 V
        fault = of(Fault, board.frames(2.0, until=Fault))
        assert [f.text.split(":")[0] for f in fault] == ["sensor 30"]
        assert not of(Fault, board.frames(1.5))  # once, not a flood
        assert not of(Change, board.frames(0.1))  # and never a piece
        board.tell(f"v 30 {board.rest} 100\n")
        assert Fault(2, "sensor 30: reads normally again") in board.frames(1.0, until=Fault)
        # A host that said HOST_HELLO and never went on (it gave up on a slow boot, or was a
        # probe) did not take the restart's news with it: the next is told it too ...
        board.send(HostHello(2, "a referee reopening the port"))
        told = board.frames(1.0, until=Fault) + board.frames(0.3)
        assert Fault(3, "restarted by its watchdog: the firmware stalled") in of(Fault, told)
        board.send(ScanRequest())  # ... until one goes on, having heard it
        board.frames(1.0, until=Scan)
        board.send(HostHello(2, "a referee restarted"))  # the next host: no restart news again
        again = of(Fault, board.frames(0.6))
        assert all(f.code == 4 for f in again)
    finally:
        board.close()


def test_the_leds_blink_their_patterns_within_the_power_budget(tmp_path: Path) -> None:
    board = Pico(tmp_path, brightness=255, budget_ma=100)
    try:
        board.frames(0.5, until=Hello)
        board.send(HostHello(2, "referee"))
        white = LedPattern(255, 255, 255, 0xFF)
        board.send(Leds((white,) * 77))  # the whole board lit white: 77 x 60 mA asked
        board.frames(0.5, until=Ack)
        pixels = board.pixels()
        drawn = sum(pixels) * 20 / 255
        assert 80 < drawn <= 101  # dimmed to fit the 100 mA budget, not switched off
        half = LedPattern(0, 255, 0, 0xF0)  # on for half a second, off for half
        board.send(Leds((half,) + (OFF,) * 76))
        board.frames(0.3, until=Ack)
        seen: set[bytes] = set()

        def blinked() -> bool:  # GRB: seen dark, and seen green
            return bytes(3) in seen and any(p[0] > 0 and p[1] == 0 for p in seen)

        deadline = time.monotonic() + 10  # a busy machine's MicroPython blinks late
        while not blinked() and time.monotonic() < deadline:
            seen.add(board.pixels()[0:3])
            time.sleep(0.05)
        assert blinked(), seen
    finally:
        board.close()


def test_the_chain_is_written_when_a_step_changes_something_and_once_a_second(
    tmp_path: Path,
) -> None:
    """A still frame is written once, then once a second while any LED is lit (a pixel upset by
    noise is put right), not at every 125 ms blink step: a chain of 300 LEDs takes 9 ms to
    write, the scan stopped the while. A blinking LED is written at its changes."""
    board = Pico(tmp_path)
    try:
        board.frames(0.5, until=Hello)
        board.send(HostHello(2, "referee"))
        board.send(Leds((LedPattern(0, 0, 255, 0xFF),) * 77))
        board.frames(0.5, until=Ack)
        before = len(board.writes())
        board.frames(2.1)  # 17 blink steps
        still = board.writes()[before:]
        assert 1 <= len(still) <= 4, len(still)  # at step 0 of each second
        board.send(Leds((LedPattern(0, 255, 0, 0xF0),) + (OFF,) * 76))  # half a second on
        board.frames(0.5, until=Ack)
        before = len(board.writes())
        board.frames(2.1)
        blinking = board.writes()[before:]
        assert 3 <= len(blinking) <= 7, len(blinking)  # on and off, twice a second
        seen = {w[0:3] for w in blinking}  # GRB: green (at the board's brightness), and dark
        assert len(seen) == 2 and bytes(3) in seen and any(p[0] and not p[1] for p in seen)
        board.send(Leds((OFF,) * 77))  # dark: written once, then left alone
        board.frames(0.5, until=Ack)
        before = len(board.writes())
        board.frames(1.3)
        assert len(board.writes()) - before <= 1
    finally:
        board.close()


def test_a_held_up_loop_writes_the_chain_only_for_steps_that_show_something_new(
    tmp_path: Path,
) -> None:
    """The loop can come back several blink steps later (a long chain write; the Unix port on a
    busy machine): the chain is written if a step passed shows something new (a lit LED that
    changes, step 0 with any lit), not merely because steps were missed (a dark board's chain
    was written again at every late step)."""
    for name in ("leds.py", "codec.py"):
        shutil.copyfile(firmware_dir() / name, tmp_path / name)
    shutil.copyfile(Path(__file__).parent / "firmware" / "check_leds.py", tmp_path / "check.py")
    result = subprocess.run([find_micropython(), "check.py"], cwd=tmp_path, capture_output=True,
                            text=True, timeout=60, check=False)  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    writes = json.loads(result.stdout)
    assert writes["dark"] == [1, 0, 0, 0, 0, 0]  # steps 0, 1, 4, 7, 1, 5
    assert writes["still"] == [1, 0, 0, 0, 1, 0]  # steps 0, 1, 4, 7, 1 (past 0: refreshed), 2
    assert writes["blinking"] == [1, 0, 0, 1, 0, 1]  # 0, 1, 3, 6 (past 4: off), 7, 2 (past 0)


def test_a_board_out_of_memory_at_start_says_so_in_frames_not_text(tmp_path: Path) -> None:
    """Issue 30, item 13: the firmware's imports need more heap than the board has. It used to
    write a traceback as text on the serial line (frames() fails on text) and sit at the
    prompt. Now every HOST_HELLO gets FAULT 6 naming the error, and a PING its PONG."""
    board = Pico(tmp_path, heap="40K")
    try:
        first = of(Fault, board.frames(3.0, until=Fault))
        assert [f.code for f in first] == [6]
        text = first[0].text
        assert text.startswith("the firmware could not start: MemoryError"), text
        assert "a board this size needs more memory" in text
        board.send(HostHello(2, "referee"))
        assert of(Fault, board.frames(1.0, until=Fault)) == first
        board.send(Ping(321))
        assert Pong(321) in board.frames(1.0, until=Pong)
    finally:
        board.close()


CALIBRATION_CASES = [
    ('{"base": [1, 22, 333, 4444, 65535], "bad": []}', [1, 22, 333, 4444, 65535]),
    ('{"bad": [2, 3], "base": [5, 4, 3, 2, 1]}', [5, 4, 3, 2, 1]),  # any order of keys
    ('{\n  "base": [\n    10,\n    20,\n    30,\n    40,\n    50\n  ]\n}', [10, 20, 30, 40, 50]),
    ('{"base": [1, 2, 3, 4]}', None),  # another board's: 4 sensors
    ('{"base": [1, 2, 3, 4, 5, 6]}', None),
    ('{"base": [1, 2, -3, 4, 5]}', None),
    ('{"base": [1, 2, 70000, 4, 5]}', None),
    ('{"base": [1, 2, 3', None),  # cut short
    ("", None),
    ('{"bases": [1, 2, 3, 4, 5]}', None),
]


def test_the_calibration_is_read_in_small_pieces(tmp_path: Path) -> None:
    """settings.read_calibration parses calibration.json 128 bytes at a time into the array
    it is given (one 4 KB allocation for a 300-cell board's file failed in a heap that had
    room for everything else): spacing, key order, a key split across pieces, and every way a
    file can be wrong (None: the board keeps its default thresholds)."""
    from firmware_bridge.boards.firmware_files import firmware_dir

    source = firmware_dir()
    for name in ("settings.py", "codec.py"):
        (tmp_path / name).write_text((source / name).read_text())
    cases = [*CALIBRATION_CASES, (" " * 125 + '{"base": [7, 8, 9, 10, 11]}', [7, 8, 9, 10, 11])]
    big = list(range(300, 600))  # 300 sensors: a file of many pieces
    cases.append((json.dumps({"base": big, "bad": [1, 2]}), big))
    script = ["import settings", "from codec import zeros", "import json"]
    for number, (text, _) in enumerate(cases):
        (tmp_path / f"c{number}.json").write_text(text)
    script.append(f"counts = {[len(want) if want else 5 for _, want in cases]!r}")
    script.append("for n in range(len(counts)):")
    script.append("    settings.CALIBRATION = 'c%d.json' % n")
    script.append("    base = zeros('H', counts[n])")
    script.append("    print(json.dumps(list(base) if settings.read_calibration(base) else None))")
    (tmp_path / "probe.py").write_text("\n".join(script) + "\n")
    result = subprocess.run([find_micropython(), "-X", "heapsize=64K", "probe.py"], cwd=tmp_path,
                            capture_output=True, text=True, timeout=60, check=False)  # fmt: skip
    assert result.returncode == 0, result.stderr
    got = [json.loads(line) for line in result.stdout.splitlines()]
    assert got == [want for _, want in cases]


def test_a_host_that_never_pauses_does_not_stop_the_board(pico: Pico) -> None:
    """Issue 30, item 9: receive() read until the port was empty, so a host streaming PINGs
    without a pause stopped the scan (a piece placed during the stream was reported when it
    ended) and the watchdog's feeding. Now one 64-byte chunk a bank: the board scans,
    reports and feeds its watchdog under any input."""
    import threading

    pico.frames(0.5, until=Hello)
    pico.send(HostHello(2, "referee"))
    pico.frames(0.5, until=Hello)
    pico.send(ScanRequest())
    pico.frames(1.0, until=Scan)
    stream = b"".join(encode_frame(Ping(i), (100 + i) & 0xFF) for i in range(512))
    stop = threading.Event()

    def flood() -> None:
        while not stop.is_set():
            pico.raw(stream)  # blocks while the pipe is full: never a pause

    writer = threading.Thread(target=flood, daemon=True)
    writer.start()
    try:
        heard = pico.frames(1.0)
        assert sum(isinstance(m, Pong) for m in heard) > 100, "the stream is not flowing"
        fed = pico.event_bytes.count(b"Tfeed")
        pico.tell(f"v 10 {pico.rest + 12000} 100\n")  # a piece placed mid-stream
        placed = time.monotonic()
        found: list[Message] = []
        # Waited for as events, however busy the machine (the stream never ends by itself:
        # whatever comes while the writer still writes came during the stream).
        while time.monotonic() - placed < 30 and not of(Change, found):
            found += pico.frames(0.1)
        assert of(Change, found), "no CHANGE while the host streamed"
        assert writer.is_alive()  # the CHANGE came mid-stream, not at its end
        while time.monotonic() - placed < 30 and pico.event_bytes.count(b"Tfeed") <= fed:
            pico.frames(0.2)  # the watchdog's feeds go on (host hw.py says one a second)
        assert pico.event_bytes.count(b"Tfeed") > fed
        assert writer.is_alive()  # all of it while the stream ran
    finally:
        stop.set()
        writer.join(10)
