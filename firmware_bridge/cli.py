"""The ``board-referee`` command.

Subcommands:
  run      referee a game on a board connected over serial (the daemon)
  emulate  the board emulator: a pty that plays the firmware side of the protocol
  firmware the Raspberry Pi Pico firmware: config, flash, host (run it in MicroPython), bench
  check    the board check: every cell's sensor and LED, with what to fix
  board-template  a printable 1:1 SVG of a game's board, with its sensor and LED indexes
  club, records, install-service, kiosk-screen   the club view, the games kept, a Pi's
           services and its kiosk screen
  demo     the emulator and the daemon together, playing a scripted game of every game
  games    list the games this installation can referee, with their options
  moves    JSON for a position: its layout and every legal move with the layout after it
  play     adjudicate a game in the terminal from a move list, or by self-play

Any user error (unknown game or option, bad config, malformed position, illegal move) is one
line on stderr and exit status 2; never a traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import functools
import json
import os
import queue
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

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
from firmware_bridge.commands import logs, service
from firmware_bridge.faces import screen
from firmware_bridge.faces.controls import control_command
from firmware_bridge.faces.hosts import (
    WebError,
    add_allow_host_argument,
    is_loopback,
    load_token,
    page_urls,
    parse_address,
    raise_descriptor_limit,
    say_urls,
    state_dir,
)
from firmware_bridge.faces.mqtt import (
    BOARD_NAME,
    MAX_BOARDS,
    MqttError,
    MqttPublisher,
    parse_broker,
)
from firmware_bridge.link import catalog
from firmware_bridge.link.probe import ProbingLink, find_board
from firmware_bridge.link.render import render_state
from firmware_bridge.link.serial_link import (
    Link,
    LinkError,
    LinkEvent,
    PortError,
    SerialLink,
    check_port,
)
from firmware_bridge.referee.daemon import Daemon, DaemonError
from firmware_bridge.referee.journal import (
    DamagedGameError,
    Journal,
    JournalError,
    read_records,
)
from firmware_bridge.referee.records import record_row, record_text, result_words, results_csv

if TYPE_CHECKING:  # the pages and MQTT are imported only by the runs that use them
    from firmware_bridge.faces.kiosk import KioskServer

EXIT_USAGE = 2
DEFAULT_GAME = "three-dragons"
DEFAULT_KIOSK = "127.0.0.1:8080"
PROBE_EVERY = 2.0  # seconds between probes of the serial ports, with --port auto and no board
DEFAULT_EMULATOR_WEB = "127.0.0.1:8081"
# run --emulate: the simulated boards, and the command that starts each
EMULATED_BOARDS = {"python": ("emulate",), "firmware": ("firmware", "host"),
                   "chip": ("firmware", "chip")}  # fmt: skip
DEFAULT_CLUB = "127.0.0.1:8090"
MQTT_ACTIONS = frozenset({"takeback", "new-game"})  # what the club view may ask of a board
USER_ERRORS = (ConfigError, IllegalMoveError, InvalidMoveError, PositionError)


class UserError(Exception):
    """A problem with what the user asked for; reported as one line, exit status 2."""


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        result: int = args.handler(args)
        return result
    except (UserError, DaemonError, JournalError, WebError, MqttError, *USER_ERRORS) as exc:
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
    config_help = (
        f"folder holding games/ and boards/ (default: ${catalog.ENV_VAR}, then the project's "
        "config/); accepted before or after the command"
    )
    parser.add_argument("--config-dir", help=config_help)
    # The same option after the command (``run --config-dir DIR``) overrides the one before.
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--config-dir", default=argparse.SUPPRESS, help=config_help)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    run = sub.add_parser(
        "run", parents=[common], help="referee a game on a board (the daemon), with the kiosk"
    )
    _game_arguments(run, required=False)
    run.add_argument(
        "--port", default=os.environ.get("BOARD_REFEREE_PORT"),
        help="the board's serial port: a device (/dev/ttyACM0), socket://HOST:PORT, "
        "rfc2217://HOST:PORT, spy://DEVICE, the emulator's link path, or auto (probe the "
        "serial ports, /dev/serial/by-id first, for a board that answers) "
        "(default: $BOARD_REFEREE_PORT; with neither, the built-in board emulator is started "
        "with its web page)",
    )  # fmt: skip
    run.add_argument(
        "--kiosk", default=os.environ.get("BOARD_REFEREE_KIOSK", DEFAULT_KIOSK),
        metavar="HOST:PORT",
        help=f"serve the kiosk page here (default: $BOARD_REFEREE_KIOSK, else {DEFAULT_KIOSK}; "
        "beyond loopback, controls need the access token kept beside the journal)",
    )  # fmt: skip
    run.add_argument("--no-kiosk", action="store_true", help="do not serve the kiosk page")
    add_allow_host_argument(run)
    run.add_argument(
        "--emulate", choices=list(EMULATED_BOARDS), default="python",
        help="without --port: the simulated board to play on: python (the firmware played in "
        "Python, the fastest), firmware (the Pico firmware in MicroPython's Unix port) or "
        "chip (the board's UF2 on an emulated RP2040, at a fraction of a Pico's speed)",
    )  # fmt: skip
    run.add_argument(
        "--emulator-web", default=DEFAULT_EMULATOR_WEB, metavar="HOST:PORT",
        help=f"without --port: where the emulated board's page is served "
        f"(default {DEFAULT_EMULATOR_WEB})",
    )  # fmt: skip
    run.add_argument("--board", help="hardware profile in config/boards/ (default: the game's)")
    run.add_argument(
        "--board-id", default=os.environ.get("BOARD_REFEREE_BOARD_ID"), metavar="NAME",
        help="this board's name at the club (table1): names its journal, its systemd unit "
        "and its MQTT topics (default: $BOARD_REFEREE_BOARD_ID)",
    )  # fmt: skip
    run.add_argument(
        "--journal", default=os.environ.get("BOARD_REFEREE_JOURNAL"),
        help="game journal file (default: $BOARD_REFEREE_JOURNAL, else "
        "$XDG_STATE_HOME/board-referee/journal-BOARD.sqlite3, BOARD named by --board-id, else "
        "by the port: journal-emulator.sqlite3 with none)",
    )  # fmt: skip
    _mqtt_arguments(run)
    run.add_argument(
        "--mqtt-commands", action="store_true",
        default=os.environ.get("BOARD_REFEREE_MQTT_COMMANDS", "") in ("1", "yes", "true"),
        help="accept new game and take back from the club view over MQTT (the broker's "
        "credentials and ACLs decide who may send them; docs/mqtt.md)",
    )  # fmt: skip
    run.add_argument("--settle-ms", type=int, help="override the profile's settle window")
    run.add_argument("--position", help="start the new game from this JSON position")
    run.add_argument("--new", action="store_true", help="abandon an unfinished game")
    run.add_argument("--verbose", action="store_true", help="log every frame")
    run.set_defaults(handler=_cmd_run)

    club = sub.add_parser(
        "club", parents=[common],
        help="the club view: every board published to an MQTT broker, on one page",
    )  # fmt: skip
    _mqtt_arguments(club, "follow the boards on")
    club.add_argument(
        "--listen", default=os.environ.get("BOARD_REFEREE_CLUB", DEFAULT_CLUB), metavar="HOST:PORT",
        help=f"serve the page here (default: $BOARD_REFEREE_CLUB, else {DEFAULT_CLUB}; beyond "
        "loopback, controls need the access token kept beside the results)",
    )  # fmt: skip
    club.add_argument(
        "--alert-after",
        type=float,
        default=20.0,
        metavar="SECONDS",
        help="an illegal move uncorrected this long is an alert (default 20)",
    )
    club.add_argument("--results", metavar="FILE",
                      help="where finished games are kept (default: club-results.jsonl in "
                      "$XDG_STATE_HOME/board-referee/)")  # fmt: skip
    club.add_argument("--max-boards", type=int, default=MAX_BOARDS, metavar="N",
                      help=f"follow at most N boards; others are ignored with a log line "
                      f"(default {MAX_BOARDS})")  # fmt: skip
    add_allow_host_argument(club)
    club.add_argument("--verbose", action="store_true", help="log more")
    club.set_defaults(handler=_cmd_club)

    emulate = sub.add_parser(
        "emulate", parents=[common], help="the board emulator (a pty playing the firmware side)",
        description="Board emulator. Commands: lift, place, move, play, press, follow, expect, "
        "wait, flicker, slide, knock, garbage, corrupt, drop, unplug, replug, fault, show, "
        "say, quit (details: docs/emulator.md).",
    )  # fmt: skip
    from firmware_bridge.commands import emulate as emulate_command

    emulate_command.add_arguments(emulate)
    emulate.set_defaults(handler=_cmd_emulate)

    from firmware_bridge.commands import firmware

    firmware.add_arguments(sub, common, _cmd_firmware)

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

    board_template = sub.add_parser(
        "board-template", parents=[common],
        help="a printable 1:1 SVG of a game's board: cells, sensor and LED indexes",
    )  # fmt: skip
    _game_arguments(board_template)
    board_template.add_argument("--board", help="hardware profile (default: the game's own)")
    board_template.add_argument("--cell-mm", type=float, default=40.0,
                                help="a cell's size in millimetres (default 40)")  # fmt: skip
    board_template.add_argument(
        "--page",
        choices=("a4", "a3", "letter"),
        help="cut it into pages of this size, overlapping 10 mm",
    )
    board_template.add_argument(
        "--output",
        "-o",
        default=None,
        help="the SVG file (default GAME-PROFILE.svg; pages: -r1c1 ...)",
    )
    board_template.set_defaults(handler=_cmd_board_template)

    games = sub.add_parser("games", parents=[common], help="list the games and their options")
    games.set_defaults(handler=_cmd_games)

    moves = sub.add_parser(
        "moves", parents=[common], help="JSON: a position and its legal moves with footprints"
    )
    _game_arguments(moves)
    moves.add_argument("--moves", default="", help='moves to play first, e.g. "b2-b5 xd6"')
    moves.add_argument("--position", help="start from this JSON position file instead")
    moves.add_argument("--indent", type=int, default=None, help="pretty-print the JSON")
    moves.set_defaults(handler=_cmd_moves)

    play = sub.add_parser(
        "play", parents=[common], help="adjudicate a game from a move list or by self-play"
    )
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

    service = sub.add_parser(
        "install-service", parents=[common],
        help="install the systemd units (shared by every board) and this board's settings",
        description="Writes the systemd units board-referee@.service (and, with --kiosk-user, "
        "board-referee-kiosk@.service), shared by every board on this machine, and this "
        "board's own settings in /etc/board-referee/NAME.env, which the units read. Run it "
        "once per board; a board's other settings in its file are kept.",
    )  # fmt: skip
    service.add_argument("--board-id", required=True, metavar="NAME", help="the board's name")
    service.add_argument("--port", default="auto",
                         help="the board's port: auto, or a stable name such as "
                         "/dev/board-referee-NAME (default: auto)")  # fmt: skip
    service.add_argument("--game", help="the game (default: the journal's, else three-dragons)")
    service.add_argument(
        "--kiosk", default=DEFAULT_KIOSK, metavar="HOST:PORT",
        help=f"where this board's kiosk page is served (default {DEFAULT_KIOSK}; a second "
        "board needs another port)",
    )  # fmt: skip
    service.add_argument("--mqtt", metavar="URL", help="publish this board to the club's broker")
    service.add_argument("--mqtt-password-file", metavar="FILE",
                         help="the file holding this board's broker password")  # fmt: skip
    service.add_argument("--mqtt-commands", action="store_true",
                         help="accept new game and take back from the club view")  # fmt: skip
    service.add_argument("--user", default="root", help="the user the referee runs as")
    service.add_argument("--kiosk-user", help="also a kiosk screen unit: Chromium in kiosk "
                         "mode on this desktop user's screen")  # fmt: skip
    service.add_argument(
        "--state-dir", default="/var/lib/board-referee",
        help="where the journals are kept (default /var/lib/board-referee)",
    )  # fmt: skip
    service.add_argument(
        "--dest", default="/", metavar="DIR",
        help="write everything under DIR instead of / (DIR/etc/systemd/system, "
        "DIR/etc/board-referee), to look at or check a set-up before installing it",
    )  # fmt: skip
    service.set_defaults(handler=_cmd_install_service)

    screen = sub.add_parser(
        "kiosk-screen", parents=[common],
        help="show a board's kiosk page full screen (run by the kiosk screen unit)",
    )  # fmt: skip
    screen.add_argument("--board-id", default=os.environ.get("BOARD_REFEREE_BOARD_ID", "board"),
                        metavar="NAME", help="the board's name")  # fmt: skip
    screen.add_argument(
        "--kiosk", default=os.environ.get("BOARD_REFEREE_KIOSK", DEFAULT_KIOSK),
        metavar="HOST:PORT",
        help=f"the board's kiosk page (default: $BOARD_REFEREE_KIOSK, else {DEFAULT_KIOSK})",
    )  # fmt: skip
    screen.set_defaults(handler=_cmd_kiosk_screen)

    records = sub.add_parser(
        "records", parents=[common], help="the games in the journals: list, or one game's record"
    )
    records.add_argument(
        "--journal", action="append",
        help="a journal file (repeatable; default: every journal in "
        "$XDG_STATE_HOME/board-referee/)",
    )  # fmt: skip
    records.add_argument("--game-id", type=int, help="one game's record (its number in the list)")
    records.add_argument("--json", action="store_true", help="JSON instead of text")
    records.add_argument(
        "--csv", action="store_true",
        help="every game as CSV (board, game, players, result, moves, start and end), for a "
        "tournament's spreadsheet",
    )  # fmt: skip
    records.set_defaults(handler=_cmd_records)

    demo = sub.add_parser(
        "demo", parents=[common], help="emulator + daemon: a scripted game of every game"
    )
    demo.add_argument("--pace", type=float, default=0.35, help="seconds between hand actions")
    demo.add_argument("--game", action="append", help="only this game (repeatable)")
    _mqtt_arguments(demo)  # publish each game as board demo-GAME, e.g. to watch a club view
    demo.set_defaults(handler=_cmd_demo)
    return parser


def token_path(journal_path: Path) -> Path:
    """The kiosk's access token file (beside the journal; the emulated board's page shares it)."""
    return journal_path.parent / "kiosk-token"


def _mqtt_arguments(parser: argparse.ArgumentParser, verb: str = "publish to") -> None:
    env = os.environ.get
    parser.add_argument(
        "--mqtt", default=env("BOARD_REFEREE_MQTT"), metavar="URL",
        help=f"{verb} this MQTT broker: mqtt://[USER[:PASSWORD]@]HOST[:PORT], or mqtts:// "
        "for TLS (default: $BOARD_REFEREE_MQTT; docs/mqtt.md)",
    )  # fmt: skip
    parser.add_argument("--mqtt-user", default=env("BOARD_REFEREE_MQTT_USER"),
                        help="the broker login (default: $BOARD_REFEREE_MQTT_USER)")  # fmt: skip
    parser.add_argument(
        "--mqtt-password-file", default=env("BOARD_REFEREE_MQTT_PASSWORD_FILE"), metavar="FILE",
        help="a file holding the broker password (default: $BOARD_REFEREE_MQTT_PASSWORD_FILE, "
        "else $BOARD_REFEREE_MQTT_PASSWORD, else the URL's)",
    )  # fmt: skip
    parser.add_argument("--mqtt-ca", default=env("BOARD_REFEREE_MQTT_CA"), metavar="FILE",
                        help="CA certificate for mqtts:// (default: the system's)")  # fmt: skip
    parser.add_argument(
        "--mqtt-prefix", default=env("BOARD_REFEREE_MQTT_PREFIX"), metavar="TOPIC",
        help="topic prefix (default: board-referee/v1)",
    )  # fmt: skip


def _broker(args: argparse.Namespace) -> Any:
    return parse_broker(
        args.mqtt, username=args.mqtt_user, password=os.environ.get("BOARD_REFEREE_MQTT_PASSWORD"),
        password_file=args.mqtt_password_file, ca_file=args.mqtt_ca, prefix=args.mqtt_prefix,
    )  # fmt: skip


def _game_arguments(parser: argparse.ArgumentParser, *, required: bool = True) -> None:
    helptext = "game id, e.g. three-dragons" + (
        "" if required else f" (default: the journal's unfinished game, else {DEFAULT_GAME})"
    )
    if required:
        parser.add_argument("--game", required=True, help=helptext)
    else:  # run: a board's game can be set in its environment file
        parser.add_argument("--game", default=os.environ.get("BOARD_REFEREE_GAME") or None,
                            help=helptext.replace("(default: ", "(default: $BOARD_REFEREE_GAME, "
                                                  "else "))  # fmt: skip
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
    return game.state_from_json(catalog.read_json(position))


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
        text = state.notation(move)
        effect = state.apply(move)
        show(number, text, effect)
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
        tokens += _strip_comments(catalog.read_text(source))
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


def _board_id(name: str) -> str:
    """``--board-id``, checked against the board-name rule its MQTT topics follow."""
    if not BOARD_NAME.fullmatch(name):
        raise UserError(f"--board-id {name!r}: letters, digits, '.', '_' and '-' only")
    return name


def _cmd_install_service(args: argparse.Namespace) -> int:
    """The shared units, and this board's settings in its own environment file (see
    firmware_bridge/commands/service.py); then how to start them."""
    name = _board_id(args.board_id)
    parse_address(args.kiosk)
    if args.port != "auto":
        try:
            check_port(args.port)
        except PortError as exc:
            raise UserError(str(exc)) from exc
    if args.mqtt:
        try:
            parse_broker(args.mqtt)
        except MqttError as exc:
            raise UserError(str(exc)) from exc
    root = Path(args.dest)
    installation = service.Installation(
        python=sys.executable, user=args.user, state_dir=args.state_dir,
        docs=str(Path(__file__).resolve().parent.parent / "docs"), kiosk_user=args.kiosk_user,
    )  # fmt: skip
    settings = {"BOARD_REFEREE_PORT": args.port, "BOARD_REFEREE_KIOSK": args.kiosk}
    if args.game:
        settings["BOARD_REFEREE_GAME"] = args.game
    if args.config_dir:
        settings["BOARD_REFEREE_CONFIG"] = str(Path(args.config_dir).resolve())
    if args.mqtt:
        settings["BOARD_REFEREE_MQTT"] = args.mqtt
    if args.mqtt_password_file:
        settings["BOARD_REFEREE_MQTT_PASSWORD_FILE"] = str(Path(args.mqtt_password_file).resolve())
    if args.mqtt_commands:
        settings["BOARD_REFEREE_MQTT_COMMANDS"] = "1"
    env_file = service.env_path(root, name)
    try:
        before = env_file.read_text(encoding="utf-8") if env_file.is_file() else ""
        units = service.unit_texts(installation)
        env = service.env_text(name, settings, before)
        unit_dir = root / service.UNIT_DIR
        unit_dir.mkdir(parents=True, exist_ok=True)
        for unit, text in units.items():
            (unit_dir / unit).write_text(text, encoding="utf-8")
            print(f"wrote {unit_dir / unit}")
        env_file.parent.mkdir(parents=True, exist_ok=True)
        env_file.write_text(env, encoding="utf-8")
        print(f"wrote {env_file}")
    except service.ServiceError as exc:
        raise UserError(str(exc)) from exc
    except OSError as exc:
        where = exc.filename or root
        raise UserError(f"cannot write {where}: {exc.strerror or exc} (as root: sudo)") from exc
    clash = _kiosk_clash(root, name, args.kiosk)
    if clash:
        print(f"note: board {clash} serves its kiosk page on {args.kiosk} too; give one of them "
              "another --kiosk port")  # fmt: skip
    enable = " ".join(u.replace("@.", f"@{name}.") for u in units)
    print(f"start them now and at every boot: sudo systemctl daemon-reload && "
          f"sudo systemctl enable --now {enable}")  # fmt: skip
    print(f"journals go to {args.state_dir}; this board's settings are in "
          f"/etc/board-referee/{name}.env")  # fmt: skip
    return 0


def _kiosk_clash(root: Path, name: str, address: str) -> str | None:
    """Another board of this machine whose kiosk page is at ``address`` too."""
    port = parse_address(address)[1]
    for path in sorted((root / service.ENV_DIR).glob("*.env")):
        other = service.read_env(path).get("BOARD_REFEREE_KIOSK")
        if path.stem != name and other:
            with contextlib.suppress(WebError):
                if parse_address(other)[1] == port:
                    return path.stem
    return None


def _cmd_kiosk_screen(args: argparse.Namespace) -> int:
    """Wait for the desktop and the page, then become Chromium in kiosk mode on it."""
    address = parse_address(args.kiosk)
    browser = screen.find_browser()
    if browser is None:
        names = ", ".join(screen.BROWSERS)
        raise UserError(f"no browser for the kiosk screen: install one of {names} "
                        "(sudo apt-get install chromium)")  # fmt: skip
    say = functools.partial(print, file=sys.stderr, flush=True)
    desktop = screen.wait_for(lambda: screen.find_desktop(os.environ, os.getuid()),
                              "the desktop (Wayland or X11) to start", say)  # fmt: skip
    assert isinstance(desktop, screen.Desktop)
    url = screen.page_url(address)
    screen.wait_for(lambda: screen.page_answers(address), f"the kiosk page at {url}", say)
    command = screen.browser_command(browser, desktop, url,
                                     screen.profile_dir(os.environ, args.board_id))  # fmt: skip
    say(f"showing {url} on the {desktop.kind} desktop: {' '.join(command)}")
    screen.launch(command, desktop.env)
    return 0  # not reached: launch replaces this process


def _cmd_records(args: argparse.Namespace) -> int:
    """Finished and unfinished games, from the journals: a list, or one game's record as text
    that ``play --moves-file`` replays, or as JSON."""
    if args.journal:
        paths = [Path(p) for p in args.journal]
        for path in paths:
            if not path.is_file():
                raise UserError(f"{path}: no such journal")
    else:
        folder = state_dir()
        paths = sorted(folder.glob("journal*.sqlite3")) if folder.is_dir() else []
        if not paths:
            raise UserError(f"no journals in {folder} (name one with --journal)")
    records = [record for path in paths for record in read_records(path)]
    if args.csv:
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
    for record in records:
        result = result_words(record, args.config_dir)
        print(f"{Path(record.journal).name} game {record.id}: {record.game} on {record.profile}, "
              f"{record.started[:16].replace('T', ' ')}, {record.status}, {len(record.moves)} "
              f"moves{': ' + result if result else ''}")  # fmt: skip
    return 0


def _journal_path(given: str | None, port: str | None) -> Path:
    """The journal: as given, else one per board (named after its port), so two tables on one
    machine never share one."""
    if given:
        return Path(given)
    return state_dir() / f"journal-{board_slug(port)}.sqlite3"


def board_slug(port: str | None) -> str:
    """A file-name-safe name for the board on ``port`` (``emulator`` with no port)."""
    if not port:
        return "emulator"
    name = port.split("://", 1)[-1] if "://" in port else Path(port).name
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-.")
    return slug[:80] or "board"


def _cmd_run(args: argparse.Namespace) -> int:
    log = logs.configure(args.verbose)
    directory = catalog.config_dir(args.config_dir)
    probing = False
    if args.port == "auto":  # find the board: the first port that answers HELLO
        try:
            found = find_board()
        except PortError as exc:  # not plugged in yet (a Pi booting): wait for it, and say so
            probing = True
            log.warning("%s; waiting for a board, looking again every %.0f s", exc,
                        PROBE_EVERY)  # fmt: skip
        else:
            args.port = found.port
            log.info("--port auto: board %r (firmware %s) answers on %s", found.hello.board_id,
                     found.hello.firmware, found.port)  # fmt: skip
    if args.port and not probing:
        try:
            check_port(args.port)
        except PortError as exc:
            raise UserError(str(exc)) from exc
    if args.board_id is not None:
        _board_id(args.board_id)
    journal_path = _journal_path(args.journal, args.board_id or args.port)
    kiosk = None if args.no_kiosk else parse_address(args.kiosk)
    raise_descriptor_limit()  # room for the board, the journal and the pages under their caps
    broker = _broker(args) if args.mqtt else None
    journal = Journal(journal_path)
    emulator: subprocess.Popen[str] | None = None
    server: KioskServer | None = None
    publisher: MqttPublisher | None = None
    folder: Path | None = None
    try:
        game, profile = _run_game(args, journal, directory)
        if args.settle_ms is not None:
            if not 0 <= args.settle_ms <= 10000:
                raise UserError("--settle-ms must be between 0 and 10000")
            profile = dataclasses.replace(profile, settle=args.settle_ms / 1000.0)
        start = _start(game, args.position) if args.position else None
        port = args.port
        stop = threading.Event()
        # SIGHUP too: a closed terminal stops the referee cleanly, and it ends its emulator.
        for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(signum, lambda *_: stop.set())
        opened = None
        link_factory: Callable[[queue.Queue[LinkEvent]], Link] | None = None
        if probing:
            link_factory = functools.partial(ProbingLink, profile.baudrate, every=PROBE_EVERY)
        elif port:  # open it now, so a port that can never work is one line before any other
            link = SerialLink(port, profile.baudrate, queue.Queue())
            try:
                link.open()
                opened = link
            except PortError as exc:
                raise UserError(str(exc)) from exc
            except LinkError:
                pass  # not there yet: the daemon waits for it, and says so
        else:  # no hardware: the built-in board emulator, on a pty
            folder = Path(tempfile.mkdtemp(prefix="board-referee-"))
            port = str(folder / "board")
        try:
            daemon = Daemon(game, profile, journal, port, log=log, start=start,
                            new_game=args.new, opened=opened,
                            link_factory=link_factory)  # fmt: skip
        except BaseException:
            if opened is not None:
                opened.close()
            raise
        kiosk_url = ""
        if kiosk is not None:
            from firmware_bridge.faces.kiosk import KioskServer

            token = None if is_loopback(kiosk[0]) else load_token(journal_path.parent)
            server = KioskServer(kiosk[0], kiosk[1], submit=daemon.submit, config_dir=directory,
                                 token=token, log=log, journal=journal_path,
                                 allow_hosts=tuple(args.allow_host),
                                 board_name=args.board_id or "")  # fmt: skip
            kiosk_url = server.start()
            daemon.add_listener(server.publish)
            log.info("kiosk page: %s", say_urls(page_urls(*kiosk)))
            if token is not None:  # where it is, never what it is: logs are kept and shared
                log.info("kiosk controls need the access token kept in %s: open the page "
                         "once with ?token= and its contents",
                         token_path(journal_path))  # fmt: skip
        if broker is not None:
            publisher = _publisher(args, broker, daemon, directory, log)
        if folder is not None:
            emulator, board_url = _start_emulator(
                args, game=daemon.game, profile=daemon.profile, directory=directory,
                link=Path(port), kiosk_url=kiosk_url, token_file=token_path(journal_path),
                position=daemon.state if args.position else None,
            )  # fmt: skip
            log.info("no --port given: playing on the built-in board emulator; "
                     "the emulated board's page: %s", board_url)  # fmt: skip
        daemon.run(stop)
    finally:
        if server is not None:
            server.stop()
        if publisher is not None:
            publisher.stop()
        if emulator is not None:
            emulator.terminate()
            try:
                emulator.wait(5)
            except subprocess.TimeoutExpired:
                emulator.kill()
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)
        journal.close()
    log.info("stopped")
    return 0


def _publisher(
    args: argparse.Namespace, broker: Any, daemon: Daemon, directory: Path, log: Any
) -> MqttPublisher:
    """The board's MQTT face, named by --board-id (else its port), with commands if asked."""
    known = set(catalog.game_ids(directory))

    def command(body: dict[str, Any], current: tuple[str, str]) -> Any:
        # A bad control raises ControlError, a ValueError: the publisher answers it.
        return control_command(body, config_dir=directory, known=known, current=current,
                               source="club (MQTT)", allowed=MQTT_ACTIONS)  # fmt: skip

    name = args.board_id or board_slug(args.port)
    publisher = MqttPublisher(broker, name, log=log,
                              submit=daemon.submit if args.mqtt_commands else None,
                              commands=command if args.mqtt_commands else None)  # fmt: skip
    publisher.start()
    daemon.add_listener(publisher.publish)
    return publisher


