"""Two settings of the search against each other in one process, sides alternating: a quick
way to try a knob (``mcts.Settings``) before an arena against Ludii settles it.

Each side is the game's shipped settings with ``--a``/``--b`` overrides (``KEY=VALUE``, ``;``
between them), and plays either a fixed number of playouts (``--playouts-a``) or a time a move
(``--time-a``, seconds), or a timed search stopped after so many questions of its clock
(``--asks-a``: the tree asks once a playout; the root's proof search, where the game has
one, asks on its own clock and stops at the positions a cap of N playouts gives it). A cap
is a level's search: the search leaves out its timed-only parts there (Vanguard's
alpha-beta, Goats Wintering's implicit minimax, docs/engine.md), so ``--asks-a`` is the way
to try those at a fixed number of playouts. A fixed number is the same whatever else the
machine runs, so two tries can run side by side; a time is what a club's engine plays with.

Ludii's UCT stands in as ``cutoff=200;exploration=0.707``: whole random playouts (Ludii cuts
at 200 plies) and UCB1's sqrt(2) on rewards of -1 to 1, at the playouts Ludii's own report
gives for its time (Goats Wintering 2-4 Hex at 1 s: 2,000-10,000).

Run: ``python tools/settings_match.py --game goats-wintering --asks-a 4500 --playouts-b 5000
--a "minimax=0.3" --b "cutoff=200;exploration=0.707" [--compiled]``.
"""

from __future__ import annotations

import argparse
import dataclasses
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
    parser.add_argument("--a", default="", help="side A's overrides: KEY=VALUE;KEY=VALUE")
    parser.add_argument("--b", default="", help="side B's overrides")
    parser.add_argument("--playouts-a", type=int, default=0)
    parser.add_argument("--playouts-b", type=int, default=0)
    parser.add_argument("--asks-a", type=int, default=0, help="a timed search, N asks")
    parser.add_argument("--asks-b", type=int, default=0)
    parser.add_argument("--time-a", type=float, default=0.25, help="seconds a move, no cap")
    parser.add_argument("--time-b", type=float, default=0.25)
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--seed", type=int, default=100)
    parser.add_argument("--compiled", action="store_true")
    args = parser.parse_args()
    if args.compiled:
        sys.path.insert(0, str(HERE))
        from compiled_engine import rerun_compiled

        rerun_compiled("BOARD_REFEREE_SETTINGS_COMPILED")
    from arena import wilson
    from levels_match import clocks, play_match

    from engine import Move, State
    from engine.search import mcts
    from firmware_bridge.link import catalog

    game = catalog.load_game(args.game, dict(o.split("=", 1) for o in args.option))
    shipped = mcts.GAME_SETTINGS.get(game.rules, mcts.DEFAULT)

    def settings(spec: str) -> mcts.Settings:
        changes: dict[str, object] = {}
        for part in filter(None, spec.split(";")):
            key, _, value = part.partition("=")
            if not hasattr(shipped, key):
                parser.error(f"no setting {key!r}: mcts.Settings has {shipped.__slots__}")
            kind = type(getattr(shipped, key))
            changes[key] = value in ("1", "true", "True") if kind is bool else kind(value)
        return dataclasses.replace(shipped, **changes)  # type: ignore[arg-type]

    sides: dict[str, tuple[mcts.Settings, int, int, float]] = {
        "A": (settings(args.a), args.playouts_a, args.asks_a, args.time_a),
        "B": (settings(args.b), args.playouts_b, args.asks_b, args.time_b),
    }
    counts: dict[str, list[int]] = {"A": [], "B": []}

    def move_of(name: str, state: State, rng: random.Random) -> Move:
        chosen, playouts, asks, seconds = sides[name]
        if playouts:
            thought = mcts.think(state, rng, playouts=playouts, settings=chosen)
        elif asks:
            asked = [0]

            def time_up() -> bool:
                asked[0] += 1
                return asked[0] > asks

            # The proof's own budget, as a cap of ``asks`` playouts sets it, not the clock.
            budget = min(chosen.proof_budget, asks * chosen.proof_per_playout)
            capped = dataclasses.replace(chosen, proof_budget=budget)
            thought = mcts.think(state, rng, time_up=time_up, proof_up=lambda: False,
                                 settings=capped)  # fmt: skip
        else:
            time_up, proof_up = clocks(seconds)
            thought = mcts.think(state, rng, time_up=time_up, proof_up=proof_up,
                                 settings=chosen)  # fmt: skip
        counts[name].append(thought.playouts)
        return thought.move

    started = time.perf_counter()

    def both(rng: random.Random) -> tuple[Callable[[State], Move], Callable[[State], Move]]:
        return (lambda state: move_of("A", state, rng)), (lambda state: move_of("B", state, rng))

    won, drawn, lost = play_match(game, both, args.games, args.seed)
    points = won + drawn / 2
    low, high = wilson(points, args.games)

    def mean(values: list[int]) -> int:
        return round(sum(values) / max(1, len(values)))

    print(
        f"{args.game} {' '.join(args.option)} A ({args.a or 'shipped'}) against B "
        f"({args.b or 'shipped'}): {won} / {drawn} / {lost}, {100 * points / args.games:.1f}% "
        f"({100 * low:.0f}-{100 * high:.0f}%); playouts a move A {mean(counts['A'])}, "
        f"B {mean(counts['B'])}; {time.perf_counter() - started:.0f} s",
        flush=True,
    )


if __name__ == "__main__":
    main()
