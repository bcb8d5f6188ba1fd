"""A Raspberry Pi's services: the systemd units for the referee and its kiosk screen, and each
board's settings in its own environment file.

The units are templates shared by every board on the machine (``board-referee@NAME``): they hold
only what is the same for all of them (the Python, the user, the state folder). What differs
from board to board (its port, its kiosk address, its game, its broker) is in
``/etc/board-referee/NAME.env``, which the units read. ``run`` takes its command line first,
then that environment, then its defaults; the unit gives it no options but ``--board-id``, so
the environment file decides. Everything is written under a root folder (``--dest``, like
DESTDIR), so a set-up can be looked at, or checked with ``systemd-analyze verify``, before it is
installed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

TEMPLATES = Path(__file__).resolve().parent / "systemd"
UNITS = ("board-referee@.service", "board-referee-kiosk@.service")
UNIT_DIR = Path("etc/systemd/system")
ENV_DIR = Path("etc/board-referee")
# The settings install-service manages in a board's environment file; other lines are kept.
MANAGED = (
    "BOARD_REFEREE_PORT", "BOARD_REFEREE_KIOSK", "BOARD_REFEREE_GAME", "BOARD_REFEREE_CONFIG",
    "BOARD_REFEREE_MQTT", "BOARD_REFEREE_MQTT_PASSWORD_FILE", "BOARD_REFEREE_MQTT_COMMANDS",
)  # fmt: skip
_KEY = re.compile(r"^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=")


class ServiceError(ValueError):
    """A setting that cannot go into a unit or an environment file."""


@dataclass(frozen=True, slots=True)
class Installation:
    """What is the same for every board on this machine: it goes into the shared units."""

    python: str
    user: str
    state_dir: str
    docs: str
    kiosk_user: str | None  # the desktop user whose screen shows the kiosk page (None: none)


def env_path(root: Path, board: str) -> Path:
    return root / ENV_DIR / f"{board}.env"


def unit_texts(installation: Installation) -> dict[str, str]:
    """The shared unit files, filled in: name -> text."""
    fields = {
        "@PYTHON@": installation.python, "@USER@": installation.user,
        "@STATE@": installation.state_dir, "@DOCS@": installation.docs,
        "@KIOSK_USER@": installation.kiosk_user or "",
    }  # fmt: skip
    for value in fields.values():
        _check_value(value)
    units = UNITS if installation.kiosk_user else UNITS[:1]
    texts = {}
    for unit in units:
        text = (TEMPLATES / unit).read_text(encoding="utf-8")
        for key, value in fields.items():
            text = text.replace(key, value)
        texts[unit] = text
    return texts


def env_text(board: str, settings: Mapping[str, str], before: str = "") -> str:
    """Board ``board``'s environment file: ``settings`` (the managed keys given), and every
    other line of the file as it was (``before``), so an operator's own settings stay."""
    for key, value in settings.items():
        if key not in MANAGED:
            raise ServiceError(f"{key} is not a setting install-service writes")
        _check_value(value)
    kept = []
    for line in before.splitlines():
        match = _KEY.match(line)
        if line.startswith("# Board Referee settings for board"):
            continue
        if match is None or match.group(1) not in settings:
            kept.append(line)
    header = (
        f"# Board Referee settings for board {board}: read by board-referee@{board} (and its "
        "kiosk screen).\n# Written by install-service; edit, then: sudo systemctl restart "
        f"board-referee@{board}\n"
    )
    lines = [f"{key}={_quote(value)}" for key, value in settings.items()]
    body = "\n".join([*kept, *lines]).strip("\n")
    return header + body + "\n"


def _check_value(value: str) -> None:
    if any(ch in value for ch in "\n\r\0"):
        raise ServiceError(f"{value!r}: a setting is one line")


def _quote(value: str) -> str:
    """A value as systemd's EnvironmentFile reads it: bare when plain, else double-quoted."""
    if re.fullmatch(r"[A-Za-z0-9_@%+=:,./-]*", value):
        return value
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def unit_state_home(unit: Path) -> str | None:
    """The state folder a referee's unit gives it (its XDG_STATE_HOME; None: no unit, or none
    given): where that board's journal is."""
    if not unit.is_file():
        return None
    found = re.search(r"^Environment=XDG_STATE_HOME=(.*)$", unit.read_text(encoding="utf-8"), re.M)
    return found.group(1).strip() if found else None


def read_env(path: Path) -> dict[str, str]:
    """The settings of an environment file, as systemd reads the simple forms it holds."""
    values: dict[str, str] = {}
    if not path.is_file():
        return values
    for line in path.read_text(encoding="utf-8").splitlines():
        match = _KEY.match(line)
        if match is None or line.lstrip().startswith("#"):
            continue
        raw = line[match.end() :].strip()
        if len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "\"'":
            raw = raw[1:-1].replace('\\"', '"').replace("\\\\", "\\")
        values[match.group(1)] = raw
    return values
