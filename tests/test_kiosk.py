"""The kiosk and the emulated board's page, in a real browser (Debian's chromium, driven by
Playwright), against the real processes: ``board-referee run`` with no --port starts the
board emulator on a pty with its web page, exactly as README's main command does. Every move
goes emulator page -> emulator process -> pty -> daemon -> journal -> LEDs back to the
emulator, and the kiosk page updates live from the daemon."""

from __future__ import annotations

import csv
import io
import json
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from firmware_bridge.link import catalog
from firmware_bridge.referee.journal import Journal, read_records
from tests.helpers import GOAT_IN_REACH
from tests.mosquitto import free_port
from tests.netns import Namespace, request_from
from tests.test_end_to_end import TD_POSITION

TIMEOUT = 20_000  # ms, for the page to show what is expected


class LoggedProcess:
    """A ``board-referee`` command as its own process, its stderr log kept to wait on."""

    log: list[str]
    lock: threading.Lock
    proc: subprocess.Popen[str]
    log_timeout = 30.0  # seconds wait_log waits by default

    def spawn(self, command: list[str]) -> None:
        self.log, self.lock = [], threading.Lock()
        self.proc = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE, text=True, bufsize=1)  # fmt: skip
        threading.Thread(target=self._read, args=(self.proc,), daemon=True).start()

    def _read(self, proc: subprocess.Popen[str]) -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            with self.lock:
                self.log.append(line.rstrip("\n"))

    def wait_log(self, pattern: str, timeout: float | None = None) -> re.Match[str]:
        regex = re.compile(pattern)
        deadline = time.monotonic() + (self.log_timeout if timeout is None else timeout)
        while time.monotonic() < deadline:
            with self.lock:
                for line in self.log:
                    if match := regex.search(line):
                        return match
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        with self.lock:
            raise AssertionError(f"no {pattern!r} in the log:\n" + "\n".join(self.log[-30:]))

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


class Referee(LoggedProcess):
    """``board-referee run`` without --port: the daemon, the kiosk and the built-in emulator."""

    def __init__(self, tmp: Path, *args: str, kiosk: str | None = None) -> None:
        self.tmp = tmp
        self.kiosk_port = free_port()
        self.board_port = free_port()
        self.kiosk_address = kiosk or f"127.0.0.1:{self.kiosk_port}"
        self.args = list(args)
        self.start()

    def start(self) -> None:
        command = [
            sys.executable, "-m", "firmware_bridge.cli", "run",
            "--journal", str(self.tmp / "journal.sqlite3"), "--settle-ms", "100",
            "--kiosk", self.kiosk_address, "--emulator-web", f"127.0.0.1:{self.board_port}",
            *self.args,
        ]  # fmt: skip
        if "--review-ms" not in self.args:  # no analysis of games nobody reviews here: each
            command += ["--review-ms", "0"]  # would be an engine beside the suite (test_review)
        self.spawn(command)
        self.kiosk_url = self.wait_log(r"kiosk page: (\S+)").group(1)
        self.board_url = self.wait_log(r"emulated board's page: (\S+)").group(1)
        self.wait_log("board scanned")

    def post(self, path: str, body: object, token: str | None = None,
             forwarded: bool = False) -> tuple[int, Any]:  # fmt: skip
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        request = urllib.request.Request(self.kiosk_url.rstrip("/") + path, data=data,
                                         method="POST")  # fmt: skip
        request.add_header("Content-Type", "application/json")
        if token:
            request.add_header("X-Board-Referee-Token", token)
        if forwarded:
            request.add_header("X-Forwarded-For", "192.0.2.99")
        try:
            with urllib.request.urlopen(request, timeout=10) as answer:
                return answer.status, json.loads(answer.read())
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read())

    def state(self) -> dict[str, Any]:
        with urllib.request.urlopen(self.kiosk_url + "api/state", timeout=10) as answer:
            state: dict[str, Any] = json.loads(answer.read())
            return state

    def wait_state(self, key: str, value: object, timeout: float = 20.0) -> dict[str, Any]:
        """The state once its ``key`` is ``value`` (a control's answer comes before the state
        it made is published)."""
        deadline = time.monotonic() + timeout
        while (state := self.state())[key] != value:
            assert time.monotonic() < deadline, f"{key} stayed {state[key]!r}, not {value!r}"
            time.sleep(0.05)
        return state


@pytest.fixture
def referees() -> Iterator[list[Referee]]:
    made: list[Referee] = []
    yield made
    for referee in made:
        referee.stop()


