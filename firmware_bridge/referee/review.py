"""A finished game's review: the engine's analysis, run in its own process at the lowest
priority after the game, and kept with the game (docs/kiosk.md, "The review").

``Analyst`` is a listener of the daemon, like the faces: it learns from each snapshot when
this board's game ends, and whether a game is under way (it never analyses during one: the
players' game and its computer opponent keep the Pi). Its thread drives a ``board-referee
engine`` at nice 19, one ``go`` a position, and writes what it has found beside the journal
(``reviews/``) every few positions: a review cut short (a new game begun, the referee
stopped, the engine gone) is kept as far as it got and finished later, and a review finished
once opens at once, after a restart too.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from engine import ConfigError, Game, State, declared
from engine.search.review import Judged
from firmware_bridge.link import catalog
from firmware_bridge.opponent import REVIEW_MS
from firmware_bridge.referee.journal import GameRecord, JournalError, read_records
from firmware_bridge.referee.records import option_text

# A game that ends is analysed after this long with no new game begun (players often set up
# the next at once: that game keeps the Pi), or at once when its review is asked for.
AFTER_S = 20.0
SAVE_EVERY_S = 5.0  # what is found goes to the card this often, not after every position
VERSION = 1


class _ClosedError(Exception):
    """The analyst is closing: its thread ends."""


class ReviewError(Exception):
    """Why a game cannot be reviewed, in a sentence for the page."""


@dataclass(frozen=True)
class Review:
    """A game's analysis as far as it has gone: ``judged[k]`` is the position before move k+1,
    the last one the position the game ended in."""

    number: int
    game: str
    options: dict[str, str]
    moves: tuple[str, ...]  # the moves played (a resignation or a draw agreed is none)
    judged: tuple[Judged, ...] = ()
    ms: int = REVIEW_MS

    @property
    def complete(self) -> bool:
        return len(self.judged) == len(self.moves) + 1

    def to_json(self) -> dict[str, Any]:
        return {
            "version": VERSION, "number": self.number, "game": self.game,
            "options": self.options, "moves": list(self.moves), "ms": self.ms,
            "judged": [[j.mover, round(j.first, 4), j.best, j.playouts, j.known]
                       for j in self.judged],
        }  # fmt: skip

    @classmethod
    def from_json(cls, data: Any) -> Review:
        """A kept review; ValueError for anything that is not one (a damaged file)."""
        try:
            if data["version"] != VERSION:
                raise ValueError("another version")
            judged = tuple(
                Judged(int(m), float(f), str(b), int(p), bool(k))
                for m, f, b, p, k in data["judged"]
            )
            review = cls(int(data["number"]), str(data["game"]),
                         {str(k): str(v) for k, v in dict(data["options"]).items()},
                         tuple(str(m) for m in data["moves"]), judged, int(data["ms"]))  # fmt: skip
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"not a review ({exc})") from None
        if len(judged) > len(review.moves) + 1 or not all(0 <= j.first <= 1 for j in judged):
            raise ValueError("not a review (its figures do not fit its moves)")
        return review


def review_path(journal: Path, number: int) -> Path:
    """Where game ``number``'s review is kept: beside its journal."""
    return journal.parent / "reviews" / f"{journal.stem}-game-{number}.json"


def load_review(journal: Path, number: int) -> Review | None:
    """The review kept for game ``number``; None when there is none, or it is damaged (it is
    then made again: an analysis is never worth a refusal)."""
    try:
        text = review_path(journal, number).read_text(encoding="utf-8")
        return Review.from_json(json.loads(text))
    except (OSError, ValueError):
        return None


def save_review(journal: Path, review: Review) -> None:
    """Write it whole, then rename: a power cut leaves the old file or the new, never half."""
    path = review_path(journal, review.number)
    path.parent.mkdir(parents=True, exist_ok=True)
    part = path.with_suffix(".part")
    part.write_text(json.dumps(review.to_json(), separators=(",", ":")), encoding="utf-8")
    os.replace(part, path)


def played_moves(record: GameRecord) -> tuple[str, ...]:
    return tuple(move for move, _ in record.moves if declared(move) is None)


def game_record(journal: Path, number: int) -> GameRecord:
    """Game ``number`` of the journal, for a review; ReviewError in words otherwise."""
    try:
        found = read_records(journal, number)
    except JournalError as exc:
        raise ReviewError(f"The journal cannot be read, so game {number} cannot be "
                          f"reviewed ({exc}).") from None  # fmt: skip
    if not found:
        raise ReviewError(f"There is no game {number} in this board's journal.")
    return found[0]


