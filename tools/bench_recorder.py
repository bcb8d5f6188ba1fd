"""The flight recorder's cost: bytes of recording per hour of play and per idle hour, and the
refereeing's speed with recording on and off, in one run.

The daemon runs as ``board-referee run`` against the emulated board in this process (the same
set-up as ``tools/bench_latency.py``), twice: with the recorder (``--record-cap 200``) and
without (``--record-cap 0``). Random legal moves are played by the emulator's hands; timed:

- LED latency: from the CHANGE that ends an action to the LED frame that answers it;
- play to journal: from the CHANGE that ends a move to the move's row in the journal;
- bytes: the recording's size in the journal after the moves, per move and per hour at one
  move every 30 s (a brisk club game), and after ``--idle`` seconds of a board left alone,
  per idle hour;
- the timeline: the time the kiosk takes to build the game's timeline from the journal
  (``/api/timeline/N``, median of 5) and its size as JSON.

Run: ``python tools/bench_recorder.py [--game G] [--moves N] [--idle S]``.
"""

from __future__ import annotations

import argparse
import json
import random
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))

from bench_latency import drive, percentile, timed_table, to_journal, watch_journal  # noqa: E402

from firmware_bridge.link import catalog  # noqa: E402
from firmware_bridge.referee.timeline import timeline_of  # noqa: E402

MOVE_EVERY = 30.0  # seconds between moves in the per-hour figure


def recorded_bytes(path: Path) -> int:
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return int(db.execute("SELECT COALESCE(SUM(LENGTH(data)), 0) FROM recordings")
                   .fetchone()[0])  # fmt: skip
    except sqlite3.OperationalError:  # no recordings table: nothing recorded
        return 0
    finally:
        db.close()


def run(game_id: str, moves: int, idle: float, cap: int, seed: int) -> dict[str, float]:
    game = catalog.load_game(game_id)
    profile = catalog.load_profile(None, game)
    with tempfile.TemporaryDirectory(prefix="board-referee-recorder-") as tmp:
        link = Path(tmp) / "board"
        journal = Path(tmp) / "journal.sqlite3"
        timed, table = timed_table(game, profile, link)
        timed.start()
        daemon = subprocess.Popen(
            [sys.executable, "-m", "firmware_bridge.cli", "run", "--game", game_id,
             "--port", str(link), "--journal", str(journal), "--no-kiosk",
             "--record-cap", str(cap)],
            stderr=subprocess.DEVNULL, cwd=tmp,
        )  # fmt: skip
        rows: list[float] = []
        stop = threading.Event()
        threading.Thread(target=watch_journal, args=(journal, rows, stop), daemon=True).start()
        try:
            if not table.host_seen.wait(20):
                raise SystemExit("the daemon did not connect")
            time.sleep(0.5)
            timed.latencies.clear()
            before_idle = recorded_bytes(journal)
            time.sleep(idle)  # a board left alone
            idle_bytes = recorded_bytes(journal) - before_idle
            timed.changes.clear()
            rows.clear()
            played = drive(table, game.new_state(), moves, random.Random(seed))
            time.sleep(1.0)
        finally:
            stop.set()
            daemon.terminate()
            daemon.wait(10)
            timed.close()
        play_bytes = recorded_bytes(journal) - idle_bytes - before_idle
        builds, size = [], 0
        for _ in range(5 if cap else 0):
            began = time.perf_counter()
            size = len(json.dumps(timeline_of(journal, 1), separators=(",", ":")))
            builds.append(time.perf_counter() - began)
    latencies = [s for s, _, _ in timed.latencies]
    journaled = to_journal(rows, timed.changes)
    return {
        "moves": played,
        "led_ms": statistics.median(latencies) * 1000 if latencies else float("nan"),
        "led_p99_ms": percentile(latencies, 0.99) * 1000 if latencies else float("nan"),
        "journal_ms": statistics.median(journaled) * 1000 if journaled else float("nan"),
        "bytes_per_move": play_bytes / max(1, played),
        "idle_bytes_per_hour": idle_bytes * 3600 / idle if idle else 0.0,
        "timeline_ms": statistics.median(builds) * 1000 if builds else float("nan"),
        "timeline_kb": size / 1024,
    }  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="three-dragons")
    parser.add_argument("--moves", type=int, default=40)
    parser.add_argument("--idle", type=float, default=60.0, help="seconds of a board left alone")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(f"{args.game}: {args.moves} random moves by the emulator's hands, {args.idle:.0f} s "
          "idle; recording on (--record-cap 200) and off (0)")  # fmt: skip
    for cap in (200, 0):
        got = run(args.game, args.moves, args.idle, cap, args.seed)
        name = "on " if cap else "off"
        line = (f"recording {name}: {got['moves']:.0f} moves, LED latency median "
                f"{got['led_ms']:.1f} ms (p99 {got['led_p99_ms']:.1f}), play to journal median "
                f"{got['journal_ms']:.1f} ms")  # fmt: skip
        if cap:
            idle = got["idle_bytes_per_hour"]
            per_hour = got["bytes_per_move"] * 3600 / MOVE_EVERY + idle
            line += (f"; {got['bytes_per_move']:.0f} bytes a move; an hour of play at a move "
                     f"every {MOVE_EVERY:.0f} s: {per_hour / 1e6:.2f} MB; an idle hour: "
                     f"{idle / 1e6:.2f} MB (compressed); the timeline: built in "
                     f"{got['timeline_ms']:.0f} ms, {got['timeline_kb']:.0f} KB")  # fmt: skip
        print(line, flush=True)


if __name__ == "__main__":
    main()