def capture_referee(tmp_path: Path, referees: list[Referee]) -> Referee:
    """A referee of Three Dragons at TD_POSITION: White's c2-c4 takes Black's stone on d4."""
    position = tmp_path / "position.json"
    position.write_text(json.dumps(TD_POSITION))
    referee = Referee(tmp_path, "--game", "three-dragons", "--position", str(position))
    referees.append(referee)
    return referee


def open_pages(browser: Browser, referee: Referee) -> tuple[Page, Page]:
    kiosk = browser.new_page(viewport={"width": 800, "height": 480})
    board = browser.new_page(viewport={"width": 800, "height": 480})
    kiosk.goto(referee.kiosk_url)
    board.goto(referee.board_url)
    expect(kiosk.locator("#status")).not_to_contain_text("Waiting", timeout=TIMEOUT)
    board.wait_for_selector(".cell[data-cell]")
    return kiosk, board


def click(page: Page, *cells: str) -> None:
    """Click cells of the emulated board page, each once the page shows the click before it
    done. The page decides between lifting and placing from the board it last drew, so a click
    that comes before the previous one is drawn (a loaded machine) would be taken wrongly."""
    for cell in cells:
        piece = page.locator(f'.slot[data-cell="{cell}"] .piece')
        had_piece = piece.count() > 0
        page.locator(f'.cell[data-cell="{cell}"]').click()
        expect(piece).to_have_count(0 if had_piece else 1, timeout=TIMEOUT)


def signal_tag(page: Page, cell: str) -> str:
    """The tag the page draws on ``cell`` for its LED signal ('' for none, '..' for a hint)."""
    tag: str = page.evaluate(
        """(name) => {
            const mark = document.querySelector(`.signals .mark[data-cell="${name}"]`);
            const signal = mark.querySelector('.signal');
            if (!signal) return '';
            const tag = signal.querySelector('.tag');
            return tag ? tag.textContent : '..';
        }""",
        cell,
    )
    return tag


# -- playing through the pages ---------------------------------------------------------------


def test_a_move_on_the_board_page_reaches_the_kiosk(
    browser: Browser, referees: list[Referee], tmp_path: Path
) -> None:
    referee = Referee(tmp_path, "--game", "three-dragons")
    referees.append(referee)
    kiosk, board = open_pages(browser, referee)
    expect(kiosk.locator("#status")).to_have_text("White to move")
    expect(kiosk.locator("#title")).to_have_text("Three Dragons")
    expect(kiosk.locator("#conn")).to_contain_text("emulator")
    assert kiosk.locator("#btn-pass").is_hidden()  # Three Dragons has no pass: none offered
    click(board, "c1")
    expect(kiosk.locator(".pieces .piece.lifted")).to_have_count(1, timeout=TIMEOUT)
    click(board, "c4")
    expect(kiosk.locator("#status")).to_have_text("Black to move", timeout=TIMEOUT)
    expect(kiosk.locator("#moves li")).to_have_count(1)
    expect(kiosk.locator("#moves li").first).to_contain_text("White: stone c1 to c4")
    expect(kiosk.locator(".cell.last")).to_have_count(2)
    referee.wait_log("move 1: White c1-c4")
    # The page links the game's record, read from the journal: a page in the same tab (a
    # kiosk's browser has no tabs to close) with the way back, and the text that replays.
    assert kiosk.locator("#record-link").get_attribute("target") is None
    kiosk.locator("#btn-menu").click()
    kiosk.locator("#record-link").click()
    expect(kiosk.locator("h1")).to_have_text("Game 1", timeout=TIMEOUT)
    expect(kiosk.locator("pre")).to_contain_text("1. c1-c4")
    back = kiosk.get_by_role("link", name="Back to the board")
    kiosk.wait_for_load_state("load")  # measured with its stylesheet, not before it arrives
    assert back.bounding_box()["height"] >= 44  # type: ignore[index]
    href = kiosk.get_by_role("link", name="Plain text").get_attribute("href")
    assert href == "/api/record/1"
    back.click()
    expect(kiosk.locator("#moves li")).to_have_count(1, timeout=TIMEOUT)
    with urllib.request.urlopen(referee.kiosk_url.rstrip("/") + href, timeout=10) as answer:
        record = answer.read().decode()
    assert record.startswith("# Three Dragons: game 1 of journal.sqlite3")
    assert re.search(r"^1\. c1-c4 +# White \d\d:\d\d:\d\d$", record, re.MULTILINE), record


