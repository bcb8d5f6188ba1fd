"""Latency benchmark: from the board's last sensor frame of an action to the daemon's LED frame.

The emulator runs in this process (so one clock times both frames); the daemon runs as its own
process, over a real pty, exactly as ``board-referee run``. Random legal games are played by the
emulator's hands. For each LED frame that answers a sensor frame, the time from writing that
CHANGE frame to reading the LED frame is recorded. Printed beside the figures: the wire time of
those two frames at the profile's baud rate (a pty has no baud rate, so that is computed: 10 bits
a byte for 8N1). Run: ``python tools/bench_latency.py [--game G] [--moves N] [--settle-ms MS]``.

With ``--kiosk`` the daemon also serves the kiosk, and a client of its live stream (the same
Server-Sent Events the page reads) is timed too: from each CHANGE frame written to the first
state pushed after it. The daemon's resident memory (RSS, and its peak) is printed beside.

With ``--thinking`` each run is made twice: first as it is, then with the computer's engine
(``board-referee engine``, its own process, as the referee runs it) searching flat out the
whole time, and its memory printed too: what a computer opponent costs the referee.

With ``--reviewing`` each run is made twice: first as it is, then while another board's
review runs beside it (``board-referee review`` of a 100-move game, its engine at nice 19, as
the kiosk's analyst runs it): the review's time is printed, and the LED figures show what it
costs the game going on.
"""

from __future__ import annotations

import argparse
import io
import random
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

from engine import Game, MoveKind, Outcome, Player, State
from firmware_bridge.boards.emulated import EmulatedBoard
from firmware_bridge.boards.table import Table
from firmware_bridge.link import catalog
from firmware_bridge.link.profile import BoardProfile
from firmware_bridge.link.protocol import Change, Message
from firmware_bridge.opponent.client import EngineProcess, engine_command
from firmware_bridge.referee.journal import Journal


class TimedBoard(EmulatedBoard):
    """Notes when each CHANGE frame is written, for the kiosk's delay."""

    changes: list[float]

    def _send(self, message: Message) -> int:
        size = super()._send(message)
        if isinstance(message, Change) and size:
            self.changes.append(time.monotonic())
        return size


def timed_table(game: Game, profile: BoardProfile, link: Path) -> tuple[TimedBoard, Table]:
    """The emulated board at the game's start, its frames timed, played by a quick hand."""
    timed = TimedBoard(profile, link_path=link)
    timed.changes = []
    table = Table(game, profile, game.new_state().layout(), timed, link_path=link,
                  out=io.StringIO(), pace=0.02, draw=False)  # fmt: skip
    return timed, table


def listen(url: str, pushes: list[float], stop: threading.Event) -> None:
    """Read the kiosk's live stream, noting when each state arrives."""
    while not stop.is_set():
        try:
            with urllib.request.urlopen(url, timeout=30) as stream:
                for raw in stream:
                    if raw.startswith(b"data: "):
                        pushes.append(time.monotonic())
                    if stop.is_set():
                        return
        except OSError:
            time.sleep(0.1)


def watch_journal(
    path: Path, rows: list[float], stop: threading.Event, after_game: int = 0
) -> None:
    """Note when each new entry (of games numbered above ``after_game``) reaches the journal,
    read-only, from the moment it can be opened (the referee makes it)."""
    db: sqlite3.Connection | None = None
    seen: int | None = None
    while not stop.is_set():
        count = seen
        try:
            if db is None:
                db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=0.1)
            ((count,),) = db.execute(
                "SELECT COUNT(*) FROM entries WHERE game_id > ?", (after_game,)
            ).fetchall()
        except sqlite3.Error:
            pass  # not made yet, or busy: the next look
        if seen is not None and count is not None and count > seen:
            rows.extend([time.monotonic()] * (count - seen))
        seen = count
        time.sleep(0.002)
    if db is not None:
        db.close()


