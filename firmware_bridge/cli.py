"""The ``board-referee`` command.

Subcommands:
  games   list the games this installation can referee, with their options
  moves   JSON for a position: its layout and every legal move with the layout after it
  play    adjudicate a game in the terminal from a move list, or by self-play
  demo    self-play of the two acceptance games, printing the board after every move

Any user error (unknown game or option, bad config, malformed position, illegal move) is one
line on stderr and exit status 2; never a traceback.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from engine import (
    ConfigError,
    Effect,
    Footprint,
    Game,
    IllegalMoveError,
    InvalidMoveError,
    Move,
    Piece,
    PositionError,
    State,
)
from firmware_bridge import catalog
from firmware_bridge.render import render_state

EXIT_USAGE = 2
USER_ERRORS = (ConfigError, IllegalMoveError, InvalidMoveError, PositionError)


class UserError(Exception):
    """A problem with what the user asked for; reported as one line, exit status 2."""


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        result: int = args.handler(args)
        return result
    except (UserError, *USER_ERRORS) as exc:
        print(f"board-referee: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:  # e.g. `board-referee moves ... | head`
        return 0
    except KeyboardInterrupt:
        print("board-referee: interrupted", file=sys.stderr)
        return 130


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="board-referee",
        description="Referee for sensor-equipped physical game boards.",
    )
    parser.add_argument(
        "--config-dir",
        help=f"folder holding games/ and boards/ (default: ${catalog.ENV_VAR}, then the "
        "project's config/)",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    games = sub.add_parser("games", help="list the games and their options")
    games.set_defaults(handler=_cmd_games)

    moves = sub.add_parser("moves", help="JSON: a position and its legal moves with footprints")
    _game_arguments(moves)
    moves.add_argument("--moves", default="", help='moves to play first, e.g. "b2-b5 xd6"')
    moves.add_argument("--position", help="start from this JSON position file instead")
    moves.add_argument("--indent", type=int, default=None, help="pretty-print the JSON")
    moves.set_defaults(handler=_cmd_moves)

    play = sub.add_parser("play", help="adjudicate a game from a move list or by self-play")
    _game_arguments(play)
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

    demo = sub.add_parser("demo", help="self-play of Three Dragons and Protect the Goat")
    demo.add_argument("--seed", type=int, default=7)
    demo.set_defaults(handler=_cmd_demo)
    return parser


def _game_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--game", required=True, help="game id, e.g. three-dragons")
    parser.add_argument(
        "--option", action="append", default=[], metavar="KEY=VALUE",
        help="a game option, e.g. variant=strength (repeatable)",
    )  # fmt: skip


def parse_options(pairs: Sequence[str]) -> dict[str, str]:
    options: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise UserError(f"--option {pair!r}: expected KEY=VALUE")
        options[key.strip()] = value.strip()
    return options


def _load(args: argparse.Namespace) -> Game:
    directory = catalog.config_dir(args.config_dir)
    return catalog.load_game(args.game, parse_options(args.option), directory)


def _start(game: Game, position: str | None) -> State:
    if not position:
        return game.new_state()
    path = Path(position)
    try:
        text = sys.stdin.read() if position == "-" else path.read_text(encoding="utf-8")
    except OSError as exc:
        raise UserError(f"{position}: cannot read: {exc.strerror or exc}") from exc
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UserError(
            f"{position}: not valid JSON: line {exc.lineno}, column {exc.colno}: {exc.msg}"
        ) from exc
    return game.state_from_json(data)


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


# -- games ---------------------------------------------------------------------------------


def _cmd_games(args: argparse.Namespace) -> int:
    directory = catalog.config_dir(args.config_dir)
    for game_id in catalog.game_ids(directory):
        game = catalog.load_game(game_id, {}, directory)
        print(f"{game.id}: {game.title}")
        for spec in game.option_specs.values():
            print(f"    --option {spec.describe()}")
    return 0


# -- moves ---------------------------------------------------------------------------------


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
    game = _load(args)
    state = _start(game, args.position)
    play_moves(state, args.moves.split())
    json.dump(moves_report(state), sys.stdout, indent=args.indent)
    sys.stdout.write("\n")
    return 0


# -- play ----------------------------------------------------------------------------------


def choose_move(state: State, rng: random.Random, policy: str) -> Move:
    """Self-play: a random legal move, or (greedy) one that does best on material."""
    moves = list(state.legal_moves())
    if policy == "random" or len(moves) == 1:
        return rng.choice(moves)
    player = state.to_move
    best: list[Move] = []
    best_score = None
    before = state.layout()
    for footprint in state.footprints():
        after = footprint.result_layout(before)
        score = sum(1 if p.owner is player else -1 for p in after.values())
        if footprint.outcome is not None and footprint.outcome.winner is not None:
            score += 1000 if footprint.outcome.winner is player else -1000
        if best_score is None or score > best_score:
            best, best_score = [footprint.move], score
        elif score == best_score:
            best.append(footprint.move)
    return rng.choice(best)


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
        effect = state.apply(move)
        show(number, state.notation(move), effect)
    if quiet:
        print(render_state(state), file=out)
    outcome = state.outcome()
    if outcome is not None:
        print(f"\nresult: {outcome.describe(state.game.player_names)}", file=out)
    else:
        print(f"\nno result yet after {number} moves", file=out)


def _option_text(game: Game) -> str:
    return ", ".join(f"{k}={v}" for k, v in game.options.items())


def _cmd_play(args: argparse.Namespace) -> int:
    game = _load(args)
    state = _start(game, args.position)
    tokens = args.moves.split()
    if args.moves_file:
        source = args.moves_file
        try:
            text = sys.stdin.read() if source == "-" else Path(source).read_text("utf-8")
        except OSError as exc:
            raise UserError(f"{source}: cannot read: {exc.strerror or exc}") from exc
        tokens += _strip_comments(text)
    if not tokens and not args.self_play:
        raise UserError("give the moves (--moves or --moves-file) or ask for --self-play")
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


def _cmd_demo(args: argparse.Namespace) -> int:
    directory = catalog.config_dir(args.config_dir)
    for game_id, options in (
        ("three-dragons", {"variant": "strength"}),
        ("protect-the-goat", {}),
    ):
        game = catalog.load_game(game_id, options, directory)
        print("=" * 72)
        adjudicate(
            game.new_state(),
            [],
            self_play=True,
            rng=random.Random(args.seed),
            policy="greedy",
            max_moves=400,
            out=sys.stdout,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())


__all__ = ["main", "moves_report", "play_moves"]