def reviewable(record: GameRecord, config_dir: Path | None) -> tuple[Game, tuple[State, ...]]:
    """The game and its positions, from the start to the end; ReviewError in words when it
    cannot be reviewed."""
    number = record.id
    if record.status == "playing":
        raise ReviewError(f"Game {number} is still being played: it is reviewed once it ends.")
    moves = played_moves(record)
    if not moves:
        raise ReviewError(f"Game {number} has no moves to review.")
    if record.start:
        raise ReviewError(f"Game {number} began from a set position: a review follows games "
                          "played from the start.")  # fmt: skip
    try:
        game = catalog.load_game(record.game, dict(record.options), config_dir)
    except ConfigError as exc:
        raise ReviewError(f"Game {number}'s game cannot be loaded: {exc}") from None
    state = game.new_state()
    positions = [state.copy()]
    for count, text in enumerate(moves, start=1):
        try:
            state.apply(state.parse(text))
        except ValueError as exc:
            raise ReviewError(f"Game {number}'s move {count} ({text}) does not replay: {exc}. "
                              "The journal is damaged.") from None  # fmt: skip
        positions.append(state.copy())
    return game, tuple(positions)


def final_judgement(state: State) -> Judged | None:
    """The end of the game as a judgement, when the rules ended it (a resignation or a draw
    agreed leaves a position still to judge)."""
    outcome = state.outcome()
    if outcome is None:
        return None
    first = 0.5 if outcome.winner is None else (1.0 if outcome.winner.value == 1 else 0.0)
    return Judged(0, first)


