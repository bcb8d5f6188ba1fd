"""The computer opponent at the board, end to end: the referee asks the engine (its own
process) on the computer's turn, shows its move on the LEDs and in words, the simulated hands
carry it out, and the referee checks it; a wrong carrying-out is put right."""

from __future__ import annotations

import json
import os
import random
import re
import signal
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from engine import Move, MoveKind, Player
from firmware_bridge.link import catalog
from tests.e2e import DaemonProcess, EmulatorProcess, hand_text, wait_until
from tests.helpers import tokens
from tests.mosquitto import free_port
from tests.test_kiosk import (
    TIMEOUT,
    Referee,
    click,
    open_pages,
    referees,
)

CHOSE = re.compile(r"the computer chose (\S+)")
__all__ = ["referees"]  # the kiosk tests' fixtures, used here too
GAMES = ["goats-wintering", "protect-the-goat", "the-lion-game", "three-dragons", "vanguard"]
# Plies played: Goats Wintering to its end (5 to 10 s), the journal's result checked; The
# Lion Game and Three Dragons take 30 to 60 s to end, Protect the Goat and Vanguard 15 to 30 s
# under the suite's load, so make test plays 14 plies of the first two, Protect the Goat's 18
# placements and 12 steps, and 24 plies of Vanguard; BOARD_REFEREE_WHOLE_GAMES=1 plays every
# game to its end.
WHOLE = 1000
PLIES = {game: WHOLE for game in GAMES} if os.environ.get("BOARD_REFEREE_WHOLE_GAMES") else {
    "goats-wintering": WHOLE, "protect-the-goat": 30, "vanguard": 24,
    "the-lion-game": 14, "three-dragons": 14,
}  # fmt: skip


def chosen(daemon: DaemonProcess, count: int) -> str:
    """The computer's ``count``-th choice, once the log has it."""
    found: list[str] = []

    def ready() -> bool:
        found[:] = CHOSE.findall(daemon.text())
        return len(found) >= count

    wait_until(ready, 60, lambda: f"the computer chose {found}, not {count} moves\n"
               + daemon.text()[-3000:])  # fmt: skip
    return found[count - 1]