def test_a_removal_prompt_is_carried_out_from_the_pages(
    browser: Browser, referees: list[Referee], tmp_path: Path
) -> None:
    referee = capture_referee(tmp_path, referees)
    kiosk, board = open_pages(browser, referee)
    click(board, "c2", "c4")
    expect(kiosk.locator("#status")).to_have_text(
        "White: take Black's stone off d4", timeout=TIMEOUT
    )
    assert signal_tag(kiosk, "d4") == "RM"
    assert signal_tag(board, "d4") == "RM"
    expect(kiosk.locator("#legend")).to_contain_text("RM remove")
    click(board, "d4")
    expect(kiosk.locator("#status")).to_have_text("Black to move", timeout=TIMEOUT)
    expect(kiosk.locator("#players")).to_contain_text("lost 1 stone")
    assert signal_tag(kiosk, "d4") == ""


def test_an_illegal_move_is_shown_and_corrected(
    browser: Browser, referees: list[Referee], tmp_path: Path
) -> None:
    referee = Referee(tmp_path, "--game", "three-dragons")
    referees.append(referee)
    kiosk, board = open_pages(browser, referee)
    click(board, "c1", "d3")  # no piece moves diagonally
    expect(kiosk.locator("#status")).to_contain_text("Illegal move", timeout=TIMEOUT)
    expect(kiosk.locator("#status")).to_contain_text("d3")
    assert signal_tag(kiosk, "d3") in ("!!", "FR")
    assert signal_tag(kiosk, "c1") in ("PB", "TO")
    click(board, "d3", "c1")  # put it back as the lights say
    expect(kiosk.locator("#status")).to_have_text("White to move", timeout=TIMEOUT)
    assert referee.state()["moves"] == []
    click(board, "c1", "c4")
    expect(kiosk.locator("#status")).to_have_text("Black to move", timeout=TIMEOUT)
    # The arbiter's two touches (issue 29): Timeline, then the disputed move; under it what the
    # sensors said, the lights lit and the reason, in the order they came.
    kiosk.locator("#btn-menu").click()
    kiosk.locator("#btn-timeline").click()
    kiosk.locator("#tl-steps button", has_text="stone c1 to c4").click()
    expect(kiosk.locator("#tl-step-title")).to_contain_text("Move 1: White, stone c1 to c4")
    rows = kiosk.locator("#tl-rows tr")
    expect(rows.filter(has_text="illegal move")).to_have_count(1)
    texts = rows.all_inner_texts()
    said = [" ".join(t.split()) for t in texts]
    d3 = next(k for k, t in enumerate(said) if "Sensor d3: White's piece" in t)
    lights = [t for t in said[d3:] if "Lights" in t and "d3" in t and "c1" in t]
    assert lights and ("take away the piece on d3" in lights[0]
                       or "take the piece from d3" in lights[0]), said  # fmt: skip
    assert any("Move c1-c4 accepted" in t for t in said[d3:]), said
    box = kiosk.locator("#timeline").bounding_box()
    assert box is not None and box["width"] == 800 and box["height"] == 480  # the whole screen
    assert kiosk.locator("#tl-steps button .mark.illegal").count() == 1
    kiosk.locator("#tl-close").click()
    expect(kiosk.locator("#timeline")).to_be_hidden()


def test_the_emulated_boards_hand_behaves_like_a_hand(
    browser: Browser, referees: list[Referee], tmp_path: Path
) -> None:
    """A captured piece taken off as its light asks goes into the box, not the hand; a second
    click on a piece in the hand puts it down again (nothing picked), and then a stray click
    on an empty cell puts nothing on the board."""
    referee = capture_referee(tmp_path, referees)
    kiosk, board = open_pages(browser, referee)
    click(board, "c2", "c4")
    expect(kiosk.locator("#status")).to_have_text("White: take Black's stone off d4",
                                                  timeout=TIMEOUT)  # fmt: skip
    click(board, "d4")
    expect(board.locator("#hand button")).to_have_count(0)  # in the box
    expect(kiosk.locator("#status")).to_have_text("Black to move", timeout=TIMEOUT)
    click(board, "h8")
    picked = board.locator("#hand button.picked")
    expect(picked).to_have_count(1)
    picked.click()  # put down in the hand: nothing picked
    expect(board.locator("#hand button.picked")).to_have_count(0)
    board.locator('.cell[data-cell="h6"]').click()  # a stray click
    expect(board.locator("#notice")).to_contain_text("Click the piece in your hand")
    assert board.locator('.slot[data-cell="h6"] .piece').count() == 0
    board.locator("#hand button").click()
    click(board, "h6")
    expect(kiosk.locator("#status")).to_have_text("White to move", timeout=TIMEOUT)
    assert [m["text"] for m in referee.state()["moves"]] == ["c2-c4", "h8-h6"]


