"""``board-referee replay``: a game's flight recording run again through this referee, turn by
turn with the recorded timing (or faster, or a turn at a time), and every turn where it
decides otherwise than the recorded one (docs/recorder.md)."""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from engine import ConfigError, Outcome, Player, declared
from firmware_bridge import words
from firmware_bridge.commands.common import Subparsers, UserError, game_title, side_names
from firmware_bridge.link import catalog
from firmware_bridge.referee.journal import Journal, read_records
from firmware_bridge.referee.recorder import (
    RecordingError,
)
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
    game, entries, _, problem = recorded_game(path, args.game)
    config_dir = Path(args.config_dir) if args.config_dir else None
    records = read_records(path, game)
    if records:
        record = records[0]
        moves = [m for m, _ in record.moves]
        said = summary(game, moves, record.outcome, record.players,
                       side_names(record.game, config_dir),
                       worded=in_words(record.game, record.options, record.start, moves,
                                       record.players, config_dir=config_dir))  # fmt: skip
    else:  # a recording without its record (edited by hand?): the summary says so
        said = summary(game, [], None, ("", ""))
        said += f"\n{path} has no record of game {game}: its moves are not listed"
    return _run(args, entries, game, config_dir=config_dir, said=said, problem=problem)


def recorded_game(path: Path, wanted: int | None) -> tuple[int, list[Any], int, str]:
    """Game ``wanted``'s recording in the journal at ``path`` (None: the last recorded): its
    entries, where its own begin (those before are an earlier game's of the same run, which a
    replay goes through to get there), and what stopped its reading ("" when nothing did):
    whatever is readable is given."""
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
            found = journal.game_recording(game)
            return game, list(found.entries), found.own, ""
        except RecordingError as exc:  # the readable part, and the damage named
            readable = list(getattr(exc, "readable", []))
            return game, readable, min(getattr(exc, "own", 0), len(readable)), str(exc)
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
        title = game_title(report.game_id, Path(args.config_dir) if args.config_dir else None)
        print(f"{path}: game {report.game}, {title} on board profile {report.profile}, "
              f"recorded by "
              f"board-referee {', '.join(report.recorded_by) or '?'}; firmware "
              f"{'; '.join(report.firmware) or 'not said'}")  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="board-referee-report-") as tmp:
        try:
            config_dir = unpack_configs(report, Path(tmp))
        except (ReportError, OSError) as exc:
            raise UserError(f"{path}: {exc}") from None
        people = report.players or ("", "")
        said = summary(report.game, report.moves, report.outcome, people,
                       side_names(report.game_id, config_dir),
                       worded=in_words(report.game_id, report.options, None,
                                       report.moves, people, config_dir=config_dir))  # fmt: skip
        return _run(args, list(report.entries), report.game, config_dir=config_dir,
                    said=said, problem=report.problem)  # fmt: skip


def _run(
    args: argparse.Namespace, entries: list[Any], game: int, *,
    config_dir: Path | None, said: str, problem: str = "",
) -> int:  # fmt: skip
    def show(at: float, turn: str, decided: list[str]) -> None:
        if args.verbose or args.step:
            for words in decided:
                print(f"{at:9.3f} s  {words}   (after {turn})")

    result = replay(entries, config_dir=config_dir, pace=sleeper(args.speed, args.step),
                    on_turn=show)  # fmt: skip
    if problem:
        result.problems.insert(0, problem)
    if not args.quiet:
        print(said)
    return _report(result, game)


def in_words(game_id: str, options: Mapping[str, Any], start: dict[str, Any] | None,
             moves: Sequence[str], people: Sequence[str], *,
             config_dir: Path | None) -> list[str] | None:  # fmt: skip
    """The moves (those played, not a declared result) as a hand made them ("goat on e1",
    "stone c1 to c4"); None when the game cannot be replayed here."""
    pair = (str(people[0]), str(people[1])) if len(people) == 2 else ("", "")
    try:
        game = catalog.load_game(game_id, dict(options), config_dir)
        state = game.state_from_json(start) if start else game.new_state()
        said = []
        for text in moves:
            move = state.parse(text)
            if declared(text) is None:
                said.append(words.said(state, move, pair))
            state.apply(move)
    except (ConfigError, OSError, ValueError):
        return None
    return said


def summary(
    game: int,
    moves: Sequence[str],
    outcome: dict[str, object] | None,
    people: Sequence[str],
    sides: tuple[str, str] = ("player 1", "player 2"),
    *,
    worded: Sequence[str] | None = None,
) -> str:
    """What game ``game``'s record holds, in a few lines, from the journal's (or the report's)
    own record of that game, never from the recording (which may begin in an earlier game of
    the same run): its players (and which is the computer), its moves as they stand and its
    result. A resignation or an agreed draw is the result, not a move."""
    played = [m for m in moves if declared(m) is None]
    said = list(worded) if worded is not None and len(worded) == len(played) else played
    gap = ", " if worded is not None and said is not played else " "
    shown = gap.join(said) if len(said) <= 12 else (gap.join(said[:6]) + " … "
                                                     + gap.join(said[-5:]))  # fmt: skip
    lines = [f"game {game}: {count(len(played), 'move')}" + (f" ({shown})" if played else "")]
    pair = (str(people[0]), str(people[1])) if len(people) == 2 else ("", "")
    if any(pair):
        named = [f"{who or 'not named'} ({side})" for who, side in zip(pair, sides, strict=True)]
        lines.append("players: " + " against ".join(named))
    if outcome:
        winner = outcome.get("winner")
        result = Outcome(Player(int(str(winner))) if winner in (1, 2) else None,
                         str(outcome.get("reason", "")))  # fmt: skip
        lines.append(f"result: {result.describe(sides, pair)}")
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
        verdict = count(len(result.differences), "difference")
    else:
        verdict = "no difference in what could be replayed (see above)"
    print(
        f"game {game}: {count(result.sessions, 'session')}, {result.turns:,} turns and "
        f"{result.decisions:,} decisions replayed: {verdict}"
    )
    return 0 if same else 1
