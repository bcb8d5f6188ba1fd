"""Daemon start-up benchmark: cold start to the first LED frame, and resident memory.

For each set of faces (none: ``--no-kiosk`` and no MQTT; the kiosk page; the page and MQTT to a
real Mosquitto started here), ``board-referee run`` is started again and again as its own
process against an emulated board on a pty in this process, exactly as a Pi's unit starts it.
Timed: from starting the process to the board receiving its first LED frame (the board scanned,
the game reconciled, the lights sent). Then, once it has run a second and a half, its resident
memory (VmRSS) and peak (VmHWM). Medians over the runs are printed, with the best and the worst.

Run: ``python tools/bench_daemon.py [--runs N] [--game G]``; ``--installed`` starts the
installed referee of this Python (``make install``'s, compiled) instead of this checkout's
sources; ``--no-mqtt`` leaves out the broker (a machine without Mosquitto: make pi-check's
arm64 root). It says whether Python's bytecode was cached: compiling every module from source
at each start (``PYTHONDONTWRITEBYTECODE`` on a fresh clone) adds about 100 ms here.
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from firmware_bridge.boards.emulated import EmulatedBoard  # noqa: E402
from firmware_bridge.boards.table import Table  # noqa: E402
from firmware_bridge.link import catalog  # noqa: E402
from tests.mosquitto import Mosquitto, free_port  # noqa: E402

MIB = 1024 * 1024


def memory(pid: int) -> tuple[float, float]:
    """(RSS, peak RSS) of a process, in MiB."""
    fields = dict(
        line.split(":", 1)
        for line in Path(f"/proc/{pid}/status").read_text().splitlines()
        if ":" in line
    )
    return (int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024)


def one_start(game_id: str, faces: list[str], steady: float,
              installed: bool = False) -> tuple[float, float, float]:  # fmt: skip
    """(seconds to the first LED frame, RSS MiB, peak MiB) of one cold start."""
    game = catalog.load_game(game_id)
    profile = catalog.load_profile(None, game)
    with tempfile.TemporaryDirectory(prefix="board-referee-start-") as tmp:
        link = Path(tmp) / "board"
        board = EmulatedBoard(profile, link_path=link)
        Table(game, profile, game.new_state().layout(), board, link_path=link,
              out=io.StringIO(), pace=0.02, draw=False)  # fmt: skip
        board.start()
        try:
            started = time.monotonic()
            source = {} if installed else {"PYTHONPATH": str(ROOT)}
            daemon = subprocess.Popen(
                [sys.executable, *(["-P"] if installed else []), "-m", "firmware_bridge.cli",
                 "run", "--game", game_id, "--port", str(link), "--journal",
                 f"{tmp}/journal.sqlite3", *faces],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=tmp,
                env={**os.environ, "XDG_STATE_HOME": tmp, **source},
            )  # fmt: skip
            try:
                if not board.host_seen.wait(30):
                    raise SystemExit(f"no LED frame within 30 s ({' '.join(faces)})")
                first_led = time.monotonic() - started
                time.sleep(steady)
                rss, peak = memory(daemon.pid)
            finally:
                daemon.terminate()
                daemon.wait(10)
        finally:
            board.close()
    return first_led, rss, peak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9, help="cold starts per set of faces")
    parser.add_argument("--game", default="three-dragons")
    parser.add_argument("--steady", type=float, default=1.5,
                        help="seconds after the first LED frame before memory is read")  # fmt: skip
    parser.add_argument("--installed", action="store_true",
                        help="the installed referee, not this checkout's sources")  # fmt: skip
    parser.add_argument("--no-mqtt", action="store_true", help="leave out the broker")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="board-referee-broker-") as tmp:
        broker = None if args.no_mqtt else Mosquitto(Path(tmp))
        if broker is not None:
            broker.start()
        try:
            sets = {
                "no page, no MQTT": ["--no-kiosk"],
                "page": ["--kiosk", f"127.0.0.1:{free_port()}"],
            }
            if broker is not None:
                sets["page and MQTT"] = ["--kiosk", f"127.0.0.1:{free_port()}", "--mqtt",
                                         broker.url]  # fmt: skip
            cached = "not written" if os.environ.get("PYTHONDONTWRITEBYTECODE") else "written"
            what = "the installed referee" if args.installed else "this checkout"
            print(f"{args.game}, {what}, bytecode {cached}, {args.runs} cold starts each; "
                  "median (best-worst)")  # fmt: skip
            print(f"{'faces':<18} {'start to first LED frame':>28} {'RSS MiB':>20} "
                  f"{'peak MiB':>8}")  # fmt: skip
            for name, faces in sets.items():
                runs = [one_start(args.game, faces, args.steady, args.installed)
                        for _ in range(args.runs)]  # fmt: skip
                starts = [r[0] * 1000 for r in runs]
                rss = [r[1] for r in runs]
                peak = [r[2] for r in runs]
                print(
                    f"{name:<18} {statistics.median(starts):>12.0f} ms ({min(starts):.0f}-"
                    f"{max(starts):.0f}) {statistics.median(rss):>10.1f} ({min(rss):.1f}-"
                    f"{max(rss):.1f}) {statistics.median(peak):>8.1f}",
                    flush=True,
                )
        finally:
            if broker is not None:
                broker.stop()


if __name__ == "__main__":
    main()