def _cmd_club(args: argparse.Namespace) -> int:
    """The director's page, fed by the broker, until stopped."""
    log = logs.configure(args.verbose)
    if not args.mqtt:
        raise UserError("say which broker: --mqtt mqtt://HOST[:PORT] (or $BOARD_REFEREE_MQTT)")
    broker = _broker(args)
    host, port = parse_address(args.listen, "--listen")
    if not 0 < args.alert_after <= 3600:
        raise UserError("--alert-after must be between 0 and 3600 seconds")
    directory = catalog.config_dir(args.config_dir)
    results = Path(args.results) if args.results else state_dir() / "club-results.jsonl"
    token = None
    if not is_loopback(host):
        token = load_token(results.parent, "club-token")
    if not 1 <= args.max_boards <= 10000:
        raise UserError("--max-boards must be between 1 and 10000")
    raise_descriptor_limit()
    from firmware_bridge.faces.club import ClubServer

    server = ClubServer(host, port, broker=broker, config_dir=directory, token=token, log=log,
                        results_path=results, alert_after=args.alert_after,
                        max_boards=args.max_boards,
                        allow_hosts=tuple(args.allow_host))  # fmt: skip
    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())
    server.start()
    log.info("club view: %s; boards from %s", say_urls(page_urls(host, port)), broker.describe())
    if token is not None:  # where it is, never what it is: logs are kept and shared
        log.info("club view controls need the access token kept in %s: open the page once "
                 "with ?token= and its contents", results.parent / "club-token")  # fmt: skip
    try:
        stop.wait()
    finally:
        server.stop()
    log.info("stopped")
    return 0


