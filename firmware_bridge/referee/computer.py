"""The computer opponent beside the referee: the engine thinks in its own process
(``board-referee engine``, docs/engine.md), asked from a worker thread, so the referee's loop,
its LEDs and the pages never wait on a search.

Which sides the computer plays is said by the people playing them: a side named ``Computer,
level N`` (words.computer_name) is the computer's. So the records, the results, the club view
and a resumed game all know it with nothing more kept. Its answer comes back on the daemon's
queue like any control (``post``), keyed by the position it was asked about: an answer for a
position the game has left (a take-back, a new game) is dropped. An engine that crashes or
hangs is said (``error``) and started afresh at the next ask; the referee never stops for it.
"""

from __future__ import annotations

import logging
import queue
import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from engine import Cell, Game, Player
from firmware_bridge import words
from firmware_bridge.link.leds import Signal

if TYPE_CHECKING:  # the engine's client is imported when the computer first plays or hints:
    from firmware_bridge.opponent.client import EngineProcess  # not before a board's first frame

COMPUTER = re.compile(r"^Computer, level ([1-5])$")
HINT_KEY = "hint|"  # an answer whose key starts so is a hint for the player to move
DEFAULT_MOVETIME_MS = 2000
MIN_MOVETIME_MS = 100
MAX_MOVETIME_MS = 60_000


def computer_sides(people: tuple[str, str]) -> dict[Player, int]:
    """The sides the computer plays, with their levels, from who plays each side."""
    sides = {}
    for player in Player:
        found = COMPUTER.match(people[player.index])
        if found:
            sides[player] = int(found.group(1))
    return sides


NICE = 10  # the engine's niceness, without a clock
PREPARE = "prepare|"  # a question that only loads the game (Computer.prepare)


@dataclass(frozen=True, slots=True)
class Ask:
    """One question for the engine: the game, its moves so far, the level and the time."""

    key: str  # the position asked about; its answer carries it back
    game: Game
    moves: tuple[str, ...]
    level: int
    movetime_ms: int


@dataclass(frozen=True, slots=True)
class Answer:
    key: str
    move: str  # the engine's move in notation; "" when it failed
    error: str = ""


class Computer:
    """The engine process and the thread that asks it, one question at a time."""

    def __init__(
        self, post: Callable[[Answer], None], log: logging.Logger,
        command: Sequence[str] | None = None, *, nice: int = NICE,
    ) -> None:  # fmt: skip
        from firmware_bridge.opponent.client import engine_command

        self.post = post
        self.log = log
        # At a lower priority: on a busy Pi the referee's loop comes first. Under a clock at
        # the referee's own (0): there its time is the computer's clock, and a search starved
        # of the processor answers late (tools/bench_clock.py: a 200 ms go took up to 396 ms at
        # nice 10 beside two busy processes on two cores, 209 ms at nice 0).
        self.nice = nice
        self.command = list(command or engine_command(*(("--nice", str(nice)) if nice else ())))
        self._asks: queue.Queue[Ask | None] = queue.Queue()
        self._engine: EngineProcess | None = None
        self._loaded: tuple[str, str] | None = None  # the game and options the engine has
        self._thread = threading.Thread(target=self._work, daemon=True, name="computer")
        self._thread.start()

    def ask(self, question: Ask) -> None:
        self._asks.put(question)

    def close(self) -> None:
        self._asks.put(None)
        self._thread.join(timeout=5)
        if self._engine is not None:
            self._engine.close()

    @property
    def pid(self) -> int | None:
        return self._engine.pid if self._engine is not None and self._engine.alive else None

    def _work(self) -> None:
        from firmware_bridge.opponent.client import EngineError

        while True:
            question = self._asks.get()
            if question is None:
                return
            if not self._asks.empty():  # a newer question waits: this one is stale
                continue
            try:
                if question.key == PREPARE:  # the game loaded before its clock runs
                    self._load(question.game)
                    continue
                move = self._think(question)
                self.post(Answer(question.key, move))
            except EngineError as exc:
                self.log.warning("the computer's engine failed: %s", exc)
                if self._engine is not None:
                    self._engine.close()
                self._engine, self._loaded = None, None
                self.post(Answer(question.key, "", str(exc)))
            except Exception as exc:  # never let the worker die: say it, and go on
                self.log.exception("the computer's engine failed")
                self.post(Answer(question.key, "", str(exc)))

    def _load(self, game: Game) -> Any:
        """The engine, started if it is not, with ``game`` loaded (its once-only tables made:
        the engine's ``game`` makes them, so no timed ``go`` does)."""
        from firmware_bridge.opponent.client import EngineProcess

        engine = self._engine
        if engine is None or not engine.alive:
            engine = self._engine = EngineProcess(self.command, name="the computer's engine")
            self._loaded = None
            self.log.info("the computer's engine started (process %d)", engine.pid)
        options = {k: str(v) for k, v in game.options.items()}
        loaded = (game.id, repr(sorted(options.items())))
        if self._loaded != loaded:
            engine.new_game(game.id, options, timeout=30)
            self._loaded = loaded
        return engine

    def prepare(self, game: Game) -> None:
        """Start the engine and load ``game`` now, before the game's clock runs."""
        self._asks.put(Ask(PREPARE, game, (), 0, 0))

    def _think(self, question: Ask) -> str:
        engine = self._load(question.game)
        engine.level(question.level)
        engine.position(question.moves)
        return str(engine.go(movetime_ms=question.movetime_ms).move)


