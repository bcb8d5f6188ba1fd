"""The board check as the daemon runs it (a check mode, in which the readings, buttons,
faults and LEDs are the check's and the game waits): started, answered and stopped from a
face, its LEDs sent and its report journaled. ``Daemon`` (daemon.py) is a ``Checking``, as it is
a ``Showing``; the check itself, pure, is check.py. (Split from daemon.py.)"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from engine import Cell
from firmware_bridge import words
from firmware_bridge.link.leds import led_frame
from firmware_bridge.link.profile import BoardProfile
from firmware_bridge.link.protocol import Hello, Reading
from firmware_bridge.referee.check import BoardCheck
from firmware_bridge.referee.command import Command, CommandResult
from firmware_bridge.referee.history import iso_now

if TYPE_CHECKING:
    from firmware_bridge.referee.reconcile import Reconciler


class Checking:
    """The daemon's board-check half. What it reads of the daemon is declared here."""

    game: Any
    profile: BoardProfile
    journal: Any
    log: logging.Logger
    rec: Reconciler
    board: Hello | None
    check: BoardCheck | None
    check_started: str
    check_recorded: bool
    out_of_band: set[int]
    have_scan: bool
    readings: list[Reading]
    last_status: str
    dirty: bool
    leds: Any

    def _observe(self, now: float) -> None:
        raise NotImplementedError

    def _send_leds(self, now: float) -> None:
        raise NotImplementedError

    def _check_command(self, command: Command, now: float) -> CommandResult:
        what = command.what
        if what == "start":
            if self.check is not None and not self.check.finished:
                return CommandResult(False, words.CHECK_RUNNING)
            chosen: list[Cell] | None = None
            if command.cells:
                index = self.game.board.index
                unknown = [n for n in command.cells
                           if index.get(n, -1) not in self.profile.sensor_of]  # fmt: skip
                if unknown:
                    said = words.NO_SENSOR_ON.format(cells=", ".join(unknown),
                                                     profile=self.profile.id)  # fmt: skip
                    return CommandResult(False, said)
                chosen = [index[n] for n in command.cells]
            self.check = BoardCheck(self.game, self.profile, chosen)
            for sensor in sorted(self.out_of_band):
                self.check.fault(sensor, now)
            self.check_started = iso_now()
            self.check_recorded = False
            self.log.info("board check started from the %s (%d cells): the game waits",
                          command.source, len(self.check.cells))  # fmt: skip
            if self.have_scan:
                self.check.observe(self.readings, now)
            self._check_update(now)
            started = words.CHECK_STARTED.format(instruction=self.check.instruction())
            return CommandResult(True, started)
        check = self.check
        if check is None:
            return CommandResult(False, words.CHECK_NOT_RUNNING)
        if what == "stop":
            if not check.finished:
                self.log.info("board check stopped from the %s", command.source)
            self.check = None
            self._observe(now)  # the game's referee takes the board as it is now
            self.log.info("board check over: back to the game (%s)", self.rec.status)
            return CommandResult(True, words.BACK_TO_GAME)
        if what in ("confirm", "dark", "skip"):
            getattr(check, what)(now)
            self._check_update(now)
            return CommandResult(True, check.instruction())
        return CommandResult(False, f"unknown board check step {what!r}")

    def _check_update(self, now: float) -> None:
        """The check's LEDs to the board; its report, once finished, to the journal."""
        check = self.check
        if check is None:
            return
        self.dirty = True
        status = words.CHECK_STATUS.format(instruction=check.instruction())
        if status != self.last_status:
            self.last_status = status
            self.log.info("%s", status)
        if check.finished and not self.check_recorded:
            self.check_recorded = True
            board = self.board.board_id if self.board is not None else ""
            findings = [f.to_json() for f in check.findings]
            self.journal.record_check(board, self.profile.id, self.check_started,
                                      check.summary(), findings=findings,
                                      skipped=check.skipped)  # fmt: skip
            for line in check.report():
                self.log.info("board check: %s", line)
        if self.leds.wanted(led_frame(check.signals(), self.profile)):
            self._send_leds(now)
