"""The club's boards, outside the Pi: each an emulated board on a pty of this host (the board
emulator, ``board-referee emulate``, with the board id its firmware would say), shown inside
the Pi as a USB serial port; and the hands that play on it, reading its LEDs.

What a referee decided is read from its journal in the Pi's state folder, as the arbiter would
read it (``fold``: the moves that stand).
"""

from __future__ import annotations

import json
import random
import sqlite3
import time
from pathlib import Path
from typing import Any

from engine import Game, State
from firmware_bridge.boards.pieces import layout_text
from firmware_bridge.link import catalog
from firmware_bridge.referee.journal import fold
from pi.machine import Device, Machine
from tests.e2e import EmulatorProcess, hand_text


class HostBoard(EmulatorProcess):
    """An emulated board whose events carry the time they arrived (``arrived``)."""

    def __init__(self, tmp: Path, game: str, board: str, board_id: str, settle_ms: int) -> None:
        self.arrivals: list[tuple[float, dict[str, Any]]] = []
        tmp.mkdir(parents=True, exist_ok=True)
        super().__init__(tmp, game, board, "--board-id", board_id, settle_ms=settle_ms)
        self.board_id = board_id

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            try:
                event = json.loads(line)
            except json.JSONDecodeError:
                continue
            with self.lock:
                self.arrivals.append((time.monotonic(), event))
                if event.get("event") == "leds":
                    self.leds = event["signals"]
            self.events.put(event)


class Table:
    """One table of the club: its board, the Pi's referee for it (by board id), and the game
    the hands play there, chosen at random from the legal moves (``seed``)."""

    def __init__(self, machine: Machine, board: HostBoard, game_id: str, seed: int) -> None:
        self.machine = machine
        self.board = board
        self.game: Game = catalog.load_game(game_id)
        self.state: State = self.game.new_state()
        self.rng = random.Random(seed)
        self.played: list[str] = []  # the moves the hands made, each journaled before the next

    @property
    def board_id(self) -> str:
        return self.board.board_id

    journal_path: Path | None = None  # another journal to read (a backup's copy)

    @property
    def journal(self) -> Path:
        if self.journal_path is not None:
            return self.journal_path
        return self.machine.path(
            f"/var/lib/board-referee/board-referee/journal-{self.board_id}.sqlite3"
        )

    def moves(self) -> list[str]:
        """The moves that stand in the referee's journal (its newest game)."""
        if not self.journal.exists():
            return []
        try:
            db = sqlite3.connect(f"file:{self.journal}?mode=ro", uri=True, timeout=5)
            try:
                row = db.execute("SELECT id FROM games ORDER BY id DESC LIMIT 1").fetchone()
                if row is None:
                    return []
                rows = db.execute(
                    "SELECT action, text FROM entries WHERE game_id = ? ORDER BY number", (row[0],)
                ).fetchall()
            finally:
                db.close()
        except sqlite3.Error:
            return []
        return fold(rows)

    def integrity(self) -> str:
        db = sqlite3.connect(f"file:{self.journal}?mode=ro", uri=True, timeout=5)
        try:
            return str(db.execute("PRAGMA integrity_check").fetchone()[0])
        finally:
            db.close()

    def wait_journaled(self, timeout: float = 60) -> float:
        """Until the journal holds every move played; the seconds it took."""
        return self.machine.wait_for(
            f"{self.board_id}'s journal to hold {self.played[-3:]}",
            lambda: self.moves() == self.played,
            timeout=timeout,
            every=0.05,
        )

    def next_move(self) -> str | None:
        if self.state.outcome() is not None:
            return None
        moves = [m for m in self.state.legal_moves() if not m.is_decision]
        if not moves:
            return None
        return self.state.notation(self.rng.choice(moves))

    def start_move(self, text: str) -> None:
        """The hands play ``text`` on the board (lift, put down, and whatever the LEDs then
        ask), without waiting for the referee to journal it."""
        self.board.do(f"play {hand_text(self.state, text)}", timeout=60)
        effect = self.state.apply(self.state.parse(text))
        self.played.append(text)
        self.pending_follow = effect.footprint().result != effect.footprint().hand

    def finish_move(self) -> None:
        """Whatever the referee's LEDs ask after the move (a capture to take off, a ram to
        move on), once it journaled the move."""
        self.wait_journaled()
        if getattr(self, "pending_follow", False):
            self.board.do("follow 20", timeout=90)
            self.pending_follow = False

    def play(self, count: int) -> int:
        """Up to ``count`` moves, each journaled before the next; how many were played."""
        done = 0
        for _ in range(count):
            text = self.next_move()
            if text is None:
                break
            self.start_move(text)
            self.finish_move()
            done += 1
        return done

    def put_right(self) -> None:
        """After a referee came back: the hands do what its LEDs ask (the position the journal
        holds), and play again any move it had not journaled."""
        journaled = self.moves()
        lost = self.played[len(journaled) :]
        if journaled != self.played[: len(journaled)]:
            raise AssertionError(
                f"{self.board_id}: the journal has {journaled[-5:]}, the "
                f"hands played {self.played[-5:]}"
            )
        if lost:  # the move under way when the power went: the board is set back, then replayed
            for _ in lost:
                self.state.undo()
            del self.played[len(journaled) :]
        self.set_board()
        for text in lost:
            self.start_move(text)
            self.finish_move()

    def set_board(self) -> None:
        """The board set to the referee's position, as players do: what its LEDs ask, then
        any piece they must bring from the box (a flag that followed its captain)."""
        self.board.do("follow 30", timeout=120)
        wanted = layout_text(self.game, self.state.layout())
        physical = self.board.pieces()
        extra = [cell for cell, token in physical.items() if wanted.get(cell) != token]
        if extra:
            self.board.do(f"lift {' '.join(extra)}")
        for cell, token in wanted.items():
            if physical.get(cell) != token or cell in extra:
                self.board.do(f"place {cell} {token}")
        if extra or any(physical.get(c) != t for c, t in wanted.items()):
            self.board.do("follow 30", timeout=120)


def device_for(board: HostBoard, index: int, serial: str) -> Device:
    """A board's tty as the Pi sees a Pico on USB: /dev/ttyACMn, with its by-id name."""
    return Device(
        board.device, f"/dev/ttyACM{index}", f"usb-MicroPython_Board_in_FS_mode_{serial}-if00"
    )
