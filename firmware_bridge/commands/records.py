"""``board-referee records``: the games kept in the journals, as a list, one game's record
(text that ``play --moves-file`` replays, or JSON), or CSV for a tournament's spreadsheet."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from engine import moves_played
from firmware_bridge.commands.common import Subparsers, UserError, board_journal, side_names
from firmware_bridge.faces.hosts import state_dir
from firmware_bridge.referee.journal import read_records
from firmware_bridge.referee.records import (
    played,
    record_row,
    record_text,
    record_title,
    result_words,
    results_csv,
)
from firmware_bridge.words import count


def add_parser(sub: Subparsers, common: argparse.ArgumentParser) -> None:
    records = sub.add_parser(
        "records", parents=[common], help="the games in the journals: list, or one game's record"
    )
    records.add_argument(
        "--journal", action="append",
        help="a journal file (repeatable; default: every journal in "
        "$XDG_STATE_HOME/board-referee/)",
    )  # fmt: skip
    records.add_argument("--board-id", metavar="NAME", action="append",
                         help="a board whose journal to read, found as its referee finds it "
                         "(its /etc/board-referee/NAME.env, its systemd unit's state folder; "
                         "repeatable)")  # fmt: skip
    records.add_argument("--game-id", type=int, help="one game's record (its number in the list)")
    records.add_argument("--json", action="store_true", help="JSON instead of text")
    records.add_argument(
        "--csv", action="store_true",
        help="every game as CSV (board, game, players, result, moves, start and end), for a "
        "tournament's spreadsheet",
    )  # fmt: skip
    records.set_defaults(handler=_cmd_records)


def _cmd_records(args: argparse.Namespace) -> int:
    """Finished and unfinished games, from the journals: a list, or one game's record as text
    that ``play --moves-file`` replays, or as JSON."""
    if args.journal or args.board_id:
        paths = [Path(p) for p in args.journal or []]
        for path in paths:
            if not path.is_file():
                raise UserError(f"{path}: no such journal")
        for board in args.board_id or []:
            path, looked = board_journal(board)
            if not path.is_file():
                raise UserError(f"no journal of board {board} at {path} (looked in "
                                f"{', '.join(looked)}): name it with --journal")  # fmt: skip
            paths.append(path)
    else:
        folder = state_dir()
        paths = sorted(folder.glob("journal*.sqlite3")) if folder.is_dir() else []
        if not paths:
            raise UserError(f"no journals in {folder} (name one with --journal)")
    records = [record for path in paths for record in read_records(path)]
    if args.csv:
        records = played(records)  # a game nobody played is no result
        rows = [record_row(r, args.config_dir, Path(r.journal).stem.removeprefix("journal-"))
                for r in records]  # fmt: skip
        sys.stdout.write(results_csv(rows))
        return 0
    if args.game_id is not None:
        chosen = [r for r in records if r.id == args.game_id]
        if not chosen:
            raise UserError(f"no game {args.game_id} in {', '.join(map(str, paths))}")
        if len(chosen) > 1:
            raise UserError(f"game {args.game_id} is in several journals: name one with --journal")
        record = chosen[0]
        if args.json:
            json.dump(record.to_json(), sys.stdout, indent=2)
            sys.stdout.write("\n")
        else:
            sys.stdout.write(record_text(record, args.config_dir))
        return 0
    if args.json:
        json.dump([r.to_json() for r in records], sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    kept = {record.id for record in played(records)}
    for record in records:  # every game's number, so none seems lost
        head = (f"{Path(record.journal).name} game {record.id}: "
                f"{record_title(record, args.config_dir)} on board {record.profile}, "
                f"{record.started[:16].replace('T', ' ')}")  # fmt: skip
        if record.id not in kept:
            print(f"{head}, not played (a new game was started before its first move)")
            continue
        result = result_words(record, args.config_dir)
        sides = side_names(record.game, Path(args.config_dir) if args.config_dir else None)
        pairs = zip(record.players, sides, strict=True)
        people = " against ".join(f"{who or 'not named'} ({side})" for who, side in pairs)
        print(f"{head}{', ' + people if any(record.players) else ''}, {record.status}, "
              f"{count(moves_played(m for m, _ in record.moves), 'move')}"
              f"{': ' + result if result else ''}")  # fmt: skip
    return 0
