"""The daemon's half that keeps the game's time (Daemon is one, as it is a Showing): it starts
the clock once the board shows the game, journals it with each move and each second it runs
(clock_journal.py), and ends the game at once when a flag falls."""

from __future__ import annotations

import logging
from typing import Any

from engine import Game
from engine.moves import Move
from firmware_bridge import words
from firmware_bridge.link.leds import Signal
from firmware_bridge.referee import clock_journal
from firmware_bridge.referee.clocks import GameClocks
from firmware_bridge.referee.command import CommandResult
from firmware_bridge.referee.history import iso_now


class Timekeeping:
    clocks: GameClocks
    clocks_saved: float
    now: float
    journal: Any
    game_id: int
    game: Game
    rec: Any
    check: Any
    people: tuple[str, str]
    notice: str
    dirty: bool
    log: logging.Logger

    @property
    def state(self) -> Any:
        raise NotImplementedError

    @property
    def board_live(self) -> bool:
        raise NotImplementedError

    def _process(self, records: list[Any]) -> None:
        raise NotImplementedError

    def _save_clocks(self) -> None:
        """Journal the clocks (clock_journal.py): with each move, and each second they run."""
        clocks = self.clocks
        if clocks.clock is None or clocks.control is None or not clocks.started:
            return
        self.clocks_saved = self.now
        value = clocks.clock.value(clocks.ms(self.now))
        clock_journal.save(self.journal, self.game_id, control=clocks.control, value=value,
                           moves=clocks.after, at=iso_now())  # fmt: skip

    def _clock_timers(self, now: float) -> None:
        """Start the clock once the board shows the game; a flag fall ends the game at once."""
        clocks = self.clocks
        if not clocks.active or self.state.outcome() is not None or self.check is not None:
            return
        if not clocks.started:
            if self.board_live and self.rec.shows_position():
                player = self.state.to_move.index + 1
                clocks.start(player, now)
                view = clocks.view(now)
                left = view.text[player - 1] if view is not None else "?"
                self.log.info("clock %s: %s to move, %s left", "restored" if clocks.restored
                              else "started", self.game.player_names[player - 1], left)  # fmt: skip
                if clocks.restored:
                    self.notice = words.CLOCKS_RESTORED
                self._save_clocks()
                self.dirty = True
            return
        if now - self.clocks_saved >= 1.0:
            self._save_clocks()
        flagged = clocks.flag(now)
        if flagged is not None:
            self.log.info("%s's flag fell", self.game.player_names[flagged - 1])
            self._process(self.rec.declare(Move.lost_on_time(flagged), now))
            self.notice = words.declared_result(Move.lost_on_time(flagged),
                                                self.game.player_names, self.people)  # fmt: skip
        # Between changes the faces count the running clock down themselves: no snapshot a second.

    def _flag_signals(self) -> dict[int, Signal]:
        """Once a game is lost on time, the LEDs say so on the loser's pieces (Signal.FLAG)."""
        clock = self.clocks.clock
        outcome = self.state.outcome()
        if clock is None or clock.flagged is None or outcome is None:
            return {}
        if not outcome.reason.endswith("lost on time"):
            return {}
        loser = clock.flagged
        return {cell: Signal.FLAG for cell, piece in self.state.layout().items()
                if int(piece.owner) == loser}  # fmt: skip

    def _clock_command(self, what: str, source: str, now: float) -> CommandResult:
        """The arbiter's control: pause, resume, or ``add:PLAYER:MS`` (negative takes time).
        Logged with where it came from; the flight recording keeps it for the timeline."""
        clocks = self.clocks
        if not clocks.active:
            return CommandResult(False, words.NO_CLOCK)
        if self.state.outcome() is not None:
            return CommandResult(False, words.GAME_OVER_ALREADY)
        if what == "pause":
            done, said = clocks.pause(now), words.CLOCKS_PAUSED
        elif what == "resume":
            done, said = clocks.resume(now), words.CLOCKS_RESUMED
        else:
            _, player, ms = what.split(":")
            done = clocks.adjust(int(player), int(ms), now)
            said = words.clock_adjusted(self.game.player_names[int(player) - 1], int(ms))
        if not done:
            return CommandResult(False, words.CLOCK_NOT_NOW)
        self.log.info("%s (%s)", said, source)
        self._save_clocks()
        self.dirty = True
        return CommandResult(True, said)
