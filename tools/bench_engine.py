"""Engine throughput benchmark: random playouts per game and variant.

Prints, for every game config and every value of its choice options, the random-playout
throughput (plies per second, each ply = list the legal moves + play one as the search's
playouts do (``State.push``: nothing recorded), timed as a whole with
no per-ply clock reads) and the median time of one ``legal_moves()`` listing over positions the
playouts meet. The playouts run in one-second rounds and the best and the median round are
both printed: on a shared machine one round can run a third slower than the next, and the best
round is the closest to what the code can do. Run: ``make bench`` or
``python tools/bench_engine.py [--seconds S] [--game ID]``.

``--compare REV`` measures a change as a ratio: this checkout's engine and another one's (a git
revision, checked out into a temporary worktree, or a folder) each run in a process of its
own, their one-second rounds interleaved in one run (A, B, B, A, ...), so both meet the same
machine load; the median rounds and their ratio are printed.

``--compiled`` measures this checkout's engine compiled with mypyc (setup.py; built once by
``tools/compiled_engine.py``) instead of its pure Python; with ``--compare REV`` it is the
compiled engine against REV's pure Python one.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import engine.game
from engine import Game
from engine.search.mcts import random_playout
from firmware_bridge.link import catalog


def variants(game_id: str) -> list[dict[str, str]]:
    """Default options, plus each other value of every choice option."""
    base = catalog.load_game(game_id)
    found: list[dict[str, str]] = [{}]
    for spec in base.option_specs.values():
        for choice in spec.choices:
            if choice != spec.default:
                found.append({spec.name: choice})
    return found


def measure(game: Game, seconds: float, seed: int) -> tuple[int, int, float, float, float, float]:
    """(plies, games finished, best and median round's plies per second, median
    legal_moves() seconds, whole playouts a second: games finished from the start, the
    figure docs/engine.md sets beside Ludii's).

    The rates come from whole random games played by the search's own playout step
    (``random_playout``, compiled with the search; the clock is read once a game, so no
    per-ply timing is in it), cut into rounds of about a second; the listing time is measured
    afterwards, over a sample of the positions the same playouts meet, 20 listings at a time."""
    rng = random.Random(seed)
    plies = games = 0
    clock = time.perf_counter
    rates: list[float] = []
    elapsed = 0.0
    for _ in range(max(1, round(seconds))):
        start = clock()
        deadline = start + min(1.0, seconds)
        done = 0
        while clock() < deadline:  # a whole game between clock reads
            done += random_playout(game.new_state(), rng)
            games += 1
        took = clock() - start
        elapsed += took
        rates.append(done / took)
        plies += done
    listing_times: list[float] = []
    rng = random.Random(seed)
    state = game.new_state()
    for _ in range(2000):
        if state.outcome() is not None:
            state = game.new_state()
        # The game's own listing, timed without the per-position list that legal_moves() keeps
        # for games that list their moves once (after the first call it would time a copy).
        generate = state._list_moves
        t0 = clock()
        for _ in range(20):
            moves = generate()
        listing_times.append((clock() - t0) / 20)
        state.apply(rng.choice(moves), check=False)
    typical = statistics.median(rates)
    return plies, games, max(rates), typical, statistics.median(listing_times), games / elapsed


# A worker: one checkout's engine, playing one-second rounds when asked (one JSON line in, one
# out), keeping its playout going between rounds. Run with that checkout first on sys.path.
WORKER = """
import json, random, sys, time
sys.path.insert(0, sys.argv[1])
from firmware_bridge.link import catalog
games = {}
for line in sys.stdin:
    ask = json.loads(line)
    key = json.dumps([ask["game"], ask["options"]])
    if key not in games:
        game = catalog.load_game(ask["game"], ask["options"])
        games[key] = [game, game.new_state(), random.Random(ask["seed"])]
    game, state, rng = games[key]
    clock = time.perf_counter
    start = clock()
    deadline = start + ask["seconds"]
    done = 0
    while clock() < deadline:
        for _ in range(256):
            if state.outcome() is not None:
                state = game.new_state()
            # The search's playout step (push); an engine from before it had only apply.
            if hasattr(state, "push"):
                state.push(rng.choice(list(state.legal_moves())))
            else:
                state.apply(rng.choice(list(state.legal_moves())), check=False)
        done += 256
    games[key][1] = state
    print(json.dumps(done / (clock() - start)), flush=True)
"""


def compare(rev: str, ids: list[str], seconds: float, seed: int, this: Path | None) -> None:
    """This checkout (or ``this``, its compiled engine) against ``rev`` (a git revision or a
    folder), rounds interleaved."""
    here = Path(__file__).resolve().parent.parent
    with tempfile.TemporaryDirectory(prefix="board-referee-compare-") as tmp:
        other = Path(rev)
        if not other.is_dir():
            other = Path(tmp) / "other"
            subprocess.run(["git", "-C", str(here), "worktree", "add", "--detach", str(other), rev],
                           check=True, capture_output=True)  # fmt: skip
        workers = {name: subprocess.Popen([sys.executable, "-c", WORKER, str(root)],
                                          stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                          text=True)
                   for name, root in (("this", this or here), (rev, other))}  # fmt: skip
        try:
            print(f"{'game':<18} {'options':<30} {'this plies/s':>12} {rev[:12]:>12} "
                  f"{'ratio':>6}  (median one-second rounds, interleaved)")  # fmt: skip
            for game_id in ids:
                for options in variants(game_id):
                    rates: dict[str, list[float]] = {name: [] for name in workers}
                    order = list(workers)
                    for _ in range(max(2, round(seconds))):
                        for name in order:
                            ask = {"game": game_id, "options": options, "seed": seed,
                                   "seconds": 1.0}  # fmt: skip
                            worker = workers[name]
                            assert worker.stdin is not None and worker.stdout is not None
                            worker.stdin.write(json.dumps(ask) + "\n")
                            worker.stdin.flush()
                            rates[name].append(float(worker.stdout.readline()))
                        order.reverse()
                    mine = statistics.median(rates["this"])
                    theirs = statistics.median(rates[rev])
                    shown = ",".join(f"{k}={v}" for k, v in options.items()) or "(defaults)"
                    print(f"{game_id:<18} {shown:<30} {mine:>12.0f} {theirs:>12.0f} "
                          f"{mine / theirs:>6.2f}", flush=True)  # fmt: skip
        finally:
            for worker in workers.values():
                worker.kill()
                worker.wait()
            if other != Path(rev):
                subprocess.run(["git", "-C", str(here), "worktree", "remove", "--force",
                                str(other)], capture_output=True, check=False)  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="per game and variant")
    parser.add_argument("--game", action="append", help="only these game ids")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--option", action="append", default=[], metavar="KEY=VALUE",
        help="only this variant of the game (repeat for several options)",
    )  # fmt: skip
    parser.add_argument(
        "--compare", metavar="REV",
        help="also run the engine of git revision (or folder) REV, rounds interleaved with "
        "this one's, and print the ratio",
    )  # fmt: skip
    parser.add_argument(
        "--compiled", action="store_true",
        help="measure this checkout's engine compiled with mypyc (built by "
        "tools/compiled_engine.py when needed) instead of its pure Python",
    )  # fmt: skip
    args = parser.parse_args()
    folder = None
    compiled_now = engine.game.__file__.endswith(".so")
    if args.compiled:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from compiled_engine import compiled_engine

        folder = compiled_engine()
        if not args.compare and not compiled_now:
            env = {**os.environ, "PYTHONPATH": str(folder)}
            os.execve(sys.executable, [sys.executable, *sys.argv], env)
    if args.compare:
        compare(args.compare, args.game or catalog.game_ids(), args.seconds, args.seed, folder)
        return
    print("engine:", "compiled" if compiled_now else "pure Python")
    print(
        f"{'game':<18} {'options':<30} {'plies':>8} {'games':>6} {'plies/s best':>12} "
        f"{'median':>8} {'median legal_moves()':>21} {'playouts/s':>10}"
    )
    chosen = dict(option.split("=", 1) for option in args.option)
    for game_id in args.game or catalog.game_ids():
        for options in [chosen] if chosen else variants(game_id):
            game = catalog.load_game(game_id, options)
            plies, games, best, typical, listing, playouts = measure(game, args.seconds, args.seed)
            shown = ",".join(f"{k}={v}" for k, v in options.items()) or "(defaults)"
            print(
                f"{game_id:<18} {shown:<30} {plies:>8} {games:>6} {best:>12.0f} "
                f"{typical:>8.0f} {listing * 1e6:>18.1f} us {playouts:>10.0f}"
            )


if __name__ == "__main__":
    main()
