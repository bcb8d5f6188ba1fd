"""The emulated Raspberry Pi Pico: the real MicroPython UF2 on an emulated RP2040, as a board.

``board-referee firmware chip`` puts the emulator's table on this board. The board's UF2 file
is made exactly as ``board-referee firmware uf2`` makes it (the pinned MicroPython, the
compiled firmware and board.json in its littlefs filesystem), and rp2040js runs it with the
RP2040's boot ROM; ``rp2040/chip.mjs`` models the electronics at pin level around the chip
(multiplexers, sensors, buttons, the WS2812B chain decoded from its data pin, the watchdog) and
carries the chip's USB serial port. This process:

- tells the chip model each sensor's level from the table's pieces (the Unix-port board's
  model: a linear sensor's resting level and swing, a switch's level, broken wires);
- joins the chip's USB port to a pty, as the Pico's is joined to /dev/ttyACM0, with the same
  line faults as the other boards;
- shows the table the LED frame the firmware acknowledged, and checks every frame the chain
  latched against it: each pixel dark or in the frame's colour, within the brightness cap and
  the power budget (an ``error`` event otherwise), and reports the pixels (``strip`` events);
- restarts the chip when its watchdog fires or it resets itself, with the reset cause the
  RP2040 keeps, and the USB port goes away and comes back as the Pico's does.

The chip runs in its own time (125 MHz cycles), slower than the wall clock here: the emulator
never lets it run ahead, so its debounce and watchdog times are the chip's own.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import selectors
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from engine import Game
from firmware_bridge.boards.board import BoardCommandError, BoardStartError, Elapsed, WallTimer
from firmware_bridge.boards.firmware_files import find_tool
from firmware_bridge.boards.micropython import MicroPythonBoard
from firmware_bridge.boards.uf2 import Uf2Error, build_uf2
from firmware_bridge.link.profile import BoardProfile
from firmware_bridge.link.protocol import (
    Ack,
    Button,
    ButtonEvent,
    LedDelta,
    LedPattern,
    Leds,
)
from firmware_bridge.link.serial_link import FrameProtocol, LinkEvent, Received, drain

T = TypeVar("T")
ASSETS = Path(__file__).resolve().parent / "rp2040"
CHIP_SCRIPT = ASSETS / "chip.mjs"
BOOTROM = ASSETS / "bootrom-b1.bin"
ENV_NODE = "BOARD_REFEREE_NODE"
# What the RP2040's watchdog REASON register holds after each kind of start (reset_cause()
# reads any bit as a watchdog reset: the RP2040 cannot tell machine.reset() from a timeout).
REASON_BITS = {"power": 0, "watchdog": 1, "reset": 2, "brownout": 0}


def find_node() -> str:
    """Node.js ($BOARD_REFEREE_NODE, or on the PATH), and rp2040js installed beside chip.mjs."""
    node = find_tool("node", ENV_NODE)
    if not node:
        raise BoardStartError(
            "Node.js is not installed: the emulated RP2040 runs in it (apt-get install nodejs), "
            f"or name a node binary in ${ENV_NODE}"
        )
    if not (ASSETS / "node_modules" / "rp2040js" / "package.json").is_file():
        raise BoardStartError(
            f"rp2040js is not installed: npm ci --prefix {ASSETS} (make test does it)"
        )
    return node


class ChipBoard(MicroPythonBoard):
    name = "chip"

    def __init__(
        self,
        game: Game,
        profile: BoardProfile,
        *,
        link_path: Path,
        flash: Path | None = None,
        seed: int = 1,
        board_id: str | None = None,
        micropython: Path | None = None,
        uf2: Path | None = None,
        pullup: int = 0,
    ) -> None:
        super().__init__(game, profile, link_path=link_path, flash=flash, seed=seed,
                         board_id=board_id or "chip")  # fmt: skip
        self.micropython = micropython
        self.given = uf2  # a UF2 file to run as it is (as firmware uf2 wrote it)
        self.pullup = pullup  # an external pull-up on a switch board's SIG line (ohms; 0: none)
        self.line = bytearray()  # a JSON line from the chip, on its way
        self.frames: dict[int, tuple[tuple[LedPattern, ...], str, int]] = {}  # seq -> frame
        self.accepted: tuple[LedPattern, ...] = ()
        self.previous: tuple[LedPattern, ...] = ()
        self.pixels = b""
        self.alarms: dict[int, threading.Event] = {}  # chip-time caps on a press, by id
        self.alarm_id = 0
        # A button held until the firmware reports it: (button, down, set when told).
        self.awaited: tuple[Button, bool, threading.Event] | None = None

    def _interpreter(self) -> str:
        return find_node()

    def _listening(self) -> bool:
        return self.proc is not None

    # -- power ------------------------------------------------------------------------------------
    def _image(self) -> Path:
        """The board's UF2 file, made as ``firmware uf2`` makes it (once per board.json)."""
        uf2 = self.flash / "board.uf2"
        config = self.flash / "board.json"
        text = json.dumps(self.config, sort_keys=True)
        if self.given is not None:  # the chip model still needs the wiring: from the profile
            self.flash.mkdir(parents=True, exist_ok=True)
            config.write_text(text, encoding="utf-8")
            if not self.given.is_file():
                raise BoardStartError(f"{self.given}: no such UF2 file")
            return self.given
        if uf2.is_file() and config.is_file() and config.read_text(encoding="utf-8") == text:
            return uf2
        extra = {}
        if self.linear:  # as a builder's board comes: calibrated once, on the board
            extra["calibration.json"] = json.dumps(self.calibration()).encode()
        try:
            data = build_uf2(self.config, self.micropython, extra)
        except Uf2Error as exc:
            raise BoardStartError(str(exc)) from None
        self.flash.mkdir(parents=True, exist_ok=True)
        uf2.write_bytes(data)
        config.write_text(text, encoding="utf-8")
        return uf2

    def _power_on(self) -> None:
        uf2 = self._image()
        command = [
            self.interpreter,
            str(CHIP_SCRIPT),
            f"--bootrom={BOOTROM}",
            f"--uf2={uf2}",
            f"--board={self.flash / 'board.json'}",
            f"--reason={REASON_BITS.get(self.reason, 0)}",
            f"--pullup={self.pullup}",
            f"--seed={self.rng.randrange(1 << 30)}",
        ]
        try:
            self.proc = subprocess.Popen(
                command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
            )
        except OSError as exc:
            raise BoardStartError(f"cannot start {self.interpreter}: {exc.strerror}") from None
        assert self.proc.stdin is not None and self.proc.stdout is not None
        os.set_blocking(self.proc.stdin.fileno(), False)
        self.selector.register(self.proc.stdout, selectors.EVENT_READ, "board")
        self.stderr_reader = threading.Thread(target=self._relay_stderr, args=(self.proc,),
                                              daemon=True)  # fmt: skip
        self.stderr_reader.start()
        self.watchdog_ms = 0  # the chip's own watchdog resets it, not this process
        self.from_board.clear()
        self.line.clear()
        self.frames.clear()
        self.accepted = self.previous = ()
        self.pixels = b""
        self.sent.clear()
        self.sense()

    def _power_off(self) -> None:
        proc = self.proc
        self.proc = None
        for passed in self.alarms.values():  # no more chip time: a hand waiting on it lets go
            passed.set()
        self.alarms.clear()
        if proc is None:
            return
        with contextlib.suppress(KeyError, ValueError):
            self.selector.unregister(proc.stdout)  # type: ignore[arg-type]
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        for stream in (proc.stdin, proc.stdout):
            with contextlib.suppress(OSError):
                if stream is not None:
                    stream.close()

    def hang(self) -> None:
        self._command({"hang": True})

    def press(self, button: Button) -> None:
        """Held down until the firmware says it was pressed (its BUTTON frame on the way to
        the host), then let go until it says released, as a hand holds a button until the
        click registers. Timed by the wall clock, a press was too short for the chip's
        debounce whenever the chip ran slower than usual (a busy machine, a long LED frame
        in the same scan); at most a second of the chip's own time each way."""
        self._wired(button)
        for down in (True, False):
            self._button_until_told(button, down)

    def _button_until_told(self, button: Button, down: bool, cap_ns: int = 1_000_000_000,
                           timeout: float = 30.0) -> None:  # fmt: skip
        with self.lock:
            told = self.timer(cap_ns / 1e9)  # set by the firmware's word, or by the cap
            if isinstance(told, threading.Event):
                self.awaited = (button, down, told)
            self._button(button.name.lower(), down)
        if not isinstance(told, threading.Event):
            return  # no chip to tell: nothing to wait for
        told.wait(timeout)
        with self.lock:
            self.awaited = None

    def hold(self, seconds: float) -> None:
        """A hand waits ``seconds`` of the chip's own time, however slowly the chip runs here
        (a busy machine slows it): what a hand holds is then long enough for its debounce."""
        passed = self.timer(seconds)
        if isinstance(passed, threading.Event):
            passed.wait(max(10.0, 100 * seconds))  # the chip's time, at a tenth of real time
        else:
            time.sleep(seconds)

    def timer(self, seconds: float) -> Elapsed:
        """Set once ``seconds`` of the chip's time have passed (at once if the chip is off:
        its time does not run)."""
        with self.lock:
            self.alarm_id += 1
            number = self.alarm_id
            passed = self.alarms[number] = threading.Event()
            if not self._command({"after": max(1, round(seconds * 1e9)), "id": number}):
                self.alarms.pop(number, None)
                return WallTimer(time.monotonic() + seconds)
        return passed

    def _calibrate(self) -> None:
        raise BoardCommandError(
            "the emulated RP2040 cannot write its flash: its calibration comes with its UF2"
        )

    # -- the chip's words -------------------------------------------------------------------------
    def _command(self, message: dict[str, Any]) -> bool:
        """One line to the chip's model; False if it could not take it now."""
        proc = self.proc
        if proc is None or proc.stdin is None:
            return False
        try:
            os.write(proc.stdin.fileno(), (json.dumps(message) + "\n").encode())
        except (BlockingIOError, BrokenPipeError, OSError, ValueError):
            return False
        return True

    def _levels(self, changed: list[tuple[int, int, int]]) -> None:
        for sensor, value, noise in changed:
            told = self._command({"dead": sensor} if value < 0 else {"v": [sensor, value, noise]})
            if not told:
                self.sent.clear()  # a stalled model does not read: say it all again later
                return

    def _button(self, name: str, down: bool) -> None:
        self._command({"button": name, "down": down})

    def _value(self, sensor: int) -> tuple[int, int]:
        table = self.table
        if table is not None and table.faulty.get(sensor) == "dead":
            return -1, 0  # a broken input wire: the signal line floats
        return super()._value(sensor)

    def _to_board(self, data: bytes) -> None:
        self._command({"usb": data.hex()})

    def _ready(self, what: object, source: object) -> None:
        if what != "board":
            super()._ready(what, source)
            return
        proc = self.proc
        if proc is None or proc.stdout is None or source != proc.stdout:
            return
        data = os.read(proc.stdout.fileno(), 65536)
        if not data:
            self._chip_stopped()
            return
        self.line += data
        while b"\n" in self.line:
            end = self.line.index(b"\n")
            raw = bytes(self.line[:end])
            del self.line[: end + 1]
            try:
                message = json.loads(raw)
            except ValueError:
                self._emit("error", message=f"the chip said {raw[:80]!r}")
                continue
            self._chip_message(message)
            if self.proc is not proc:
                return  # it reset: the rest of its words are gone with it

    def _chip_message(self, message: dict[str, Any]) -> None:
        if "usb" in message:
            self._from_board(bytes.fromhex(message["usb"]))
        elif "leds" in message:
            self._latched(bytes.fromhex(message["leds"]))
        elif "watchdog" in message:
            forced = message.get("forced", False)
            if not forced:
                text = "the firmware stopped feeding its watchdog: the chip restarts"
                where = {k: f"0x{message[k]:08x}" for k in ("pc", "lr") if k in message}
                self._emit("fault", kind="watchdog", text=text, **where)
            self._cycle("reset" if forced else "watchdog")
        elif "alarm" in message:
            passed = self.alarms.pop(message["alarm"], None)
            if passed is not None:
                passed.set()
        elif "error" in message:
            self._emit("error", message=f"the emulated board: {message['error']}")

    def _chip_stopped(self) -> None:
        proc = self.proc
        if proc is None:
            return
        code = proc.wait()
        if self.stderr_reader is not None:
            self.stderr_reader.join(1.0)
        self._power_off()
        words = " | ".join(self.errors[-3:]) or "nothing on stderr"
        self._emit("error", message=f"the emulated chip stopped (exit {code}): {words}")

    # -- the LEDs ---------------------------------------------------------------------------------
    def _host_message(self, event: Received) -> None:
        """An LED frame on its way to the chip: kept by its sequence number until it is
        acknowledged (an LED_DELTA applied to whichever frame its checksum says it follows)."""
        message = event.message
        if isinstance(message, Leds):
            self._pending(event.seq, message.leds, message.NAME, event.size)
        elif isinstance(message, LedDelta):
            dark = (LedPattern(0, 0, 0, 0),) * message.count
            bases = [self.accepted or dark, *(f[0] for f in reversed(self.frames.values()))]
            for base in bases:
                leds = message.apply(base)
                if leds is not None:
                    self._pending(event.seq, leds, message.NAME, event.size)
                    return

    def _pending(self, seq: int, leds: tuple[LedPattern, ...], via: str, size: int) -> None:
        self.frames.pop(seq, None)
        self.frames[seq] = (leds, via, size)
        while len(self.frames) > 64:  # never acknowledged: a frame the chip refused or lost
            del self.frames[next(iter(self.frames))]

    def _board_message(self, event: Received) -> None:
        message = event.message
        awaited = self.awaited
        if (isinstance(message, ButtonEvent) and awaited is not None
                and (message.button, message.pressed) == awaited[:2]):  # fmt: skip
            awaited[2].set()
        if isinstance(message, Ack) and message.seq in self.frames:
            leds, via, size = self.frames.pop(message.seq)
            self.previous, self.accepted = self.accepted, leds
            if self.table is not None:
                self.table.leds_shown(leds, via, size)

    def _latched(self, pixels: bytes) -> None:
        """A frame the WS2812B chain latched, decoded from its data pin."""
        if pixels == self.pixels:
            return
        self.pixels = pixels
        count = len(self.profile.led_cells)
        if len(pixels) != 3 * count:
            self._emit("error", message=f"the chain got {len(pixels)} bytes for {count} LEDs")
            return
        order = str(self.config["leds"]["order"])
        lit = {}
        for index in range(count):
            raw = pixels[3 * index : 3 * index + 3]
            rgb = (raw[order.index("R")], raw[order.index("G")], raw[order.index("B")])
            if any(rgb):
                lit[index] = rgb
        problem = self._pixels_problem(lit)
        if problem:
            self._emit("error", message=f"the LEDs lit are not the frame's: {problem}")
        self._emit("strip", lit={str(i): bytes(rgb).hex() for i, rgb in lit.items()})

    def _pixels_problem(self, lit: dict[int, tuple[int, int, int]]) -> str:
        """Why the lit pixels cannot be the acknowledged frame (or the one before it, still
        being drawn) at the builder's brightness and within the budget; '' if they can."""
        config = self.config["leds"]
        brightness = int(config["brightness"])
        drawn = sum(sum(rgb) for rgb in lit.values()) * int(config["ma_per_channel"]) / 255
        if drawn > int(config["budget_ma"]) + 1:
            return f"{drawn:.0f} mA drawn, over the {config['budget_ma']} mA budget"
        # The chain may show a frame before its ACK reaches the host (the firmware answers at
        # once, but USB sends when it next runs), or the one before it.
        candidates = [self.accepted, self.previous, *(f[0] for f in self.frames.values())]
        for frame in candidates:
            if all(_shows(frame, index, rgb, brightness) for index, rgb in lit.items()):
                return ""
        index, rgb = next(
            (i, c) for i, c in lit.items() if not _shows(self.accepted, i, c, brightness)
        )
        want = self.accepted[index] if index < len(self.accepted) else None
        return f"LED {index} lit {rgb}, the frame asks for {want}"