class Analyst:
    """The reviews of one board's games (see the module's docstring)."""

    def __init__(self, journal: Path, config_dir: Path | None, log: logging.Logger, *,
                 command: list[str] | None = None, ms: int = REVIEW_MS,
                 playouts: int | None = None) -> None:  # fmt: skip
        from firmware_bridge.opponent.client import engine_command

        self.journal = journal
        self.config_dir = config_dir
        self.log = log
        self.command = command or engine_command("--nice", "19")
        self.ms = ms
        # A fixed amount of search a position instead of a time, however long it takes at
        # nice 19 on a busy machine (the same review whatever else the machine does: the
        # tests').
        self.playouts = playouts
        self._lock = threading.Condition()
        self._queue: list[int] = []
        self._playing = 0  # the game under way at the board (moves made, no result): 0 none
        self._problems: dict[int, str] = {}  # why a game's review stopped (the engine gone)
        self._done: set[int] = set()
        self._asked: set[int] = set()  # games a person asked for: analysed at once
        self._ended_at: dict[int, float] = {}  # when each game was seen ended (AFTER_S)
        self._closed = False
        # Told each game whose review is finished, from the analyst's thread (the MQTT
        # publisher, which sends it to the club view): each must return at once.
        self.listeners: list[Callable[[int], None]] = []
        self._thread = threading.Thread(target=self._work, daemon=True, name="analyst")
        self._thread.start()

    # -- from the daemon's loop and the pages ----------------------------------------------
    def publish(self, snapshot: Any) -> None:
        """A listener: cheap, in the daemon's loop. A game that has ended is queued."""
        with self._lock:
            under_way = bool(snapshot.moves) and snapshot.outcome is None
            self._playing = snapshot.game_number if under_way else 0
            number = snapshot.game_number
            ended = snapshot.outcome is not None and bool(snapshot.moves)
            if ended and number not in self._done and number not in self._problems:
                self._ended_at.setdefault(number, time.monotonic())
                self._want(number, first=False)
            self._lock.notify_all()

    def ask(self, number: int, retry: bool = False) -> str:
        """A person asked for game ``number``'s review: queue it first; what happens, in words
        ("" when it is being analysed now). A review that stopped (the engine gone) says why,
        and starts again only when ``retry`` asks it to."""
        with self._lock:
            if number in self._problems and not retry:
                return self._problems[number]
            self._problems.pop(number, None)
            if number not in self._done:
                self._asked.add(number)
                self._want(number, first=True)
            self._lock.notify_all()
            if self._playing and self._playing != number:
                return ("A game is under way at this board: the review goes on once it ends "
                        "(the analysis never runs during a game).")  # fmt: skip
            return ""

    def problem(self, number: int) -> str:
        with self._lock:
            return self._problems.get(number, "")

    def stop(self) -> None:
        """Stop the thread and its engine (what is found so far is kept)."""
        self.close()

    def close(self) -> None:
        with self._lock:
            self._closed = True
            self._lock.notify_all()
        self._thread.join(timeout=5)

    def _want(self, number: int, *, first: bool) -> None:
        if number in self._queue:
            if not first:
                return
            self._queue.remove(number)
        if first:
            self._queue.insert(0, number)
        else:
            self._queue.append(number)

    # -- the thread -------------------------------------------------------------------------
    def _go_on(self) -> bool:
        """Whether the analysis may go on: not closed, no game under way at the board."""
        with self._lock:
            return not self._closed and not self._playing

    def _next(self, engine_open: bool) -> int:
        """The game to analyse next; 0 (with an engine open) when there is none now, or a game
        is under way: the engine then goes, its memory the players'."""
        with self._lock:
            while True:
                if self._closed:
                    raise _ClosedError
                ready, wait = self._ready()
                if ready or engine_open:
                    return ready
                self._lock.wait(wait)

    def _ready(self) -> tuple[int, float | None]:
        """The first queued game due now (0: none), and how long until one is."""
        if self._playing:
            return 0, None
        now, soonest = time.monotonic(), None
        for number in self._queue:
            due = self._ended_at.get(number, now) + AFTER_S
            if number in self._asked or due <= now:
                return number, None
            soonest = due - now if soonest is None else min(soonest, due - now)
        return 0, soonest

    def _work(self) -> None:
        from firmware_bridge.opponent.client import EngineError, EngineProcess

        engine: EngineProcess | None = None
        try:
            while True:
                number = self._next(engine is not None)
                if not number:
                    if engine is not None:
                        engine.close()
                    engine = None
                    continue
                try:
                    if engine is None or not engine.alive:
                        engine = EngineProcess(self.command, name="the review's engine")
                    if self._review(number, engine):
                        self._ended(number, "")
                except EngineError as exc:
                    self.log.warning("review of game %d: the engine stopped: %s", number, exc)
                    self._ended(
                        number,
                        f"The engine stopped ({exc}): the review is kept as "
                        "far as it got and goes on when you try again.",
                    )
                    if engine is not None:
                        engine.close()
                    engine = None
                except ReviewError as exc:
                    self._ended(number, str(exc))
                except OSError as exc:  # the engine cannot start, the card cannot be written
                    self._ended(number, f"The review cannot go on: {exc}.")
                except Exception as exc:  # never let the thread die: say it, and go on
                    self.log.exception("review of game %d failed", number)
                    self._ended(number, f"The review failed: {exc}.")
        except _ClosedError:
            pass
        finally:
            if engine is not None:
                engine.close()

    def _ended(self, number: int, why: str) -> None:
        """Game ``number``'s review is complete (``why`` empty) or cannot go on (why not)."""
        with self._lock:
            if why:
                self._problems[number] = why
            else:
                self._done.add(number)
            if number in self._queue:
                self._queue.remove(number)
            self._lock.notify_all()
        if not why:
            for listener in self.listeners:
                listener(number)

    def wait(self, number: int, timeout: float) -> bool:
        """Wait until game ``number``'s review is complete or stopped; whether it is complete
        (the command line, the benchmark and the tests wait on this)."""
        with self._lock:
            self._lock.wait_for(lambda: number in self._done or number in self._problems
                                or self._closed, timeout)  # fmt: skip
            return number in self._done

    def _review(self, number: int, engine: Any) -> bool:
        """Analyse game ``number`` on from what is kept; True once it is complete."""
        record = game_record(self.journal, number)
        game, positions = reviewable(record, self.config_dir)
        moves = played_moves(record)
        options = {k: option_text(v) for k, v in record.options.items()}
        kept = load_review(self.journal, number)
        fresh = Review(number, game.id, options, moves, (), self.ms)
        if kept is None or (kept.game, kept.options, kept.moves) != (game.id, options, moves):
            kept = fresh
        if kept.complete:
            return True
        if len(kept.judged) == 0:
            self.log.info("review of game %d: analysing %d positions at low priority",
                          number, len(positions))  # fmt: skip
        engine.new_game(game.id, options, timeout=30)
        engine.option("analyse", "on")
        review, saved_at = kept, time.monotonic()
        for k in range(len(kept.judged), len(positions)):
            if not self._go_on():
                break
            judged = final_judgement(positions[k]) or self._judge(engine, moves[:k], positions[k])
            review = replace(review, judged=(*review.judged, judged))
            if time.monotonic() - saved_at >= SAVE_EVERY_S:
                save_review(self.journal, review)
                saved_at = time.monotonic()
        save_review(self.journal, review)
        if review.complete:
            self.log.info("review of game %d: done", number)
        return review.complete

    def _judge(self, engine: Any, moves: tuple[str, ...], state: State) -> Judged:
        """The position after ``moves`` judged by one search."""
        engine.position(moves)
        answer = self._go(engine)
        info = answer.last
        chance = info.chance if info is not None else 0.5
        playouts = info.playouts if info is not None else 0
        mover = state.to_move.value
        first = chance if mover == 1 else 1.0 - chance
        # The engine answers in analysis (setoption analyse): a position with a single move
        # left is searched too. An answer without a playout nor a win found (a search the
        # clock stopped at once) did not weigh it: its chance is then the next position's.
        known = playouts > 0 or chance != 0.5
        return Judged(mover, min(max(first, 0.0), 1.0), answer.move, playouts, known)

    def _go(self, engine: Any) -> Any:
        if self.playouts is None:
            return engine.go(movetime_ms=self.ms)
        return engine.go(nodes=self.playouts)
