"""The computer's levels measured: each level against the one below, and level 1 against the
greedy player, in one process (no protocol: a level's playout cap, not the clock, decides
what it plays, so hundreds of games take minutes), sides alternating, with a 95% (Wilson)
interval. Level 5 plays 1 s a move (``--movetime``: the referee's own default is 2 s).
docs/engine.md's table of levels comes from it.

Run: ``python tools/levels_match.py --game vanguard [--option board=5x5] [--games 40]
[--pairs 1-greedy,2-1,3-2,4-3,5-4] [--movetime MS]`` (``--compiled``: on this checkout's
compiled engine).
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", required=True)
    parser.add_argument("--option", action="append", default=[], help="KEY=VALUE, repeatable")
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--pairs", default="1-greedy,2-1,3-2,4-3")
    parser.add_argument("--movetime", type=int, default=1000, help="level 5's ms a move")
    parser.add_argument("--compiled", action="store_true")
    args = parser.parse_args()
    if args.compiled and "BOARD_REFEREE_LEVELS_COMPILED" not in os.environ:
        sys.path.insert(0, str(HERE))
        from compiled_engine import compiled_engine

        env = {**os.environ, "PYTHONPATH": str(compiled_engine()),
               "BOARD_REFEREE_LEVELS_COMPILED": "1"}  # fmt: skip
        os.execve(sys.executable, [sys.executable, *sys.argv], env)
    from arena import wilson

    from engine import State
    from engine.player import Player
    from engine.search.baselines import greedy_move
    from engine.search.levels import think_at
    from firmware_bridge.link import catalog

    game = catalog.load_game(args.game, dict(o.split("=", 1) for o in args.option))

    def player(spec: str, rng: random.Random) -> Callable[[State], object]:
        if spec == "greedy":
            return lambda state: greedy_move(state, rng)
        level = int(spec)
        if level == 5:

            def full(state: State) -> object:
                end = time.perf_counter() + args.movetime / 1000
                return think_at(state, rng, 5, time_up=lambda: time.perf_counter() > end).move

            return full
        return lambda state: think_at(state, rng, level).move

    for pair in args.pairs.split(","):
        a, b = pair.split("-")
        won = drawn = lost = 0
        for number in range(args.games):
            rng = random.Random(7000 + number)
            side_a, side_b = player(a, rng), player(b, rng)
            state = game.new_state()
            a_plays = Player.ONE if number % 2 == 0 else Player.TWO
            while state.outcome() is None and state.plies < 400:
                move = (side_a if state.to_move is a_plays else side_b)(state)
                state.apply(move)  # type: ignore[arg-type]
            outcome = state.outcome()
            if outcome is None or outcome.winner is None:
                drawn += 1
            elif outcome.winner is a_plays:
                won += 1
            else:
                lost += 1
            # a long run says how far it has got (on stderr: stdout keeps the table's lines)
            print(f"  {pair} game {number + 1}: {won} / {drawn} / {lost}, {state.plies} plies",
                  file=sys.stderr, flush=True)  # fmt: skip
        points = won + drawn / 2
        low, high = wilson(points, args.games)
        shown = " ".join(args.option)
        print(
            f"{args.game} {shown} level {a} against {b}: {won} / {drawn} / {lost}, "
            f"{100 * points / args.games:.1f}% ({100 * low:.0f}-{100 * high:.0f}%)",
            flush=True,
        )


if __name__ == "__main__":
    main()