def _run_game(args: argparse.Namespace, journal: Journal, directory: Path) -> tuple[Game, Any]:
    """The game to referee: as asked, else the journal's unfinished game (which may have been
    started from the kiosk), else the default game."""
    if args.game:
        game = catalog.load_game(args.game, parse_options(args.option), directory)
        return game, catalog.load_profile(args.board, game, directory)
    try:
        row = journal.unfinished()
    except DamagedGameError:
        if not args.new:
            raise
        row = None  # the daemon marks it abandoned
    if row is None and not args.new:
        with contextlib.suppress(DamagedGameError):
            row = journal.last_finished()  # its result is shown until the board is set up
    if row is not None and not args.new:
        try:
            game = catalog.load_game(row.game, row.options, directory)
            return game, catalog.load_profile(args.board or row.profile, game, directory)
        except ConfigError:
            pass  # the journal's game no longer loads: the daemon says so below
    game = catalog.load_game(DEFAULT_GAME, parse_options(args.option), directory)
    return game, catalog.load_profile(args.board, game, directory)


def _start_emulator(
    args: argparse.Namespace,
    *,
    game: Game,
    profile: Any,
    directory: Path,
    link: Path,
    kiosk_url: str,
    token_file: Path,
    position: State | None,
) -> tuple[subprocess.Popen[str], str]:
    """No hardware: start the board emulator as its own process on a pty, with its web page,
    following the kiosk's game (so a new game of another game swaps the emulated board).
    Returns the process and its page's URL."""
    command = [
        sys.executable, "-m", "firmware_bridge.cli", "--config-dir", str(directory),
        *EMULATED_BOARDS[args.emulate],
        "--game", game.id, "--board", profile.id, "--link", str(link), "--no-draw",
        "--web", args.emulator_web, "--token-file", str(token_file), "--with-parent",
    ]  # fmt: skip
    for name in args.allow_host:
        command += ["--allow-host", name]
    for key, value in game.options.items():
        command += ["--option", f"{key}={value}"]
    if kiosk_url:
        command += ["--follow", kiosk_url.replace("//0.0.0.0:", "//127.0.0.1:")]
    if position is not None:
        saved = link.with_name("position.json")
        saved.write_text(json.dumps(position.to_json()), encoding="utf-8")
        command += ["--position", str(saved)]
    # Its own session: a terminal's Ctrl-C goes to the referee alone, which stops first and
    # then ends the emulator (run's finally), so the end is never logged as a lost board. Its
    # stdin is a pipe this process holds and never writes: when the referee ends, however it
    # ends, the pipe closes and the emulator ends too (--with-parent).
    emulator = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                text=True, bufsize=1, start_new_session=True)  # fmt: skip
    url = ""
    assert emulator.stdout is not None
    for line in emulator.stdout:
        sys.stderr.write(line)
        if line.startswith("the emulated board's page: "):
            url = line.split(": ", 1)[1].strip()
        if line.startswith("emulating "):
            break
    if not url or emulator.poll() is not None:
        emulator.kill()
        raise UserError("the board emulator did not start (see its message above)")
    stream = emulator.stdout
    threading.Thread(target=lambda: [sys.stderr.write(x) for x in stream], daemon=True).start()
    return emulator, url