@pytest.mark.parametrize("game_id", GAMES)
def test_a_game_against_the_computer_on_the_emulated_board(tmp_path: Path, game_id: str) -> None:
    game = catalog.load_game(game_id)
    emu = EmulatorProcess(tmp_path, game_id, game_id)
    daemon = DaemonProcess(tmp_path, game_id, game_id, emu.link, "--computer", "2",
                           "--level", "5", "--movetime", "150")  # fmt: skip
    try:
        # The computer's game is a new game (it takes game 1's number: nothing was played in
        # the run's first game): play once the referee offers its start.
        wait_until(lambda: " to move" in daemon.text().partition(" with board profile ")[2], 60,
                   lambda: daemon.text()[-3000:])  # fmt: skip
        state = game.new_state()
        rng = random.Random(7)
        texts: list[str] = []  # the game as the journal has it
        by_computer = 0  # the computer's moves made so far
        wrong_done = False

        def make(text: str) -> None:
            nonlocal by_computer
            by_computer += state.to_move is Player.TWO
            effect = state.apply(state.parse(text))
            texts.append(text)
            daemon.wait_moves(texts, timeout=60)
            if effect.footprint().result != effect.footprint().hand:
                follow()

        def follow() -> None:
            """The hands do what the LEDs ask, which may be the computer's whole move: the
            journal then has it."""
            emu.do("follow 20", timeout=60)
            for text in daemon.moves()[len(texts) :]:
                make(text)

        def plain(move: Move) -> bool:
            if move.kind is MoveKind.PASS or move.is_decision:
                return True
            hand = state.footprint(move).hand
            return len(hand) == (1 if move.kind is MoveKind.PLACE else 2) and not move.cells

        def carried_out(move: Move) -> bool:
            """Whether the hands have made ``move`` by following the LEDs (the board's cells
            filled as after its hand action or its consequences); a move they began (the
            captured piece taken off first, the rest shown as a hint) they finish. A move no
            hand makes (a pass, a decision) is never carried out by following."""
            names = game.board.names
            footprint = state.footprint(move)
            if not footprint.hand:
                return False
            before = state.layout()
            after = [{names[c] for c in footprint.hand_layout(before)},
                     {names[c] for c in footprint.result_layout(before)}]  # fmt: skip
            now = set(emu.pieces())  # still: the hands act only when asked, and follow is over
            if now in after:
                return True
            if now == {names[c] for c in before}:
                return False
            assert move.kind is MoveKind.MOVE, f"{sorted(now)} is neither before nor after {move}"
            source, target = names[move.frm], names[move.to]
            for cell in sorted(now - after[0] - {source}):
                emu.do(f"lift {cell}")
            if source in now:
                emu.do(f"move {source} {target}")
            else:  # the follow lifted it already: the hand puts that piece down
                emu.do(f"place {target} {tokens(state)[source]}")
            return True

        while state.outcome() is None and state.plies < PLIES[game_id]:
            if state.to_move is Player.ONE:  # the person: any legal move
                # Plain moves: a lift and a put-down, or a placement (a null move's CONFIRM
                # and a strike's return are the other tests' business).
                moves = [m for m in state.legal_moves() if plain(m)]
                text = state.notation(moves[int(rng.random() * len(moves))])
                emu.do(f"play {hand_text(state, text)}")
                make(text)
                continue
            # The computer: its move, read from the referee, carried out by hand.
            text = chosen(daemon, by_computer + 1)
            move = state.parse(text)
            assert state.is_legal(move)
            if carried_out(move):  # the last follow did it (the LEDs showed it): taken yet
                make(text)
                continue
            others = [m for m in state.legal_moves() if m != move and plain(m)
                      and not m.is_decision and m.kind is not MoveKind.PASS]  # fmt: skip
            # Another piece's move first: the computer's own piece put on another cell is
            # carried on from there where that is shorter (test_reconcile), not refused.
            others.sort(key=lambda m: m.frm == move.frm)
            if not wrong_done and others and not state.deciding:
                # A wrong carrying-out: another legal move. The referee refuses it and its
                # LEDs put the board right, then show the computer's move.
                wrong_done = True
                wrong = state.notation(others[0])
                # This move of the computer's announced first (logged just after its choice).
                wait_until(lambda: "the computer plays " in daemon.text().rpartition(
                    "the computer chose ")[2], 30, lambda: daemon.text()[-3000:])  # fmt: skip
                before = len(daemon.text())
                announced = re.findall(r"the computer plays .*", daemon.text())[-1]

                def answered(before: int = before, announced: str = announced) -> bool:
                    """Put right, or carried on where that is shorter."""
                    said = daemon.text()[before:]
                    return "illegal move (the computer plays " in said or any(
                        line != announced for line in re.findall(r"the computer plays .*", said)
                    )

                emu.do(f"play {hand_text(state, wrong)}")
                wait_until(answered, 30, lambda: daemon.text()[-3000:])
                assert daemon.moves() == texts  # nothing taken from it
                follow()
                if texts and texts[-1] == text:
                    continue
                if carried_out(move):  # the hands did it all, and the referee is taking it
                    make(text)
                    continue
            emu.do(f"play {hand_text(state, text)}")
            make(text)
        assert by_computer >= 2
        assert wrong_done
        outcome = state.outcome()
        if PLIES[game_id] == WHOLE:  # played to its end: the journal has the same result
            assert outcome is not None, texts
            daemon.wait_log(r"game over|wins|draw")
            journal = daemon.outcome()
            assert journal is not None
            assert journal["winner"] == (None if outcome.winner is None else int(outcome.winner))
        if outcome is None:  # 14 plies: the person's turn
            assert state.to_move is Player.ONE
            # A take-back on the person's turn undoes the computer's answer and their move.
            emu.do("press takeback")
            daemon.wait_moves(texts[:-2], timeout=30)
            daemon.wait_log(r"took back \S+ \S+", timeout=30)
    finally:
        daemon.stop()
        emu.close()


def shown(board: Page) -> dict[str, list[str]]:
    """The cells the emulated board's page lights, by tag: FR (lift), TO (put), RM (take off)."""
    marks: dict[str, list[str]] = board.evaluate(
        """() => {
            const found = {FR: [], TO: [], RM: []};
            for (const mark of document.querySelectorAll('.signals .mark[data-cell]')) {
                const tag = mark.querySelector('.signal .tag');
                const cell = mark.dataset.cell;
                if (tag && tag.textContent in found) found[tag.textContent].push(cell);
            }
            return found;
        }"""
    )
    return marks


