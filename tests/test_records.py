"""Game records from the journal (``board-referee records``): a list, one game's record as
text that ``play --moves-file`` replays, and as JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from firmware_bridge.cli import main
from firmware_bridge.link import catalog
from firmware_bridge.referee.journal import Journal

LION = ["g3-g3", "f7-f6", "d3-d4", "e8-e6", "d4-d6", "c7-c6", "d6-d8"]


def finished_lion_game(journal: Journal, players: tuple[str, str] = ("", "")) -> None:
    """The Lion Game played to its end (White captures the lion) into ``journal``."""
    game = catalog.load_game("the-lion-game")
    state = game.new_state()
    number = journal.start_game(game, "the-lion-game", None, players)
    for text in LION:
        journal.record_move(number, text)
        state.apply(state.parse(text))
    outcome = state.outcome()
    assert outcome is not None
    journal.finish(number, outcome)


@pytest.fixture
def journal(tmp_path: Path) -> Path:
    path = tmp_path / "journal-table1.sqlite3"
    journal = Journal(path)
    finished_lion_game(journal)
    second = journal.start_game(catalog.load_game("goats-wintering"), "goats-wintering", None)
    for text in ("G@D1", "g@D3", "G@B3"):
        journal.record_move(second, text)
    journal.record_takeback(second, 1)
    journal.close()
    return path


def test_the_list_names_every_game_with_its_state_and_result(
    journal: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["records", "--journal", str(journal)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith(
        "journal-table1.sqlite3 game 1: The Lion Game on board the-lion-game"
    )
    assert lines[0].endswith("finished, 7 moves: White wins: White captured the lion")
    assert "game 2: Goats Wintering" in lines[1] and "playing, 2 moves" in lines[1]


def test_a_text_record_replays_to_the_same_result(
    journal: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["records", "--journal", str(journal), "--game-id", "1"]) == 0
    text = capsys.readouterr().out
    assert "# The Lion Game: game 1" in text and "1. g3-g3" in text and "# White" in text
    record = tmp_path / "game1.txt"
    record.write_text(text)
    assert main(["play", "--game", "the-lion-game", "--moves-file", str(record), "--quiet"]) == 0
    assert "result: White wins: White captured the lion" in capsys.readouterr().out


def test_a_json_record_has_the_moves_as_they_stand_with_their_times(
    journal: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["records", "--journal", str(journal), "--game-id", "2", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["status"] == "playing" and data["outcome"] is None
    assert [m["move"] for m in data["moves"]] == ["G@D1", "g@D3"]  # the take-back applied
    assert all(m["at"].startswith("20") for m in data["moves"])
    assert data["options"] == {"board": "2-4-hex", "gap": "3"} and data["board"] == (
        "goats-wintering")  # fmt: skip


def test_records_read_a_journal_a_referee_has_open(journal: Path) -> None:
    held = Journal(journal)  # the referee's lock does not keep the records out
    try:
        assert main(["records", "--journal", str(journal), "--game-id", "1", "--json"]) == 0
    finally:
        held.close()


def test_results_as_csv_name_the_players_the_result_and_when(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import csv
    import io

    path = tmp_path / "journal-table3.sqlite3"
    journal = Journal(path)
    finished_lion_game(journal, ("Ann Smith", "=1+1"))
    journal.close()
    assert main(["records", "--journal", str(path), "--csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert len(rows) == 1
    row = rows[0]
    assert (row["board"], row["game_number"], row["title"]) == ("table3", "1", "The Lion Game")
    assert (row["side_1"], row["player_1"], row["side_2"]) == ("White", "Ann Smith", "Black")
    assert row["player_2"] == "'=1+1"  # never run as a formula by a spreadsheet
    # The person beside the side they played (issue 29, item 6: the side alone before).
    assert row["result"] == "Ann Smith (White) wins: White captured the lion"
    assert row["winner"] == "White"
    assert row["moves"] == "7" and row["started"][:2] == "20" and row["ended"] > row["started"]
    # The text record names them too.
    assert main(["records", "--journal", str(path), "--game-id", "1"]) == 0
    assert "# players: White: Ann Smith; Black: =1+1" in capsys.readouterr().out


def test_a_journal_from_before_player_names_opens_and_reads(tmp_path: Path) -> None:
    import sqlite3

    from firmware_bridge.referee.journal import read_records

    path = tmp_path / "old.sqlite3"
    db = sqlite3.connect(path)
    db.executescript(
        "CREATE TABLE games (id INTEGER PRIMARY KEY, game TEXT NOT NULL, options TEXT NOT NULL,"
        " profile TEXT NOT NULL, start TEXT, status TEXT NOT NULL, outcome TEXT,"
        " started TEXT NOT NULL, ended TEXT);"
        "CREATE TABLE entries (game_id INTEGER NOT NULL, number INTEGER NOT NULL,"
        " action TEXT NOT NULL, text TEXT NOT NULL, at TEXT NOT NULL,"
        " PRIMARY KEY (game_id, number));"
        "INSERT INTO games VALUES (1, 'three-dragons', '{}', 'three-dragons', NULL, 'playing',"
        " NULL, '2026-01-01T10:00:00', NULL);"
    )
    db.commit()
    db.close()
    assert read_records(path)[0].players == ("", "")  # read-only, before any referee opened it
    journal = Journal(path)  # a referee adds the column, keeping the game
    row = journal.unfinished()
    assert row is not None and row.id == 1 and row.players == ("", "")
    journal.close()


def test_a_result_names_the_person_beside_the_side() -> None:
    """Issue 29, item 6: "Player 2 wins" beside players' names; the person comes first now."""
    from engine import Player
    from engine.outcome import Outcome

    won = Outcome(Player.TWO, "the goat is trapped")
    assert won.describe(("Player 1", "Player 2")) == "Player 2 wins: the goat is trapped"
    assert won.describe(("Player 1", "Player 2"), ("Ann", "Dana")) == (
        "Dana (Player 2) wins: the goat is trapped"
    )
    assert won.describe(("White", "Black"), ("Ann", " ")) == "Black wins: the goat is trapped"
    assert Outcome(Player.ONE, "x").describe(("White", "Black"), ("Ann", "")) == (
        "Ann (White) wins: x"
    )
    assert Outcome(None, "repetition").describe(("White", "Black"), ("Ann", "Dana")) == (
        "Draw (repetition)"
    )


def test_results_follow_the_games_config_as_its_file_stands(journal: Path, tmp_path: Path) -> None:
    """A result names its sides as the game's config names them now: the config read once is
    kept only while its file is unchanged; an edited one is read again, a removed one leaves
    the result plain (Player 1, Player 2)."""
    import shutil

    from firmware_bridge.referee.journal import read_records
    from firmware_bridge.referee.records import result_words

    config = tmp_path / "config"
    shutil.copytree(catalog.config_dir(), config)
    record = read_records(journal)[0]
    assert result_words(record, str(config)) == "White wins: White captured the lion"
    path = config / "games" / "the-lion-game.yaml"
    path.write_text(path.read_text().replace("1: White", "1: Snow"))
    assert result_words(record, str(config)) == "Snow wins: White captured the lion"
    path.unlink()
    assert result_words(record, str(config)) == "Player 1 wins: White captured the lion"