def _cmd_emulate(args: argparse.Namespace) -> int:
    from firmware_bridge.commands import emulate

    return emulate.run(args, parse_options(args.option))


def _cmd_check(args: argparse.Namespace) -> int:
    from firmware_bridge.commands import check as check_command

    return check_command.run(args, parse_options(args.option), _journal_path)


def _cmd_board_template(args: argparse.Namespace) -> int:
    from firmware_bridge.commands import template

    game = _load(args)
    profile = catalog.load_profile(args.board, game, catalog.config_dir(args.config_dir))
    sheets = template.template(game, profile, cell_mm=args.cell_mm, page=args.page)
    written = template.write(sheets, args.output or f"{game.id}-{profile.id}.svg")
    names = ", ".join(str(p) for p in written)
    print(
        f"wrote {names} ({len(profile.sensor_cells)} sensors, {len(profile.led_cells)} LEDs, "
        f"cells {args.cell_mm:g} mm; print at 100 %)"
    )
    return 0


def _cmd_firmware(args: argparse.Namespace) -> int:
    result: int = args.run(args, parse_options(args.option))
    return result


DEMOS = (
    ("three-dragons", "three-dragons", "demo-three-dragons.txt"),
    ("protect-the-goat", "protect-the-goat", "demo-protect-the-goat.txt"),
    ("vanguard", "vanguard", "demo-vanguard.txt"),
    ("goats-wintering", "goats-wintering", "demo-goats-wintering.txt"),
    ("the-lion-game", "the-lion-game", "demo-the-lion-game.txt"),
)


