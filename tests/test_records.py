"""Game records from the journal (``board-referee records``): a list, one game's record as
text that ``play --moves-file`` replays, and as JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from firmware_bridge import catalog
from firmware_bridge.cli import main
from firmware_bridge.journal import Journal

LION = ["g3-g3", "f7-f6", "d3-d4", "e8-e6", "d4-d6", "c7-c6", "d6-d8"]


@pytest.fixture
def journal(tmp_path: Path) -> Path:
    path = tmp_path / "journal-table1.sqlite3"
    journal = Journal(path)
    game = catalog.load_game("the-lion-game")
    state = game.new_state()
    first = journal.start_game(game, "the-lion-game", None)
    for text in LION:
        journal.record_move(first, text)
        state.apply(state.parse(text))
    outcome = state.outcome()
    assert outcome is not None
    journal.finish(first, outcome)
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
    assert lines[0].startswith("journal-table1.sqlite3 game 1: the-lion-game on the-lion-game")
    assert lines[0].endswith("finished, 7 moves: White wins: White captured the lion")
    assert "game 2: goats-wintering" in lines[1] and "playing, 2 moves" in lines[1]


def test_a_text_record_replays_to_the_same_result(
    journal: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["records", "--journal", str(journal), "--game-id", "1"]) == 0
    text = capsys.readouterr().out
    assert "# The Lion Game: game 1" in text and "1. g3-g3" in text and "# White" in text
    record = tmp_path / "game1.txt"
    record.write_text(text)
    assert main(["play", "--game", "the-lion-game", "--moves-file", str(record), "--quiet"]) == 0
    assert "result: White (player 1) wins: White captured the lion" in capsys.readouterr().out


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
