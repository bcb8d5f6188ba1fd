"""What a board's results cost to make from its journal: the ``results`` message its MQTT
publisher sends at every game's end (the latest RESULTS_PUBLISHED games, each with its final
scores) and the kiosk's results CSV (every game), over an evening's journal of finished games.

Both run on the referee's machine beside the refereeing, in its process: the time is what they
take from the referee's Python. Random legal games of every shipped game are journaled first.

Run: ``python tools/bench_results.py [--games N] [--rounds R]``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from pathlib import Path

from firmware_bridge.faces.mqtt import RESULTS_PUBLISHED
from firmware_bridge.link import catalog
from firmware_bridge.referee.journal import Journal, read_records
from firmware_bridge.referee.records import played, record_row, result_of, results_csv


def journal_of(path: Path, games: int, seed: int) -> int:
    """``games`` finished (or abandoned at 80 moves) random games, every game in turn: their
    moves in all."""
    rng = random.Random(seed)
    ids = catalog.game_ids()
    journal = Journal(path)
    moves = 0
    for k in range(games):
        game = catalog.load_game(ids[k % len(ids)])
        number = journal.start_game(game, game.id, None, ("Ann", "Bob"))
        state = game.new_state()
        for _ in range(80):
            if state.outcome() is not None:
                break
            move = rng.choice(list(state.legal_moves()))
            journal.record_move(number, state.notation(move))
            state.apply(move)
            moves += 1
        if (outcome := state.outcome()) is not None:
            journal.finish(number, outcome)
        else:
            journal.abandon(number)
    journal.close()
    return moves


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "journal.sqlite3"
        moves = journal_of(path, args.games, 1)
        published, csv_times = [], []
        for _ in range(args.rounds):
            start = time.perf_counter()
            records = read_records(path)
            window = played(records[-RESULTS_PUBLISHED:])
            sent = [result_of(r, None, "bench") for r in window if r.status != "playing"]
            published.append(time.perf_counter() - start)
            start = time.perf_counter()
            text = results_csv(record_row(r, None, "bench") for r in played(read_records(path)))
            csv_times.append(time.perf_counter() - start)
    print(f"journal: {args.games} games, {moves} moves, every shipped game in turn")
    print(f"results message ({len(sent)} games, the latest {RESULTS_PUBLISHED}): median "
          f"{statistics.median(published) * 1000:.0f} ms of {args.rounds} rounds")  # fmt: skip
    print(f"results CSV ({text.count(chr(10)) - 1} rows): median "
          f"{statistics.median(csv_times) * 1000:.0f} ms of {args.rounds} rounds")  # fmt: skip


if __name__ == "__main__":
    main()
