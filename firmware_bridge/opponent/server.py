"""The engine process: ``board-referee engine`` reads the protocol's lines on standard input
and answers on standard output (docs/engine.md).

One thread reads the input, so ``stop`` and ``quit`` reach a search under way; the main thread
answers every line in order and owns the game. A line it cannot take is answered ``error TEXT``
and the engine goes on: nothing a driver sends ends it but ``quit`` or the end of its input.
"""

from __future__ import annotations

import gc
import os
import queue
import random
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import TextIO

from engine import ConfigError, Game, IllegalMoveError, InvalidMoveError, Move, State
from engine.search import (
    LEVELS,
    Thought,
    flat_monte_carlo,
    greedy_move,
    prepare,
    random_move,
    think_at,
)
from firmware_bridge.link import catalog
from firmware_bridge.opponent.protocol import (
    Info,
    ProtocolError,
    Request,
    Verb,
    parse_request,
)

# What is left of the time asked for when the search stops: the answer must be written and
# read within the protocol's promise (the time asked plus 100 ms).
MARGIN_S = 0.03
INFO_EVERY_S = 0.25
# The share of a move's time the root's proof search may take (Protect the Goat's; a game
# without one gives the tree all of it): deep enough to see a goat forced four moves on in
# most positions, and the tree keeps the most (docs/engine.md).
PROOF_SHARE = 0.3


class Kind(Enum):
    """Who thinks: the search, or one of the opponents it is measured against."""

    SEARCH = "search"
    RANDOM = "random"
    GREEDY = "greedy"
    FLAT = "flat"


@dataclass
class Engine:
    """The engine's state between lines: the game, the position, the level."""

    config_dir: Path | None
    kind: Kind
    seed: int | None
    out: TextIO
    clock: Callable[[], float] = time.monotonic
    game: Game | None = None
    state: State | None = None
    moves: tuple[str, ...] = ()
    level: int = 5
    analyse: bool = False  # a review's questions: every position's chance is searched

    def say(self, line: str) -> None:
        self.out.write(line + "\n")
        self.out.flush()

    def handle(self, request: Request, stop: threading.Event) -> bool:
        """Answer one request; False once the engine should end."""
        verb = request.verb
        if verb is Verb.QUIT:
            return False
        if verb is Verb.ISREADY:
            self.say("readyok")
        elif verb is Verb.STOP:
            pass  # nothing under way: a late stop is not an error
        elif verb is Verb.GAME:
            self._game(request)
        elif verb is Verb.POSITION:
            self._position(request.moves)
        elif verb is Verb.SETOPTION:
            self._setoption(*request.options[0])
        elif verb is Verb.GO:
            self._go(request, stop)
        return True

    def _game(self, request: Request) -> None:
        try:
            game = catalog.load_game(request.game, dict(request.options), self.config_dir)
        except ConfigError as exc:
            raise ProtocolError(str(exc)) from None
        self.game, self.state, self.moves = game, game.new_state(), ()
        prepare(self.state)  # the game's once-only tables now, not inside a timed go
        self.say("ok")

    def _position(self, moves: tuple[str, ...]) -> None:
        if self.game is None:
            raise ProtocolError("no game yet: send 'game ID' first")
        state = self.game.new_state()
        for number, text in enumerate(moves, start=1):
            try:
                move = state.parse(text)
                state.apply(move)
            except (InvalidMoveError, IllegalMoveError) as exc:
                raise ProtocolError(f"position: move {number} ({text}): {exc}") from None
        self.state, self.moves = state, moves
        self.say("ok")

    def _setoption(self, name: str, value: str) -> None:
        if name == "analyse":
            if value not in ("on", "off"):
                raise ProtocolError(f"setoption analyse: {value!r} is not on or off")
            self.analyse = value == "on"
            self.say("ok")
            return
        if name != "level":
            raise ProtocolError(f"setoption: unknown option {name!r} (known: level, analyse)")
        if value not in {str(n) for n in LEVELS}:
            raise ProtocolError(f"setoption level: {value!r} is not a level (1 to 5)")
        self.level = int(value)
        self.say("ok")

    def _rng(self) -> random.Random:
        """The same seed, game and moves give the same stream: a position's search repeats."""
        if self.seed is None:
            return random.Random(os.urandom(16))
        assert self.game is not None
        options = " ".join(f"{k}={v}" for k, v in self.game.options.items())
        return random.Random(f"{self.seed}|{self.game.id}|{options}|{' '.join(self.moves)}")

    def _go(self, request: Request, stop: threading.Event) -> None:
        if self.state is None or self.game is None:
            raise ProtocolError("no game yet: send 'game ID' first")
        state = self.state
        outcome = state.outcome()
        if outcome is not None:
            raise ProtocolError(f"the game is over ({outcome.describe(self.game.player_names)})")
        start = self.clock()
        deadline = None
        if request.movetime_ms is not None:
            deadline = start + max(request.movetime_ms / 1000.0 - MARGIN_S, 0.001)
        clock = self.clock

        def time_up() -> bool:
            return stop.is_set() or (deadline is not None and clock() >= deadline)

        # the root's proof search gets a share of the time; the tree the rest
        proof_deadline = None if deadline is None else start + (deadline - start) * PROOF_SHARE

        def proof_up() -> bool:
            return stop.is_set() or (proof_deadline is not None and clock() >= proof_deadline)

        rng = self._rng()
        last_info = [start]

        def report(thought: Thought) -> None:
            now = clock()
            if now - last_info[0] >= INFO_EVERY_S:
                last_info[0] = now
                self.say(self._info(thought, now - start).line())

        # The tree holds no reference cycles (its nodes go when their counts do), so the cyclic
        # collector only pauses a search: a pause of a big tree's walk could make bestmove late.
        collecting = gc.isenabled()
        gc.disable()
        try:
            move = self._search(state, request, rng, time_up=time_up, proof_up=proof_up,
                                report=report, start=start)  # fmt: skip
        finally:
            if collecting:
                gc.enable()
        self.say(f"bestmove {state.notation(move)}")

    def _search(
        self, state: State, request: Request, rng: random.Random, *,
        time_up: Callable[[], bool], proof_up: Callable[[], bool],
        report: Callable[[Thought], None], start: float,
    ) -> Move:  # fmt: skip
        clock = self.clock
        if self.kind is Kind.RANDOM:
            move = random_move(state, rng)
        elif self.kind is Kind.GREEDY:
            move = greedy_move(state, rng)
        elif self.kind is Kind.FLAT:
            move, playouts = flat_monte_carlo(state, rng, playouts=request.nodes, time_up=time_up)
            self.say(f"info playouts {playouts} time {int((clock() - start) * 1000)}")
        else:
            thought = think_at(state, rng, self.level, playouts=request.nodes, time_up=time_up,
                               proof_up=proof_up, report=report, report_every=32,
                               analyse=self.analyse)  # fmt: skip
            self.say(self._info(thought, clock() - start).line())
            move = thought.move
        return move

    def _info(self, thought: Thought, elapsed: float) -> Info:
        state = self.state
        assert state is not None
        line = _line_text(state, thought.pv)
        return Info(thought.playouts, thought.depth, thought.chance, int(elapsed * 1000), line)


