"""The board's firmware played in Python: protocol 2 (and 1) on a real serial device, a pty.

``board-referee emulate`` puts a ``Table`` on this board. It prints the device path and keeps a
stable symlink to it (as ``/dev/serial/by-id`` does for USB boards, so the daemon reconnects to
the same path after an unplug), answers the host, reports sensor changes after the firmware
debounce, acknowledges and shows LED frames, and can inject the faults real boards have.
"""

from __future__ import annotations

import contextlib
import os
import queue
import selectors
import threading
import time
from pathlib import Path
from typing import TextIO

from engine import Cell, Game, Piece
from firmware_bridge.boards.board import Board, TableSide
from firmware_bridge.boards.table import Table
from firmware_bridge.link.profile import BoardProfile
from firmware_bridge.link.protocol import (
    LED_OFF,
    PROTOCOL_DELTA,
    PROTOCOL_VERSION,
    Ack,
    Button,
    ButtonEvent,
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
    Reading,
    Scan,
    ScanRequest,
    encode_frame,
)
from firmware_bridge.link.serial_link import BadFrame, FrameProtocol, LinkEvent, Received

FIRMWARE = "emulator-1.0"
# As the firmware: damaged frames answered at most once per NAK_GAP seconds, the rest counted
# and told in a FAULT at most once per NOISE_REPORT (docs/protocol.md, "Noise").
NAK_GAP = 0.1
NOISE_REPORT = 1.0
FAULT_NOISE = 5


