"""Board emulator: the firmware side of protocol v1 on a real serial device (a pty).

Run as ``board-referee emulate``. It prints the device path, keeps a stable symlink to it (as
``/dev/serial/by-id`` does for USB boards, so the daemon reconnects to the same path after an
unplug), answers the host, reports sensor changes after the firmware debounce, acknowledges and
shows LED frames, and can inject the faults real boards have.

Commands (interactive on stdin, or one per line in a ``--script`` file; ``#`` comments):
  lift CELL...             take pieces off the board (into the hand / box beside it)
  place CELL [PIECE]       put a piece down: PIECE like P (player 1), p (player 2), D5 (die 5);
                           without PIECE, the piece lifted last
  move FROM TO             lift and place
  play MOVE                do a move's physical action from its notation (b2-b5, S@c1 or s@c6
                           for player 2, c5xb6, xd4+f4, pass), then let it settle
  press BUTTON             pass | confirm | takeback | select
  follow [SECONDS]         do what the LEDs ask (remove, move from/to, put back, take away)
                           until they ask for nothing more
  expect [none|CELL=SIGNAL...] [within=SECONDS]
                           wait until the LEDs show exactly this (a script fails otherwise)
  wait SECONDS             pause
  flicker CELL [MS]        a sensor misreads for MS milliseconds
  slide FROM TO            a piece slid across: both cells read occupied for a moment
  knock CELL [TO]          a piece knocked over onto TO, or off the board
  garbage [N]              N random bytes on the line
  corrupt | drop           damage / lose the next frame sent to the host
  unplug | replug          pull the cable, plug it back in (a new pty; the symlink follows)
  fault CODE TEXT          report a board fault
  show | pieces | say TEXT | quit     (pieces: report the physical layout as an event)
"""

from __future__ import annotations

import argparse
import contextlib
import heapq
import json
import math
import os
import queue
import random
import selectors
import signal as signals_
import sys
import threading
import time
import tty
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TextIO

