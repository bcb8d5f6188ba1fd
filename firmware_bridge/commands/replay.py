"""``board-referee replay``: a game's flight recording run again through this referee, turn by
turn with the recorded timing (or faster, or a turn at a time), and every turn where it
decides otherwise than the recorded one (docs/recorder.md)."""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import Any

from firmware_bridge.commands.common import Subparsers, UserError
from firmware_bridge.referee.journal import Journal
from firmware_bridge.referee.recorder import MOVE, RESULT, TAKEBACK, RecordingError
from firmware_bridge.referee.replay import Replayed, replay, sleeper
from firmware_bridge.referee.report import ReportError, is_report, read_report, unpack_configs
from firmware_bridge.words import count


def add_parser(sub: Subparsers, common: argparse.ArgumentParser) -> None:
    command = sub.add_parser(
        "replay", parents=[common],
        help="run a game's flight recording through this referee and say where it decides "
        "otherwise",
    )  # fmt: skip
    command.add_argument("journal", help="the journal the game was played in, or a report "
                         "file (board-referee report)")  # fmt: skip
    command.add_argument("--game", type=int, help="the game's number (default: the last "
                         "recorded)")  # fmt: skip
    pace = command.add_mutually_exclusive_group()
    pace.add_argument("--speed", type=float, help="replay at this many times the recorded "
                      "speed (default: as fast as it goes)")  # fmt: skip
    pace.add_argument("--step", action="store_true", help="a turn at a time: Enter for the next")
    loud = command.add_mutually_exclusive_group()
    loud.add_argument("--verbose", action="store_true", help="also every decision of every "
                      "turn as it is replayed (frames sent, moves, words shown)")  # fmt: skip
    loud.add_argument("--quiet", action="store_true", help="only the differences and the verdict")
    command.set_defaults(handler=_cmd_replay)


def _cmd_replay(args: argparse.Namespace) -> int:
    path = Path(args.journal)
    if not path.is_file():
        raise UserError(f"{path}: no such journal or report")
    if args.speed is not None and not 0 < args.speed <= 1000:
        raise UserError(f"--speed is how many times the recorded speed, above 0 and up to 1000, "
                        f"not {args.speed}")  # fmt: skip
    if is_report(path):
        return _replay_report(args, path)
    game, entries, problem = recorded_game(path, args.game)
    config_dir = Path(args.config_dir) if args.config_dir else None
    return _run(args, entries, game, config_dir, problem)


def recorded_game(path: Path, wanted: int | None) -> tuple[int, list[Any], str]:
    """Game ``wanted``'s recording in the journal at ``path`` (None: the last recorded), and
    what stopped its reading ("" when nothing did): whatever is readable is given."""
    journal = Journal(path, lock=False)
    try:
        games = journal.recorded_games()
        if not games:
            raise UserError(f"{path} holds no flight recording (recorded from this version on; "
                            "run --record-cap 0 records nothing)")  # fmt: skip
        game = wanted if wanted is not None else games[-1]
        if game not in games:
            shown = ", ".join(map(str, games[-10:]))
            raise UserError(f"{path} has no recording of game {game} (recorded: {shown})")
        try:
            return game, journal.recording_for(game), ""
        except RecordingError as exc:  # the readable part, and the damage named
            return game, list(getattr(exc, "readable", [])), str(exc)
    finally:
        journal.close()


def _replay_report(args: argparse.Namespace, path: Path) -> int:
    """A report file (board-referee report): replayed with the game and board files it
    carries, not this installation's."""
    try:
        report = read_report(path)
    except ReportError as exc:
        raise UserError(str(exc)) from None
    if args.game is not None and args.game != report.game:
        raise UserError(f"{path} is the report of game {report.game}, not game {args.game}")
    if not args.quiet:
        print(f"{path}: game {report.game}, {report.game_id} on {report.profile}, recorded by "
              f"board-referee {', '.join(report.recorded_by) or '?'}; firmware "
              f"{'; '.join(report.firmware) or 'not said'}")  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="board-referee-report-") as tmp:
        try:
            config_dir = unpack_configs(report, Path(tmp))
        except (ReportError, OSError) as exc:
            raise UserError(f"{path}: {exc}") from None
        return _run(args, list(report.entries), report.game, config_dir, report.problem)


def _run(
    args: argparse.Namespace, entries: list[Any], game: int, config_dir: Path | None, problem: str
) -> int:
    def show(at: float, turn: str, decided: list[str]) -> None:
        if args.verbose or args.step:
            for words in decided:
                print(f"{at:9.3f} s  {words}   (after {turn})")

    result = replay(entries, config_dir=config_dir, pace=sleeper(args.speed, args.step),
                    on_turn=show)  # fmt: skip
    if problem:
        result.problems.insert(0, problem)
    if not args.quiet:
        print(summary(entries, game))
    return _report(result, game)


def summary(entries: list[Any], game: int) -> str:
    """What the recording holds, in a few lines: the moves as they stand and the result."""
    moves: list[str] = []
    result = ""
    for entry in entries:
        kind = entry[0] if entry else ""
        if kind == MOVE and len(entry) > 1:
            moves.append(str(entry[1]))
            result = ""
        elif kind == TAKEBACK and len(entry) > 1 and str(entry[1]).isdigit():
            del moves[len(moves) - int(entry[1]) :]
            result = ""
        elif kind == RESULT and len(entry) > 1:
            result = str(entry[1])
    shown = " ".join(moves) if len(moves) <= 12 else (" ".join(moves[:6]) + " … "
                                                     + " ".join(moves[-5:]))  # fmt: skip
    lines = [f"game {game}: {count(len(moves), 'move')} recorded"
             + (f" ({shown})" if moves else "")]  # fmt: skip
    if result:
        lines.append(f"result: {result}")
    return "\n".join(lines)


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
