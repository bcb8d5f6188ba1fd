"""``board-referee report``: one game's flight recording, board profile, versions and options
packed into one file a club can send (referee/report.py); ``board-referee replay`` takes it."""

from __future__ import annotations

import argparse
from pathlib import Path

from engine import moves_played
from firmware_bridge.commands.common import Subparsers, UserError, board_journal
from firmware_bridge.commands.replay import recorded_game
from firmware_bridge.faces.hosts import state_dir
from firmware_bridge.referee.journal import Journal, read_records
from firmware_bridge.referee.records import record_title
from firmware_bridge.referee.report import ReportError, make_report, write_report
from firmware_bridge.words import count


def add_parser(sub: Subparsers, common: argparse.ArgumentParser) -> None:
    command = sub.add_parser(
        "report", parents=[common],
        help="pack one game's flight recording, board profile and versions into a file to send",
    )  # fmt: skip
    command.add_argument(
        "--journal", help="the journal the game was played in (default: the one journal in "
        "$XDG_STATE_HOME/board-referee/ with a recording)",
    )  # fmt: skip
    command.add_argument(
        "--board-id", metavar="NAME",
        help="the board whose journal it is (found as its referee finds it: its "
        "/etc/board-referee/NAME.env, its systemd unit's state folder)",
    )  # fmt: skip
    command.add_argument("--game", type=int, help="the game's number (default: the last "
                         "recorded)")  # fmt: skip
    command.add_argument("-o", "--output", required=True, metavar="FILE",
                         help="the report file to write (gzip-compressed JSON)")  # fmt: skip
    command.add_argument("--with-names", action="store_true",
                         help="keep the players' names (left out by default)")  # fmt: skip
    command.set_defaults(handler=_cmd_report)


def _journal(given: str | None, board: str | None = None) -> Path:
    if given:
        path = Path(given)
        if not path.is_file():
            raise UserError(f"{path}: no such journal")
        return path
    if board:
        path, looked = board_journal(board)
        if not path.is_file():
            raise UserError(f"no journal of board {board} at {path} (looked in "
                            f"{', '.join(looked)}): name it with --journal")  # fmt: skip
        return path
    folder = state_dir()
    found = [p for p in sorted(folder.glob("journal*.sqlite3")) if _recorded(p)]
    if not found:
        raise UserError(f"no journal with a flight recording in {folder} (name one with "
                        "--journal)")  # fmt: skip
    if len(found) > 1:
        raise UserError("several journals hold recordings: name one with --journal ("
                        + ", ".join(p.name for p in found) + ")")  # fmt: skip
    return found[0]


def _recorded(path: Path) -> bool:
    journal = Journal(path, lock=False)
    try:
        return bool(journal.recorded_games())
    finally:
        journal.close()


def _cmd_report(args: argparse.Namespace) -> int:
    path = _journal(args.journal, args.board_id)
    output = Path(args.output)
    if output.is_dir():
        raise UserError(f"{output} is a folder: -o names the report file to write")
    game, entries, own, problem = recorded_game(path, args.game)
    records = read_records(path, game)
    if not records:
        raise UserError(f"{path}: game {game} has a recording but no record (edited by hand?)")
    try:
        report = make_report(records[0], entries, config_dir=args.config_dir,
                             with_names=args.with_names, problem=problem, own=own)  # fmt: skip
        write_report(report, output)
    except ReportError as exc:
        raise UserError(str(exc)) from None
    people = " against ".join(p or "(not named)" for p in records[0].players)
    names = (f"players {people}, " if any(records[0].players) else "") + (
        "with their names" if args.with_names else "their names withheld in the file"
    )
    title = record_title(records[0], args.config_dir)
    print(f"wrote {output}: game {game} ({title} on board {report.profile}, "
          f"{count(moves_played(report.moves), 'move')}, {report.status}), "
          f"{len(report.entries)} recorded entries, "
          f"{names}; board-referee replay {output} runs it again")  # fmt: skip
    if problem:
        print(f"board-referee report: {problem}")
    return 0