class EmulatedBoard(Board):
    name = "emulator"

    def __init__(
        self,
        profile: BoardProfile,
        *,
        link_path: Path,
        seed: int = 1,
        board_id: str = "emulator",
        protocol: int = PROTOCOL_DELTA,
    ) -> None:
        super().__init__(link_path, seed)
        # The newest protocol this board speaks; it speaks v1 until a host asks for more.
        self.max_protocol = protocol
        self.protocol = PROTOCOL_VERSION
        self.profile = profile
        self.leds: tuple[LedPattern, ...] = (LED_OFF,) * len(profile.led_cells)
        self.board_id = board_id
        self.readings: list[Reading] = []
        self.reported: list[Reading] = []
        self.overrides: dict[int, Reading] = {}
        self.counter = 0
        self.seq = 0
        self.flush_at: dict[int, float] = {}
        self.frames: queue.Queue[LinkEvent] = queue.Queue()
        self.decoder = FrameProtocol(self.frames)
        self.running = True
        self.scanned = False
        self.last_change_sent: tuple[float, int] | None = None  # (time, wire bytes)
        self.plugs = 0  # how many times the cable was plugged in
        self.nak_at = -NAK_GAP
        self.unanswered = 0  # damaged frames not answered, to be told

    def attach(self, table: TableSide) -> None:
        super().attach(table)
        self.readings = [table.reading(s) for s in range(len(self.profile.sensor_cells))]
        self.reported = list(self.readings)

    def start(self) -> None:
        self.plug()
        threading.Thread(target=self.serve, name="board", daemon=True).start()

    # -- the pty ----------------------------------------------------------------------------
    def plug(self) -> None:
        self.plugs += 1
        self.protocol = PROTOCOL_VERSION  # a new connection: v1 until the host asks for more
        self._open_pty()
        self._wake()
        self._changed()

    def unplug(self) -> None:
        with self.lock:
            self._close_pty()
            self.decoder.buffer.clear()
        self._wake()
        self._changed()

    def close(self) -> None:
        self.running = False
        self.unplug()
        with contextlib.suppress(FileNotFoundError):
            self.link_path.unlink()

    def _reading(self, sensor: int) -> Reading:
        assert self.table is not None
        return self.table.reading(sensor)

    def sense(self) -> None:
        """Re-read every sensor; changed ones are reported once stable for the debounce."""
        now = time.monotonic()
        if any(due <= now for due in self.flush_at.values()):
            # A reading that held for its debounce was reported by then on a real board, even
            # if this thread runs late (a busy machine): a piece held that long and put back
            # is still a lift the host hears of.
            self._flush()
        for sensor in range(len(self.profile.sensor_cells)):
            reading = self.overrides.get(sensor, self._reading(sensor))
            if reading != self.readings[sensor]:
                self.readings[sensor] = reading
                self.flush_at[sensor] = now + self.profile.debounce
        if self.flush_at:
            self._at(min(self.flush_at.values()), self._flush)

    def _flush(self) -> None:
        now = time.monotonic()
        due = [s for s, t in self.flush_at.items() if t <= now + 1e-4]
        changes = []
        for sensor in due:
            del self.flush_at[sensor]
            if self.readings[sensor] != self.reported[sensor]:
                self.reported[sensor] = self.readings[sensor]
                changes.append((sensor, self.readings[sensor]))
        if changes:
            self.counter = (self.counter + 1) & 0xFFFFFFFF
            size = self._send(Change(self.counter, tuple(changes)))
            self.changes_sent += 1
            if size:
                self.last_change_sent = (time.monotonic(), size)
        if self.flush_at:
            self._at(min(self.flush_at.values()), self._flush)

    # -- frames -----------------------------------------------------------------------------
    def _send(self, message: Message) -> int:
        seq = self.seq
        self.seq = (seq + 1) & 0xFF
        frame = self._damage(bytearray(encode_frame(message, seq)), message.NAME)
        if frame is None:
            return 0
        self._to_host(frame)
        return len(frame)

    def _hello(self) -> Hello:
        return Hello(
            self.protocol,
            len(self.profile.sensor_cells),
            len(self.profile.led_cells),
            self.profile.sensing,
            self.profile.led_kind,
            frozenset(Button),
            FIRMWARE,
            self.board_id,
        )

    def _on_frame(self, event: LinkEvent) -> None:
        if isinstance(event, BadFrame):
            self._damaged(time.monotonic())
            return
        if not isinstance(event, Received):
            return
        message = event.message
        if isinstance(message, HostHello):
            self.protocol = max(PROTOCOL_VERSION, min(self.max_protocol, message.protocol))
            self._send(self._hello())
        elif isinstance(message, ScanRequest):
            self.flush_at.clear()
            self.reported = list(self.readings)
            self._send(Scan(self.counter, tuple(self.readings)))
            if not self.scanned:
                self.scanned = True
                self._changed()
        elif isinstance(message, LedDelta) and self.protocol < PROTOCOL_DELTA:
            self._send(Nak(event.seq, NakReason.UNKNOWN_TYPE))  # as a v1 board would
        elif isinstance(message, Leds | LedDelta):
            count = len(message.leds) if isinstance(message, Leds) else message.count
            if count != len(self.profile.led_cells):  # at any size, as the firmware answers
                self._send(Nak(event.seq, NakReason.WRONG_SIZE))
                return
            if isinstance(message, Leds):
                result: tuple[LedPattern, ...] | None = message.leds
            else:
                result = message.apply(self.leds)
                if result is None:  # keep what is shown; the host will send a whole frame
                    self._send(Nak(event.seq, NakReason.MISMATCH))
                    return
            assert result is not None
            self._send(Ack(event.seq))
            self.leds = result
            if self.scanned:
                self.host_seen.set()
            if self.last_change_sent is not None:
                sent, size = self.last_change_sent
                self.latencies.append((event.at - sent, size, event.size))
                self.last_change_sent = None
            assert self.table is not None
            self.table.leds_shown(self.leds, message.NAME, event.size)
        elif isinstance(message, Ping):
            self._send(Pong(message.token))

    def _damaged(self, now: float) -> None:
        if now - self.nak_at >= NAK_GAP:
            self.nak_at = now
            self._send(Nak(255, NakReason.BAD_FRAME))
            return
        if not self.unanswered:
            self._at(now + NOISE_REPORT, self._report_noise)
        self.unanswered += 1

    def _report_noise(self) -> None:
        if self.unanswered:
            text = f"noise on the line: {self.unanswered} damaged frames not answered"
            self.unanswered = 0
            self._send(Fault(FAULT_NOISE, text))

    def serve(self) -> None:
        """The I/O loop: host frames in, debounced changes out, timers. Runs in a thread."""
        selector = selectors.DefaultSelector()
        selector.register(self.wake_r, selectors.EVENT_READ)
        registered: int | None = None
        generation = -1  # which plug-in the registration is for (a new pty may reuse the fd)
        while self.running:
            with self.lock:
                if registered != self.master or generation != self.plugs:
                    generation = self.plugs
                    if registered is not None:
                        with contextlib.suppress(KeyError, ValueError):
                            selector.unregister(registered)
                    if self.master is not None:
                        selector.register(self.master, selectors.EVENT_READ)
                    registered = self.master
                timeout = self._timeout(0.5)
            for key, _ in selector.select(timeout):
                if key.fd == self.wake_r:
                    with contextlib.suppress(BlockingIOError, OSError):
                        os.read(self.wake_r, 1024)
                    continue
                with self.lock:
                    if self.master is None or key.fd != self.master:
                        continue
                    try:
                        data = os.read(self.master, 4096)
                    except (BlockingIOError, InterruptedError):
                        continue
                    except OSError:
                        data = b""
                    if data:
                        self.decoder.data_received(data)
            with self.lock:
                while True:
                    try:
                        self._on_frame(self.frames.get_nowait())
                    except queue.Empty:
                        break
                self._run_timers(time.monotonic())

    # -- what the table asks of the electronics ----------------------------------------------
    def press(self, button: Button) -> None:
        with self.lock:
            for pressed in (True, False):
                self.counter = (self.counter + 1) & 0xFFFFFFFF
                self._send(ButtonEvent(self.counter, button, pressed))

    def _flickering(self, sensor: int) -> bool:
        return sensor in self.overrides

    def flicker(self, sensor: int, millis: float) -> None:
        with self.lock:
            current = self.readings[sensor]
            self.overrides[sensor] = Reading(0, 0) if current.code else Reading(1, 0)
            self.sense()

            def restore() -> None:
                self.overrides.pop(sensor, None)
                self.sense()

            self._at(time.monotonic() + millis / 1000.0, restore)

    def fault(self, code: int, text: str) -> None:
        with self.lock:
            self._send(Fault(code, text))

    def replug(self) -> None:
        with self.lock:
            self.plug()
            self._send(self._hello())

    def blank(self) -> None:
        assert self.table is not None
        with self.lock:  # an LED driver glitch: dark, and the host is not told
            self.leds = (LED_OFF,) * len(self.profile.led_cells)
            self.table.leds_shown(self.leds, "", 0)

    def swap(self, profile: BoardProfile) -> None:
        assert self.table is not None
        with self.lock:
            self.unplug()
            self.profile = profile
            self.overrides.clear()
            self.flush_at.clear()
            self.leds = (LED_OFF,) * len(profile.led_cells)
            self.readings = [self._reading(s) for s in range(len(profile.sensor_cells))]
            self.reported = list(self.readings)
            self.plug()
            self._send(self._hello())


class Emulator(Table):
    """A table on the Python firmware: what ``board-referee emulate`` runs."""

    board: EmulatedBoard

    def __init__(
        self,
        game: Game,
        profile: BoardProfile,
        pieces: dict[Cell, Piece],
        *,
        link_path: Path,
        out: TextIO,
        json_mode: bool = False,
        pace: float = 0.15,
        seed: int = 1,
        board_id: str = "emulator",
        draw: bool = True,
        protocol: int = PROTOCOL_DELTA,
    ) -> None:
        board = EmulatedBoard(profile, link_path=link_path, seed=seed, board_id=board_id,
                              protocol=protocol)  # fmt: skip
        super().__init__(game, profile, pieces, board, link_path=link_path, out=out,
                         json_mode=json_mode, pace=pace, draw=draw)  # fmt: skip