def test_a_piece_from_the_box_is_put_down_once(
    browser: Browser, referees: list[Referee], tmp_path: Path
) -> None:
    """Issue 51: a piece picked from the box is put down once; a stray click after it places
    no second one (the box's pick is spent)."""
    referee = Referee(tmp_path, "--game", "protect-the-goat")
    referees.append(referee)
    _, board = open_pages(browser, referee)
    board.locator("#supply button").first.click()
    expect(board.locator("#supply button.picked")).to_have_count(1)
    click(board, "a1")
    expect(board.locator("#supply button.picked")).to_have_count(0)
    board.locator('.cell[data-cell="c3"]').click()  # a stray click
    expect(board.locator("#notice")).to_contain_text("Your hand is empty")
    assert board.locator('.slot[data-cell="c3"] .piece').count() == 0


def test_take_back_from_the_kiosk(
    browser: Browser, referees: list[Referee], tmp_path: Path
) -> None:
    referee = Referee(tmp_path, "--game", "three-dragons")
    referees.append(referee)
    kiosk, board = open_pages(browser, referee)
    click(board, "c1", "c4")
    expect(kiosk.locator("#status")).to_have_text("Black to move", timeout=TIMEOUT)
    kiosk.locator("#btn-takeback").click()
    expect(kiosk.locator("#notice")).to_contain_text("Took back stone c1 to c4", timeout=TIMEOUT)
    expect(kiosk.locator("#moves li")).to_have_count(0)
    referee.wait_log("button TAKEBACK pressed on the kiosk")
    referee.wait_log("took back c1-c4")
    click(board, "c4", "c1")
    expect(kiosk.locator("#status")).to_have_text("White to move", timeout=TIMEOUT)
    # Its "put the board back" is done: the notice goes with it, at once (issue 51: the
    # page's own copy of the answer stayed its 12 s), not when the answer's time is up.
    expect(kiosk.locator("#notice")).to_have_text("", timeout=5_000)
    assert kiosk.locator("#btn-select").is_hidden()  # nothing to select: not offered
    code, answer = referee.post("/api/button", {"button": "select"})  # and refused, said so
    assert code == 409 and answer["message"] == "nothing to select"
    # A take-back that reopens a finished game is asked once more, saying so (issue 51).
    click(board, "c1", "c4")
    expect(kiosk.locator("#status")).to_have_text("Black to move", timeout=TIMEOUT)
    code, answer = referee.post("/api/result", {"result": "resign", "player": 2})
    assert code == 200, answer
    expect(kiosk.locator("#status")).to_contain_text("White wins", timeout=TIMEOUT)
    kiosk.locator("#btn-takeback").click()
    expect(kiosk.locator("#takeback-more")).to_contain_text("withdraws the result and reopens")
    kiosk.locator("#takeback-yes").click()
    expect(kiosk.locator("#status")).to_have_text("Black to move", timeout=TIMEOUT)


