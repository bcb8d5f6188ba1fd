"""Bad game configs fail at load with one line naming the file, the key and the problem."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from engine import ConfigError, build_game
from firmware_bridge.link import catalog

CONFIG = catalog.config_dir()


def raw(game_id: str) -> dict[str, Any]:
    data = catalog.read_yaml(CONFIG / "games" / f"{game_id}.yaml")
    assert isinstance(data, dict)
    return data


def broken(game_id: str, path: str, value: object) -> dict[str, Any]:
    """A copy of a game's config with the value at dotted ``path`` replaced (None: removed)."""
    data = copy.deepcopy(raw(game_id))
    *parents, last = path.split(".")
    node: Any = data
    for part in parents:
        node = node[int(part) if part.isdigit() and int(part) in node else part]
    key: Any = int(last) if last.isdigit() and int(last) in node else last
    if value is None:
        del node[key]
    else:
        node[key] = value
    return data


@pytest.mark.parametrize(
    ("game_id", "path", "value", "message"),
    [
        ("three-dragons", "rules", "chess", "rules: unknown rules 'chess'"),
        ("three-dragons", "board.regions.caves", ["c5", "q5"], "board.regions.caves.*'q5'"),
        ("three-dragons", "setup.1.e1", 9, r"setup.1.e1: expected a whole number <= 6"),
        ("three-dragons", "setup.1.c5", 3, "setup.1.c5: c5 is a mountain or cave"),
        ("three-dragons", "setup.2.b1", 3, "setup: the two players' set-ups share a cell"),
        ("three-dragons", "dragons.e5", None, "dragons: give a dragon strength for every cave"),
        ("three-dragons", "pieces.die.symbol", "S", "symbol S is used twice"),
        ("three-dragons", "pieces.dragon", None, "needs a piece kind called 'dragon'"),
        ("three-dragons", "options.variant.default", "extreme", "options.variant.default"),
        ("three-dragons", "colour", "red", "unknown key 'colour'"),
        (
            "protect-the-goat",
            "captures.lyon",
            ["goat", "phant"],
            "phant and lyon capture each other",
        ),
        ("protect-the-goat", "captures.goat", ["dragon"], "unknown piece kind 'dragon'"),
        ("protect-the-goat", "home_rows.south", ["a1", "b2"], "home row cell is dark"),
        ("protect-the-goat", "counts.goat", 0, "royal: each player needs at least one"),
        ("protect-the-goat", "board.rows", "six", "board.rows: expected a whole number"),
        ("protect-the-goat", "royal", None, "missing key 'royal'"),
    ],
)
def test_bad_config(game_id: str, path: str, value: object, message: str) -> None:
    source = f"config/games/{game_id}.yaml"
    with pytest.raises(ConfigError, match=f"^{source}: .*{message}"):
        build_game(broken(game_id, path, value), source=source)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"variant": "extreme"}, "variant: expected one of base, strength, dragons"),
        ({"colour": "red"}, "colour: unknown option"),
        ({"draw_after": "-3"}, "draw_after: expected a whole number >= 0"),
    ],
)
def test_bad_options(options: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError, match=f"options for three-dragons: {message}"):
        catalog.load_game("three-dragons", options)


def test_options_from_the_command_line_are_coerced() -> None:
    game = catalog.load_game("three-dragons", {"draw_after": "20", "variant": "dragons"})
    assert game.options["draw_after"] == 20 and game.draw_after == 20


def test_unknown_game_lists_the_known_ones() -> None:
    with pytest.raises(ConfigError, match="unknown game 'chess' .*three-dragons"):
        catalog.load_game("chess")


def test_invalid_yaml_names_file_and_line(tmp_path: Path) -> None:
    (tmp_path / "games").mkdir()
    (tmp_path / "games" / "bad.yaml").write_text("id: bad\nboard: [unclosed\n")
    with pytest.raises(ConfigError, match=r"bad.yaml: line \d+, column \d+: not valid YAML"):
        catalog.load_game("bad", directory=tmp_path)


def test_config_dir_from_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(catalog.ENV_VAR, str(tmp_path))
    with pytest.raises(ConfigError, match="no game configs found"):
        catalog.config_dir()
    (tmp_path / "games").mkdir()
    assert catalog.config_dir() == tmp_path
    assert catalog.game_ids() == []


def test_file_name_must_match_the_id(tmp_path: Path) -> None:
    (tmp_path / "games").mkdir()
    text = (CONFIG / "games" / "three-dragons.yaml").read_text()
    (tmp_path / "games" / "td.yaml").write_text(text)
    with pytest.raises(ConfigError, match="id: 'three-dragons' does not match the file name"):
        catalog.load_game("td", directory=tmp_path)
