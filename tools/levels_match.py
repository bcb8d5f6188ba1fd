"""The computer's levels measured: each level against the one below, and level 1 against the
greedy player, in one process (no protocol: a level's playout cap, not the clock, decides
what it plays, so hundreds of games take minutes), sides alternating, with a 95% (Wilson)
interval. Level 5 plays 1 s a move (``--movetime``: the referee's own default is 2 s).
docs/engine.md's table of levels comes from it.

Run: ``python tools/levels_match.py --game vanguard [--option board=5x5] [--games 40]
[--pairs 1-greedy,2-1,3-2,4-3,5-4] [--movetime MS]`` (``--compiled``: on this checkout's
compiled engine; ``--start 20 --games 20``: the second half of a 40-game match, to run
beside the first on the other core).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engine import Game, Move, State

    Side = Callable[[State], Move]  # a player: the move it makes in a position

HERE = Path(__file__).resolve().parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", required=True)
    parser.add_argument("--option", action="append", default=[], help="KEY=VALUE, repeatable")
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--pairs", default="1-greedy,2-1,3-2,4-3")
    parser.add_argument("--movetime", type=int, default=1000, help="level 5's ms a move")
    parser.add_argument("--compiled", action="store_true")
    parser.add_argument("--start", type=int, default=0,
                        help="the first game's number: halves of a match on two cores")  # fmt: skip
    args = parser.parse_args()
    if args.compiled:
        sys.path.insert(0, str(HERE))
        from compiled_engine import rerun_compiled

        rerun_compiled("BOARD_REFEREE_LEVELS_COMPILED")
    from arena import wilson

    from engine.search.baselines import greedy_move
    from engine.search.levels import think_at
    from firmware_bridge.link import catalog

    game = catalog.load_game(args.game, dict(o.split("=", 1) for o in args.option))

    def player(spec: str, rng: random.Random) -> Side:
        if spec == "greedy":
            return lambda state: greedy_move(state, rng)
        level = int(spec)
        if level == 5:

            def full(state: State) -> Move:
                time_up, proof_up = clocks(args.movetime / 1000)
                return think_at(state, rng, 5, time_up=time_up, proof_up=proof_up).move

            return full
        return lambda state: think_at(state, rng, level).move

    def pair_of(a: str, b: str) -> Callable[[random.Random], tuple[Side, Side]]:
        return lambda rng: (player(a, rng), player(b, rng))

    for pair in args.pairs.split(","):
        a, b = pair.split("-")
        won, drawn, lost = play_match(game, pair_of(a, b), args.games, 7000, f"{pair} ",
                                      start=args.start)  # fmt: skip
        points = won + drawn / 2
        low, high = wilson(points, args.games)
        shown = " ".join(args.option)
        print(
            f"{args.game} {shown} level {a} against {b}: {won} / {drawn} / {lost}, "
            f"{100 * points / args.games:.1f}% ({100 * low:.0f}-{100 * high:.0f}%)",
            flush=True,
        )


def clocks(seconds: float) -> tuple[Callable[[], bool], Callable[[], bool]]:
    """A timed search's two questions, as the engine process asks them
    (firmware_bridge/opponent/server.py): is the time up, and is the root's proof search's
    share of it (``PROOF_SHARE``) up. Without the second the proof may take all the time
    (Protect the Goat's does), and the level measured is not the one a club plays."""
    from firmware_bridge.opponent.server import PROOF_SHARE

    start = time.perf_counter()
    end = start + seconds
    proof_end = start + seconds * PROOF_SHARE
    return (lambda: time.perf_counter() > end), (lambda: time.perf_counter() > proof_end)


def play_match(
    game: Game, sides: Callable[[random.Random], tuple[Side, Side]], games: int, seed: int,
    label: str = "", *, start: int = 0,
) -> tuple[int, int, int]:  # fmt: skip
    """Side A's wins, draws and losses over ``games`` games, sides alternating (A first in
    the even ones), game ``n`` on ``random.Random(seed + n)`` handed to ``sides`` for both
    players; a game still going at 400 plies is a draw. A line a game on stderr, so a long
    run says how far it has got (stdout keeps the result's lines). ``start``: the first game's
    number, so a match split between processes plays the games one run would."""
    from engine.player import Player

    won = drawn = lost = 0
    for number in range(start, start + games):
        side_a, side_b = sides(random.Random(seed + number))
        state = game.new_state()
        a_plays = Player.ONE if number % 2 == 0 else Player.TWO
        while state.outcome() is None and state.plies < 400:
            state.apply((side_a if state.to_move is a_plays else side_b)(state))
        outcome = state.outcome()
        if outcome is None or outcome.winner is None:
            drawn += 1
        elif outcome.winner is a_plays:
            won += 1
        else:
            lost += 1
        how = outcome.reason if outcome is not None else "stopped at 400 plies"
        print(f"  {label}game {number + 1}: {won} / {drawn} / {lost}, {state.plies} plies ({how})",
              file=sys.stderr, flush=True)  # fmt: skip
    return won, drawn, lost


if __name__ == "__main__":
    main()
