"""``board-referee demo``: the emulator and the referee together, a scripted game of every
game (the scripts: ``boards/scenarios/demo-*.txt``), each checked as it goes."""

from __future__ import annotations

import argparse
import contextlib
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import TextIO

from firmware_bridge.commands import logs
from firmware_bridge.commands.common import Subparsers, UserError, broker_of, mqtt_arguments
from firmware_bridge.faces.mqtt import MqttPublisher
from firmware_bridge.link import catalog
from firmware_bridge.referee.daemon import Daemon
from firmware_bridge.referee.journal import Journal
from firmware_bridge.referee.snapshot import Snapshot

PACE = 0.35  # a person's pace, for whom the scripts' pauses were written

DEMOS = (
    ("three-dragons", "three-dragons", "demo-three-dragons.txt"),
    ("protect-the-goat", "protect-the-goat", "demo-protect-the-goat.txt"),
    ("vanguard", "vanguard", "demo-vanguard.txt"),
    ("goats-wintering", "goats-wintering", "demo-goats-wintering.txt"),
    ("the-lion-game", "the-lion-game", "demo-the-lion-game.txt"),
)


def add_parser(sub: Subparsers, common: argparse.ArgumentParser) -> None:
    demo = sub.add_parser(
        "demo", parents=[common], help="emulator + daemon: a scripted game of every game"
    )
    demo.add_argument("--pace", type=float, default=PACE,
                      help="seconds between hand actions; the scripts' pauses for the "
                      "watcher scale with it")  # fmt: skip
    demo.add_argument("--game", action="append", help="only this game (repeatable)")
    mqtt_arguments(demo)  # publish each game as board demo-GAME, e.g. to watch a club view
    demo.set_defaults(handler=_cmd_demo)


def _cmd_demo(args: argparse.Namespace) -> int:
    """Each acceptance game: the emulator in its own process over a pty, the daemon here."""
    scenarios = Path(__file__).resolve().parent.parent / "boards" / "scenarios"
    if args.mqtt:
        broker_of(args)  # a broker URL that can never work is one line, before any game
    known = [game_id for game_id, _, _ in DEMOS]
    for game_id in args.game or []:
        if game_id not in known:
            raise UserError(f"no scripted demo of {game_id!r} (demos: {', '.join(known)})")
    failed = []
    for game_id, profile_id, script in DEMOS:
        if args.game and game_id not in args.game:
            continue
        if not _demo_one(args, game_id, profile_id, scenarios / script):
            failed.append(game_id)
    if failed:
        print(f"demo: the scripted game of {', '.join(failed)} did not go as expected",
              file=sys.stderr)  # fmt: skip
        return 1
    return 0


def _demo_one(args: argparse.Namespace, game_id: str, profile_id: str, script: Path) -> bool:
    directory = catalog.config_dir(args.config_dir)
    game = catalog.load_game(game_id, {}, directory)
    profile = catalog.load_profile(profile_id, game, directory)
    print("=" * 72, flush=True)
    with tempfile.TemporaryDirectory(prefix="board-referee-demo-") as tmp:
        link = Path(tmp) / "board"
        command = [
            sys.executable, "-m", "firmware_bridge.cli", "--config-dir", str(directory),
            "emulate", "--game", game_id, "--board", profile_id, "--link", str(link),
            "--script", str(script), "--pace", str(args.pace), "--linger", "--referee-says",
            "--pauses", str(max(args.pace, 0.0) / PACE),
        ]  # fmt: skip
        emulator = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    text=True, bufsize=1)  # fmt: skip
        finished = threading.Event()
        result: list[str] = []

        def relay(stream: TextIO) -> None:  # the emulator's drawing, and the end of its script
            for line in stream:
                if line.startswith("script finished: "):
                    result.append(line.split(": ", 1)[1].strip())
                    finished.set()
                else:
                    sys.stdout.write(line)
                    sys.stdout.flush()
            finished.set()

        assert emulator.stdout is not None
        threading.Thread(target=relay, args=(emulator.stdout,), daemon=True).start()
        deadline = time.monotonic() + 15
        while not link.exists() and emulator.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        if not link.exists():
            emulator.kill()
            print("demo: the emulator did not start", file=sys.stderr)
            return False
        log = logs.configure(False, name=f"referee.{game_id}")
        journal = Journal(Path(tmp) / "journal.sqlite3")
        stop = threading.Event()
        daemon = Daemon(game, profile, journal, str(link), log=log)
        told = [""]

        def tell(snapshot: Snapshot) -> None:
            """The script's hands play a move once the referee has taken the one before (or
            asks for a choice): on a starved machine a fixed wait let two placements reach it
            as one."""
            said = f"moves {len(snapshot.moves)} {int(snapshot.deciding)}\n"
            if said != told[0] and emulator.stdin is not None:
                told[0] = said
                with contextlib.suppress(OSError, ValueError):
                    emulator.stdin.write(said)
                    emulator.stdin.flush()

        daemon.add_listener(tell)
        publisher = None
        if args.mqtt:
            publisher = MqttPublisher(broker_of(args), f"demo-{game_id}", log=log)
            publisher.start()
            daemon.add_listener(publisher.publish)
        worker = threading.Thread(target=daemon.run, args=(stop,), daemon=True)
        worker.start()
        try:
            finished.wait()
            code = 0 if result == ["ok"] else 1
        except KeyboardInterrupt:
            code = 1
        stop.set()  # the referee stops first, so the board going away is no news to it
        worker.join(5)
        if publisher is not None:
            publisher.stop()
        emulator.terminate()
        try:
            emulator.wait(5)
        except subprocess.TimeoutExpired:
            emulator.kill()
        moves = journal.moves(daemon.game_id)
        journal.close()
        print(f"\njournal of {game.title}: {' '.join(moves)}", flush=True)
        outcome = daemon.state.outcome()
        if outcome is not None:
            print(f"result: {outcome.describe(game.player_names)}", flush=True)
        return code == 0
