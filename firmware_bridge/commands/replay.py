"""``board-referee replay``: a game's flight recording run again through this referee, turn by
turn with the recorded timing (or faster, or a turn at a time), and every turn where it
decides otherwise than the recorded one (docs/recorder.md)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from firmware_bridge.commands.common import Subparsers, UserError
from firmware_bridge.referee.journal import Journal
from firmware_bridge.referee.recorder import RecordingError
from firmware_bridge.referee.replay import Replayed, replay, sleeper


def add_parser(sub: Subparsers, common: argparse.ArgumentParser) -> None:
    command = sub.add_parser(
        "replay", parents=[common],
        help="run a game's flight recording through this referee and say where it decides "
        "otherwise",
    )  # fmt: skip
    command.add_argument("journal", help="the journal the game was played in")
    command.add_argument("--game", type=int, help="the game's number (default: the last "
                         "recorded)")  # fmt: skip
    pace = command.add_mutually_exclusive_group()
    pace.add_argument("--speed", type=float, help="replay at this many times the recorded "
                      "speed (default: as fast as it goes)")  # fmt: skip
    pace.add_argument("--step", action="store_true", help="a turn at a time: Enter for the next")
    command.add_argument("--quiet", action="store_true", help="only the differences")
    command.set_defaults(handler=_cmd_replay)


def _cmd_replay(args: argparse.Namespace) -> int:
    path = Path(args.journal)
    if not path.is_file():
        raise UserError(f"{path}: no such journal")
    if args.speed is not None and not 0 < args.speed <= 1000:
        raise UserError(f"--speed is how many times the recorded speed, above 0 and up to 1000, "
                        f"not {args.speed}")  # fmt: skip
    journal = Journal(path, lock=False)
    try:
        games = journal.recorded_games()
        if not games:
            raise UserError(f"{path} holds no flight recording (recorded from this version on; "
                            "run --record-cap 0 records nothing)")  # fmt: skip
        game = args.game if args.game is not None else games[-1]
        if game not in games:
            shown = ", ".join(map(str, games[-10:]))
            raise UserError(f"{path} has no recording of game {game} (recorded: {shown})")
        problem = ""
        try:
            entries = journal.recording_for(game)
        except RecordingError as exc:  # what was readable is replayed, and the damage named
            entries = list(getattr(exc, "readable", []))
            problem = str(exc)
    finally:
        journal.close()

    def show(at: float, turn: str, decided: list[str]) -> None:
        if not args.quiet:
            for words in decided:
                print(f"{at:9.3f} s  {words}   (after {turn})")

    result = replay(entries, config_dir=Path(args.config_dir) if args.config_dir else None,
                    pace=sleeper(args.speed, args.step), on_turn=show)  # fmt: skip
    if problem:
        result.problems.insert(0, problem)
    return _report(result, game)


def _report(result: Replayed, game: int) -> int:
    for difference in result.differences:
        print(difference.text())
    for problem in result.problems:
        print(f"board-referee replay: {problem}", file=sys.stderr)
    same = not result.differences and not result.problems
    if same:
        verdict = "decided identically"
    elif result.differences:
        verdict = f"{len(result.differences)} difference(s)"
    else:
        verdict = "no difference in what could be replayed (see above)"
    print(
        f"game {game}: {result.sessions} session(s), {result.turns} turns, "
        f"{result.decisions} decisions replayed: {verdict}"
    )
    return 0 if same else 1
