"""Nothing a player can get around: the controls that change a game act only on a board that
shows the game's position (issue 64), through the real path: the built-in emulator's board,
its serial line, the referee, its kiosk and its results."""

from __future__ import annotations

import csv
import io
import json
import re
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, expect

from firmware_bridge.link import catalog
from tests.e2e import PYTHON, DaemonProcess, EmulatorProcess
from tests.test_kiosk import TIMEOUT, Referee, open_pages, referees

__all__ = ["referees"]  # the kiosk tests' fixture, used here too


def board_action(referee: Referee, **body: Any) -> tuple[int, dict[str, Any]]:
    """A hand on the emulated board (its page's own request)."""
    request = urllib.request.Request(referee.board_url.rstrip("/") + "/api/action",
                                     data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})  # fmt: skip
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def wait_for(check: Callable[[], bool], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "not within the time"
        time.sleep(0.05)


def results(referee: Referee) -> list[dict[str, str]]:
    with urllib.request.urlopen(referee.kiosk_url + "api/results.csv", timeout=10) as got:
        return list(csv.DictReader(io.StringIO(got.read().decode())))


def test_no_pass_confirm_or_result_on_a_board_that_does_not_show_the_game(
    referees: list[Referee], tmp_path: Path
) -> None:
    """Goats Wintering: Black's goat put down on White's turn is an illegal move left on the
    board (one hand, so never a legal move first, however the board's scans fall). Two
    presses of PASS (which end this game) on the board and from the kiosk, CONFIRM, a
    resignation and an agreed draw are each refused with a plain sentence, and nothing is
    scored. Put right, the same PASS is taken."""
    referee = Referee(tmp_path, "--game", "goats-wintering")
    referees.append(referee)
    assert board_action(referee, do="place", cell="A1", piece="g")[0] == 200
    state = referee.wait_state("alert", "illegal")
    assert "take" in state["status"], state["status"]
    for _ in range(2):
        assert board_action(referee, do="press", button="PASS")[0] == 200
        referee.wait_log("PASS refused: Not now: the board does not show the game's position")
    for button in ("pass", "pass", "confirm"):
        code, answer = referee.post("/api/button", {"button": button})
        assert code == 409, (button, code, answer)
        assert answer["message"].startswith("Not now: the board does not show"), answer
        assert answer["message"].endswith("Put it right first."), answer
    for body in ({"result": "resign", "player": 1}, {"result": "draw"}):
        code, answer = referee.post("/api/result", body)
        assert code == 409 and "does not show the game's position" in answer["message"], answer
    state = referee.state()
    assert state["outcome"] is None and state["moves"] == [], state["moves"]
    assert [(r["game_number"], r["result"], r["moves"]) for r in results(referee)] == [
        ("1", "playing", "0")]  # fmt: skip
    # Put right (the goat off again), the board shows the game: a pass is a pass again.
    assert board_action(referee, do="lift", cell="A1")[0] == 200
    referee.wait_state("alert", None)
    wait_for(lambda: referee.state()["status"].endswith(" to move"))  # the game's own
    code, answer = referee.post("/api/button", {"button": "pass"})
    assert code == 200, answer
    assert [m["text"] for m in referee.wait_state("to_move", 2)["moves"]] == ["pass"]


def test_no_result_on_an_unplugged_board(referees: list[Referee], tmp_path: Path) -> None:
    """With the board's cable out nobody sees the position: a resignation, an agreed draw and
    PASS from the kiosk are refused until it is back."""
    referee = Referee(tmp_path, "--game", "three-dragons")
    referees.append(referee)
    assert board_action(referee, do="unplug")[0] == 200
    referee.wait_log("board disconnected")
    for path, body in (("/api/result", {"result": "resign", "player": 1}),
                       ("/api/result", {"result": "draw"}),
                       ("/api/button", {"button": "pass"})):  # fmt: skip
        code, answer = referee.post(path, body)
        assert code == 409 and "the board is not connected" in answer["message"], answer
    assert referee.state()["outcome"] is None
    assert board_action(referee, do="replug")[0] == 200
    wait_for(lambda: referee.state()["connection"]["state"] == "connected")
    wait_for(lambda: referee.post("/api/result", {"result": "draw"})[0] != 409)
    referee.wait_state("outcome", "Draw (agreed by the players)")


def test_a_game_against_the_computer_on_a_fresh_journal_is_game_1(tmp_path: Path) -> None:
    """Issue 64: ``run --new --computer 2`` on a fresh journal made a game 1 nobody played
    ("not played") before the real one, listed as "(not named) against Computer". The first
    game, replaced before anything was played in it, is set aside: the game is game 1, its
    sides said as the replay says them. A game that was played is kept (abandoned) as before."""
    emu = EmulatorProcess(tmp_path, "vanguard", "vanguard")
    daemon = DaemonProcess(tmp_path, "vanguard", "vanguard", emu.link, "--new", "--computer",
                           "2", "--level", "1", "--movetime", "200")  # fmt: skip
    try:
        daemon.wait_log("set aside game 1: nothing was played in it")
        daemon.wait_log("new game 1: Vanguard .* with board profile")
        wait_for(lambda: " to move" in daemon.text().partition(" with board profile ")[2])
        emu.do("play C2-C3")
        daemon.wait_moves(["C2-C3"])
    finally:
        daemon.stop()
        emu.close()
    command = [*PYTHON, "records", "--journal", str(daemon.journal)]
    listed = subprocess.run(command, capture_output=True, text=True, timeout=60, check=True).stdout
    lines = listed.strip().splitlines()
    assert len(lines) == 1 and " game 1: Vanguard" in lines[0], listed
    assert "not named (Player 1) against Computer, level 1 (Player 2)" in lines[0], listed
    assert "not played" not in listed
    replayed = subprocess.run([*PYTHON, "replay", str(daemon.journal), "--game", "1"],
                              capture_output=True, text=True, timeout=120, check=False)  # fmt: skip
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    assert "players: not named (Player 1) against Computer, level 1 (Player 2)" in replayed.stdout
    assert "decided identically" in replayed.stdout


def test_a_new_game_on_another_board_never_flashes_a_wrong_board(
    referees: list[Referee], tmp_path: Path
) -> None:
    """Issue 64: every New game of another game showed "wrong board | Connect the board for
    Goats Wintering: board 'emulator' does not fit profile …" for about 3 s, while the built-in
    emulator swapped its board. Nothing is wrong then: the page says it waits for the board."""
    referee = Referee(tmp_path, "--game", "three-dragons")
    referees.append(referee)
    seen: list[tuple[str, str]] = []
    code, answer = referee.post("/api/new-game", {"game": "goats-wintering"})
    assert code == 200, answer
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        state = referee.state()
        seen.append((state["connection"]["state"], state["status"]))
        if state["game"]["id"] == "goats-wintering" and state["connection"]["state"] == (
            "connected") and " to move" in state["status"]:  # fmt: skip
            break
        time.sleep(0.02)
    assert seen[-1][0] == "connected", seen[-5:]
    assert not [s for s in seen if s[0] == "wrong-board" or "does not fit" in s[1]], seen
    assert ("connecting", "Waiting for the Goats Wintering board…") in seen or len(seen) < 3


def test_a_board_of_another_game_is_said_plainly(tmp_path: Path) -> None:
    """A real board of another kind (one that is not swapped): once the swap's grace is over,
    a plain sentence says which board the game needs and which game's board is connected."""
    from tests.mosquitto import free_port

    emu = EmulatorProcess(tmp_path, "three-dragons", "three-dragons")
    port = free_port()
    daemon = DaemonProcess(tmp_path, "three-dragons", "three-dragons", emu.link, "--kiosk",
                           f"127.0.0.1:{port}")  # fmt: skip
    try:
        daemon.wait_log("White to move")
        daemon.wait_log("kiosk page: ")
        kiosk = Referee.__new__(Referee)
        kiosk.kiosk_url = f"http://127.0.0.1:{port}/"
        code, answer = kiosk.post("/api/new-game", {"game": "goats-wintering"})
        assert code == 200, answer
        sentence = (
            "Goats Wintering needs its own board (18 sensors that tell whose piece is where); "
            "the board connected (emulator) is a board for Three Dragons, with 77 sensors. "
            "Connect the Goats Wintering board, or start a game of Three Dragons."
        )
        wait_for(lambda: kiosk.state()["game"]["id"] == "goats-wintering")  # published
        deadline = time.monotonic() + 30
        while (state := kiosk.state())["connection"]["state"] != "wrong-board":
            assert time.monotonic() < deadline, state["connection"]
            assert state["status"] in ("Waiting for the Goats Wintering board…", sentence), state
            time.sleep(0.1)
        assert state["status"] == sentence and state["connection"]["message"] == sentence
    finally:
        daemon.stop()
        emu.close()


def test_an_answer_goes_once_the_game_moves_on_from_what_it_made(
    browser: Browser, referees: list[Referee], tmp_path: Path
) -> None:
    """Issue 64: "New game of The Lion Game: set up the board" stayed 7.5 s after the board
    was set up, and "Looking for a good move…" some 10 s beside the hint already shown. The
    referee says which state first shows what a control did; the answer goes at the next."""
    referee = Referee(tmp_path, "--game", "three-dragons")
    referees.append(referee)
    kiosk, _board = open_pages(browser, referee)
    notice = kiosk.locator("#notice")
    kiosk.locator("#btn-menu").click()
    kiosk.locator("#btn-newgame").click()
    kiosk.locator("#ng-game").select_option("the-lion-game")
    kiosk.locator("#ng-start").click()
    expect(kiosk.locator("#title")).to_have_text("The Lion Game", timeout=TIMEOUT)
    board_action(referee, do="setup")  # the hands set the board up
    expect(kiosk.locator("#status")).to_contain_text("to move", timeout=TIMEOUT)
    expect(notice).to_be_hidden(timeout=2000)  # not 7.5 s later
    kiosk.locator("#btn-hint").click()
    expect(kiosk.locator("#status")).to_contain_text("hint:", timeout=60_000)
    expect(notice).to_be_hidden(timeout=2000)  # "Looking for a good move…" has had its moment


def test_a_misplaced_piece_is_drawn_as_the_headline_names_it(
    browser: Browser, referees: list[Referee], tmp_path: Path
) -> None:
    """Issue 64: a piece put where the game has none was drawn "?" on the kiosk (and the club
    view) while the headline named it ("take White's stone off c5"). It is drawn as named:
    its owner's colour and its kind's symbol, marked as not where the game has it."""
    referee = Referee(tmp_path, "--game", "three-dragons")
    referees.append(referee)
    kiosk, _board = open_pages(browser, referee)
    board_action(referee, do="lift", cell="c1")
    board_action(referee, do="place", cell="c5")  # further than a stone goes: illegal
    state = referee.wait_state("alert", "illegal")
    named = state["status"]
    assert state["unexpected"] == ["c5"], state
    (piece,) = state["misplaced"]
    assert (piece["cell"], piece["owner"], piece["kind"]) == ("c5", 1, "stone"), piece
    assert "White's stone off c5" in named, named
    drawn = kiosk.locator('.slot[data-cell="c5"] .piece')
    expect(drawn).to_have_class(re.compile("misplaced"), timeout=TIMEOUT)
    expect(drawn.locator(".symbol")).to_have_text(piece["symbol"])
    assert kiosk.locator(".piece.unknown").count() == 0


def test_the_words_a_person_reads() -> None:
    """Issue 64, item 11: sentences start with a capital, counts are counted, and the command
    line says what a person would ("(default true)", "after 1 move", no "(move)")."""
    from engine import Outcome
    from firmware_bridge import words
    from firmware_bridge.faces.club_board import BoardEntry
    from firmware_bridge.referee.timeline import _command_words

    games = subprocess.run([*PYTHON, "games"], capture_output=True, text=True, timeout=60,
                           check=True).stdout  # fmt: skip
    assert "(default true)" in games and "(default True)" not in games
    command = [*PYTHON, "play", "--game", "three-dragons", "--moves", "c1-c4"]
    played = subprocess.run(command, capture_output=True, text=True, timeout=60, check=True).stdout
    assert "no result yet after 1 move\n" in played and "(move)" not in played, played
    assert words.addressed("the computer", "put …") == "The computer: put …"
    assert Outcome(None, "agreed by the players").describe(("White", "Black")) == (
        "Draw (agreed by the players)")  # fmt: skip
    game = catalog.load_game("three-dragons")
    state = game.new_state()
    said = {"action": "computer", "what": "c1-c4", "cells": ["1|", ""], "source": "computer"}
    assert _command_words(said, state, ("", "")) == "The computer chose stone c1 to c4"
    said = {"action": "computer", "what": "c1-c4", "cells": ["hint|1|", ""]}
    assert _command_words(said, state, ("", "")) == "The engine's hint: stone c1 to c4"
    assert _command_words({"action": "hint", "source": "kiosk"}, state, ("", "")) == (
        "A hint asked for at the kiosk")  # fmt: skip
    assert _command_words({"action": "press", "button": "PASS", "source": "kiosk"}, None,
                          ("", "")) == "PASS pressed at the kiosk"  # fmt: skip
    card = BoardEntry("table1")
    moves = [{"text": "c1-c4", "words": "stone c1 to c4"}, {"text": "resign:2"}]
    card.take_state({"board": {"key": "k"}, "moves": moves}, "{}")
    assert card.digest is not None
    assert (card.digest["moves"], card.digest["last_text"]) == (1, "stone c1 to c4")