def play_hand(board: Page, referee: Referee, text: str) -> None:
    """Make ``text``'s hand action on the emulated board's page (the piece from where it
    stands to where it goes, worked out from the game as the referee has it), then whatever
    the LEDs ask for after it (a flag that follows its captain)."""
    game = catalog.load_game(referee.state()["game"]["id"])
    state = game.new_state()
    for entry in referee.state()["moves"]:
        state.apply(state.parse(entry["text"]))
    hand = dict(state.footprint(state.parse(text)).hand)
    names = game.board.names
    emptied = [names[c] for c, piece in hand.items() if piece is None]
    filled = [names[c] for c, piece in hand.items() if piece is not None]
    before = len(referee.state()["moves"])
    click(board, *emptied, *filled)
    deadline = time.monotonic() + TIMEOUT / 1000
    while len(referee.state()["moves"]) <= before:  # the move is in: now its consequences
        assert time.monotonic() < deadline, f"{text} was not taken"
        time.sleep(0.05)
    carry_out(board, referee)


def carry_out(board: Page, referee: Referee) -> None:
    """Do on the emulated board's page what its LEDs show, as a player would: each piece from
    its FR cell to a TO cell, each RM piece off (a move with its consequences), until the
    page has shown nothing to do for a second (a consequence is lit once the move is in), or
    it shows the computer's next move (which is the computer's to make, not these hands')."""
    quiet = 0
    while quiet < 5:
        marks = shown(board)
        # asked after the marks are read: lit, the computer's move is already in the status
        # (read before them, the move could be chosen and lit in between, and carried out)
        if "computer plays" in referee.state()["status"].lower():
            return
        if marks["RM"]:
            click(board, marks["RM"][0])
            quiet = 0
        elif marks["FR"] and marks["TO"]:
            click(board, marks["FR"][0], marks["TO"][0])
            quiet = 0
        else:
            quiet += 1
        board.wait_for_timeout(200)


def test_the_kiosk_seats_the_computer_and_shows_its_move(
    browser: Browser, referees: list[Referee], tmp_path: Path
) -> None:
    """New game at the kiosk: Black played by the computer at level 1, a second a move. The
    kiosk says it is thinking, then its move in words, and the emulated board's LEDs show it;
    carried out on the board, the game goes on; the move list names the computer."""
    referee = Referee(tmp_path, "--game", "vanguard")
    referees.append(referee)
    kiosk, board = open_pages(browser, referee)
    kiosk.locator("#btn-menu").click()
    kiosk.locator("#btn-newgame").click()
    kiosk.locator('#ng-players input[name="player-1"]').fill("Ann")
    expect(kiosk.locator("#ng-players label.computer-time")).to_be_hidden()
    kiosk.locator('#ng-players select[name="side-2"]').select_option("1")
    expect(kiosk.locator('#ng-players input[name="player-2"]')).to_be_hidden()
    kiosk.locator('#ng-players select[name="movetime"]').select_option("1000")
    kiosk.locator("#ng-start").click()
    status = kiosk.locator("#status")
    expect(status).to_contain_text("Ann to move", timeout=TIMEOUT)
    click(board, "C2", "C3")
    expect(status).to_contain_text("The computer plays", timeout=TIMEOUT)
    move = referee.wait_log(r"the computer chose (\S+)").group(1)
    marks = shown(board)
    assert move.split("-")[0] in marks["FR"] and marks["TO"], (move, marks)  # lift, put
    play_hand(board, referee, move)
    expect(kiosk.locator("#moves li")).to_have_count(2, timeout=TIMEOUT)
    expect(kiosk.locator("#moves li").nth(1)).to_contain_text("computer")
    expect(status).to_contain_text("Ann to move", timeout=TIMEOUT)
    state = referee.state()
    assert state["game"]["people"] == ["Ann", "Computer, level 1"]
    # A hint: the engine's move for Ann, in words and on the LEDs, not played.
    kiosk.locator("#btn-hint").click()
    expect(status).to_contain_text("hint:", timeout=TIMEOUT)
    hint = referee.wait_log(r"hint for Ann: (\S+)").group(1)
    marks = shown(board)
    assert hint.split("-")[0] in marks["FR"] and marks["TO"], (hint, marks)
    expect(kiosk.locator("#btn-hint")).to_be_hidden()  # one hint at a time
    assert len(referee.state()["moves"]) == 2  # nothing played
    status_code, answer = referee.post("/api/hint", {})
    assert status_code == 409, answer  # refused: the hint is already on the board
    assert "the hint is on the board" in answer["message"]
    play_hand(board, referee, hint)  # Ann takes the hint
    expect(kiosk.locator("#moves li")).to_have_count(3, timeout=TIMEOUT)
    # The record notes the hint; the computer is a player in the results.
    # (Game 1: the run's first game, never played, gave its number to this one.)
    with urllib.request.urlopen(referee.kiosk_url + "api/record/1", timeout=10) as answer:
        text = answer.read().decode()
    assert f"# hints used: 1: before move 3 ({hint})" in text, text
    assert "Computer, level 1" in text
    # Hints turned off for a game: the button goes, and the control is refused.
    code, answer = referee.post("/api/new-game", {"game": "vanguard", "hints": False,
                                                  "computer": {"2": 2}})  # fmt: skip
    assert code == 200, answer
    state = referee.wait_state("game_number", 2)
    assert "hint" not in state["buttons"]
    code, answer = referee.post("/api/hint", {})
    assert code == 409 and "hints are off" in answer["message"], answer
    code, answer = referee.post("/api/new-game", {"game": "vanguard", "computer": {"3": 2}})
    assert code == 400 and "side 1 or 2" in answer["error"], answer


