"""The computer's time promise under a clock, on a loaded machine (docs/clocks.md).

Starts the engine as the referee does (``board-referee engine --nice 10``), loads a game the
way the referee does when it seats the computer (before any clock runs), then asks ``go
movetime MS`` a number of times while ``--load`` processes keep every core busy, and prints
the wall time each answer took against the time asked: its median, its 95th percentile and
its worst, and how many went past the time the referee's clock budget leaves (the 30% it
keeps in hand, referee/clocks.py). The first ``go`` of the game is printed on its own (the
issue's 591 ms was a Vanguard game's first).

    .venv/bin/python tools/bench_clock.py [--game vanguard] [--movetime 200] [--asks 20]
                                          [--load 2] [--level 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

from firmware_bridge.opponent.client import EngineProcess, engine_command

IN_HAND = 0.3  # referee/clocks.py: the budget asks for 70% of the computer's share


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="vanguard")
    parser.add_argument("--movetime", type=int, default=200)
    parser.add_argument("--asks", type=int, default=20)
    parser.add_argument("--load", type=int, default=os.cpu_count() or 2,
                        help="busy processes beside the engine (default: one a core)")  # fmt: skip
    parser.add_argument("--level", type=int, default=5)
    parser.add_argument(
        "--nice", type=int, default=10, help="the engine's niceness (the referee's: 10)"
    )
    args = parser.parse_args()
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(args.load)]
    try:
        engine = EngineProcess(engine_command(*(("--nice", str(args.nice)) if args.nice else ())))
        try:
            started = time.monotonic()
            engine.new_game(args.game, {}, timeout=60)
            loaded = time.monotonic() - started
            engine.level(args.level)
            engine.position(())
            walls = []
            for _ in range(args.asks):
                began = time.monotonic()
                engine.go(movetime_ms=args.movetime)
                walls.append((time.monotonic() - began) * 1000)
        finally:
            engine.close()
    finally:
        for process in busy:
            process.kill()
    budget = args.movetime / (1 - IN_HAND)
    ordered = sorted(walls)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    print(f"{args.game}, level {args.level}, go movetime {args.movetime} at nice {args.nice}, "
          f"beside {args.load} busy processes on {os.cpu_count()} cores")  # fmt: skip
    print(f"  game loaded (before the clock runs): {loaded * 1000:.0f} ms")
    print(f"  first go: {walls[0]:.0f} ms")
    print(f"  all {len(walls)}: median {statistics.median(walls):.0f} ms, 95th percentile "
          f"{p95:.0f} ms, worst {max(walls):.0f} ms")  # fmt: skip
    late = sum(1 for wall in walls if wall > budget)
    print(f"  past the clock's budget ({budget:.0f} ms, the movetime asked with 30% in hand): "
          f"{late} of {len(walls)}")  # fmt: skip


if __name__ == "__main__":
    main()