def _shows(frame: tuple[LedPattern, ...], index: int, rgb: tuple[int, int, int], cap: int) -> bool:
    """Could LED ``index`` of ``frame`` light as ``rgb``: in one of its blink steps, its colour
    scaled by one factor no higher than the brightness cap (within rounding)?"""
    if index >= len(frame):
        return False
    led = frame[index]
    if not led.pattern:
        return False
    wanted = (led.red, led.green, led.blue)
    top = max(wanted)
    if top == 0:
        return False
    scale = max(rgb) / top
    if scale > cap / 255 + 0.01:
        return False
    return all(abs(got - want * scale) <= 1.5 for got, want in zip(rgb, wanted, strict=True))


MARKS = ("applied", "taken", "leds", "watchdog", "stats", "alarm")  # chip.mjs, beside USB


class ChipProcess:
    """chip.mjs running a UF2 with no table: spoken to in protocol frames, with the chip's own
    time on everything it says (for the tests of its boot and for ``tools/bench_chip.py``)."""

    def __init__(self, uf2: Path, config: Path, levels: list[int], noise: int = 100) -> None:
        self.proc = subprocess.Popen(
            [find_node(), str(CHIP_SCRIPT), f"--bootrom={BOOTROM}", f"--uf2={uf2}",
             f"--board={config}"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1,
        )  # fmt: skip
        self.decoded: queue.Queue[LinkEvent] = queue.Queue()
        self.tap = FrameProtocol(self.decoded)
        self.raw = bytearray()  # every byte the chip sent on its USB port
        self.frames: list[tuple[float, Any]] = []  # (chip ns, message or None if bad)
        self.marks: list[dict[str, Any]] = []  # applied / taken / leds / stats, with chip ns
        self.ready = threading.Event()
        self.lock = threading.Condition()
        self.seq = 0
        threading.Thread(target=self._read, daemon=True).start()
        for sensor, level in enumerate(levels):
            self.send({"v": [sensor, level, noise]})

    def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        with contextlib.suppress(BrokenPipeError, OSError):
            self.proc.stdin.write(json.dumps(message) + "\n")
            self.proc.stdin.flush()

    def host(self, message: Any, mark: bool = False) -> int:
        """A host frame onto the chip's USB port; its sequence number."""
        from firmware_bridge.link.protocol import encode_frame

        self.seq = (self.seq + 1) & 0xFF
        self.send({"usb": encode_frame(message, self.seq).hex(), "mark": mark})
        return self.seq

    def host_bytes(self, data: bytes) -> None:
        """Bytes onto the chip's USB port as they are (noise, a damaged frame)."""
        self.send({"usb": data.hex()})

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            message = json.loads(line)
            with self.lock:
                if "ready" in message:
                    self.ready.set()
                if "usb" in message:
                    data = bytes.fromhex(message["usb"])
                    self.raw += data
                    self.tap.data_received(data)
                    for event in drain(self.decoded):  # stamped with the chip's time
                        found = event.message if isinstance(event, Received) else None
                        self.frames.append((float(message["at"]), found))
                elif any(key in message for key in MARKS):
                    self.marks.append(message)
                self.lock.notify_all()

    def wait(self, found: Callable[[], T | None], timeout: float = 60) -> T:
        """Wait until ``found()`` (called with the lock held) returns something."""
        deadline = time.monotonic() + timeout
        with self.lock:
            while True:
                result = found()
                if result is not None:
                    return result
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"the chip said {bytes(self.raw[-300:])!r}")
                self.lock.wait(left)

    def wait_for(self, test: Callable[[Any], bool], timeout: float = 60, after: float = -1.0
                 ) -> tuple[float, Any]:  # fmt: skip
        """The first frame or mark said after chip time ``after`` for which ``test`` holds:
        (chip ns, the message or mark)."""

        def find() -> tuple[float, Any] | None:
            marks = ((float(m.get("at", m.get("watchdog", 0.0))), m) for m in self.marks)
            for at, item in [*self.frames, *marks]:
                if at > after and test(item):
                    return at, item
            return None

        return self.wait(find, timeout)

    @property
    def now(self) -> float:
        """The latest chip time it has said anything at (ns)."""
        with self.lock:
            times = [at for at, _ in self.frames[-1:]]
            times += [float(m.get("at", 0.0)) for m in self.marks[-1:]]
            return max(times, default=0.0)

    def close(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            self.proc.kill()
        self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout):
            with contextlib.suppress(OSError):
                if stream is not None:
                    stream.close()
