"""End-to-end harness: the board emulator and the daemon, each in its own process, talking
over a pty exactly as in production. The emulator is driven through its JSON-lines interface;
the daemon is observed through its log and its journal."""

from __future__ import annotations

import contextlib
import json
import os
import queue
import re
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from engine import Game, MoveKind, Player, State
from firmware_bridge.referee.journal import fold

PYTHON = [sys.executable, "-m", "firmware_bridge.cli"]
TIMEOUT = 30.0


# Which board process plays the board: "emulator" (board-referee emulate, the Python firmware)
# or "firmware" (board-referee firmware host: the Pico firmware in MicroPython's Unix port);
# "chip" (board-referee firmware chip: the board's UF2 on an emulated RP2040) is slower, and
# its tests choose it by name (tests/test_chip.py).
BOARD_KINDS = ("emulator", "firmware")
FIRMWARE_HEAP = "64K"  # the firmware runs in the heap budget it must keep on a Pico
CHIP_PACE = 0.05  # of the chip's own time: a reed board's 40 ms debounce and a scan
# The tests' referee settles in 100 ms (a club's in its profile's 300): its hands are told, so
# they give the referee as long as it takes, not the profile's window.
SETTLE_MS = 100


class EmulatorProcess:
    def __init__(self, tmp: Path, game: str, board: str, *args: str, pace: float = 0.04,
                 kind: str = "emulator", settle_ms: int = SETTLE_MS):  # fmt: skip
        self.link = tmp / "board"
        self.kind = kind
        if kind == "chip":  # the hands wait in the chip's time, which runs at about a
            pace = max(pace, CHIP_PACE)  # quarter of a Pico's speed here, less on a busy one
        what = {
            "firmware": ["firmware", "host", "--heap", FIRMWARE_HEAP],
            "chip": ["firmware", "chip"],
        }.get(kind, ["emulate"])
        command = [*PYTHON, *what, "--game", game, "--board", board, "--json",
                   "--link", str(self.link), "--pace", str(pace),
                   "--host-settle-ms", str(settle_ms), *args]  # fmt: skip
        self.proc = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True, bufsize=1,
            # A hung emulator is aborted on a timeout, and then says where each thread was.
            env={**os.environ, "PYTHONFAULTHANDLER": "1"},
        )  # fmt: skip
        self.events: queue.Queue[dict[str, Any]] = queue.Queue()
        self.leds: dict[str, str] = {}
        self.led_frames: list[tuple[str, int]] = []  # (LEDS or LED_DELTA, bytes) that changed them
        self.lock = threading.Lock()
        self.garbled: list[str] = []  # stdout lines that were not JSON
        self.errors: list[dict[str, Any]] = []  # error events no command asked about
        self.stderr: list[str] = []  # read as it comes, so a full pipe never blocks the emulator
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._read_stderr, daemon=True).start()
        ready = self.next_event("ready")
        self.device = ready["device"]

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            try:
                event = json.loads(line)
            except json.JSONDecodeError:
                with self.lock:  # kept for the message if an awaited event never comes
                    self.garbled.append(line.rstrip("\n"))
                continue
            if event.get("event") == "error" and "command" not in event:
                with self.lock:
                    self.errors.append(event)
            if event.get("event") == "leds":
                with self.lock:
                    self.leds = event["signals"]
                    self.led_frames.append((event.get("via", ""), int(event.get("size", 0))))
            self.events.put(event)

    def _read_stderr(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            with self.lock:
                self.stderr.append(line.rstrip("\n"))

    def next_event(self, kind: str, timeout: float = TIMEOUT) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                event = self.events.get(timeout=deadline - time.monotonic())
            except queue.Empty:
                break
            if event.get("event") == kind:
                return event
            if event.get("event") == "error":
                raise AssertionError(f"emulator: {event}")
        alive = "running" if self.proc.poll() is None else f"exited {self.proc.returncode}"
        lines = 5
        if self.proc.poll() is None:
            # Still running but silent: abort it, so its threads' stacks show where it hangs.
            self.proc.send_signal(signal.SIGABRT)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(timeout=5)
            time.sleep(0.2)  # the stderr reader takes the last lines
            alive, lines = "hung, aborted", 60
        with self.lock:
            tail = " | ".join(self.stderr[-lines:])
            garbled = f"; lines that were not JSON: {self.garbled[-3:]}" if self.garbled else ""
        raise AssertionError(
            f"emulator ({alive}): no {kind} event within {timeout} s{garbled}; its stderr ends: "
            f"{tail}"
        )

    def do(self, line: str, timeout: float = TIMEOUT) -> None:
        """Send one command and wait for it to finish (raises if the emulator refused it)."""
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        try:
            self.next_event("ok", timeout)
        except AssertionError as exc:
            raise AssertionError(f"{line!r}: {exc}") from None

    def pieces(self) -> dict[str, str]:
        assert self.proc.stdin is not None
        self.proc.stdin.write("pieces\n")
        self.proc.stdin.flush()
        layout: dict[str, str] = self.next_event("pieces")["layout"]
        self.next_event("ok")  # the command's own "ok", so no later do() takes it for its own
        return layout

    def current_leds(self) -> dict[str, str]:
        with self.lock:
            return dict(self.leds)

    def close(self) -> None:
        if self.proc.poll() is None:
            assert self.proc.stdin is not None
            try:
                self.proc.stdin.write("quit\n")
                self.proc.stdin.flush()
                self.proc.wait(5)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()


class DaemonProcess:
    def __init__(self, tmp: Path, game: str, board: str, port: Path | str, *args: str,
                 settle_ms: int = SETTLE_MS, env: dict[str, str] | None = None):  # fmt: skip
        self.journal = tmp / "journal.sqlite3"
        self.command = [
            *PYTHON, "run", "--game", game, "--board", board, "--port", str(port),
            "--journal", str(self.journal), "--settle-ms", str(settle_ms), *args,
        ]  # fmt: skip
        if "--kiosk" not in args:
            self.command.append("--no-kiosk")
        self.env = {**os.environ, **(env or {})}
        self.log: list[str] = []
        self.lock = threading.Lock()
        self.start()

    def start(self, *extra: str) -> None:
        self.proc = subprocess.Popen(
            [*self.command, *extra], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE, text=True, bufsize=1, env=self.env,
        )  # fmt: skip
        threading.Thread(target=self._read, args=(self.proc,), daemon=True).start()

    def _read(self, proc: subprocess.Popen[str]) -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            with self.lock:
                self.log.append(line.rstrip("\n"))

    def wait_log(self, pattern: str, timeout: float = TIMEOUT) -> str:
        regex = re.compile(pattern)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                for line in self.log:
                    if regex.search(line):
                        return line
            if self.proc.poll() is not None:
                break
            time.sleep(0.02)
        raise AssertionError(f"daemon log has no {pattern!r}:\n" + "\n".join(self.log[-40:]))

    def text(self) -> str:
        with self.lock:
            return "\n".join(self.log)

    def kill(self, signum: int = signal.SIGKILL) -> None:
        os.kill(self.proc.pid, signum)
        self.proc.wait(10)

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode

    def game_id(self) -> int | None:
        """The journal's newest game."""
        if not self.journal.exists():
            return None
        db = sqlite3.connect(f"file:{self.journal}?mode=ro", uri=True)
        try:
            row = db.execute("SELECT id FROM games ORDER BY id DESC LIMIT 1").fetchone()
        except sqlite3.OperationalError:
            return None
        finally:
            db.close()
        return None if row is None else int(row[0])

    def moves(self, game_id: int | None = None) -> list[str]:
        """A game's moves (default: the newest game's), read from the journal (take-backs
        applied)."""
        if not self.journal.exists():
            return []
        db = sqlite3.connect(f"file:{self.journal}?mode=ro", uri=True)
        try:
            if game_id is None:
                row = db.execute("SELECT id FROM games ORDER BY id DESC LIMIT 1").fetchone()
                if row is None:
                    return []
                game_id = row[0]
            rows = db.execute("SELECT action, text FROM entries WHERE game_id = ? "
                              "ORDER BY number", (game_id,)).fetchall()  # fmt: skip
        except sqlite3.OperationalError:
            return []
        finally:
            db.close()
        return fold(rows)

    def outcome(self) -> dict[str, Any] | None:
        db = sqlite3.connect(f"file:{self.journal}?mode=ro", uri=True)
        try:
            row = db.execute("SELECT outcome FROM games ORDER BY id DESC LIMIT 1").fetchone()
        finally:
            db.close()
        return json.loads(row[0]) if row and row[0] else None

    def wait_moves(self, expected: list[str], timeout: float = TIMEOUT) -> None:
        def why() -> str:
            return f"journal {self.moves()} != {expected}\n" + self.text()[-3000:]

        wait_until(lambda: self.moves() == expected, timeout, why)


def wait_until(check: Callable[[], bool], timeout: float, why: Callable[[], str]) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.03)
    raise AssertionError(why())


def hand_text(state: State, text: str) -> str:
    """A move's notation as the emulator's ``play`` takes it (placements name the owner)."""
    move = state.parse(text)
    if move.kind is MoveKind.PLACE and state.to_move is Player.TWO:
        return text[0].lower() + text[1:]
    return text


def play_out(emu: EmulatorProcess, daemon: DaemonProcess, game: Game, state: State,
             moves: list[str]) -> None:  # fmt: skip
    """Play ``moves`` physically: each hand action, then whatever the LEDs ask for, then any
    piece a player must bring in by knowing the rules (a tamed dragon)."""
    done = list(daemon.moves())
    for text in moves:
        emu.do(f"play {hand_text(state, text)}")
        effect = state.apply(state.parse(text))
        done.append(text)
        daemon.wait_moves(done)
        if effect.footprint().result != effect.footprint().hand:
            emu.do("follow 20", timeout=60)
            physical = emu.pieces()
            for cell, piece in state.layout().items():
                name = game.board.names[cell]
                if name not in physical and not state.deciding:
                    symbol = game.pieces[piece.kind].symbol
                    symbol = symbol if piece.owner is Player.ONE else symbol.lower()
                    emu.do(f"place {name} {symbol}{'' if piece.state is None else piece.state}")
