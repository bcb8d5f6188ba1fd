"""Flood benchmark: the refereeing while the kiosk is flooded, against the same run quiet.

The daemon runs as ``board-referee run`` with its kiosk over a real pty; the board emulator runs
in this process and plays random legal games (as ``bench_latency.py`` does), on a journal that
already holds 5,000 finished games. In the flood phase another process attacks the kiosk at the
same time: hundreds of event streams that are never read (slow clients) or read, half-sent
requests (slowloris) kept coming, record readers looping on the journal (a real game, a missing
one), and connections opened as fast as they are refused. Printed for each phase: the LED
latency (the board's CHANGE frame to the daemon's LED frame), play to journal (the same CHANGE
to the move's row in the journal), the daemon's RSS and open descriptors, and its log lines.

Run: ``python tools/bench_flood.py [--game G] [--moves N] [--streams N]``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from bench_latency import drive, free_port, percentile, timed_table, to_journal, watch_journal

from engine import Game
from firmware_bridge.link import catalog
from firmware_bridge.referee.journal import Journal

GAMES_IN_JOURNAL = 5000
MOVES_PER_OLD_GAME = 40


def fill_journal(path: Path, game: Game, profile: str) -> None:
    """A journal with GAMES_IN_JOURNAL finished games, written in one transaction."""
    Journal(path).close()  # the schema
    db = sqlite3.connect(path)
    options = json.dumps(dict(game.options), sort_keys=True)
    at = "2026-11-01T19:00:00+00:00"
    outcome = json.dumps({"winner": 1, "reason": "benchmark"})
    with db:
        db.executemany(
            "INSERT INTO games (id, game, options, profile, start, status, outcome, started, "
            "ended) VALUES (?, ?, ?, ?, NULL, 'finished', ?, ?, ?)",
            [(n, game.id, options, profile, outcome, at, at)
             for n in range(1, GAMES_IN_JOURNAL + 1)],
        )  # fmt: skip
        db.executemany(
            "INSERT INTO entries (game_id, number, action, text, at) VALUES (?, ?, 'move', ?, ?)",
            [(n, m, f"c{m % 9 + 1}-c{(m + 3) % 9 + 1}", at)
             for n in range(1, GAMES_IN_JOURNAL + 1) for m in range(1, MOVES_PER_OLD_GAME + 1)],
        )  # fmt: skip
    db.close()


def process_figures(pid: int) -> tuple[float, float, int]:
    """RSS and its peak (MB), and open descriptors, of process ``pid``."""
    fields = dict(
        line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines()
    )
    rss = int(fields["VmRSS"].split()[0]) / 1024
    peak = int(fields["VmHWM"].split()[0]) / 1024
    return rss, peak, len(os.listdir(f"/proc/{pid}/fd"))


def run_phase(game_id: str, moves: int, seed: int, flood: list[str] | None) -> dict[str, object]:
    game = catalog.load_game(game_id)
    profile = catalog.load_profile(None, game)
    with tempfile.TemporaryDirectory(prefix="board-referee-flood-") as tmp:
        journal = Path(tmp) / "journal.sqlite3"
        fill_journal(journal, game, profile.id)
        link = Path(tmp) / "board"
        timed, emulator = timed_table(game, profile, link)
        port = free_port()
        log_path = Path(tmp) / "daemon.log"
        timed.start()
        with log_path.open("w") as log:
            daemon = subprocess.Popen(
                [sys.executable, "-m", "firmware_bridge.cli", "run", "--game", game_id,
                 "--port", str(link), "--journal", str(journal), "--new",
                 "--kiosk", f"127.0.0.1:{port}"],
                stderr=log,
            )  # fmt: skip
        rows: list[float] = []
        stop = threading.Event()
        attacker = None
        try:
            if not emulator.host_seen.wait(20):
                raise SystemExit("the daemon did not connect")
            time.sleep(0.5)
            if flood is not None:
                attacker = subprocess.Popen([sys.executable, __file__, "--attack",
                                             f"127.0.0.1:{port}", *flood])  # fmt: skip
                time.sleep(5)  # the flood at full strength before the first move
            watcher = threading.Thread(
                target=watch_journal, args=(journal, rows, stop, GAMES_IN_JOURNAL)
            )
            watcher.start()
            timed.latencies.clear()
            timed.changes.clear()
            played = drive(emulator, game.new_state(), moves, random.Random(seed))
            time.sleep(0.5)
            rss, peak, fds = process_figures(daemon.pid)
        finally:
            stop.set()
            if attacker is not None:
                attacker.terminate()
                attacker.wait(10)
            daemon.terminate()
            daemon.wait(10)
            timed.close()
        log_lines = len(log_path.read_text().splitlines())
    led = [s for s, _, _ in timed.latencies]
    return {"played": played, "led": led, "journal": to_journal(rows, timed.changes), "rss": rss,
            "peak": peak, "fds": fds, "log": log_lines}  # fmt: skip


def show(name: str, figures: dict[str, object]) -> None:
    led = figures["led"]
    journal = figures["journal"]
    assert isinstance(led, list) and isinstance(journal, list)

    def ms(values: list[float]) -> str:
        if not values:
            return "no samples"
        return (f"median {statistics.median(values) * 1000:6.2f} ms, "
                f"p99 {percentile(values, 0.99) * 1000:6.2f} ms")  # fmt: skip

    print(f"{name:<6} moves {figures['played']:>3} | LED latency {ms(led)} ({len(led)}) | "
          f"play to journal {ms(journal)} ({len(journal)}) | RSS {figures['rss']:.1f} MB "
          f"(peak {figures['peak']:.1f}) | fds {figures['fds']} | log lines "
          f"{figures['log']}")  # fmt: skip


# -- the attacker (its own process, so its load is not the benchmark's) -------------------------


async def attack(address: str, streams: int, readers: int, loris: int) -> None:
    host, port = address.rsplit(":", 1)

    async def connect() -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        """A connection, however often the kiosk refuses one first."""
        while True:
            try:
                return await asyncio.open_connection(host, int(port))
            except OSError:
                await asyncio.sleep(0.05)

    async def stream(read: bool) -> None:
        while True:
            reader, writer = await connect()
            writer.write(b"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            try:
                while await (reader.read(65536) if read else asyncio.sleep(3600, b"x")):
                    pass
            except OSError:
                pass
            writer.close()

    async def slowloris() -> None:
        while True:
            _, writer = await connect()
            try:
                writer.write(b"GET /api/state HTTP/1.1\r\n")
                while True:
                    await asyncio.sleep(2)
                    writer.write(b"X-a: b\r\n")
                    await writer.drain()
            except OSError:
                pass
            writer.close()

    async def record_reader(number: int) -> None:
        while True:
            reader, writer = await connect()
            path = f"/api/record/{number}"
            writer.write(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
                         .encode())  # fmt: skip
            with contextlib.suppress(OSError):
                await reader.read()
            writer.close()

    tasks = [stream(read=i % 2 == 0) for i in range(streams)]
    tasks += [slowloris() for _ in range(loris)]
    tasks += [record_reader([1, 2500, 999999][i % 3]) for i in range(readers)]
    await asyncio.gather(*tasks)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="three-dragons")
    parser.add_argument("--moves", type=int, default=40, help="moves per phase")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--streams", type=int, default=300, help="event streams in the flood")
    parser.add_argument("--readers", type=int, default=8, help="record readers in the flood")
    parser.add_argument("--loris", type=int, default=100, help="half-sent requests kept open")
    parser.add_argument("--attack", metavar="HOST:PORT", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.attack:
        asyncio.run(attack(args.attack, args.streams, args.readers, args.loris))
        return
    print(f"{args.game}, {args.moves} moves a phase, a journal of {GAMES_IN_JOURNAL} games; "
          f"flood: {args.streams} streams (half never read), {args.loris} half-sent requests, "
          f"{args.readers} record readers")  # fmt: skip
    show("quiet", run_phase(args.game, args.moves, args.seed, None))
    flood = ["--streams", str(args.streams), "--readers", str(args.readers),
             "--loris", str(args.loris)]  # fmt: skip
    show("flood", run_phase(args.game, args.moves, args.seed, flood))


if __name__ == "__main__":
    main()