def test_new_game_of_another_game_from_the_kiosk(
    browser: Browser, referees: list[Referee], tmp_path: Path
) -> None:
    referee = Referee(tmp_path, "--game", "three-dragons")
    referees.append(referee)
    kiosk, board = open_pages(browser, referee)
    click(board, "c1", "c4")
    expect(kiosk.locator("#moves li")).to_have_count(1, timeout=TIMEOUT)
    kiosk.locator("#btn-menu").click()
    kiosk.locator("#btn-newgame").click()
    # A game with moves is abandoned by a new one: the dialog says so before it is done.
    expect(kiosk.locator("#ng-abandon")).to_have_text(
        "The game in progress (1 move) will be abandoned."
    )
    expect(kiosk.locator("#ng-start")).to_have_text("Abandon it and start")
    kiosk.locator("#ng-game").select_option("goats-wintering")
    kiosk.locator('#ng-options select[name="board"]').select_option("4x4")
    kiosk.locator('#ng-players input[name="player-1"]').fill("Ann Smith")
    kiosk.locator('#ng-players input[name="player-2"]').fill("Bob")
    kiosk.locator("#ng-start").click()
    expect(kiosk.locator("#title")).to_have_text("Goats Wintering", timeout=TIMEOUT)
    # The built-in emulator follows: the Goats Wintering board is swapped in, empty.
    expect(board.locator("#title")).to_have_text("Goats Wintering board", timeout=TIMEOUT)
    expect(kiosk.locator("#status")).to_contain_text("Ann Smith to move", timeout=TIMEOUT)
    expect(kiosk.locator(".cells .cell")).to_have_count(16)
    assert kiosk.locator(".cells polygon").count() == 16  # diamonds, from the geometry
    board.locator('#supply button[data-token="G"]').click()
    click(board, "A1")
    expect(kiosk.locator("#moves li")).to_have_count(1, timeout=TIMEOUT)
    expect(kiosk.locator("#players")).to_contain_text("score")
    expect(kiosk.locator("#players")).to_contain_text("Ann Smith (White)")
    expect(kiosk.locator("#players")).to_contain_text("Bob (Black)")
    referee.wait_log("abandoned game 1")
    referee.wait_log(r"new game 2: Goats Wintering \(board=4x4")
    # Swapping the emulated board for the new game's is an expected step, logged as such:
    # no error, no warning and no refused LED frame (a frame of the old board's size).
    referee.wait_log("the new game needs a goats-wintering board: waiting for it")
    with referee.lock:
        noisy = [line for line in referee.log if re.match(r"<[0-4]>", line)]
    assert noisy == [], noisy
    # The next new game starts with nobody named (issue 51: it filled in the last game's
    # names unseen); the last players are one touch away.
    kiosk.locator("#btn-menu").click()
    kiosk.locator("#btn-newgame").click()
    expect(kiosk.locator('#ng-players input[name="player-1"]')).to_have_value("")
    expect(kiosk.locator("#ng-same")).to_have_text("Same players: Ann Smith and Bob")
    kiosk.locator("#ng-same").click()
    expect(kiosk.locator('#ng-players input[name="player-1"]')).to_have_value("Ann Smith")
    expect(kiosk.locator('#ng-players input[name="player-2"]')).to_have_value("Bob")
    kiosk.locator("#ng-cancel").click()


# -- controls: tokens and bad requests ---------------------------------------------------------


def test_bad_requests_get_a_clear_4xx_and_change_nothing(
    referees: list[Referee], tmp_path: Path
) -> None:
    referee = Referee(tmp_path, "--game", "three-dragons")
    referees.append(referee)
    before = referee.state()
    cases: list[tuple[str, object, int, str]] = [
        ("/api/new-game", {"game": "chess"}, 400, "unknown game 'chess'"),
        ("/api/new-game", {"game": "three-dragons", "options": {"size": 3}}, 400, "size"),
        ("/api/new-game", {"game": "three-dragons", "options": {"variant": "x"}}, 400, "variant"),
        ("/api/new-game", {"options": {}}, 400, "which game"),
        ("/api/new-game", {"game": "vanguard", "options": [1]}, 400, "options must be"),
        ("/api/new-game", b"{not json", 400, "not JSON"),
        ("/api/new-game", [1, 2], 400, "JSON object"),
        # Players' names: two at most, text, a line of at most 40 printable characters.
        ("/api/new-game", {"game": "vanguard", "players": ["A", "B", "C"]}, 400, "up to two"),
        ("/api/new-game", {"game": "vanguard", "players": "Ann"}, 400, "up to two"),
        ("/api/new-game", {"game": "vanguard", "players": [7, "B"]}, 400, "up to two"),
        ("/api/new-game", {"game": "vanguard", "players": ["A" * 41]}, 400, "at most 40"),
        ("/api/new-game", {"game": "vanguard", "players": ["\x1b[31mA", ""]}, 400, "punctuation"),
        ("/api/button", {"button": "jump"}, 400, "unknown button"),
        ("/api/button", {}, 400, "unknown button"),
        ("/api/button", {"button": "pass"}, 409, "passing is not allowed"),
    ]
    for path, body, status, words in cases:
        code, answer = referee.post(path, body)
        assert code == status, (path, body, answer)
        assert words in (answer.get("error") or answer.get("message")), answer
    after = referee.state()
    assert after["game"] == before["game"] and after["game_number"] == before["game_number"]
    assert after["moves"] == []
    for path, status, words in (("timeline/999", 404, "no game 999"),
                                ("timeline/x1", 404, "a game number"),
                                ("timeline/" + "9" * 13, 404, "a game number")):  # fmt: skip
        try:
            urllib.request.urlopen(referee.kiosk_url + "api/" + path, timeout=10)
            raise AssertionError(f"{path} answered")
        except urllib.error.HTTPError as error:
            assert error.code == status and words in json.loads(error.read())["error"], path
    with urllib.request.urlopen(referee.kiosk_url + "api/timeline/1", timeout=10) as answer:
        shown = json.loads(answer.read())  # a game without moves: its run-up so far
    assert shown["game"] == 1 and shown["steps"] == [] and shown["title"] == "Three Dragons"