def test_an_engine_crash_never_stops_the_referee(tmp_path: Path) -> None:
    """The engine killed while it thinks: the referee says so and offers to restart it; the
    restart asks again and the game goes on."""
    emu = EmulatorProcess(tmp_path, "vanguard", "vanguard")
    daemon = DaemonProcess(tmp_path, "vanguard", "vanguard", emu.link, "--computer", "2",
                           "--level", "5", "--movetime", "20000", "--kiosk",
                           f"127.0.0.1:{free_port()}")  # fmt: skip
    try:
        found = re.search(r"kiosk page: (\S+)", daemon.wait_log(r"kiosk page: "))
        assert found is not None
        url = found.group(1)
        wait_until(lambda: " to move" in daemon.text().partition(" with board profile ")[2], 60,
                   lambda: daemon.text()[-3000:])  # fmt: skip
        emu.do("play C2-C3")
        pid = int(daemon.wait_log(r"the computer's engine started \(process (\d+)\)").split()[-1]
                  .strip(")"))  # fmt: skip
        os.kill(pid, signal.SIGKILL)
        daemon.wait_log(r"the computer's engine failed")
        # The log line comes first; the kiosk's snapshot follows once the main loop has it.
        wait_until(lambda: "restart-computer" in post(url, "api/state", None)["buttons"], 10,
                   lambda: str(post(url, "api/state", None)))  # fmt: skip
        state = post(url, "api/state", None)
        assert "stopped" in state["notice"]
        assert daemon.proc.poll() is None  # the referee goes on
        answer = post(url, "api/computer-restart", {})
        assert answer["ok"], answer
        again = rf"the computer.s engine started \(process (?!{pid}\))\d+\)"  # a new one
        daemon.wait_log(again)
    finally:
        daemon.stop()
        emu.close()


def post(url: str, path: str, body: object) -> dict[str, Any]:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url + path, data=data,
                                     method="GET" if body is None else "POST")  # fmt: skip
    request.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(request, timeout=10) as answer:
        result: dict[str, Any] = json.loads(answer.read())
        return result


def test_the_computers_move_outlives_a_crash(tmp_path: Path) -> None:
    """Issue 64: the computer announces its move, the referee is killed, the players carry the
    move out as told. The restarted referee shows the same move (journaled before it was
    shown), takes it from the board as it finds it, and the game goes on: never an undo, never
    a second choice."""
    emu = EmulatorProcess(tmp_path, "vanguard", "vanguard")
    daemon = DaemonProcess(tmp_path, "vanguard", "vanguard", emu.link, "--computer", "2",
                           "--level", "1", "--movetime", "200")  # fmt: skip
    try:
        wait_until(lambda: " to move" in daemon.text().partition(" with board profile ")[2], 60,
                   lambda: daemon.text()[-3000:])  # fmt: skip
        emu.do("play C2-C3")
        daemon.wait_moves(["C2-C3"])
        move = chosen(daemon, 1)
        wait_until(lambda: bool(emu.current_leds()), 30, lambda: daemon.text()[-2000:])
        daemon.kill(signal.SIGKILL)
        game = catalog.load_game("vanguard")
        state = game.new_state()
        state.apply(state.parse("C2-C3"))
        emu.do(f"play {hand_text(state, move)}")  # as the LEDs said, while no referee looks
        daemon.start()
        daemon.wait_log(rf"the computer's move {re.escape(move)}, chosen before the restart, "
                        "stands")  # fmt: skip
        daemon.wait_moves(["C2-C3", move])
        assert "resuming: set the board" not in daemon.text().rpartition("stands")[2]
        assert len(CHOSE.findall(daemon.text())) == 1  # never chosen again
        daemon.wait_log("Player 1 to move|White to move")
    finally:
        daemon.stop()
        emu.close()
