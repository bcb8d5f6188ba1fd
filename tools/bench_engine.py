"""Engine throughput benchmark: random playouts per game and variant.

Prints, for every game config and every value of its choice options, the random-playout
throughput (plies per second, each ply = list the legal moves + apply one, timed as a whole with
no per-ply clock reads) and the median time of one ``legal_moves()`` listing over positions the
playouts meet. Run: ``make bench`` or
``python tools/bench_engine.py [--seconds S] [--game ID]``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from engine import Game
from firmware_bridge import catalog


def variants(game_id: str) -> list[dict[str, str]]:
    """Default options, plus each other value of every choice option."""
    base = catalog.load_game(game_id)
    found: list[dict[str, str]] = [{}]
    for spec in base.option_specs.values():
        for choice in spec.choices:
            if choice != spec.default:
                found.append({spec.name: choice})
    return found


def measure(game: Game, seconds: float, seed: int) -> tuple[int, int, float, float]:
    """(plies, games finished, plies per second, median legal_moves() seconds).

    The rate comes from a bare playout loop (the clock is read once per 256 plies, so no
    per-ply timing is in it); the listing time is measured afterwards, over a sample of the
    positions the same playouts meet, 20 listings at a time."""
    rng = random.Random(seed)
    choice = rng.choice
    plies = games = 0
    clock = time.perf_counter
    start = clock()
    deadline = start + seconds
    state = game.new_state()
    while True:
        for _ in range(256):
            if state.outcome() is not None:
                games += 1
                state = game.new_state()
            state.apply(choice(list(state.legal_moves())), check=False)
            plies += 1
        if clock() >= deadline:
            break
    elapsed = clock() - start
    listing_times: list[float] = []
    rng = random.Random(seed)
    state = game.new_state()
    for _ in range(2000):
        if state.outcome() is not None:
            state = game.new_state()
        # The game's own listing, timed without the per-position list that legal_moves() keeps
        # for games that list their moves once (after the first call it would time a copy).
        generate = state._generate
        t0 = clock()
        for _ in range(20):
            moves = list(generate())
        listing_times.append((clock() - t0) / 20)
        state.apply(rng.choice(moves), check=False)
    return plies, games, plies / elapsed, statistics.median(listing_times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="per game and variant")
    parser.add_argument("--game", action="append", help="only these game ids")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(
        f"{'game':<18} {'options':<26} {'plies':>8} {'games':>6} {'plies/s':>9} "
        f"{'median legal_moves()':>21}"
    )
    for game_id in args.game or catalog.game_ids():
        for options in variants(game_id):
            game = catalog.load_game(game_id, options)
            plies, games, rate, median = measure(game, args.seconds, args.seed)
            shown = ",".join(f"{k}={v}" for k, v in options.items()) or "(defaults)"
            print(
                f"{game_id:<18} {shown:<26} {plies:>8} {games:>6} {rate:>9.0f} "
                f"{median * 1e6:>18.1f} us"
            )


if __name__ == "__main__":
    main()
