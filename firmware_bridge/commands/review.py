"""``board-referee review``: a finished game's review from the command line, as the kiosk
shows it (docs/kiosk.md, "The review"): the engine's analysis at the lowest priority, kept
beside the journal, then the moves where the chances turned, in words. A review kept
already is printed at once."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from firmware_bridge.commands import logs
from firmware_bridge.commands.common import Subparsers, UserError, board_journal
from firmware_bridge.link import catalog
from firmware_bridge.opponent import REVIEW_MS


def add_parser(sub: Subparsers, common: argparse.ArgumentParser) -> None:
    review = sub.add_parser(
        "review", parents=[common],
        help="a finished game's review: where the chances turned, with the better moves",
    )  # fmt: skip
    where = review.add_mutually_exclusive_group(required=True)
    where.add_argument("--journal", help="the journal file that holds the game")
    where.add_argument(
        "--board-id",
        metavar="NAME",
        help="the board whose journal holds it (found as its referee finds it)",
    )
    review.add_argument("--game-id", type=int, required=True,
                        help="the game's number (board-referee records lists them)")  # fmt: skip
    review.add_argument("--review-ms", type=int, default=REVIEW_MS, metavar="MS",
                        help=f"the engine's time a position (default {REVIEW_MS})")  # fmt: skip
    review.add_argument("--review-playouts", type=int, default=None, metavar="N",
                        help="a fixed amount of analysis a position instead")  # fmt: skip
    review.add_argument("--timeout", type=float, default=900.0, metavar="SECONDS",
                        help="give up after this long (what was found is kept)")  # fmt: skip
    review.set_defaults(handler=_cmd_review)


def _cmd_review(args: argparse.Namespace) -> int:
    from firmware_bridge.faces.review_page import review_view
    from firmware_bridge.referee.review import Analyst, ReviewError

    if not 1 <= args.review_ms <= 60_000:
        raise UserError(f"--review-ms is milliseconds, 1 to 60000, not {args.review_ms}")
    if args.journal:
        journal = Path(args.journal)
    else:
        journal, looked = board_journal(args.board_id)
        if not journal.is_file():
            raise UserError(f"no journal for board {args.board_id} (looked at "
                            f"{', '.join(looked)})")  # fmt: skip
    if not journal.is_file():
        raise UserError(f"no journal at {journal}")
    directory = catalog.config_dir(args.config_dir)
    log = logs.configure(False, name="review")
    if args.review_playouts is not None and not 1 <= args.review_playouts <= 10_000_000:
        raise UserError(f"--review-playouts is 1 to 10000000, not {args.review_playouts}")
    analyst = Analyst(journal, directory, log, ms=args.review_ms, playouts=args.review_playouts)
    started = time.monotonic()
    try:
        try:
            view = review_view(journal, args.game_id, directory, analyst)
        except ReviewError as exc:
            raise UserError(str(exc)) from None
        if not view.complete:
            if not analyst.wait(args.game_id, args.timeout):
                problem = analyst.problem(args.game_id)
                raise UserError(problem or f"the review was not done in {args.timeout:g} s "
                                "(what was found is kept: run it again to go on)")  # fmt: skip
            view = review_view(journal, args.game_id, directory, analyst)
    finally:
        analyst.close()
    seconds = time.monotonic() - started
    print(f"Review of game {view.number}: {view.title}" + (f": {view.result}" if view.result
                                                            else ""))  # fmt: skip
    for _, text, _ in view.turns:
        print(f"  {text}")
    if not view.turns:
        print("  No move gave the chances away: the engine found nothing much better anywhere.")
    print(f"(analysed in {seconds:.1f} s)")
    return 0
