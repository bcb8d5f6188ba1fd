"""``board-referee check``: the board check at a terminal (or as JSON lines for a script).

The referee runs in its check mode on the board's port: it lights each cell in turn, and the
person at the board answers with the pieces, the board's buttons, or the keyboard:
Enter (or ``confirm``) for CONFIRM, ``dark`` for PASS (the light is not on), ``skip`` for
SELECT, ``stop`` to end. The report is printed and kept in the board's journal.
"""

from __future__ import annotations

import argparse
import json
import logging
import queue
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from engine import ConfigError
from firmware_bridge.commands import logs
from firmware_bridge.commands.common import Subparsers, journal_path, parse_options
from firmware_bridge.link import catalog
from firmware_bridge.link.serial_link import LinkError, PortError, SerialLink, check_port
from firmware_bridge.referee.daemon import Command, Daemon
from firmware_bridge.referee.journal import Journal
from firmware_bridge.referee.snapshot import Snapshot

ANSWERS = {
    "": "confirm",
    "confirm": "confirm",
    "ok": "confirm",
    "dark": "dark",
    "pass": "dark",
    "skip": "skip",
    "select": "skip",
    "stop": "stop",
    "quit": "stop",
}


def add_parser(sub: Subparsers, common: argparse.ArgumentParser) -> None:
    check = sub.add_parser(
        "check", parents=[common],
        help="check a newly built or suspect board, cell by cell (docs/build-a-board.md)",
        description="The board check: it lights each cell and asks for a piece on it (one of "
        "each player's on an owner board), then for it to be lifted, and reports dead, stuck, "
        "swapped, miswired, reversed, weak and noisy sensors and LEDs that did not light, by "
        "cell, with what to fix. The report is kept in the board's journal.",
    )  # fmt: skip
    check.add_argument("--port", required=True, help="the board's serial port")
    check.add_argument("--board", required=True, help="the board's hardware profile")
    check.add_argument("--game", help="the profile's game (default: the one it names)")
    check.add_argument("--option", action="append", default=[], metavar="KEY=VALUE")
    check.add_argument("--cells", help="only these cells, comma separated (e.g. c4,d4)")
    check.add_argument("--journal", help="where to keep the report (default: the board's journal)")
    check.add_argument("--json", action="store_true", help="the steps as JSON lines")
    check.add_argument("--verbose", action="store_true", help="log the referee's lines too")
    check.set_defaults(handler=_cmd_check)


def _cmd_check(args: argparse.Namespace) -> int:
    return run(args, parse_options(args.option), journal_path)


def run(
    args: argparse.Namespace,
    options: dict[str, str],
    journal_path: Callable[[str | None, str | None], Path],
) -> int:
    directory = catalog.config_dir(args.config_dir)
    game_id = args.game or catalog.profile_game(args.board, directory)
    game = catalog.load_game(game_id, options, directory)
    profile = catalog.load_profile(args.board, game, directory)
    cells: tuple[str, ...] | None = None
    if args.cells:
        cells = tuple(name.strip() for name in args.cells.split(",") if name.strip())
        index = game.board.index
        missing = [name for name in cells if index.get(name, -1) not in profile.sensor_of]
        if missing:
            raise ConfigError(f"--cells: no sensor on {', '.join(missing)} in {profile.id}")
    try:
        check_port(args.port)
    except PortError as exc:
        raise ConfigError(str(exc)) from exc
    log = logs.configure(args.verbose, name="board-referee.check")
    if not args.verbose:
        log.setLevel(logging.WARNING)  # the instructions go to stdout; the log only warns
    journal = Journal(journal_path(args.journal, args.port))
    out = sys.stdout
    finished = threading.Event()
    stop = threading.Event()
    shown = {"instruction": ""}

    def listener(snapshot: Snapshot) -> None:
        view = snapshot.check
        if view is None:
            return
        if args.json:
            line = json.dumps({"event": "check", **view.to_json()})
            if line != shown["instruction"]:
                shown["instruction"] = line
                _say(out, line)
        elif view.instruction != shown["instruction"]:
            shown["instruction"] = view.instruction
            progress = f"[{view.done}/{view.total}] " if view.phase in ("place", "lift") else ""
            _say(out, f"{progress}{view.instruction}")
        if view.phase == "done":
            if not args.json:
                _say(
                    out,
                    "\n".join(
                        [
                            "",
                            "Board check report:",
                            *(f"- {f.cell}: {f.seen}. {f.fix}" for f in view.findings),
                            "(kept in the journal)",
                        ]
                    ),
                )
            finished.set()
            stop.set()

    link: SerialLink | None = SerialLink(args.port, profile.baudrate, queue.Queue())
    try:
        assert link is not None
        link.open()
    except PortError as exc:
        journal.close()
        raise ConfigError(str(exc)) from exc
    except LinkError:
        link = None  # not there yet: the referee waits for it, and says so
    daemon = Daemon(game, profile, journal, args.port, log=log, opened=link)
    daemon.add_listener(listener)
    worker = threading.Thread(target=daemon.run, args=(stop,), name="referee", daemon=True)
    worker.start()
    daemon.submit(Command("check", what="start", cells=cells, source="terminal"))
    if not args.json and sys.stdin.isatty():
        _say(
            out,
            "Answer at the board (CONFIRM, PASS, SELECT) or here: Enter = CONFIRM, "
            "dark = the light is not on, skip, stop.",
        )
    reader = threading.Thread(target=_answers, args=(daemon, stop), daemon=True)
    reader.start()
    try:
        while not stop.wait(0.2):
            pass
    except KeyboardInterrupt:
        stop.set()
    worker.join(10)
    journal.close()
    if not finished.is_set():
        _say(out, "board check stopped before the end")
        return 1
    return 0


def _answers(daemon: Daemon, stop: threading.Event) -> None:
    for raw in sys.stdin:
        word = raw.strip().lower()
        what = ANSWERS.get(word)
        if what is None:
            print(f"'{word}'? answer with Enter (confirm), dark, skip or stop", file=sys.stderr)
            continue
        if what == "stop":
            stop.set()
            return
        daemon.submit(Command("check", what=what, source="terminal"))


def _say(out: TextIO, text: str) -> None:
    out.write(text + "\n")
    out.flush()
