"""``board-referee engine``: the computer opponent as a process that speaks the engine
protocol on standard input and output (docs/engine.md), for the referee, the arena in tools/,
or any program that drives it."""

from __future__ import annotations

import argparse
import os
import sys

from firmware_bridge.commands.common import Subparsers
from firmware_bridge.link import catalog
from firmware_bridge.opponent.server import Engine, Kind, serve


def add_parser(sub: Subparsers, common: argparse.ArgumentParser) -> None:
    engine = sub.add_parser(
        "engine", parents=[common],
        help="the computer opponent: the engine protocol on standard input and output",
        description="Reads 'game ID [OPTION=VALUE ...]', 'position [moves M ...]', "
        "'go movetime MS' or 'go nodes N', 'setoption name level value 1-5', 'isready', "
        "'stop' and 'quit'; answers 'ok', 'info ...', 'bestmove M', 'readyok' or "
        "'error TEXT' (docs/engine.md).",
    )  # fmt: skip
    engine.add_argument(
        "--seed", type=int, default=None,
        help="the same position and 'go nodes N' give the same move every time",
    )  # fmt: skip
    engine.add_argument(
        "--player", choices=[kind.value for kind in Kind], default=Kind.SEARCH.value,
        help="who thinks: the search (default), or an opponent it is measured against: "
        "uniform random, the greedy policy of 'play', flat Monte Carlo",
    )  # fmt: skip
    engine.add_argument(
        "--nice", type=int, default=0, metavar="N",
        help="think at a lower priority (the referee starts its engine at 10, so its LEDs and "
        "pages never wait on a search)",
    )  # fmt: skip
    engine.set_defaults(handler=_cmd_engine)


def _cmd_engine(args: argparse.Namespace) -> int:
    directory = catalog.config_dir(args.config_dir)
    if args.nice:
        os.nice(max(0, min(args.nice, 19)))
    return serve(Engine(directory, Kind(args.player), args.seed, out=sys.stdout))