def test_beyond_loopback_controls_need_the_token(
    remote_browser: Browser, namespace: Namespace, referees: list[Referee], tmp_path: Path
) -> None:
    """Served on every address: another machine's page needs the access token for a control
    (and says so on the screen when it has none); the Pi's own screen, on loopback, does not.
    The other machine is the test's own network namespace (tests/netns.py)."""
    port = free_port()
    referee = Referee(tmp_path, "--game", "three-dragons", kiosk=f"0.0.0.0:{port}")
    referees.append(referee)
    referee.kiosk_url = f"http://{namespace.host}:{port}/"  # as the other machine reaches it
    token = (tmp_path / "kiosk-token").read_text().strip()
    said = referee.wait_log(f"access token kept in {re.escape(str(tmp_path / 'kiosk-token'))}")
    assert "the Pi's own screen, on 127.0.0.1, needs none" in said.string
    assert not any(token in line for line in referee.log), "the log must not hold the token"

    def post(body: object, **headers: str) -> tuple[int, Any]:
        code, text = request_from(namespace, referee.kiosk_url + "api/takeback", "POST",
                                  json.dumps(body), {"Content-Type": "application/json",
                                                     **headers})  # fmt: skip
        return code, json.loads(text)

    code, answer = post({})
    assert code == 401 and "access token" in answer["error"]
    code, answer = post({}, **{"X-Board-Referee-Token": "wrong"})
    assert code == 403
    code, answer = referee.post("/api/takeback", {}, forwarded=True)  # a proxy on this machine
    assert code == 401
    page = remote_browser.new_page(viewport={"width": 800, "height": 480})
    page.goto(referee.kiosk_url)
    expect(page.locator("#status")).to_have_text("White to move", timeout=TIMEOUT)
    page.locator("#btn-takeback").click(force=True)  # viewing is open, controls are not
    page.locator("#btn-menu").click()
    page.locator("#btn-newgame").click()
    page.locator("#ng-start").click()
    expect(page.locator("#ng-error")).to_contain_text("access token", timeout=TIMEOUT)
    page.goto(referee.kiosk_url + f"?token={token}")
    expect(page).to_have_url(referee.kiosk_url)  # kept by the page, dropped from the address
    page.reload()
    page.locator("#btn-menu").click()
    page.locator("#btn-newgame").click()
    page.locator("#ng-start").click()
    expect(page.locator("#newgame")).to_be_hidden(timeout=TIMEOUT)  # taken: the dialog closes
    referee.wait_log(r"new game \d+: Three Dragons .* with board profile")
    code, text = request_from(namespace, referee.kiosk_url + "api/new-game", "POST",
                              '{"game": "three-dragons"}', {"Content-Type": "application/json",
                              "X-Board-Referee-Token": token})  # fmt: skip
    assert code == 200 and json.loads(text)["ok"], text
    local = Referee.__new__(Referee)  # the Pi's own screen: loopback, no token
    local.kiosk_url = f"http://127.0.0.1:{port}/"
    code, answer = local.post("/api/new-game", {"game": "three-dragons"})
    assert code == 200 and answer["ok"], answer
    page.close()


