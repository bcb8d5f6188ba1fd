"""Engine throughput benchmark: random playouts per game and variant.

Prints, for every game config and every value of its choice options, the random-playout
throughput (plies per second, each ply = list the legal moves + apply one, timed as a whole with
no per-ply clock reads) and the median time of one ``legal_moves()`` listing over positions the
playouts meet. The playouts run in one-second rounds and the best and the median round are
both printed: on a shared machine one round can run a third slower than the next, and the best
round is the closest to what the code can do. Run: ``make bench`` or
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


def measure(game: Game, seconds: float, seed: int) -> tuple[int, int, float, float, float]:
    """(plies, games finished, best and median round's plies per second, median
    legal_moves() seconds).

    The rates come from a bare playout loop (the clock is read once per 256 plies, so no
    per-ply timing is in it), cut into rounds of about a second; the listing time is measured
    afterwards, over a sample of the positions the same playouts meet, 20 listings at a time."""
    rng = random.Random(seed)
    choice = rng.choice
    plies = games = 0
    clock = time.perf_counter
    rates: list[float] = []
    state = game.new_state()
    for _ in range(max(1, round(seconds))):
        start = clock()
        deadline = start + min(1.0, seconds)
        done = 0
        while True:
            for _ in range(256):
                if state.outcome() is not None:
                    games += 1
                    state = game.new_state()
                state.apply(choice(list(state.legal_moves())), check=False)
            done += 256
            if clock() >= deadline:
                break
        rates.append(done / (clock() - start))
        plies += done
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
    return plies, games, max(rates), statistics.median(rates), statistics.median(listing_times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="per game and variant")
    parser.add_argument("--game", action="append", help="only these game ids")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(
        f"{'game':<18} {'options':<30} {'plies':>8} {'games':>6} {'plies/s best':>12} "
        f"{'median':>8} {'median legal_moves()':>21}"
    )
    for game_id in args.game or catalog.game_ids():
        for options in variants(game_id):
            game = catalog.load_game(game_id, options)
            plies, games, best, typical, listing = measure(game, args.seconds, args.seed)
            shown = ",".join(f"{k}={v}" for k, v in options.items()) or "(defaults)"
            print(
                f"{game_id:<18} {shown:<30} {plies:>8} {games:>6} {best:>12.0f} "
                f"{typical:>8.0f} {listing * 1e6:>18.1f} us"
            )


if __name__ == "__main__":
    main()
