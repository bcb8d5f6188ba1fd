"""Figures from the booted Pi: the referee's start to its first LED frame, and what an evening
writes to the SD card.

The start is timed as tools/bench_daemon.py times it here: a board on a pty of this host (a
third one, ``bench``, shown inside as /dev/ttyACM2) and ``board-referee run`` with its kiosk
started again and again, from its launch to the board's first LED frame. Here it is the Pi's
installed referee, started by its user, on the Pi's system.

The writes are counted by the kernel (``write_bytes`` in /proc/PID/io: what a process sent
toward the storage) for the referees, their engines, the browser and the system's log, over
a spell of play on both boards with the kiosk on screen, and a quiet spell.
"""

from __future__ import annotations

import io
import statistics
import time
from pathlib import Path
from typing import TYPE_CHECKING

from firmware_bridge.boards.emulated import EmulatedBoard
from firmware_bridge.boards.table import Table as BoardTable
from firmware_bridge.link import catalog
from pi.machine import Device, MachineError

if TYPE_CHECKING:
    from pi.evening import Evening

BENCH_ID = "bench"
RUNS = 10


class BenchBoard:
    """An emulated board in this process, as tools/bench_daemon.py uses one."""

    def __init__(self, folder: Path) -> None:
        game = catalog.load_game("three-dragons")
        profile = catalog.load_profile(None, game)
        folder.mkdir(parents=True, exist_ok=True)
        self.board = EmulatedBoard(profile, link_path=folder / "bench", board_id=BENCH_ID)
        BoardTable(
            game,
            profile,
            game.new_state().layout(),
            self.board,
            link_path=folder / "bench",
            out=io.StringIO(),
            pace=0.02,
            draw=False,
        )
        self.board.start()

    def device(self) -> Device:
        return Device(self.board.device, "/dev/ttyACM2", "")

    def close(self) -> None:
        self.board.close()


def start_time(club: Evening, bench: BenchBoard | None) -> None:
    """The installed referee with its kiosk, started ten times: launch to first LED frame."""
    if bench is None:
        raise MachineError("no bench board (the start part needs one at boot)")
    pi = club.pi
    with club.report.step("start: launch to the first LED frame, on the Pi"):
        times = []
        for run in range(RUNS):
            journal = f"/tmp/bench-{run}.sqlite3"
            bench.board.host_seen.clear()
            log = club.logs / f"start-{run}.log"
            began = time.monotonic()
            proc = pi.user_start(
                "/opt/board-referee/.venv/bin/python -m firmware_bridge.cli run --port "
                f"/dev/ttyACM2 --game three-dragons --kiosk 127.0.0.1:8095 --journal {journal}",
                log,
            )
            try:
                if not bench.board.host_seen.wait(60):
                    raise MachineError(f"no LED frame within 60 s:\n{log.read_text()[-1500:]}")
                times.append(time.monotonic() - began)
                time.sleep(1.0)  # its page and faces come up, as in a real start
            finally:
                pi.root_run(f"pkill -TERM -f -- '--journal {journal}'")
                proc.wait(20)
        ms = sorted(t * 1000 for t in times)
        club.report.figure(
            f"start to first LED frame on the Pi (installed, with its kiosk): median "
            f"{statistics.median(ms):.0f} ms ({ms[0]:.0f}-{ms[-1]:.0f}) over {RUNS}"
        )


def written(club: Evening, patterns: dict[str, str]) -> dict[str, int]:
    """Bytes written so far by the Pi's processes whose command line matches each pattern
    (pgrep -f), from /proc/PID/io; a process that ended takes its count with it."""
    totals = {}
    for name, pattern in patterns.items():
        done = club.pi.root_run(
            f"for p in $(pgrep -f -- '{pattern}'); do "
            "sed -n 's/^write_bytes: //p' /proc/$p/io 2>/dev/null; done"
        )
        totals[name] = sum(int(n) for n in done.stdout.split() if n.isdigit())
    return totals


WRITERS = {
    "referees": "firmware_bridge.cli run --board-id",
    "engines": "firmware_bridge.cli engine",
    "browser": "chromium",
    "system log": "systemd-journald",
    "broker": "mosquitto",
}


def sd_card(club: Evening) -> None:
    """Bytes an hour of play writes, from a quiet minute and a spell of moves on both boards
    (the kiosk on screen, the club's broker running)."""
    pi = club.pi
    with club.report.step("sd-card: what an evening writes"):
        quiet = 60.0
        pi.root_run("sync").check()
        before = written(club, WRITERS)
        time.sleep(quiet)
        pi.root_run("sync").check()
        idle = written(club, WRITERS)
        moves = 0
        began = time.monotonic()
        for _ in range(10):
            for table in club.tables:
                moves += table.play(1)
        spell = time.monotonic() - began
        pi.root_run("sync").check()
        after = written(club, WRITERS)
        per_second = {k: (idle[k] - before[k]) / quiet for k in WRITERS}
        per_move = {
            k: max(0.0, (after[k] - idle[k]) - per_second[k] * spell) / max(moves, 1)
            for k in WRITERS
        }
        pace = 60  # moves an hour at a board: a brisk club game
        boards = len(club.tables)
        hour = {k: per_second[k] * 3600 + per_move[k] * pace * boards for k in WRITERS}
        for name in WRITERS:
            club.report.say(
                f"{name}: {per_second[name] * 3600 / 1024:.0f} KiB an hour idle, "
                f"{per_move[name] / 1024:.1f} KiB a move"
            )
        club.report.figure(
            f"SD card: {sum(hour.values()) / 1024 / 1024:.1f} MiB an hour of play, two boards "
            f"at {pace} moves an hour each, the kiosk on screen ("
            + ", ".join(f"{k} {v / 1024 / 1024:.2f}" for k, v in hour.items())
            + " MiB)"
        )