def test_the_page_reconnects_after_a_daemon_restart(
    browser: Browser, referees: list[Referee], tmp_path: Path
) -> None:
    referee = Referee(tmp_path, "--game", "three-dragons")
    referees.append(referee)
    kiosk, board = open_pages(browser, referee)
    click(board, "c1", "c4")
    expect(kiosk.locator("#moves li")).to_have_count(1, timeout=TIMEOUT)
    referee.stop()
    expect(kiosk.locator("#banner")).to_be_visible(timeout=TIMEOUT)
    # The emulated board's page says its board is gone with its referee, never "connected".
    expect(board.locator("#conn")).to_have_text("not running", timeout=TIMEOUT)
    expect(board.locator("#banner")).to_be_visible()
    referee.args = []  # the restart resumes the journal's unfinished game
    referee.start()
    referee.wait_log("resuming game 1")
    expect(kiosk.locator("#banner")).to_be_hidden(timeout=TIMEOUT)
    expect(kiosk.locator("#moves li")).to_have_count(1, timeout=TIMEOUT)
    # The emulated board kept its pieces, as a physical board does: play goes on at once.
    expect(kiosk.locator("#status")).to_have_text("Black to move", timeout=TIMEOUT)
    # A board that did not keep them (a new one in its place): the position to lay out, each
    # piece by its kind, whole at 800x480; then "Lay out" puts it there.
    referee.stop()
    (tmp_path / "journal-board.json").unlink()
    referee.start()
    status = kiosk.locator("#status")
    expect(status).to_contain_text("Resuming: set the board to the position", timeout=TIMEOUT)
    expect(status).to_contain_text("White's stone from c1 to c4")
    fits = "(e) => e.scrollHeight <= e.clientHeight && e.getBoundingClientRect().bottom < 480"
    assert status.evaluate(fits), status.text_content()
    board.reload()
    board.locator("#btn-layout").click()
    expect(status).to_have_text("Black to move", timeout=TIMEOUT)


def test_the_board_check_from_the_kiosk(
    browser: Browser, referees: list[Referee], tmp_path: Path
) -> None:
    referee = capture_referee(tmp_path, referees)
    kiosk, board = open_pages(browser, referee)
    kiosk.locator("#btn-menu").click()
    kiosk.locator("#btn-check").click()
    kiosk.locator("#check-cells").fill("c3 d3")
    kiosk.locator("#check-start").click()
    expect(kiosk.locator("#check")).to_be_visible(timeout=TIMEOUT)
    expect(kiosk.locator("#check-instruction")).to_contain_text("Take every piece off")
    click(board, "c2", "d4", "e4", "h2", "i3", "h8", "i7")  # the board cleared
    kiosk.locator("#check-stop").wait_for()
    board.locator("button[data-press='confirm']").click()
    expect(kiosk.locator("#check-instruction")).to_contain_text("on c3", timeout=TIMEOUT)
    expect(kiosk.locator("#check-progress")).to_have_text("0 of 4")
    board.locator("#supply [data-token='S']").first.click()  # White's stone from the box
    click(board, "c3")
    expect(kiosk.locator("#check-instruction")).to_contain_text("lift the piece off c3",
                                                                 timeout=TIMEOUT)  # fmt: skip
    click(board, "c3")
    expect(kiosk.locator("#check-instruction")).to_contain_text("on c3", timeout=TIMEOUT)
    kiosk.locator("button[data-check='dark']").click()  # said from the kiosk: no light there
    kiosk.locator("button[data-check='skip']").click()
    kiosk.locator("button[data-check='skip']").click()
    expect(kiosk.locator("#check-instruction")).to_contain_text("finished", timeout=TIMEOUT)
    expect(kiosk.locator(".finding.led")).to_contain_text("c3")
    kiosk.screenshot(path=str(tmp_path / "check.png"))  # to look at when it fails
    kiosk.locator("#check-stop").click()  # back to the game
    expect(kiosk.locator("#check")).to_be_hidden(timeout=TIMEOUT)
    expect(kiosk.locator("#status")).to_contain_text("put back", timeout=TIMEOUT)
    referee.wait_log("board check: .*to fix: c3")


# -- what the kiosk says at 800x480 (issue 19) ------------------------------------------------


def test_the_kiosk_shows_the_result_and_the_set_up_that_starts_the_next_game(
    browser: Browser, referees: list[Referee], tmp_path: Path
) -> None:
    start = GOAT_IN_REACH
    position = tmp_path / "position.json"
    position.write_text(json.dumps(start))
    # Ann and Dana play it (named with the New game control, as the journal keeps them).
    game = catalog.load_game("protect-the-goat")
    journal = Journal(tmp_path / "journal.sqlite3")
    journal.start_game(game, "protect-the-goat", game.state_from_json(start).to_json(),
                       ("Ann", "Dana"))  # fmt: skip
    journal.close()
    referee = Referee(tmp_path, "--game", "protect-the-goat", "--position", str(position))
    referees.append(referee)
    kiosk, board = open_pages(browser, referee)
    expect(kiosk.locator("#key")).to_contain_text("sugarmouse")  # the letters' key
    expect(kiosk.locator("#key")).to_contain_text("dark hex: impassable")
    click(board, "a5", "a6")  # the lyon steps next to the goat: the battle takes it
    expect(kiosk.locator("#status")).to_have_text(
        "Ann (Player 1) wins: Player 1 captured the goat", timeout=TIMEOUT
    )
    # The capture is carried out on the board as the lights ask:
    click(board, "b6")  # the goat off, as its light asks: into the box, not the hand
    expect(board.locator("#hand button")).to_have_count(0, timeout=TIMEOUT)
    click(board, "a6")  # the lyon up: the one piece in the hand, picked by itself
    expect(board.locator("#hand button.picked[data-token='L']")).to_have_count(1)
    click(board, "b6")  # the lyon onto the goat's hex
    expect(kiosk.locator("#status")).to_have_text(
        "Ann (Player 1) wins: Player 1 captured the goat", timeout=TIMEOUT
    )
    expect(kiosk.locator("#next")).to_have_text("Clearing the board starts the next game.")
    assert kiosk.locator(".player.turn").count() == 0  # nobody's move now