def to_journal(rows: list[float], changes: list[float]) -> list[float]:
    """For each entry that reached the journal, the time since the last CHANGE before it."""
    times = []
    for row in rows:
        before = [c for c in changes if c <= row]
        if before:
            times.append(row - before[-1])
    return times


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def memory(pid: int) -> str:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return "RSS unknown"
    fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
    rss = int(fields["VmRSS"].split()[0]) / 1024
    peak = int(fields["VmHWM"].split()[0]) / 1024
    return f"daemon RSS {rss:.1f} MB (peak {peak:.1f} MB)"


def drive(emulator: Table, state: State, moves: int, rng: random.Random) -> int:
    """Play random legal moves physically; returns how many were played."""
    played = 0
    while played < moves and state.outcome() is None:
        move = rng.choice(list(state.legal_moves()))
        text = state.notation(move)
        if move.kind is MoveKind.PASS:
            break
        if move.kind is MoveKind.PLACE and state.to_move is Player.TWO:
            text = text[0].lower() + text[1:]
        effect = state.apply(move)
        emulator.play(text)
        time.sleep(emulator.profile.settle + 0.05)
        footprint = effect.footprint()
        if footprint.result != footprint.hand:
            emulator.follow(10.0)
        played += 1
    return played


def measure(
    game_id: str,
    board: str | None,
    moves: int,
    settle_ms: int,
    seed: int,
    *,
    kiosk: bool,
    thinking: bool = False,
    reviewing: bool = False,
) -> None:
    game = catalog.load_game(game_id)
    profile = catalog.load_profile(board, game)
    with tempfile.TemporaryDirectory(prefix="board-referee-bench-") as tmp:
        link = Path(tmp) / "board"
        timed, emulator = timed_table(game, profile, link)
        port = free_port()
        face = ["--kiosk", f"127.0.0.1:{port}"] if kiosk else ["--no-kiosk"]
        pushes: list[float] = []
        stop = threading.Event()
        timed.start()
        daemon = subprocess.Popen(
            [sys.executable, "-m", "firmware_bridge.cli", "run", "--game", game_id,
             "--board", profile.id, "--port", str(link), "--journal", f"{tmp}/journal.sqlite3",
             "--settle-ms", str(settle_ms), *face],
            stderr=subprocess.DEVNULL,
        )  # fmt: skip
        if kiosk:
            url = f"http://127.0.0.1:{port}/api/events"
            threading.Thread(target=listen, args=(url, pushes, stop), daemon=True).start()
        engine = None
        if thinking:  # the computer's engine searching flat out beside the referee
            engine = EngineProcess(engine_command("--nice", "10"), name="engine")  # as run's
            engine.new_game(game_id)
            engine.position()
            engine.send("go movetime 600000")
        review = None
        try:
            if not emulator.host_seen.wait(20):
                raise SystemExit("the daemon did not connect")
            time.sleep(0.3)
            if reviewing:  # another board's finished game, reviewed beside this one
                other = long_game_journal(Path(tmp) / "other", 100, seed)
                review = subprocess.Popen(
                    [sys.executable, "-m", "firmware_bridge.cli", "review", "--journal",
                     str(other), "--game-id", "1"],
                    stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                )  # fmt: skip
            timed.latencies.clear()
            timed.changes.clear()
            played = drive(emulator, game.new_state(), moves, random.Random(seed))
            time.sleep(0.5)
            rss = memory(daemon.pid)
            if engine is not None:
                rss += f"; the engine thinking: {memory(engine.pid).replace('daemon ', '')}"
            if review is not None:
                said = review.communicate(timeout=600)[0].strip().splitlines()
                print(f"-- beside it: another board's 100-move game reviewed: {said[-1]} "
                      f"({len(said) - 2} turning points)")  # fmt: skip
        finally:
            if review is not None and review.poll() is None:
                review.kill()
            if engine is not None:
                engine.close()
            stop.set()
            daemon.terminate()
            daemon.wait(10)
            timed.close()
    samples = sorted(timed.latencies)
    if not samples:
        print(f"{game_id}: no samples")
        return
    seconds = [s for s, _, _ in samples]
    change_bytes = statistics.median(c for _, c, _ in samples)
    led_bytes = statistics.median(b for _, _, b in samples)
    bits = 10  # 8N1: start bit, 8 data bits, stop bit
    change_wire = change_bytes * bits / profile.baudrate
    led_wire = led_bytes * bits / profile.baudrate
    p99 = seconds[min(len(seconds) - 1, round(0.99 * (len(seconds) - 1)))]
    print(
        f"{game_id:<17} {profile.id:<20} settle {settle_ms:>4} ms  moves {played:>3}  "
        f"samples {len(seconds):>4}  median {statistics.median(seconds) * 1000:7.2f} ms  "
        f"p99 {p99 * 1000:7.2f} ms  | wire at {profile.baudrate} baud: CHANGE "
        f"{change_bytes:.0f} B = {change_wire * 1000:.2f} ms, LEDS {led_bytes:.0f} B = "
        f"{led_wire * 1000:.2f} ms"
    )
    if kiosk:
        delays = []
        for sent in timed.changes:
            after = [p - sent for p in pushes if p >= sent]
            if after and after[0] < 1.0:
                delays.append(min(after))
        if delays:
            print(
                f"{'':<17} kiosk: CHANGE -> state pushed to the page: samples {len(delays)}  "
                f"median {statistics.median(delays) * 1000:.2f} ms  "
                f"p99 {percentile(delays, 0.99) * 1000:.2f} ms  | {rss}"
            )
    else:
        print(f"{'':<17} no kiosk | {rss}")


