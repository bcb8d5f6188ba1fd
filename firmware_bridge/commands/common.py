"""What the commands share: the user error, the game and MQTT arguments, the board name.

Every command reports a user error (an unknown game or option, a bad config, a malformed
position, an illegal move) as one line on stderr and exit status 2, never a traceback:
``firmware_bridge.cli`` catches ``UserError`` and the library's own errors.
"""

from __future__ import annotations

import argparse
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine import ConfigError, Game, IllegalMoveError, InvalidMoveError, PositionError, State
from firmware_bridge.faces.broker import BOARD_NAME, parse_broker
from firmware_bridge.faces.hosts import state_dir
from firmware_bridge.link import catalog

# What each command's add_parser is given: the command line's subparsers (generic only to
# the type checker).
if TYPE_CHECKING:
    Subparsers = argparse._SubParsersAction[argparse.ArgumentParser]
else:
    Subparsers = argparse._SubParsersAction

DEFAULT_GAME = "three-dragons"
DEFAULT_KIOSK = "127.0.0.1:8080"
USER_ERRORS = (ConfigError, IllegalMoveError, InvalidMoveError, PositionError)


class UserError(Exception):
    """A problem with what the user asked for; reported as one line, exit status 2."""


def settle_seconds(millis: int | None, option: str) -> float | None:
    """A settle window given on the command line in milliseconds, in seconds (None: not
    given, the profile's holds)."""
    if millis is None:
        return None
    if not 0 <= millis <= 10000:
        raise UserError(f"{option} must be between 0 and 10000")
    return millis / 1000.0


def token_path(journal_path: Path) -> Path:
    """The kiosk's access token file (beside the journal; the emulated board's page shares it)."""
    return journal_path.parent / "kiosk-token"


def mqtt_arguments(parser: argparse.ArgumentParser, verb: str = "publish to") -> None:
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


def broker_of(args: argparse.Namespace) -> Any:
    return parse_broker(
        args.mqtt, username=args.mqtt_user, password=os.environ.get("BOARD_REFEREE_MQTT_PASSWORD"),
        password_file=args.mqtt_password_file, ca_file=args.mqtt_ca, prefix=args.mqtt_prefix,
    )  # fmt: skip


def game_arguments(parser: argparse.ArgumentParser, *, required: bool = True) -> None:
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


def load_game(args: argparse.Namespace) -> Game:
    directory = catalog.config_dir(args.config_dir)
    return catalog.load_game(args.game, parse_options(args.option), directory)


def start_state(game: Game, position: str | None) -> State:
    if not position:
        return game.new_state()
    return game.state_from_json(catalog.read_json(position))


def board_name(name: str) -> str:
    """``--board-id``, checked against the board-name rule its MQTT topics follow."""
    if not BOARD_NAME.fullmatch(name):
        raise UserError(f"--board-id {name!r}: letters, digits, '.', '_' and '-' only")
    return name


def journal_path(given: str | None, port: str | None) -> Path:
    """The journal: as given, else one per board (named after its port), so two tables on one
    machine never share one."""
    if given:
        return Path(given)
    return journal_file(state_dir(), port)


def journal_file(folder: Path, port: str | None) -> Path:
    """The journal of the board on ``port`` (or of that id) in the state folder ``folder``."""
    return folder / f"journal-{board_slug(port)}.sqlite3"


def board_slug(port: str | None) -> str:
    """A file-name-safe name for the board on ``port`` (``emulator`` with no port)."""
    if not port:
        return "emulator"
    name = port.split("://", 1)[-1] if "://" in port else Path(port).name
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-.")
    return slug[:80] or "board"


def board_journal(board_id: str, root: Path = Path("/")) -> tuple[Path, list[str]]:
    """Board ``board_id``'s journal, found as its referee finds it: its environment file's
    BOARD_REFEREE_JOURNAL, else under the state folder its systemd unit gives
    (XDG_STATE_HOME), else this user's state folder. Also the places looked at, for a message."""
    from firmware_bridge.commands import service

    name = board_name(board_id)
    looked: list[str] = []
    env = service.env_path(root, name)
    given = service.read_env(env).get("BOARD_REFEREE_JOURNAL")
    looked.append(str(env))
    if given:
        return Path(given), looked
    unit = root / service.UNIT_DIR / service.UNITS[0]
    state_home = service.unit_state_home(unit)
    if unit.is_file():
        looked.append(str(unit))
    if state_home:
        path = journal_file(state_dir(state_home), name)
        if path.is_file():
            return path, looked
        looked.append(str(path))
    return journal_path(None, name), looked


def side_names(game_id: str, config_dir: Path | None) -> tuple[str, str]:
    """The names of the game's two sides ("White", "Black"), from its record's game; the
    sides' numbers when it cannot be loaded."""
    try:
        names = catalog.load_game(game_id, {}, config_dir).player_names
        return str(names[0]), str(names[1])
    except (ConfigError, OSError, ValueError, IndexError):
        return "player 1", "player 2"


def game_title(game_id: str, config_dir: Path | None) -> str:
    """A game's title ("Three Dragons") from its id; the id when it cannot be loaded."""
    try:
        return str(catalog.load_game(game_id, {}, config_dir).title)
    except (ConfigError, OSError, ValueError):
        return game_id