def test_a_resignation_and_an_agreed_draw_are_results_everywhere(
    referees: list[Referee], tmp_path: Path
) -> None:
    """Resign and agreed draw from the kiosk: journaled like moves, withdrawn by a take-back,
    in the text record (which replays to the same result), the CSV and the flight recording
    (replayed identically), worded as every result is. A game nobody played leaves no row."""
    referee = Referee(tmp_path, "--game", "three-dragons")
    referees.append(referee)
    code, answer = referee.post("/api/new-game", {"game": "three-dragons",
                                                  "players": ["Alice", "Bob"]})  # fmt: skip
    assert code == 200, answer
    referee.wait_log("set aside game 1: nothing was played in it")  # no phantom game 1:
    referee.wait_log("new game 1: Three Dragons .* with board profile")  # this game is game 1
    referee.wait_state("status", "Alice to move")  # the board read: it shows the game
    code, answer = referee.post("/api/result", {"result": "resign", "player": 2})
    assert code == 200 and answer["message"] == "Bob resigned: Alice wins", answer
    referee.wait_state("outcome", "Alice (White) wins: Bob (Black) resigned")
    code, answer = referee.post("/api/result", {"result": "draw"})
    assert code == 409 and "over already" in answer["message"]
    for bad in ({"result": "resign", "player": 3}, {"result": "win"}, {"result": "draw", "x": 1},
                {"result": "resign", "player": True}):  # fmt: skip
        code, answer = referee.post("/api/result", bad)
        assert code in (400, 409), (bad, code, answer)
    code, answer = referee.post("/api/takeback", {})
    assert code == 200 and answer["message"] == "the resignation is withdrawn: play on"
    referee.wait_state("outcome", None)
    journal = tmp_path / "journal.sqlite3"
    (record,) = read_records(journal, 1)
    assert record.status == "playing" and record.outcome is None  # withdrawn in the journal too
    code, answer = referee.post("/api/result", {"result": "draw"})
    assert code == 200, answer
    referee.wait_state("outcome", "Draw (agreed by the players)")
    (record,) = read_records(journal, 1)
    assert record.status == "finished" and record.outcome == {
        "winner": None, "reason": "agreed by the players"}  # fmt: skip
    with urllib.request.urlopen(referee.kiosk_url + "api/record/1", timeout=10) as got:
        text = got.read().decode()
    assert re.search(r"^   draw +# draw agreed", text, re.M), text
    assert "# players: White: Alice; Black: Bob" in text
    moves_file = tmp_path / "game1.txt"
    moves_file.write_text(text)
    played = subprocess.run([sys.executable, "-m", "firmware_bridge.cli", "play", "--game",
                             "three-dragons", "--moves-file", str(moves_file), "--quiet"],
                            capture_output=True, text=True, timeout=60, check=True)  # fmt: skip
    assert "result: Draw (agreed by the players)" in played.stdout
    with urllib.request.urlopen(referee.kiosk_url + "api/results.csv", timeout=10) as got:
        rows = list(csv.DictReader(io.StringIO(got.read().decode())))
    # The run's first game was never played (a New game over it): it left no row.
    assert [(r["game_number"], r["result"], r["player_1"]) for r in rows] == [
        ("1", "Draw (agreed by the players)", "Alice")]  # fmt: skip
    referee.stop()
    replayed = subprocess.run([sys.executable, "-m", "firmware_bridge.cli", "replay",
                               str(journal), "--game", "1"], capture_output=True, text=True,
                              timeout=120, check=False)  # fmt: skip
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    assert "result: Draw (agreed by the players)" in replayed.stdout
    assert "decided identically" in replayed.stdout