def _line_text(state: State, moves: tuple[Move, ...]) -> tuple[str, ...]:
    """A line of moves in notation (each written as its mover writes it)."""
    copy = state.copy(stack=False)
    words = []
    for move in moves:
        words.append(copy.notation(move))
        copy.apply(move, check=False)
    return tuple(words)


def _read(source: TextIO, lines: queue.Queue[str | None], stop: threading.Event) -> None:
    """The reader thread: every line into the queue; a ``stop`` or a ``quit`` also stops a
    search under way at once, and so does the end of the input (the referee that drove it
    has gone: its search would only burn the Pi's processor to the end of its time). The
    lines before them are answered."""
    for line in source:
        if line.split()[:1] in (["stop"], ["quit"]):
            stop.set()
        lines.put(line)
    stop.set()
    lines.put(None)


def serve(engine: Engine, source: TextIO = sys.stdin) -> int:
    """Answer the protocol until ``quit`` or the end of the input; the exit status."""
    lines: queue.Queue[str | None] = queue.Queue()
    stop = threading.Event()
    threading.Thread(target=_read, args=(source, lines, stop), daemon=True).start()
    while True:
        line = lines.get()
        if line is None:
            return 0
        try:
            request = parse_request(line)
            if request is None:
                continue
            if request.verb is Verb.GO and not _stop_waiting(lines):
                stop.clear()  # an earlier stop is spent; one sent after this go must hold
            if not engine.handle(request, stop):
                return 0
        except ProtocolError as exc:
            engine.say(f"error {exc}")


def _stop_waiting(lines: queue.Queue[str | None]) -> bool:
    """Whether a ``stop``, a ``quit`` or the end of the input already waits behind a ``go``:
    then the stop the reader set is this search's, and it answers at once."""
    with lines.mutex:
        waiting = list(lines.queue)
    return any(line is None or line.split()[:1] in (["stop"], ["quit"]) for line in waiting)
