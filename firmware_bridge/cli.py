"""The ``board-referee`` command: the dispatcher. Each command is a module of
``firmware_bridge/commands/`` with ``add_parser`` (its arguments and handler).

Commands:
  run      referee a game on a board connected over serial (the daemon)
  club     the club view: every board published to an MQTT broker, on one page
  emulate  the board emulator: a pty that plays the firmware side of the protocol
  firmware the Raspberry Pi Pico firmware: uf2, config, flash, host, chip, bench
  check    the board check: every cell's sensor and LED, with what to fix
  board-template  a printable 1:1 SVG of a game's board, with its sensor and LED indexes
  games    list the games this installation can referee, with their options
  moves    JSON for a position: its layout and every legal move with the layout after it
  play     adjudicate a game in the terminal from a move list, or by self-play
  engine   the computer opponent: the engine protocol on standard input and output
  install-service, kiosk-screen   a Pi's services and its kiosk screen
  records  the games kept in the journals
  replay   a game's flight recording run again through this referee, with what differs
  report   one game's recording, board profile and versions in one file to send
  demo     the emulator and the daemon together, playing a scripted game of every game

Any user error (unknown game or option, bad config, malformed position, illegal move) is one
line on stderr and exit status 2; never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from firmware_bridge.commands.common import USER_ERRORS, UserError
from firmware_bridge.faces.broker import MqttError
from firmware_bridge.faces.hosts import WebError
from firmware_bridge.link import catalog
from firmware_bridge.referee.errors import DaemonError
from firmware_bridge.referee.journal import JournalError

EXIT_USAGE = 2
# Each command word and the module of firmware_bridge/commands/ that holds it, in the order
# `board-referee --help` lists them. Only the module of the command given is imported: the
# referee's start after a power cut waits on imports, and run needs none of the others.
COMMANDS = {
    "run": "run",
    "club": "club",
    "emulate": "emulate",
    "firmware": "firmware",
    "check": "check",
    "board-template": "template",
    "games": "play",
    "moves": "play",
    "play": "play",
    "engine": "engine",
    "install-service": "install",
    "kiosk-screen": "install",
    "records": "records",
    "review": "review",
    "replay": "replay",
    "report": "report",
    "demo": "demo",
}


def main(argv: Sequence[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    parser = _parser(_command_word(words))
    args = parser.parse_args(words)
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


def _command_word(words: Sequence[str]) -> str | None:
    """The command the arguments name (the first that is not an option or its value)."""
    skip = False
    for word in words:
        if skip:
            skip = False
        elif word == "--config-dir":
            skip = True
        elif not word.startswith("-"):
            return word
    return None


def _parser(command: str | None = None) -> argparse.ArgumentParser:
    """The command line's parser: with ``command`` one of COMMANDS, only that command's
    module is imported and registered; else all of them (help, a misspelt command)."""
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
    names = [COMMANDS[command]] if command in COMMANDS else list(dict.fromkeys(COMMANDS.values()))
    for name in names:
        module = importlib.import_module(f"firmware_bridge.commands.{name}")
        module.add_parser(sub, common)
    # A command's --help says what it does, never only its usage: its line of the list of
    # commands, as a sentence, where it has no description of its own.
    said = {action.dest: action.help for action in sub._choices_actions}
    for word, command_parser in sub.choices.items():
        if not command_parser.description and said.get(word):
            text = str(said[word])
            command_parser.description = text[:1].upper() + text[1:].rstrip(".") + "."
    return parser


if __name__ == "__main__":
    raise SystemExit(main())


__all__ = ["main"]
