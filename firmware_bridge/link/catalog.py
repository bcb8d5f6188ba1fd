"""Finding and reading game descriptions (config/games/*.yaml). This is the I/O the engine
leaves to its caller: the engine only ever sees parsed data.

The config directory is, in order: an explicit argument (``--config-dir``), the environment
variable ``BOARD_REFEREE_CONFIG``, the ``config/`` folder of a source checkout, and the copy a
wheel installs under ``<prefix>/share/board-referee/config``.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping
from pathlib import Path

import yaml

from engine import ConfigError, Game, build_game
from firmware_bridge.link.profile import BoardProfile, build_profile

ENV_VAR = "BOARD_REFEREE_CONFIG"


def config_dir(explicit: str | Path | None = None) -> Path:
    candidates: list[Path] = []
    if explicit:
        candidates.append(Path(explicit))
    elif os.environ.get(ENV_VAR):
        candidates.append(Path(os.environ[ENV_VAR]))
    else:
        candidates.append(Path(__file__).resolve().parents[2] / "config")
        candidates.append(Path(sys.prefix) / "share" / "board-referee" / "config")
    for candidate in candidates:
        if (candidate / "games").is_dir():
            return candidate
    tried = ", ".join(str(c) for c in candidates)
    raise ConfigError(f"no game configs found (looked for a games/ folder in: {tried})")


def game_ids(directory: Path | None = None) -> list[str]:
    """The games this installation can referee: one YAML file each in config/games/."""
    folder = (directory or config_dir()) / "games"
    return sorted(path.stem for path in folder.glob("*.yaml"))


def read_text(source: str) -> str:
    """A text file the user named (``-``: standard input); a ConfigError says what is wrong."""
    try:
        return sys.stdin.read() if source == "-" else Path(source).read_text(encoding="utf-8")
    except IsADirectoryError as exc:
        raise ConfigError(f"{source}: is a folder, not a file") from exc
    except OSError as exc:
        raise ConfigError(f"{source}: cannot read: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{source}: not UTF-8 text") from exc


def read_json(source: str) -> object:
    """A JSON file the user named (a position), parsed."""
    text = read_text(source)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"{source}: not valid JSON: line {exc.lineno}, column {exc.colno}: {exc.msg}"
        ) from exc


def read_yaml(path: Path) -> object:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise ConfigError(
            f"{path}: not UTF-8 text (byte {exc.start} is 0x{exc.object[exc.start]:02x}): save "
            "it as UTF-8"
        ) from exc
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise ConfigError(f"{path}: {where}not valid YAML: {problem}") from exc


def load_game(
    game_id: str,
    options: Mapping[str, object] | None = None,
    directory: Path | None = None,
) -> Game:
    """Build the game ``game_id`` from its config file with ``options`` applied."""
    folder = directory or config_dir()
    path = folder / "games" / f"{game_id}.yaml"
    if not path.is_file():
        known = ", ".join(game_ids(folder)) or "none"
        raise ConfigError(f"unknown game {game_id!r} (known games: {known})")
    data = read_yaml(path)
    game = build_game(data, options, source=_display(path))
    if game.id != game_id:
        raise ConfigError(f"{_display(path)}: id: {game.id!r} does not match the file name")
    return game


def _display(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def profile_ids(directory: Path | None = None) -> list[str]:
    folder = (directory or config_dir()) / "boards"
    return sorted(path.stem for path in folder.glob("*.yaml"))


def profile_game(profile_id: str, directory: Path | None = None) -> str:
    """The game a hardware profile is for (its ``game:`` key), without building either."""
    folder = directory or config_dir()
    path = folder / "boards" / f"{profile_id}.yaml"
    if not path.is_file():
        known = ", ".join(profile_ids(folder)) or "none"
        raise ConfigError(f"unknown board profile {profile_id!r} (known profiles: {known})")
    data = read_yaml(path)
    game = data.get("game") if isinstance(data, dict) else None
    if not isinstance(game, str):
        raise ConfigError(f"{_display(path)}: game: missing, or not a game id")
    return game


def load_profile(profile_id: str | None, game: Game, directory: Path | None = None) -> BoardProfile:
    """The hardware profile ``profile_id`` (by default the one named like the game)."""
    folder = directory or config_dir()
    name = profile_id or game.id
    path = folder / "boards" / f"{name}.yaml"
    if not path.is_file():
        known = ", ".join(profile_ids(folder)) or "none"
        raise ConfigError(f"unknown board profile {name!r} (known profiles: {known})")
    profile = build_profile(read_yaml(path), game, _display(path))
    if profile.id != name:
        raise ConfigError(f"{_display(path)}: id: {profile.id!r} does not match the file name")
    return profile