def _cmd_demo(args: argparse.Namespace) -> int:
    """Each acceptance game: the emulator in its own process over a pty, the daemon here."""
    scenarios = Path(__file__).resolve().parent / "boards" / "scenarios"
    if args.mqtt:
        _broker(args)  # a broker URL that can never work is one line, before any game
    known = [game_id for game_id, _, _ in DEMOS]
    for game_id in args.game or []:
        if game_id not in known:
            raise UserError(f"no scripted demo of {game_id!r} (demos: {', '.join(known)})")
    failed = []
    for game_id, profile_id, script in DEMOS:
        if args.game and game_id not in args.game:
            continue
        if not _demo_one(args, game_id, profile_id, scenarios / script):
            failed.append(game_id)
    if failed:
        print(f"demo: the scripted game of {', '.join(failed)} did not go as expected",
              file=sys.stderr)  # fmt: skip
        return 1
    return 0


def _demo_one(args: argparse.Namespace, game_id: str, profile_id: str, script: Path) -> bool:
    directory = catalog.config_dir(args.config_dir)
    game = catalog.load_game(game_id, {}, directory)
    profile = catalog.load_profile(profile_id, game, directory)
    print("=" * 72, flush=True)
    with tempfile.TemporaryDirectory(prefix="board-referee-demo-") as tmp:
        link = Path(tmp) / "board"
        command = [
            sys.executable, "-m", "firmware_bridge.cli", "--config-dir", str(directory),
            "emulate", "--game", game_id, "--board", profile_id, "--link", str(link),
            "--script", str(script), "--pace", str(args.pace), "--linger",
        ]  # fmt: skip
        emulator = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, bufsize=1)
        finished = threading.Event()
        result: list[str] = []

        def relay(stream: TextIO) -> None:  # the emulator's drawing, and the end of its script
            for line in stream:
                if line.startswith("script finished: "):
                    result.append(line.split(": ", 1)[1].strip())
                    finished.set()
                else:
                    sys.stdout.write(line)
                    sys.stdout.flush()
            finished.set()

        assert emulator.stdout is not None
        threading.Thread(target=relay, args=(emulator.stdout,), daemon=True).start()
        deadline = time.monotonic() + 15
        while not link.exists() and emulator.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        if not link.exists():
            emulator.kill()
            print("demo: the emulator did not start", file=sys.stderr)
            return False
        log = logs.configure(False, name=f"referee.{game_id}")
        journal = Journal(Path(tmp) / "journal.sqlite3")
        stop = threading.Event()
        daemon = Daemon(game, profile, journal, str(link), log=log)
        publisher = None
        if args.mqtt:
            publisher = MqttPublisher(_broker(args), f"demo-{game_id}", log=log)
            publisher.start()
            daemon.add_listener(publisher.publish)
        worker = threading.Thread(target=daemon.run, args=(stop,), daemon=True)
        worker.start()
        try:
            finished.wait()
            code = 0 if result == ["ok"] else 1
        except KeyboardInterrupt:
            code = 1
        stop.set()  # the referee stops first, so the board going away is no news to it
        worker.join(5)
        if publisher is not None:
            publisher.stop()
        emulator.terminate()
        try:
            emulator.wait(5)
        except subprocess.TimeoutExpired:
            emulator.kill()
        moves = journal.moves(daemon.game_id)
        journal.close()
        print(f"\njournal of {game.title}: {' '.join(moves)}", flush=True)
        outcome = daemon.state.outcome()
        if outcome is not None:
            print(f"result: {outcome.describe(game.player_names)}", flush=True)
        return code == 0


if __name__ == "__main__":
    raise SystemExit(main())


__all__ = ["main", "moves_report", "play_moves"]
