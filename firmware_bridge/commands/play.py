"""``board-referee games``, ``moves`` and ``play``: the engine at a terminal, no board.

- ``games``: the games this installation can referee, with their options.
- ``moves``: JSON for a position, its legal moves and the layout after each
  (docs/moves-command.md).
- ``play``: adjudicate a game from a move list, or by self-play.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Sequence
from typing import Any, TextIO

from engine import Effect, Footprint, Game, IllegalMoveError, InvalidMoveError, Move, Piece, State
from engine.search import greedy_move, random_move
from firmware_bridge.commands.common import (
    Subparsers,
    UserError,
    game_arguments,
    load_game,
    start_state,
)
from firmware_bridge.link import catalog
from firmware_bridge.link.render import render_state
from firmware_bridge.words import count


def add_parser(sub: Subparsers, common: argparse.ArgumentParser) -> None:
    games = sub.add_parser("games", parents=[common], help="list the games and their options")
    games.set_defaults(handler=_cmd_games)

    moves = sub.add_parser(
        "moves", parents=[common], help="JSON: a position and its legal moves with footprints"
    )
    game_arguments(moves)
    moves.add_argument("--moves", default="", help='moves to play first, e.g. "b2-b5 xd6"')
    moves.add_argument("--position", help="start from this JSON position file instead")
    moves.add_argument("--indent", type=int, default=None, help="pretty-print the JSON")
    moves.set_defaults(handler=_cmd_moves)

    play = sub.add_parser(
        "play", parents=[common], help="adjudicate a game from a move list or by self-play"
    )
    game_arguments(play)
    play.add_argument("--moves", default="", help="the moves of the game, space separated")
    play.add_argument("--moves-file", help="read the moves from this file (- for stdin)")
    play.add_argument("--position", help="start from this JSON position file")
    play.add_argument("--self-play", action="store_true", help="continue with self-play")
    play.add_argument("--seed", type=int, default=1, help="random seed for self-play")
    play.add_argument(
        "--policy", choices=("random", "greedy"), default="greedy",
        help="self-play: uniform random moves, or prefer moves that win material",
    )  # fmt: skip
    play.add_argument("--max-moves", type=int, default=1000, help="self-play move limit")
    play.add_argument("--quiet", action="store_true", help="print only the final board")
    play.set_defaults(handler=_cmd_play)


def play_moves(state: State, tokens: Sequence[str], on_effect: Any = None) -> None:
    """Apply each move text in turn; an illegal one raises with its number and reason."""
    for number, token in enumerate(tokens, start=1):
        try:
            move = state.parse(token)
            effect = state.apply(move)
        except (InvalidMoveError, IllegalMoveError) as exc:
            raise type(exc)(f"move {number} ({token}): {exc}") from exc
        if on_effect is not None:
            on_effect(number, token, effect)


def _cmd_games(args: argparse.Namespace) -> int:
    directory = catalog.config_dir(args.config_dir)
    for game_id in catalog.game_ids(directory):
        game = catalog.load_game(game_id, {}, directory)
        print(f"{game.id}: {game.title}")
        for spec in game.option_specs.values():
            print(f"    --option {spec.describe()}")
    return 0


def piece_json(piece: Piece | None) -> dict[str, object] | None:
    return None if piece is None else piece.to_json()


def moves_report(state: State) -> dict[str, Any]:
    """The JSON contract of ``board-referee moves`` (docs/moves-command.md)."""
    names = state.game.board.names
    before = state.layout()
    report = state.to_json()
    entries: list[dict[str, Any]] = []
    for footprint in state.footprints():
        entries.append(_move_entry(state, footprint, before, names))
    report["moves"] = entries
    return report


def _move_entry(
    state: State, footprint: Footprint, before: dict[int, Piece], names: tuple[str, ...]
) -> dict[str, Any]:
    after = footprint.result_layout(before)
    return {
        "move": state.notation(footprint.move),
        "hand": {names[c]: piece_json(p) for c, p in sorted(footprint.hand.items())},
        "layout": {names[c]: p.to_json() for c, p in sorted(after.items())},
        "to_move": int(footprint.to_move),
        "phase": footprint.phase,
        "outcome": None if footprint.outcome is None else footprint.outcome.to_json(),
    }


def _cmd_moves(args: argparse.Namespace) -> int:
    game = load_game(args)
    state = start_state(game, args.position)
    play_moves(state, args.moves.split())
    json.dump(moves_report(state), sys.stdout, indent=args.indent)
    sys.stdout.write("\n")
    return 0


def choose_move(state: State, rng: random.Random, policy: str) -> Move:
    """Self-play: a random legal move, or (greedy) one that does best on material (the
    baselines the computer's search is measured against, engine/search/baselines.py)."""
    return random_move(state, rng) if policy == "random" else greedy_move(state, rng)


def _print_effect(state: State, number: int, text: str, effect: Effect, out: TextIO) -> None:
    who = state.game.player_names[effect.player.index]
    print(f"\n{number}. {who}: {text}", file=out)
    for event in effect.events:
        print(f"   - {event.text}", file=out)
    print(render_state(state), file=out)


def adjudicate(
    state: State,
    tokens: Sequence[str],
    *,
    self_play: bool,
    rng: random.Random,
    policy: str,
    max_moves: int,
    out: TextIO,
    quiet: bool = False,
) -> None:
    def show(number: int, token: str, effect: Effect) -> None:
        if not quiet:
            _print_effect(state, number, token, effect, out)

    print(f"{state.game.title} ({_option_text(state.game)})", file=out)
    if not quiet:
        print(render_state(state), file=out)
    play_moves(state, tokens, show)
    number = len(tokens)
    while self_play and state.outcome() is None and number < max_moves:
        move = choose_move(state, rng, policy)
        number += 1
        text = state.notation(move)
        effect = state.apply(move)
        show(number, text, effect)
    if quiet:
        print(render_state(state), file=out)
    outcome = state.outcome()
    if outcome is not None:
        print(f"\nresult: {outcome.describe(state.game.player_names)}", file=out)
    else:
        print(f"\nno result yet after {count(number, 'move')}", file=out)


def _option_text(game: Game) -> str:
    return ", ".join(f"{k}={v}" for k, v in game.options.items())


def _cmd_play(args: argparse.Namespace) -> int:
    game = load_game(args)
    state = start_state(game, args.position)
    tokens = args.moves.split()
    if args.moves_file:
        source = args.moves_file
        tokens += _strip_comments(catalog.read_text(source))
    if not tokens and not args.self_play:
        raise UserError("give the moves (--moves or --moves-file) or ask for --self-play")
    if args.max_moves < 0:
        raise UserError(f"--max-moves is how many self-play moves at most: 0 or more, not "
                        f"{args.max_moves}")  # fmt: skip
    adjudicate(
        state,
        tokens,
        self_play=args.self_play,
        rng=random.Random(args.seed),
        policy=args.policy,
        max_moves=args.max_moves,
        out=sys.stdout,
        quiet=args.quiet,
    )
    return 0


def _strip_comments(text: str) -> list[str]:
    tokens: list[str] = []
    for line in text.splitlines():
        tokens += line.split("#", 1)[0].split()
    return [t for t in tokens if not t.rstrip(".").isdigit()]  # allow "1. b2-b5" numbering