def long_game_journal(folder: Path, moves: int, seed: int) -> Path:
    """A journal with one finished Three Dragons game of ``moves`` moves (random ones, then a
    resignation), as another board's referee would have kept it."""
    folder.mkdir()
    game = catalog.load_game("three-dragons", {"draw_after": moves + 10})
    journal = Journal(folder / "journal.sqlite3")
    number = journal.start_game(game, "three-dragons", None)
    state, rng = game.new_state(), random.Random(seed)
    while state.plies < moves and state.outcome() is None:
        choices = list(state.legal_moves())
        move = choices[rng.randrange(len(choices))]
        text = state.notation(move)
        state.apply(move)
        journal.record_move(number, text, state.outcome())
    if state.outcome() is None:
        journal.record_move(number, "resign:2", Outcome(Player.ONE, "Player 2 resigned"))
    journal.close()
    return folder / "journal.sqlite3"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", action="append", help="game id (default: both acceptance games)")
    parser.add_argument("--board", help="hardware profile (default: the game's own)")
    parser.add_argument("--moves", type=int, default=40, help="moves per run")
    parser.add_argument(
        "--settle-ms", type=int, action="append",
        help="settle windows to run with (default: 0, which times the daemon's own work, and "
        "the profile's)",
    )  # fmt: skip
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--kiosk", action="store_true",
        help="run the daemon with its kiosk, and time the page's live stream",
    )  # fmt: skip
    parser.add_argument(
        "--thinking", action="store_true",
        help="with the computer's engine searching flat out beside the daemon (its own "
        "process), and without, one after the other",
    )  # fmt: skip
    parser.add_argument(
        "--reviewing", action="store_true",
        help="with another board's 100-move game reviewed beside the daemon (board-referee "
        "review), and without, one after the other",
    )  # fmt: skip
    args = parser.parse_args()
    for game_id in args.game or ["three-dragons", "protect-the-goat"]:
        game = catalog.load_game(game_id)
        default = round(catalog.load_profile(args.board, game).settle * 1000)
        for settle in args.settle_ms or [0, default]:
            for thinking in (False, True) if args.thinking else () if args.reviewing else (False,):
                if args.thinking:
                    print(f"-- the engine {'thinking' if thinking else 'idle'}")
                measure(game_id, args.board, args.moves, settle, args.seed, kiosk=args.kiosk,
                        thinking=thinking)  # fmt: skip
            for reviewing in (False, True) if args.reviewing else ():
                print(f"-- {'a review beside it' if reviewing else 'no review'}")
                measure(game_id, args.board, args.moves, settle, args.seed, kiosk=args.kiosk,
                        reviewing=reviewing)  # fmt: skip


if __name__ == "__main__":
    main()