class Playing:
    """The daemon's half that seats the computer (Daemon is one, as it is a Showing): on the
    computer's turn it asks the engine, and it takes the answer back to the reconciler."""

    rec: Any
    game: Game
    game_id: int
    people: tuple[str, str]
    log: logging.Logger
    notice: str
    dirty: bool
    now: float
    thinks: bool  # the computer may be asked (a replay never asks: it has the answers)
    computer: Computer | None
    computer_asked: str
    computer_failed: str
    movetime_ms: int
    hints: bool  # hints may be asked in this game
    journal: Any
    game_start: Any  # the position the game began from (None: the game's own start)
    moves: Any  # the move list (history.MoveList), kept in step with the game
    clocks: Any  # the game's clocks (clocks.GameClocks): the computer's stops when it answers

    def _post_answer(self, answer: Answer) -> None:
        raise NotImplementedError

    def _process(self, records: list[Any]) -> None:
        raise NotImplementedError

    def _game_moves(self) -> tuple[str, ...]:
        """The game's moves as the journal has them (each in its mover's notation): the move
        list the loop keeps, so a position is never replayed to be named."""
        return tuple(view.text for view, _ in self.moves)

    def _position_key(self) -> str:
        """The position as the engine is asked about it: the game and its moves."""
        return f"{self.game_id}|{' '.join(self._game_moves())}"

    def _new_computer(self) -> Computer:
        """The engine's thread and process, at the priority the game's clock wants."""
        return Computer(self._post_answer, self.log, nice=0 if self.clocks.active else NICE)

    def _seat_computer(self) -> None:
        """Which sides the computer plays in the game as it now stands. The engine knows a
        game by its moves from the start: a game begun from a position has no computer."""
        sides = computer_sides(self.people)
        if sides and self.game_start:
            self.log.warning(
                "the computer plays games from their start only: game %d began from a "
                "position, so people play both sides", self.game_id,
            )  # fmt: skip
            sides = {}
        self.rec.computer = frozenset(sides)
        self.computer_asked = ""
        nice = 0 if self.clocks.active else NICE
        if self.computer is not None and self.computer.nice != nice:  # a clock came or went
            self.computer.close()
            self.computer = None
        if sides and self.thinks and self.clocks.active:  # its once-only work before its clock
            if self.computer is None:
                self.computer = self._new_computer()
            self.computer.prepare(self.game)

    def _resume_plan(self) -> None:
        """A move the computer chose before this referee started (its journaled plan, with
        no move after it) stands: shown again, never chosen afresh, and taken when the
        players carried it out meanwhile (the reconciler's first look at the board)."""
        text = self.journal.planned(self.game_id)
        rec = self.rec
        if not text or not rec.computer_to_move:
            return
        try:
            move = rec.state.parse(text)
        except ValueError:
            move = None
        if move is None or not rec.state.is_legal(move):
            self.log.warning("the computer's journaled move %r does not fit the game: it "
                             "chooses again", text)  # fmt: skip
            return
        self.computer_asked = self._position_key()
        self.log.info("the computer's move %s, chosen before the restart, stands", text)
        rec.plan(move)

    def _computer_turn(self) -> None:
        """Ask the engine when it is the computer's turn and nobody has asked yet. Whatever
        goes wrong in asking is said, and the referee goes on (Restart computer asks again)."""
        try:
            self._ask_if_its_turn()
        except Exception as exc:  # the computer's seat must never stop the referee
            self.log.exception("asking the computer failed")
            self.computer_failed = str(exc) or type(exc).__name__
            self.notice = f"The computer could not be asked ({self.computer_failed})."
            self.dirty = True

    def _ask_if_its_turn(self) -> None:
        rec = self.rec
        if not self.thinks or not rec.computer_to_move or rec.planned is not None:
            return
        if self.computer_failed:
            return
        key = self._position_key()
        if key == self.computer_asked:
            return
        self.computer_asked = key
        if self.computer is None:
            self.computer = self._new_computer()
        level = computer_sides(self.people).get(rec.state.to_move, 5)
        # Under a clock, its time a move comes from its clock (clocks.GameClocks.budget_ms).
        budget = self.clocks.budget_ms(rec.state.to_move.index + 1, self.now)
        movetime = self.movetime_ms if budget is None else min(self.movetime_ms, budget)
        self.computer.ask(Ask(key, self.game, self._game_moves(), level, movetime))
        self.dirty = True

    def _ask_hint(self) -> tuple[bool, str]:
        """The Hint button: the engine's suggestion for the player to move, asked now, shown
        when it comes (``_computer_answer``). (False, why) when no hint can be given."""
        rec = self.rec
        state = rec.state
        refusal = ""
        if not self.thinks:
            refusal = "this referee has no engine to ask"
        elif not self.hints:
            refusal = "hints are off for this game"
        elif state.outcome() is not None:
            refusal = "the game is over"
        elif rec.computer_to_move:
            refusal = "it is the computer's turn"
        elif rec.hinted is not None:
            refusal = "the hint is on the board"
        elif self.game_start:
            refusal = "hints are for games played from their start"
        if refusal:
            return False, refusal
        self.computer_failed = ""
        if self.computer is None:
            self.computer = self._new_computer()
        key = HINT_KEY + self._position_key()
        self.computer.ask(Ask(key, self.game, self._game_moves(), 5, self.movetime_ms))
        return True, "looking for a good move…"

    def _engine_shown(self, action: str, command: Any) -> tuple[bool, str]:
        """The kiosk's Hint, or a review's better move lit (or taken off)."""
        if action == "hint":
            return self._ask_hint()
        return self._show_review(command.what, command.cells)

    def _show_review(self, what: str, cells: tuple[str, ...] | None) -> tuple[bool, str]:
        """A review's turning point: its better move lit on the board (``cells``: CELL=SIGNAL),
        or, without cells, taken off. Only over an ended game's board or a new game's untouched
        start: during a game the LEDs are the game's."""
        rec = self.rec
        if cells is None:
            if rec.reviewed is None:
                return True, "the board shows the game"
            rec.reviewed = None
            self._process(rec.evaluate(self.now))
            return True, "the board shows the game again"
        if rec.state.outcome() is None and rec.state.plies:
            return False, ("A game is under way at this board: the better move is shown on "
                           "the page only, never on the board's lights during a game.")  # fmt: skip
        index = self.game.board.index
        signals: dict[Cell, Signal] = {}
        for item in cells:
            name, _, value = item.partition("=")
            try:
                signals[index[name]] = Signal(value)
            except (KeyError, ValueError):
                return False, (f"this board now plays {self.game.title}: the reviewed game's "
                               "move is shown on the page only")  # fmt: skip
        rec.reviewed = (signals, what)
        self._process(rec.evaluate(self.now))
        return True, ("The better move is lit on the board. Moving a piece, or going back to "
                      "the board, puts the game's lights back.")  # fmt: skip

    def _computer_answer(self, key: str, move: str, error: str) -> str:
        """The engine's answer: the move to show, or what went wrong; the words for the face."""
        hint = key.startswith(HINT_KEY)
        if key.removeprefix(HINT_KEY) != self._position_key():
            return "an answer for a position the game has left"
        if error:
            self.computer_failed = error
            self.notice = f"The computer's engine stopped ({error}). Press Restart computer."
            self.dirty = True
            return self.notice
        state = self.rec.state
        try:
            chosen = state.parse(move)
        except ValueError:
            chosen = None
        if chosen is None or not state.is_legal(chosen):
            self.computer_failed = f"it chose {move!r}, not a legal move"
            self.notice = f"The computer's engine {self.computer_failed}. Press Restart computer."
            return self.notice
        if hint:
            who = words.person(state.game.player_names, self.people, state.to_move)
            self.log.info("hint for %s: %s", who, move)
            self.journal.record_hint(self.game_id, move)
            self.notice = ""  # "looking for a good move…" is answered: the status shows it
            self.rec.hint(chosen)
            self._process(self.rec.evaluate(self.now))
            return f"hint: {move}"
        self.log.info("the computer chose %s", move)
        # Journaled before it is shown: a referee that goes down before the players have
        # carried it out shows the same move when it starts again (_resume_plan).
        self.journal.record_plan(self.game_id, move)
        self.clocks.answered(self.now)
        self.rec.plan(chosen)
        self._process(self.rec.evaluate(self.now))
        return f"the computer plays {move}"

    def _restart_computer(self) -> str:
        self.computer_failed = ""
        self.computer_asked = ""
        self.notice = ""
        self._computer_turn()
        return "the computer's engine is starting again"