from engine import Cell, Game, MoveKind, Piece, Player
from firmware_bridge import catalog
from firmware_bridge.leds import TAGS, Signal, signals_from_frame
from firmware_bridge.link import BadFrame, FrameProtocol, LinkEvent, Received
from firmware_bridge.profile import BoardProfile
from firmware_bridge.protocol import (
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
from firmware_bridge.render import render_board

FIRMWARE = "emulator-1.0"


class CommandError(Exception):
    """A command that cannot be carried out (the message says why)."""


def piece_from_token(game: Game, token: str) -> Piece:
    """A piece from the text form ``place`` takes and ``pieces`` prints: P (player 1's), p
    (player 2's), D5 (a die showing 5; a stateful piece without pips shows 1)."""
    symbol, digits = token[0], token[1:]
    kind = game.kind_by_symbol.get(symbol.upper())
    if kind is None or (digits and not digits.isdigit()):
        raise CommandError(f"{token!r} is not a piece (a symbol like P or p, then pips)")
    owner = Player.ONE if symbol.isupper() else Player.TWO
    state = int(digits) if digits else None
    if state is None and game.pieces[kind].has_state:
        state = 1
    return Piece(kind, owner, state)


def piece_token(game: Game, piece: Piece) -> str:
    """The text form of ``piece``, as ``piece_from_token`` reads it."""
    symbol = game.pieces[piece.kind].symbol
    symbol = symbol if piece.owner is Player.ONE else symbol.lower()
    return symbol if piece.state is None else f"{symbol}{piece.state}"


class Emulator:
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
        self.game = game
        # The newest protocol this board speaks; it speaks v1 until a host asks for more.
        self.max_protocol = protocol
        self.protocol = PROTOCOL_VERSION
        self.leds: tuple[LedPattern, ...] = (LED_OFF,) * len(profile.led_cells)
        self.profile = profile
        self.pieces = dict(pieces)
        self.box: list[tuple[Cell | None, Piece]] = []
        # While following the LEDs: the piece taken off each cell as wrong there, so the
        # put-back the LEDs then ask for is never that piece again.
        self.taken_off: dict[Cell, Piece] = {}
        self.link_path = link_path
        self.out = out
        # Events come from the command thread and the I/O thread: each is written whole, under
        # this lock (print() writes the text and its newline separately, so two events could
        # interleave into one undecodable line and both be lost to a JSON reader).
        self.out_lock = threading.Lock()
        self.json_mode = json_mode
        self.pace = pace
        self.draw = draw
        self.rng = random.Random(seed)
        self.board_id = board_id
        self.lock = threading.RLock()
        self.leds_changed = threading.Condition(self.lock)
        self.readings = [self._reading(c) for c in profile.sensor_cells]
        self.reported = list(self.readings)
        self.overrides: dict[int, Reading] = {}
        self.counter = 0
        self.seq = 0
        self.signals: dict[Cell, Signal] = {}
        self.led_frames = 0
        self.wire_bytes: list[tuple[str, int]] = []  # (LEDS or LED_DELTA, bytes) received
        self.corrupt_next = 0
        self.drop_next = 0
        self.timers: list[tuple[float, int, Callable[[], None]]] = []
        self.timer_id = 0
        self.flush_at: dict[int, float] = {}
        self.master: int | None = None
        self.slave: int | None = None
        self.device = ""
        self.wake_r, self.wake_w = os.pipe()
        self.frames: queue.Queue[LinkEvent] = queue.Queue()
        self.decoder = FrameProtocol(self.frames)
        self.running = True
        self.host_seen = threading.Event()  # a host has scanned the board and set its LEDs
        self.scanned = False
        self.last_change_sent: tuple[float, int] | None = None  # (time, wire bytes)
        self.latencies: list[tuple[float, int, int]] = []  # (seconds, change bytes, led bytes)
        self.on_change: Callable[[], None] | None = None  # the web face: something changed
        self.plugs = 0  # how many times the cable was plugged in

    # -- the pty ----------------------------------------------------------------------------
    def plug(self) -> None:
        self.plugs += 1
        self.protocol = PROTOCOL_VERSION  # a new connection: v1 until the host asks for more
        master, slave = os.openpty()
        tty.setraw(slave)
        os.set_blocking(master, False)
        self.master, self.slave = master, slave
        self.device = os.ttyname(slave)
        temporary = self.link_path.with_name(self.link_path.name + ".new")
        with contextlib.suppress(FileNotFoundError):
            temporary.unlink()
        temporary.symlink_to(self.device)
        os.replace(temporary, self.link_path)  # the stable path now names the new device
        self._wake()
        self._changed()

    def unplug(self) -> None:
        with self.lock:
            # The stable path goes with the board, as /dev/serial/by-id names do: a stale link
            # could lead a referee to another board's pty once the kernel reuses its number.
            with contextlib.suppress(FileNotFoundError):
                if self.device and os.readlink(self.link_path) == self.device:
                    self.link_path.unlink()
            for fd in (self.master, self.slave):
                if fd is not None:
                    os.close(fd)
            self.master = self.slave = None
            self.decoder.buffer.clear()
            self.signals = {}  # an unplugged board's LEDs are dark
            self.scanned = False
        self._wake()
        self._changed()

    def close(self) -> None:
        self.running = False
        self.unplug()
        with contextlib.suppress(FileNotFoundError):
            self.link_path.unlink()

    def _wake(self) -> None:
        with contextlib.suppress(OSError):
            os.write(self.wake_w, b"x")

    # -- output -----------------------------------------------------------------------------
    def write(self, *lines: str, end: str = "\n") -> None:
        """Write lines to the output in one piece, whichever thread calls."""
        text = "\n".join(lines) + end
        with self.out_lock:
            self.out.write(text)
            self.out.flush()

    def emit(self, event: str, **data: Any) -> None:
        if self.json_mode:
            self.write(json.dumps({"event": event, **data}))
        elif event == "say":
            self.write("", f">>> {data['text']}")
        elif event == "fault":
            self.write(f"[emulator] fault {data['code']} sent: {data['text']}")
        elif event == "plug":
            where = f" on {data['device']}" if data.get("device") else ""
            self.write(f"[emulator] board {data['state']}{where}")
        # Errors are said once, as a sentence, by whoever ran the command (run_commands).

    def show(self) -> None:
        if self.json_mode or not self.draw:
            return
        with self.lock:
            marks = {c: TAGS[s] for c, s in self.signals.items()}
            drawing = render_board(self.game, self.pieces, marks)
            names = self.game.board.names
            leds = ", ".join(f"{names[c]} {s.value}" for c, s in sorted(self.signals.items()))
        self.write(drawing, f"LEDs: {leds or 'all off'}")

    # -- sensors ----------------------------------------------------------------------------
    def _reading(self, cell: Cell | None) -> Reading:
        return self.profile.reading(None if cell is None else self.pieces.get(cell))

    def _changed(self) -> None:
        if self.on_change is not None:
            self.on_change()

    def _sense(self) -> None:
        """Re-read every sensor; changed ones are reported once stable for the debounce."""
        self._changed()
        now = time.monotonic()
        for sensor, cell in enumerate(self.profile.sensor_cells):
            reading = self.overrides.get(sensor, self._reading(cell))
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
            if size:
                self.last_change_sent = (time.monotonic(), size)
        if self.flush_at:
            self._at(min(self.flush_at.values()), self._flush)

    def _at(self, when: float, action: Callable[[], None]) -> None:
        self.timer_id += 1
        heapq.heappush(self.timers, (when, self.timer_id, action))
        self._wake()

    # -- frames -----------------------------------------------------------------------------
    def _send(self, message: Message) -> int:
        seq = self.seq
        self.seq = (seq + 1) & 0xFF
        frame = bytearray(encode_frame(message, seq))
        if self.drop_next:
            self.drop_next -= 1
            self.emit("fault", kind="dropped", frame=message.NAME)
            return 0
        if self.corrupt_next:
            self.corrupt_next -= 1
            index = self.rng.randrange(len(frame) - 1)
            frame[index] = (frame[index] + self.rng.randrange(1, 255)) % 256 or 1
            self.emit("fault", kind="corrupted", frame=message.NAME)
        self._write(bytes(frame))
        return len(frame)

    def _write(self, data: bytes) -> None:
        if self.master is None:
            return
        view = memoryview(data)
        deadline = time.monotonic() + 1.0
        while view and time.monotonic() < deadline:
            try:
                written = os.write(self.master, view)
                view = view[written:]
            except BlockingIOError:
                time.sleep(0.001)
            except OSError:
                return

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
            self._send(Nak(255, NakReason.BAD_FRAME))
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
            if isinstance(message, Leds):
                if len(message.leds) != len(self.profile.led_cells):
                    self._send(Nak(event.seq, NakReason.WRONG_SIZE))
                    return
                result: tuple[LedPattern, ...] | None = message.leds
            else:
                result = message.apply(self.leds)
                if result is None:  # keep what is shown; the host will send a whole frame
                    self._send(Nak(event.seq, NakReason.MISMATCH))
                    return
            assert result is not None
            self._send(Ack(event.seq))
            self.leds = result
            self.wire_bytes.append((message.NAME, event.size))
            if self.scanned:
                self.host_seen.set()
            signals = signals_from_frame(Leds(self.leds), self.profile)
            if self.last_change_sent is not None:
                sent, size = self.last_change_sent
                self.latencies.append((event.at - sent, size, event.size))
                self.last_change_sent = None
            if signals != self.signals:
                self.signals = signals
                self.led_frames += 1
                names = self.game.board.names
                self.emit("leds", signals={names[c]: s.value for c, s in sorted(signals.items())},
                          via=message.NAME, size=event.size)  # fmt: skip
                self.leds_changed.notify_all()
                self._changed()
                if self.draw and not self.json_mode:
                    threading.Thread(target=self.show, daemon=True).start()
        elif isinstance(message, Ping):
            self._send(Pong(message.token))

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
                timeout = 0.5
                if self.timers:
                    timeout = max(0.0, min(timeout, self.timers[0][0] - time.monotonic()))
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
                now = time.monotonic()
                while self.timers and self.timers[0][0] <= now:
                    _, _, action = heapq.heappop(self.timers)
                    action()

    # -- physical actions -------------------------------------------------------------------
    def cell(self, name: str) -> Cell:
        cell = self.game.board.index.get(name)
        if cell is None:
            raise CommandError(f"no cell {name!r} on this board")
        return cell

    def lift(self, name: str) -> None:
        with self.lock:
            cell = self.cell(name)
            piece = self.pieces.pop(cell, None)
            if piece is None:
                raise CommandError(f"there is no piece on {name}")
            self.box.append((cell, piece))
            self._sense()

    def place(self, name: str, token: str | None = None) -> None:
        with self.lock:
            cell = self.cell(name)
            if cell in self.pieces:
                raise CommandError(f"{name} is already occupied")
            if token:
                piece = piece_from_token(self.game, token)
            elif self.box:
                piece = self.box.pop()[1]
            else:
                raise CommandError("no piece in hand: say which piece to place")
            self.pieces[cell] = piece
            self._sense()

    def place_from_hand(self, name: str, index: int) -> None:
        """Put down the piece at ``index`` of the hand (the pieces lifted, oldest first)."""
        with self.lock:
            cell = self.cell(name)
            if cell in self.pieces:
                raise CommandError(f"{name} is already occupied")
            if not 0 <= index < len(self.box):
                raise CommandError("that piece is no longer in the hand")
            self.pieces[cell] = self.box.pop(index)[1]
            self._sense()

    def set_up(self, pieces: dict[Cell, Piece]) -> None:
        """Sweep the board and set these pieces out (the start of a new game)."""
        with self.lock:
            self.pieces = dict(pieces)
            self.box.clear()
            self._sense()

    def swap(self, game: Game, profile: BoardProfile) -> None:
        """Unplug this board and plug in another (another game's board, set up to start)."""
        with self.lock:
            self.unplug()
            self.game, self.profile = game, profile
            self.pieces = game.new_state().layout()
            self.box.clear()
            self.overrides.clear()
            self.flush_at.clear()
            self.signals = {}
            self.readings = [self._reading(c) for c in profile.sensor_cells]
            self.reported = list(self.readings)
            self.plug()
            self._send(self._hello())
        self.emit("plug", state="swapped", game=game.id, profile=profile.id, device=self.device)

    def view(self) -> dict[str, Any]:
        """What the web face shows: the board, the pieces on it and in the hand, the LEDs."""
        with self.lock:
            game = self.game
            names = game.board.names

            def piece_json(piece: Piece) -> dict[str, Any]:
                symbol = game.pieces[piece.kind].symbol
                return {"kind": piece.kind, "symbol": symbol, "owner": int(piece.owner),
                        "state": piece.state, "token": piece_token(self.game, piece)}  # fmt: skip

            supply = [
                piece_json(Piece(kind.name, owner, 1 if kind.has_state else None))
                for owner in (Player.ONE, Player.TWO)
                for kind in game.pieces.values()
            ]
            return {
                "game": {
                    "id": game.id,
                    "title": game.title,
                    "options": {k: str(v) for k, v in game.options.items()},
                    "profile": self.profile.id,
                    "players": list(game.player_names),
                },
                "pieces": [
                    {"cell": names[c], **piece_json(p)} for c, p in sorted(self.pieces.items())
                ],
                "hand": [
                    {"index": i, "from": None if c is None else names[c], **piece_json(p)}
                    for i, (c, p) in enumerate(self.box)
                ],
                "supply": supply,
                "signals": {names[c]: s.value for c, s in sorted(self.signals.items())},
                "plugged": self.master is not None,
                "host": self.scanned,
                "device": self.device,
                "link": str(self.link_path),
            }

    def put_back(self, cell: Cell, avoid: Piece | None = None) -> bool:
        """Place the piece that came from ``cell``, or else the one lifted last; never a piece
        like ``avoid`` (one just taken off ``cell`` as wrong there)."""
        with self.lock:
            if cell in self.pieces:
                return False
            fits = [i for i, (_, piece) in enumerate(self.box) if piece != avoid]
            if not fits:
                return False
            index = next((i for i in reversed(fits) if self.box[i][0] == cell), fits[-1])
            self.pieces[cell] = self.box.pop(index)[1]
            self._sense()
            return True

    def press(self, name: str) -> None:
        try:
            button = Button[name.upper()]
        except KeyError as exc:
            raise CommandError(f"no button {name!r} (pass, confirm, takeback, select)") from exc
        with self.lock:
            for pressed in (True, False):
                self.counter = (self.counter + 1) & 0xFFFFFFFF
                self._send(ButtonEvent(self.counter, button, pressed))

    def play(self, text: str) -> None:
        move = self.game.parse_move(text)
        names = self.game.board.names
        if move.kind is MoveKind.PASS:
            self.press("pass")
        elif move.kind is MoveKind.PLACE:
            symbol = text.strip()[0]
            self.place(names[move.to], symbol)
        elif move.kind is MoveKind.REMOVE:
            for cell in move.cells:
                self.lift(names[cell])
                self._pause()
        else:
            # Pieces a move names as taken off its path (a cobra's strike, a squash) go first,
            # as a player who knows the move takes them; then a victim by replacement.
            for cell in move.cells:
                self.lift(names[cell])
                self._pause()
            if move.to != move.frm and move.to in self.pieces:
                self.lift(names[move.to])
                self._pause()
            self.lift(names[move.frm])
            self._pause()
            if move.frm == move.to:  # held long enough for the firmware to report the lift
                time.sleep(2 * self.profile.debounce + 0.02)
            self.place(names[move.to])
            if move.frm == move.to and not move.cells:  # a null move: lifted, back, CONFIRM
                self._pause(2 + self.profile.settle / max(self.pace, 0.001))
                self.press("confirm")

    def _pause(self, factor: float = 1.0) -> None:
        time.sleep(self.pace * factor)

    def follow(self, timeout: float) -> None:
        """Carry out what the LEDs ask for, like a player reading them, until nothing is asked
        that a player could do without knowing the rules (placing a new piece is not)."""
        deadline = time.monotonic() + timeout
        self.taken_off.clear()
        quiet_since = time.monotonic()
        quiet_needed = max(4 * self.pace, 2 * self.profile.settle + 0.3)
        while time.monotonic() < deadline:
            with self.lock:
                before = self.led_frames
            if self._act_on_leds():
                quiet_since = time.monotonic()
                self.wait_for_leds(before, 1.0 + self.profile.settle)
                self._pause()
                continue
            now = time.monotonic()
            if now - quiet_since >= quiet_needed:
                return
            with self.lock:
                if self.led_frames != before:
                    quiet_since = now
                self.leds_changed.wait(timeout=0.05)
        raise CommandError("follow: the LEDs still asked for something when time ran out")

    def wait_for_leds(self, since: int, timeout: float) -> bool:
        """Wait until an LED frame newer than frame number ``since`` has arrived."""
        with self.lock:
            return self.leds_changed.wait_for(lambda: self.led_frames != since, timeout=timeout)

    def _act_on_leds(self) -> bool:
        with self.lock:
            signals = dict(self.signals)
        board = self.game.board
        names = board.names
        takes = [c for c, s in signals.items() if s in (Signal.REMOVE, Signal.ILLEGAL)]
        sources = [c for c, s in signals.items() if s is Signal.MOVE_FROM and c in self.pieces]
        targets = [c for c, s in signals.items() if s is Signal.MOVE_TO and c not in self.pieces]
        if sources and targets:
            source = sources[0]
            target = min(targets, key=lambda t: _distance(board.coords[source], board.coords[t]))
            self.lift(names[source])
            self._pause(0.5)
            self.place(names[target])
            return True
        for cell in takes:
            if cell in self.pieces:
                if signals[cell] is Signal.ILLEGAL:
                    self.taken_off[cell] = self.pieces[cell]
                self.lift(names[cell])
                return True
        for cell, signal in signals.items():
            if signal is Signal.PUT_BACK and self.put_back(cell, self.taken_off.get(cell)):
                return True
        return False

    def expect(self, spec: dict[str, str] | None, within: float) -> None:
        """Wait until the LEDs show exactly ``spec`` (cell name -> signal value)."""
        names = self.game.board.names
        wanted = spec or {}

        def shown() -> dict[str, str]:
            return {names[c]: s.value for c, s in self.signals.items()}

        with self.lock:
            if not self.leds_changed.wait_for(lambda: shown() == wanted, timeout=within):
                raise CommandError(
                    f"expected LEDs {wanted or 'all off'}, saw {shown() or 'all off'}"
                )

    def slide(self, frm: str, to: str) -> None:
        with self.lock:
            source, target = self.cell(frm), self.cell(to)
            piece = self.pieces.get(source)
            if piece is None or target in self.pieces:
                raise CommandError(f"cannot slide from {frm} to {to}")
            self.pieces[target] = piece
            self._sense()
        time.sleep(self.profile.debounce + 0.05)  # both cells read occupied for a moment
        with self.lock:
            del self.pieces[source]
            self._sense()

    def flicker(self, name: str, millis: float) -> None:
        with self.lock:
            cell = self.cell(name)
            sensor = self.profile.sensor_of.get(cell)
            if sensor is None:
                raise CommandError(f"{name} has no sensor")
            current = self.readings[sensor]
            self.overrides[sensor] = Reading(0, 0) if current.code else Reading(1, 0)
            self._sense()

            def restore() -> None:
                self.overrides.pop(sensor, None)
                self._sense()

            self._at(time.monotonic() + millis / 1000.0, restore)

    def garbage(self, count: int) -> None:
        with self.lock:
            self._write(bytes(self.rng.randrange(256) for _ in range(count)))

    def fault(self, code: int, text: str) -> None:
        with self.lock:
            self._send(Fault(code, text))

    # -- commands ---------------------------------------------------------------------------
    def run_commands(
        self, lines: Iterable[str], *, stop_on_error: bool, interactive: bool = False
    ) -> bool:
        """Carry out commands; returns False if one failed (and ``stop_on_error``).
        ``interactive``: a person at a terminal: a prompt, and errors without line numbers."""
        ok = True
        for number, raw in enumerate(lines, start=1):
            line = raw.split("#", 1)[0].strip()
            if line:
                try:
                    if not self.command(line):
                        return ok
                    self.emit("ok", command=line)
                except (CommandError, ValueError) as exc:
                    ok = False
                    self.emit("error", command=line, line=number, message=str(exc))
                    if not self.json_mode:
                        where = "" if interactive else f"line {number}: {line}: "
                        print(f"[emulator] {where}{_sentence(str(exc))}", file=sys.stderr)
                    if stop_on_error:
                        return False
            if interactive:
                self.prompt()
        return ok

    def prompt(self) -> None:
        self.write(PROMPT, end="")

    def command(self, line: str) -> bool:
        """One command; returns False for quit."""
        word, *args = line.split()
        word = word.lower()
        if word == "quit":
            return False
        if word == "lift":
            _need(args, 1, "lift CELL...")
            for index, name in enumerate(args):
                if index:
                    self._pause()
                self.lift(name)
        elif word == "place":
            _need(args, 1, "place CELL [PIECE]")
            self.place(args[0], args[1] if len(args) > 1 else None)
        elif word == "move":
            _need(args, 2, "move FROM TO")
            self.lift(args[0])
            self._pause()
            self.place(args[1])
        elif word == "play":
            _need(args, 1, "play MOVE")
            self.play(args[0])
            time.sleep(self.profile.settle)  # a finished move: the next player acts after it
        elif word == "press":
            _need(args, 1, "press BUTTON")
            self.press(args[0])
        elif word == "follow":
            self.follow(float(args[0]) if args else 10.0)
        elif word == "expect":
            within = 5.0
            spec: dict[str, str] = {}
            for arg in args:
                if arg.startswith("within="):
                    within = float(arg.split("=", 1)[1])
                elif arg != "none":
                    cell, _, signal = arg.partition("=")
                    spec[cell] = signal
            self.expect(spec, within)
        elif word == "wait":
            _need(args, 1, "wait SECONDS")
            time.sleep(float(args[0]))
        elif word == "flicker":
            _need(args, 1, "flicker CELL [MS]")
            self.flicker(args[0], float(args[1]) if len(args) > 1 else 150.0)
        elif word == "slide":
            _need(args, 2, "slide FROM TO")
            self.slide(args[0], args[1])
        elif word == "knock":
            _need(args, 1, "knock CELL [TO]")
            self.lift(args[0])
            if len(args) > 1:
                self.place(args[1])
        elif word == "garbage":
            self.garbage(int(args[0]) if args else 40)
        elif word == "corrupt":
            with self.lock:
                self.corrupt_next += 1
        elif word == "drop":
            with self.lock:
                self.drop_next += 1
        elif word == "unplug":
            self.unplug()
            self.emit("plug", state="unplugged")
        elif word == "replug":
            with self.lock:
                self.plug()
                self._send(self._hello())
            self.emit("plug", state="plugged", device=self.device)
        elif word == "fault":
            _need(args, 2, "fault CODE TEXT")
            self.fault(int(args[0]), " ".join(args[1:]))
        elif word == "blank":
            with self.lock:  # an LED driver glitch: dark, and the host is not told
                self.leds = (LED_OFF,) * len(self.profile.led_cells)
                self.signals = {}
                self.leds_changed.notify_all()
        elif word == "show":
            self.show()
        elif word == "pieces":
            with self.lock:
                names = self.game.board.names
                layout = {
                    names[c]: piece_token(self.game, p) for c, p in sorted(self.pieces.items())
                }
                hand = [piece_token(self.game, p) for _, p in self.box]
            self.emit("pieces", layout=layout)
            if not self.json_mode:
                listed = " ".join(f"{cell}={token}" for cell, token in layout.items())
                self.write(f"on the board ({len(layout)}): {listed or 'nothing'}",
                           f"in the hand: {' '.join(hand) or 'nothing'}")  # fmt: skip
        elif word == "help":
            self.write(HELP)
        elif word == "say":
            self.emit("say", text=" ".join(args))
        else:
            raise CommandError(f"unknown command {word!r}: type help for the list")
        if word in ("lift", "place", "move", "play", "knock", "slide"):
            self._pause()
            self.show()  # what the hands did, drawn (the LEDs redraw it too when they change)
        return True

    def latency_report(self) -> dict[str, float]:
        if not self.latencies:
            return {}
        values = sorted(x for x, _, _ in self.latencies)
        return {
            "samples": len(values),
            "median": values[len(values) // 2],
            "p99": values[min(len(values) - 1, math.ceil(0.99 * len(values)) - 1)],
        }


def _need(args: list[str], count: int, usage: str) -> None:
    if len(args) < count:
        raise CommandError(f"usage: {usage}")


PROMPT = "board> "
HELP = """commands (cells like c4; pieces like S for player 1's, s for player 2's):
  lift CELL...        take pieces off (into the hand)
  place CELL [PIECE]  put a piece down: the one lifted from there or last, or a new PIECE
  move FROM TO        lift and place            play MOVE   a move's hand action (c1-c4, s@c6)
  press BUTTON        pass, confirm, takeback, select
  follow [SECONDS]    do what the LEDs ask      show        draw the board and its LEDs
  pieces              list the pieces           say TEXT    print a line
  flicker CELL [MS], slide FROM TO, knock CELL [TO], garbage [N], corrupt, drop,
  unplug, replug, fault CODE TEXT               faults to inject (docs/emulator.md)
  expect CELL=SIGNAL... [within=S], wait S      for scripts
  quit"""


def _sentence(message: str) -> str:
    """An error as a sentence: capital first letter, full stop."""
    text = message.strip()
    text = text[:1].upper() + text[1:]
    return text if text.endswith((".", "!", "?", ")")) else text + "."


def _distance(a: tuple[float, float], b: tuple[float, float]) -> float:
    return math.hypot(a[0] - b[0], a[1] - b[1])


# -- command line --------------------------------------------------------------------------


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--game", required=True, help="the game whose board to emulate")
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--board", help="hardware profile (default: the game's own)")
    parser.add_argument(
        "--link",
        default=None,
        help="stable symlink to the current pty (default: $XDG_RUNTIME_DIR or /tmp, "
        "board-referee-<game>)",
    )
    parser.add_argument("--script", help="run the commands in this file, then exit")
    parser.add_argument(
        "--linger", action="store_true",
        help="with --script: after it, say 'script finished: ok' (or 'failed') and stay "
        "connected until stopped, so the host can stop first (the demo does)",
    )  # fmt: skip
    parser.add_argument(
        "--wait-host",
        type=float,
        default=30.0,
        metavar="SECONDS",
        help="with --script: first wait this long for a host to connect (0: do not wait)",
    )
    parser.add_argument(
        "--setup",
        choices=("start", "empty"),
        default="start",
        help="the pieces on the board at power-on: the game's start position, or none",
    )
    parser.add_argument("--position", help="put the pieces of this JSON position on the board")
    parser.add_argument("--json", action="store_true", help="events as JSON lines on stdout")
    parser.add_argument("--pace", type=float, default=0.15, help="seconds between hand actions")
    parser.add_argument("--no-draw", action="store_true", help="do not draw the board")
    parser.add_argument("--seed", type=int, default=1, help="seed for injected noise")
    parser.add_argument(
        "--protocol", type=int, choices=(1, 2), default=2,
        help="the newest protocol the board speaks: 2 (LED_DELTA, when the host asks) or 1 "
        "(whole-board LED frames only, like v1 firmware)",
    )  # fmt: skip
    parser.add_argument(
        "--web",
        metavar="HOST:PORT",
        help="also serve the board as a web page here, played by clicking (e.g. 127.0.0.1:8081)",
    )
    parser.add_argument(
        "--follow",
        metavar="URL",
        help="with --web: swap to the board the referee's kiosk at URL asks for",
    )


def _terminate(signum: int, frame: object) -> None:
    raise KeyboardInterrupt  # SIGTERM: unplug cleanly, as after Ctrl-C


def default_link(game_id: str) -> Path:
    base = os.environ.get("XDG_RUNTIME_DIR") or "/tmp"
    return Path(base) / f"board-referee-{game_id}"


def run(args: argparse.Namespace, options: dict[str, str]) -> int:
    directory = catalog.config_dir(args.config_dir)
    game = catalog.load_game(args.game, options, directory)
    profile = catalog.load_profile(args.board, game, directory)
    if args.position:
        pieces = game.state_from_json(catalog.read_json(args.position)).layout()
    elif args.setup == "empty":
        pieces = {}
    else:
        pieces = game.new_state().layout()
    link = Path(args.link) if args.link else default_link(game.id)
    if not link.parent.is_dir():
        print(f"board-referee: error: --link {link}: the folder {link.parent} does not exist",
              file=sys.stderr)  # fmt: skip
        return 2
    emulator = Emulator(
        game,
        profile,
        pieces,
        link_path=link,
        out=sys.stdout,
        json_mode=args.json,
        pace=args.pace,
        seed=args.seed,
        draw=not args.no_draw,
        protocol=args.protocol,
    )
    web = None
    if args.web:
        from firmware_bridge.emulator.web import EmulatorWeb, Follower
        from firmware_bridge.webserver import WebError, parse_address

        try:
            host, port = parse_address(args.web, "--web")
            web = EmulatorWeb(host, port, emulator)
            url = web.start()
        except WebError as exc:
            print(f"board-referee: error: {exc}", file=sys.stderr)
            return 2
        if args.json:
            emulator.emit("web", url=url)
        else:
            print(f"the emulated board's page: {url}", flush=True)
        if args.follow:
            Follower(emulator, args.follow, directory).start()
    signals_.signal(signals_.SIGTERM, _terminate)
    emulator.plug()
    server = threading.Thread(target=emulator.serve, daemon=True)
    server.start()
    emulator.emit("ready", device=emulator.device, link=str(link),
                  sensors=len(profile.sensor_cells), profile=profile.id)  # fmt: skip
    if not args.json:
        print(f"emulating {game.title} board ({profile.id}) on {emulator.device}, "
              f"stable path {link}", flush=True)  # fmt: skip
        emulator.show()
    ok = True
    try:
        if args.script:
            try:
                lines = Path(args.script).read_text(encoding="utf-8").splitlines()
            except OSError as exc:
                print(f"board-referee: error: {args.script}: {exc.strerror}", file=sys.stderr)
                return 2
            if args.wait_host and not emulator.host_seen.wait(args.wait_host):
                emulator.emit("error", message=f"no host connected in {args.wait_host:.0f} s")
                print(f"board-referee: error: no host connected to {link} in "
                      f"{args.wait_host:.0f} s", file=sys.stderr)  # fmt: skip
                return 1
            ok = emulator.run_commands(lines, stop_on_error=True)
            if args.linger:
                print(f"script finished: {'ok' if ok else 'failed'}", flush=True)
                threading.Event().wait()  # until SIGTERM
        else:
            interactive = sys.stdin.isatty() and not args.json
            if interactive:
                print("type help for the commands, quit to stop", file=sys.stdout)
                emulator.prompt()
            ok = emulator.run_commands(sys.stdin, stop_on_error=False, interactive=interactive)
            if web is not None:  # no terminal: the page is the board's face until stopped
                threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        if web is not None:
            web.stop()
        report = emulator.latency_report()
        if report:
            emulator.emit("latency", **report)
        emulator.emit("exit", ok=ok)
        emulator.close()
    return 0 if ok else 1
