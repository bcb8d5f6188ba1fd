"""A club of boards over a real Mosquitto (started here on a free port): real referees with
their built-in emulators publish with --mqtt, a real ``board-referee club`` follows them, and
the club page is looked at in Debian's chromium. Moves made on an emulated board's page go
emulator -> pty -> daemon -> MQTT -> club view -> page."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import paho.mqtt.client as paho
import pytest
from paho.mqtt.enums import CallbackAPIVersion
from playwright.sync_api import Browser, expect

from tests.mosquitto import Mosquitto
from tests.test_kiosk import TIMEOUT, LoggedProcess, Referee, click
from tests.test_kiosk_screen import MEASURE

PREFIX = "board-referee/v1"


def documented_acl() -> str:
    """The ACL docs/mqtt.md gives a club's Mosquitto, exactly as written there: the tests run
    the documented set-up, so a topic it forgets fails here."""
    guide = (Path(__file__).resolve().parent.parent / "docs" / "mqtt.md").read_text()
    found = re.search(r"```conf\n# \S+/board-referee\.acl\n(.*?)```", guide, re.S)
    assert found is not None, "docs/mqtt.md has no board-referee.acl block"
    return found.group(1)


ACL = documented_acl()


def documented_conf() -> str:
    """The Mosquitto configuration docs/mqtt.md gives, as written there."""
    guide = (Path(__file__).resolve().parent.parent / "docs" / "mqtt.md").read_text()
    found = re.search(r"```conf\n(# ~/club-broker/mosquitto\.conf.*?)```", guide, re.S)
    assert found is not None, "docs/mqtt.md has no mosquitto.conf block"
    return found.group(1)


CONF = documented_conf()


class Club(LoggedProcess):
    """``board-referee club`` as its own process."""

    log_timeout = 20.0

    def __init__(self, tmp: Path, url: str, *args: str, listen: str = "127.0.0.1") -> None:
        """On a port of the system's choosing (port 0), read from the club view's own log
        line: a port found free first can be taken by another test before the club binds it."""
        command = [sys.executable, "-m", "firmware_bridge.cli", "club", "--mqtt", url,
                   "--listen", f"{listen}:0", "--results", str(tmp / "results.jsonl"),
                   *args]  # fmt: skip
        self.spawn(command)
        self.port = int(self.wait_log(r"club view: \S+?:(\d+)/\S*( \(also .*\))?; boards from")[1])
        self.url = f"http://127.0.0.1:{self.port}/"
        self.wait_log("club view: connected")

    def get(self, path: str) -> Any:
        with urllib.request.urlopen(self.url + path.lstrip("/"), timeout=10) as answer:
            if answer.headers.get_content_type() == "application/json":
                return json.loads(answer.read())
            return answer.read().decode()

    def post(self, path: str, body: object) -> tuple[int, Any]:
        request = urllib.request.Request(self.url + path.lstrip("/"), method="POST",
                                         data=json.dumps(body).encode())  # fmt: skip
        request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=15) as answer:
                return answer.status, json.loads(answer.read())
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read())

    def board(self, name: str) -> dict[str, Any] | None:
        boards = self.get("/api/club")["boards"]
        return next((b for b in boards if b["name"] == name), None)

    def wait_board(self, name: str, test: Any, timeout: float = 20.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        board = None
        while time.monotonic() < deadline:
            board = self.board(name)
            if board is not None and test(board):
                return board
            time.sleep(0.1)
        raise AssertionError(f"board {name} never got there: {board}")


class Listener:
    """A plain MQTT subscriber: what a home-automation system or a script would see."""

    def __init__(self, url: str, topic: str, user: str | None = None, password: str = "") -> None:
        port = int(url.rsplit(":", 1)[1])
        self.messages: list[tuple[str, dict[str, Any]]] = []
        self.client = paho.Client(CallbackAPIVersion.VERSION2)
        if user:
            self.client.username_pw_set(user, password)
        self.client.on_message = lambda c, u, m: self.messages.append(
            (m.topic, json.loads(m.payload))
        )
        self.client.connect("127.0.0.1", port)
        self.client.subscribe(topic, qos=1)
        self.client.loop_start()

    def events(self, kind: str) -> list[dict[str, Any]]:
        return [body for topic, body in list(self.messages)
                if topic.endswith("/events") and body.get("type") == kind]  # fmt: skip

    def wait_event(self, kind: str, timeout: float = 20.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if found := self.events(kind):
                return found[-1]
            time.sleep(0.05)
        raise AssertionError(f"no {kind} event: {[b.get('type') for _, b in self.messages]}")

    def close(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


@pytest.fixture
def cleanup() -> Iterator[list[Any]]:
    made: list[Any] = []
    yield made
    for thing in reversed(made):
        thing.stop() if hasattr(thing, "stop") else thing.close()


def club_with_logins(
    tmp_path: Path, cleanup: list[Any], users: dict[str, str], acl: str, conf: str | None = None
) -> tuple[Mosquitto, Club, tuple[str, ...]]:
    """A broker with these logins and this ACL, and a club view on it with its own login
    ("club", password "club-secret"); the club's arguments, to start it again."""
    broker = Mosquitto(tmp_path / "broker", users=users, acl=acl, conf=conf)
    cleanup.append(broker)
    (tmp_path / "club-password").write_text("club-secret\n")
    club_args = ("--mqtt-user", "club", "--mqtt-password-file", str(tmp_path / "club-password"))
    club = Club(tmp_path, f"mqtt://127.0.0.1:{broker.port}", *club_args)
    cleanup.append(club)
    return broker, club, club_args


def referee(tmp: Path, broker: str, name: str, *args: str) -> Referee:
    folder = tmp / name
    folder.mkdir()
    return Referee(folder, "--mqtt", broker, "--board-id", name, *args)


def test_moves_alerts_and_a_killed_referee_in_the_club_page(
    browser: Browser, cleanup: list[Any], tmp_path: Path
) -> None:
    broker = Mosquitto(tmp_path / "broker")
    cleanup.append(broker)
    club = Club(tmp_path, broker.url, "--alert-after", "1")
    cleanup.append(club)
    events = Listener(broker.url, f"{PREFIX}/#")
    cleanup.append(events)
    one = referee(tmp_path, broker.url, "table1", "--game", "three-dragons")
    cleanup.append(one)
    two = referee(tmp_path, broker.url, "table2", "--game", "the-lion-game")
    cleanup.append(two)
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.goto(club.url)
    expect(page.locator('.card[data-board="table1"] .status')).to_have_text(
        "White to move", timeout=TIMEOUT
    )
    expect(page.locator(".card")).to_have_count(2, timeout=TIMEOUT)

    # A move on table 1's board reaches the club page and the events topic.
    board = browser.new_page(viewport={"width": 800, "height": 480})
    board.goto(one.board_url)
    board.wait_for_selector(".cell[data-cell]")
    heard = time.time()  # table 1 is heard from after this (its move), long after it connected
    click(board, "c1", "c4")
    expect(page.locator('.card[data-board="table1"] .status')).to_have_text(
        "Black to move", timeout=TIMEOUT
    )
    expect(page.locator('.card[data-board="table1"] .turn')).to_contain_text("last stone c1 to c4")
    move = events.wait_event("move")
    assert (move["board"], move["text"], move["number"]) == ("table1", "c1-c4", 1)

    # An illegal move on table 2 left uncorrected becomes an alert; correcting it clears it.
    lion = browser.new_page(viewport={"width": 800, "height": 480})
    lion.goto(two.board_url)
    lion.wait_for_selector(".cell[data-cell]")
    click(lion, "d2", "d5")  # the lion cannot go three squares
    alert = page.locator('#alerts .alert[data-board="table2"]')
    expect(alert).to_contain_text("an illegal move uncorrected", timeout=TIMEOUT)
    expect(page.locator('.card[data-board="table2"]')).to_have_class(re.compile("red"))
    assert events.wait_event("illegal")["board"] == "table2"
    # Left standing and then unplugged: the illegal move is still the alert (the most
    # important thing about that board), and the header counts the board.
    lion.locator("#btn-unplug").click()
    expect(alert).to_contain_text("(the board is unplugged)", timeout=TIMEOUT)
    expect(page.locator("#summary")).to_contain_text("1 needs attention")
    for width, height in ((800, 480), (390, 844)):  # the screen beside a board, a phone
        page.set_viewport_size({"width": width, "height": height})
        assert page.evaluate(MEASURE, False) == [], f"the club view at {width}x{height}"
    page.set_viewport_size({"width": 1280, "height": 800})
    lion.locator("#btn-replug").click()
    click(lion, "d5", "d2")
    expect(alert).to_have_count(0, timeout=TIMEOUT)
    assert events.wait_event("corrected")["was"] == "illegal"

    # The director opens table 1's full page: the kiosk page, fed through the broker.
    page.locator('.card[data-board="table1"]').click()
    expect(page.locator("#title")).to_have_text("table1: Three Dragons", timeout=TIMEOUT)
    expect(page.locator("#moves li")).to_have_count(1, timeout=TIMEOUT)
    expect(page.locator("#btn-pass")).to_be_hidden()
    record = club.get(page.locator("#record-link").get_attribute("href") or "")
    assert re.search(r"^1\. c1-c4 ", record, re.MULTILINE), record
    # ... and its timeline (issue 29), published by the board on its timeline topic: two
    # touches to the move (after the menu), and under it what table 1's sensors said.
    page.locator("#btn-menu").click()
    page.locator("#btn-timeline").click()
    page.locator("#tl-steps button", has_text="stone c1 to c4").click()
    rows = page.locator("#tl-rows tr")
    expect(rows.filter(has_text="c4: White's piece")).to_have_count(1, timeout=TIMEOUT)
    expect(rows.filter(has_text="c1-c4 accepted")).to_have_count(1)
    timeline = next(b for t, b in list(events.messages) if t == f"{PREFIX}/table1/timeline")
    assert timeline["board"] == "table1" and timeline["game"] == 1
    page.locator("#tl-close").click()
    page.locator("#club-link").click()

    # A referee killed outright: the broker's last will marks it offline on the page.
    children = Path(f"/proc/{one.proc.pid}/task/{one.proc.pid}/children").read_text().split()
    one.proc.send_signal(signal.SIGKILL)
    one.proc.wait()
    for child in children:  # its emulator, orphaned by the kill
        with contextlib.suppress(ProcessLookupError):
            os.kill(int(child), signal.SIGTERM)
    expect(page.locator('#alerts .alert[data-board="table1"]')).to_contain_text(
        "offline since", timeout=40_000
    )
    gone = club.board("table1")
    assert gone is not None and gone["online"] is False
    assert gone["status_at"] >= heard, "offline since the referee was last heard, not connected"
    page.screenshot(path=str(tmp_path / "club.png"))


def test_a_broker_restart_loses_no_state_and_a_bad_message_is_ignored(
    cleanup: list[Any], tmp_path: Path
) -> None:
    broker = Mosquitto(tmp_path / "broker")
    cleanup.append(broker)
    club = Club(tmp_path, broker.url)
    cleanup.append(club)
    one = referee(tmp_path, broker.url, "table1", "--game", "three-dragons")
    cleanup.append(one)
    club.wait_board("table1", lambda b: b["status"] == "White to move")

    broker.stop()
    one.wait_log(r"MQTT: lost the broker .* \(refereeing goes on\)")
    # Refereeing goes on with the broker away: a move is made and shown on the kiosk.
    code, _ = one.post("/api/takeback", {})  # nothing to take back: refused, answered at once
    assert code == 409
    board_action(one, "lift", "c1")
    board_action(one, "place", "c4")
    deadline = time.monotonic() + 10
    while one.state()["to_move"] != 2 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert one.state()["moves"][-1]["text"] == "c1-c4"

    broker.start()  # no persistence: the broker comes back empty
    one.wait_log("MQTT: connected again")
    deadline = time.monotonic() + 40
    while sum("club view: connected" in line for line in list(club.log)) < 2:
        assert time.monotonic() < deadline, "the club view never reconnected:\n" + "\n".join(
            club.log
        )
        time.sleep(0.1)
    restored = club.wait_board("table1", lambda b: b["moves"] == 1, timeout=40)
    assert restored["online"] is True and restored["last_text"] == "stone c1 to c4"

    # Garbage on a board's topic: ignored with a log line, the board's state kept.
    stranger = paho.Client(CallbackAPIVersion.VERSION2)
    stranger.connect("127.0.0.1", broker.port)
    stranger.loop_start()
    stranger.publish(f"{PREFIX}/table1/state", b"\xff not json", qos=1).wait_for_publish(5)
    stranger.publish(f"{PREFIX}/table1/state", json.dumps({"schema": 1}), qos=1)
    stranger.publish(f"{PREFIX}/table1/timeline", json.dumps({"schema": 1, "board": "table1",
                     "game": 1, "title": "x", "status": "playing", "steps": [{"number": "1"}],
                     "tail": {}}), qos=1).wait_for_publish(5)  # fmt: skip
    stranger.loop_stop()
    stranger.disconnect()
    club.wait_log(r"ignored a message on board-referee/v1/table1/state: not JSON")
    club.wait_log(r"ignored a message on .*table1/state: state.game: missing")
    club.wait_log(r"ignored a message on .*table1/timeline: timeline.steps\[0\].move: missing")
    kept = club.board("table1")
    assert kept is not None and kept["last_text"] == "stone c1 to c4"  # the last good state
    assert kept["problem"] == "state.game: missing"
    assert club.proc.poll() is None


def test_a_broker_restart_is_the_brokers_and_the_boards_stay_fine(
    browser: Browser, cleanup: list[Any], tmp_path: Path
) -> None:
    """Issue 51: the documented broker keeps its sessions (persistence), so when it comes
    back it says a referee that has not yet reconnected is "lost". That is the broker's
    restart, not the board: the club page names the broker's outage once and counts no board
    offline, nor alerts on it, while the referee reconnects; a referee still away after the
    grace is offline again. Issue 64: a referee that died before the outage is offline all
    along, since it died (not since it was last heard), whatever the broker says after."""
    conf = "listener 1883\npersistence true\npersistence_location /x/\nallow_anonymous true\n"
    broker = Mosquitto(tmp_path / "broker", conf=conf)
    cleanup.append(broker)
    club = Club(tmp_path, broker.url, "--alert-after", "1")
    cleanup.append(club)
    one = referee(tmp_path, broker.url, "table1", "--game", "three-dragons")
    cleanup.append(one)
    two = referee(tmp_path, broker.url, "table2", "--game", "vanguard")
    cleanup.append(two)
    three = referee(tmp_path, broker.url, "table3", "--game", "protect-the-goat")
    cleanup.append(three)
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.goto(club.url)
    for name in ("table1", "table2", "table3"):
        expect(page.locator(f'.card[data-board="{name}"] .status')).to_contain_text(
            "to move", timeout=TIMEOUT
        )
    killed = time.time()
    three.proc.kill()  # table 3's referee dies (its emulator goes with it: --with-parent)
    three.proc.wait()
    dead = club.wait_board("table3", lambda b: b["online"] is False, timeout=30)
    assert killed - 0.5 <= dead["status_at"] <= killed + 5, (killed, dead)
    summary = page.locator("#summary")
    expect(summary).to_contain_text("1 offline", timeout=TIMEOUT)
    # The broker goes down a few seconds later: longer after the death than a stopped broker
    # takes to send its referees' last wills (club.js, SHUTDOWN_WILLS).
    time.sleep(max(0.0, dead["offline_received"] + 3 - time.time()))
    assert two.proc is not None
    os.kill(two.proc.pid, signal.SIGSTOP)  # table 2's referee is slow to come back ...
    try:
        broker.stop()
        broker.start()  # ... so the broker, back, says it was lost
        club.wait_board("table2", lambda b: b["online"] is False, timeout=30)
        expect(summary).to_contain_text("1 offline", timeout=TIMEOUT)
        expect(summary).to_contain_text("the broker was away")
        expect(summary).to_contain_text("1 board reconnecting")
        expect(page.locator('.card[data-board="table2"] .badge')).to_have_text("reconnecting")
        expect(page.locator('.card[data-board="table3"] .badge')).to_have_text("offline")
        expect(page.locator('#alerts [data-board="table3"]')).to_contain_text("offline since")
        assert page.locator('#alerts [data-board="table2"]').count() == 0
        assert "red" not in (page.locator('.card[data-board="table2"]').get_attribute("class")
                             or "")  # fmt: skip
        after = club.wait_board("table3", lambda b: b["online"] is False)
        assert after["status_at"] == dead["status_at"]
    finally:
        os.kill(two.proc.pid, signal.SIGCONT)
    club.wait_board("table2", lambda b: b["online"] is True, timeout=60)
    expect(page.locator("#summary")).not_to_contain_text("reconnecting", timeout=TIMEOUT)


def board_action(referee: Referee, action: str, cell: str) -> None:
    request = urllib.request.Request(referee.board_url.rstrip("/") + "/api/action",
                                     data=json.dumps({"do": action, "cell": cell}).encode(),
                                     method="POST")  # fmt: skip
    request.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(request, timeout=10) as answer:
        assert answer.status == 200
    time.sleep(0.3)


def test_club_commands_need_enabling_and_the_brokers_permission(
    cleanup: list[Any], tmp_path: Path
) -> None:
    users = {"club": "club-secret", "table1": "t1-secret", "table2": "t2-secret",
             "stranger": "nope"}  # fmt: skip
    broker, club, _ = club_with_logins(tmp_path, cleanup, users, ACL)
    url = f"mqtt://127.0.0.1:{broker.port}"
    one = referee(tmp_path, "mqtt://table1:t1-secret@127.0.0.1:" + str(broker.port), "table1",
                  "--game", "three-dragons", "--mqtt-commands")  # fmt: skip
    cleanup.append(one)
    two = referee(
        tmp_path,
        "mqtt://table2:t2-secret@127.0.0.1:" + str(broker.port),
        "table2",
        "--game",
        "three-dragons",
    )  # commands not enabled on this board
    cleanup.append(two)
    club.wait_board("table1", lambda b: b["status"] == "White to move")
    club.wait_board("table2", lambda b: b["status"] == "White to move")
    # Each referee's status says whether it takes commands: the club offers them only there.
    assert club.wait_board("table1", lambda b: b["commands"])["commands"] is True
    assert club.board("table2")["commands"] is False  # type: ignore[index]
    assert club.get("/board/table1/api/games")["commands"] is True
    assert club.get("/board/table2/api/games")["commands"] is False
    board_action(one, "lift", "c1")
    board_action(one, "place", "c4")
    club.wait_board("table1", lambda b: b["moves"] == 1)

    # Another login may not command a board: the broker drops it, the board never hears it.
    stranger = Listener(url, f"{PREFIX}/#", user="stranger", password="nope")
    stranger.client.publish(f"{PREFIX}/table1/command", json.dumps({"action": "takeback"}),
                            qos=1).wait_for_publish(5)  # fmt: skip
    time.sleep(1.0)
    assert not any("TAKEBACK" in line for line in one.log)
    assert club.board("table1")["moves"] == 1  # type: ignore[index]
    stranger.close()

    # The club's login may: the take-back goes through the board's queue and its journal.
    code, answer = club.post("/board/table1/api/takeback", {})
    assert (code, answer["ok"]) == (200, True), answer
    one.wait_log(r"button TAKEBACK pressed on the club \(MQTT\)")
    one.wait_log("took back c1-c4")
    club.wait_board("table1", lambda b: b["moves"] == 0)
    code, answer = club.post("/board/table1/api/new-game", {"game": "no-such-game"})
    assert code == 409 and "unknown game" in answer["message"]
    # A new game names its players: kept in the board's journal and shown in its state.
    code, answer = club.post("/board/table1/api/new-game",
                             {"game": "three-dragons", "players": ["Ann", "Bob"]})  # fmt: skip
    assert (code, answer["ok"]) == (200, True), answer
    club.wait_board("table1", lambda b: b["people"] == ["Ann", "Bob"])
    code, answer = club.post("/board/table1/api/button", {"button": "pass"})
    assert code == 400

    # A board that did not enable commands does not answer them.
    code, answer = club.post("/board/table2/api/takeback", {})
    assert code == 504 and "--mqtt-commands" in answer["error"]


def test_the_clubs_results_are_the_boards_results(cleanup: list[Any], tmp_path: Path) -> None:
    """A game played to its end, taken back from the club view, then ended otherwise (a
    resignation) while the club view is down: its results, its CSV, its record and the
    board's retained results say what the board's own records say, after the club view comes
    back. The broker runs docs/mqtt.md's logins and ACL, so every topic a board publishes must
    be allowed by it (a denied one would leave the club without results)."""
    from firmware_bridge.referee.journal import read_records
    from firmware_bridge.referee.records import result_words
    from tests.helpers import GOAT_IN_REACH

    users = {"club": "club-secret", "table1": "t1-secret"}
    broker, club, club_args = club_with_logins(tmp_path, cleanup, users, ACL, conf=CONF)
    url = f"mqtt://127.0.0.1:{broker.port}"
    position = tmp_path / "position.json"
    position.write_text(json.dumps(GOAT_IN_REACH))
    one = referee(tmp_path, f"mqtt://table1:t1-secret@127.0.0.1:{broker.port}", "table1",
                  "--game", "protect-the-goat", "--position", str(position),
                  "--mqtt-commands")  # fmt: skip
    cleanup.append(one)
    club.wait_board("table1", lambda b: (b["status"] or "").startswith("Player 1 to move"))
    board_action(one, "lift", "a5")
    board_action(one, "place", "a6")  # the lyon next to the goat: the battle takes it
    won = "Player 1 wins: Player 1 captured the goat"

    def results() -> list[tuple[str, int, Any, str]]:
        return [(r["board"], r["game_number"], r["outcome"], r.get("status", ""))
                for r in club.get("/api/results")["results"]]  # fmt: skip

    wait_until(lambda: results() == [("table1", 1, won, "finished")], "the result reached the club")
    code, answer = club.post("/board/table1/api/takeback", {})  # the director takes it back
    assert (code, answer["ok"]) == (200, True), answer
    wait_until(lambda: results() == [], "the taken-back result withdrawn from the club")
    board_action(one, "lift", "a6")  # the board put back as the take-back asks: a result is
    board_action(one, "place", "a5")  # scored only on a board that shows the game
    club.wait_board("table1", lambda b: (b["status"] or "").startswith("Player 1 to move"))
    club.stop()  # the club view is down while the game ends otherwise
    # What a script with the club's login sees meanwhile (one client per login: the broker
    # names clients by their logins, docs/mqtt.md, so not beside the club view).
    retained = Listener(url, f"{PREFIX}/table1/results", user="club", password="club-secret")
    cleanup.append(retained)
    code, answer = one.post("/api/result", {"result": "resign", "player": 1})
    assert code == 200, answer
    resigned = "Player 2 wins: Player 1 resigned"
    (record,) = read_records(one.tmp / "journal.sqlite3", 1)
    assert result_words(record, None) == resigned and record.status == "finished"
    wait_until(lambda: any(b["results"] and b["results"][0]["outcome"] == resigned
                           for _, b in list(retained.messages)), "retained results")  # fmt: skip
    retained.close()
    club = Club(tmp_path, url, *club_args)  # back: it agrees with the board
    cleanup.append(club)
    wait_until(lambda: results() == [("table1", 1, resigned, "finished")], "the club agrees")
    csv_text = club.get("/api/results.csv")
    assert resigned in csv_text and won not in csv_text
    assert "resign:1" in club.get("/records/table1/1")
    kept = (tmp_path / "results.jsonl").read_text()
    assert resigned in kept and won not in kept  # the file too, for its next start
    assert not [line for line in club.log if "ignored a message" in line], club.log
    assert not [line for line in one.log if "refused to take" in line], one.log  # the ACL


def wait_until(test: Any, what: str, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not test():
        assert time.monotonic() < deadline, f"never: {what}"
        time.sleep(0.1)


def test_a_topic_the_broker_refuses_is_said_never_silently_lost(
    cleanup: list[Any], tmp_path: Path
) -> None:
    """A club's ACL from before the timeline (docs/mqtt.md's without its timeline line): the
    broker refuses every timeline the board publishes. The referee says so in its log, with
    the line to add; its status says so; the club view shows it on the board's card."""
    old_acl = "".join(line for line in ACL.splitlines(keepends=True) if "/timeline" not in line)
    users = {"club": "club-secret", "table1": "t1-secret"}
    broker, club, _ = club_with_logins(tmp_path, cleanup, users, old_acl)
    one = referee(tmp_path, f"mqtt://table1:t1-secret@127.0.0.1:{broker.port}", "table1",
                  "--game", "three-dragons")  # fmt: skip
    cleanup.append(one)
    board_action(one, "lift", "c1")
    board_action(one, "place", "c4")
    line = one.wait_log("refused to take board-referee/v1/table1/timeline").string
    assert "Not authorized" in line and "board-referee/v1/%u/timeline" in line
    # What the ACL allows still arrives: the move, with the refusal (two topics, whose
    # messages the club may take in either order).
    card = club.wait_board("table1", lambda b: b.get("refused") == ["timeline"] and b["moves"])
    assert card["moves"] == 1
    # Issue 51: a referee whose login is not its board id is told of the mismatch, not the ACL.
    two = referee(tmp_path, f"mqtt://table1:t1-secret@127.0.0.1:{broker.port}", "table2",
                  "--game", "vanguard")  # fmt: skip
    cleanup.append(two)
    line = two.wait_log("refused to take board-referee/v1/table2/").string
    assert "logs in as 'table1' but publishes as board 'table2'" in line, line
    assert "give it the login 'table2', or --board-id table1" in line and "ACL in" not in line


def test_standings_by_person_and_a_phone(
    browser: Browser, cleanup: list[Any], tmp_path: Path
) -> None:
    """Two boards' results (as their publishers send them): the evening's standings by person
    (a win 1, a draw ½, a resignation a loss, a game with no names not counted), the
    cross-table, the CSV; and the club view at 390x844 has no sideways scroll."""
    broker = Mosquitto(tmp_path / "broker")
    cleanup.append(broker)
    club = Club(tmp_path, broker.url)
    cleanup.append(club)
    today = time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime())

    def result(board: str, number: int, people: list[str], winner: int | None,
               outcome: str) -> dict[str, Any]:  # fmt: skip
        return {"board": board, "game_number": number, "game": "three-dragons",
                "title": "Three Dragons", "options": {}, "profile": "three-dragons",
                "players": ["White", "Black"], "people": people, "status": "finished",
                "outcome": outcome, "winner": winner, "scores": None,
                "moves": [["c1-c4", today]], "started": today, "ended": today}  # fmt: skip

    board = Listener(broker.url, f"{PREFIX}/none")
    cleanup.append(board)
    board.client.publish(f"{PREFIX}/table1/results", json.dumps({
        "schema": 1, "board": "table1", "at": time.time(), "since": 1, "results": [
            result("table1", 1, ["Alice", "Bob"], 1, "Alice (White) wins: Black resigned"),
            result("table1", 2, ["Bob", "Alice"], None, "Draw (agreed by the players)"),
            result("table1", 3, ["", ""], 1, "White wins: Black resigned"),
        ]}), qos=1, retain=True).wait_for_publish(5)  # fmt: skip
    board.client.publish(f"{PREFIX}/table2/results", json.dumps({
        "schema": 1, "board": "table2", "at": time.time(), "since": 1, "results": [
            result("table2", 1, ["Carol", "Alice"], 2, "Alice (Black) wins: ..."),
        ]}), qos=1, retain=True).wait_for_publish(5)  # fmt: skip
    wait_until(lambda: len(club.get("/api/results")["results"]) == 4, "the results")
    found = club.get("/api/standings")
    rows = [(p["person"], p["games"], p["won"], p["drawn"], p["lost"], p["points"])
            for p in found["people"]]  # fmt: skip
    assert rows == [("Alice", 3, 2, 1, 0, 2.5), ("Bob", 2, 0, 1, 1, 0.5),
                    ("Carol", 1, 0, 0, 1, 0.0)]  # fmt: skip
    assert found["cross"]["Alice"]["Bob"] == [1.0, 0.5] and found["unnamed"] == 1
    assert "1,Alice,3,2,1,0,2.5," in club.get("/api/standings.csv")
    # Sonneborn-Berger: Alice beat Bob (0.5) and drew him (0.25) and beat Carol (0): 0.75.
    assert [(p["rank"], p["tiebreak"]) for p in found["people"]] == [(1, 0.75), (2, 1.25),
                                                                     (3, 0.0)]  # fmt: skip
    assert club.get("/api/standings?from=2001-01-01&to=2001-01-02")["people"] == []
    page = browser.new_page(viewport={"width": 390, "height": 844})
    page.goto(club.url)
    expect(page.locator("#standings tbody tr")).to_have_count(3, timeout=TIMEOUT)
    expect(page.locator("#standings tbody tr").first).to_contain_text("Alice")
    expect(page.locator("#cross tbody tr").first).to_contain_text("1 ½")
    expect(page.locator("#results tbody tr")).to_have_count(4)
    # No timeline was published for these games: no link to one (issue 51: it led to an error).
    assert page.locator("#results tbody a", has_text="timeline").count() == 0
    assert page.locator("#results tbody a", has_text="record").count() == 4
    assert page.evaluate(MEASURE, False) == []  # readable, touchable, no sideways scroll
    page.set_viewport_size({"width": 800, "height": 480})
    assert page.evaluate(MEASURE, False) == []
    # A game's record on a phone: a page at its width, readable, the plain text one touch on.
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(club.url + "records/table1/1")
    expect(page.locator("pre")).to_contain_text("c1-c4")
    assert page.evaluate(MEASURE, False) == []
    page.locator("a", has_text="Plain text").click()
    expect(page).to_have_url(club.url + "records/table1/1.txt")
    page.close()


def test_tied_players_share_a_rank_and_scores_of_unlike_games_are_not_added() -> None:
    """Issue 51: two players level on points, tie-break and wins share their place; Goats
    Wintering's scores are added only when every scored game is the same game and size."""
    from firmware_bridge.faces.standings import standings, standings_csv

    day = "2026-11-28T20:00:00+00:00"

    def game(people: list[str], winner: int | None, options: dict[str, Any],
             scores: list[int] | None) -> dict[str, Any]:  # fmt: skip
        return {"game": "goats-wintering", "options": options, "people": people,
                "status": "finished", "outcome": "…", "winner": winner, "scores": scores,
                "ended": day}  # fmt: skip

    small, hexes = {"size": "5x5"}, {"size": "2-4-hex"}
    level = standings([game(["Ann", "Bob"], 1, small, [12, 3]),
                       game(["Cy", "Di"], 1, small, [9, 4])], None, None)  # fmt: skip
    ranks = {p["person"]: p["rank"] for p in level["people"]}
    assert ranks == {"Ann": 1, "Cy": 1, "Bob": 3, "Di": 3}, level["people"]
    assert [p["score"] for p in level["people"]][:2] == [12, 9]  # one game, one scale: kept
    assert "\r\n1,Ann," in standings_csv(level) and "\r\n1,Cy," in standings_csv(level)
    unlike = standings([game(["Ann", "Bob"], 1, small, [12, 3]),
                        game(["Ann", "Bob"], 2, hexes, [40, 55])], None, None)  # fmt: skip
    assert unlike["scores_unlike"] is True
    assert all(p["score"] is None for p in unlike["people"])
    # Issue 64: one scored game beside unscored ones of another game is not one scale either
    # (Ann's 12 from one game against Cy's nothing from a Vanguard win).
    mixed = standings(
        [
            game(["Ann", "Bob"], 1, small, [12, 3]),
            {**game(["Cy", "Di"], 1, {}, None), "game": "vanguard"},
        ],
        None,
        None,
    )
    assert mixed["scores_unlike"] is True
    assert all(p["score"] is None for p in mixed["people"])
    # The rank is points, then Sonneborn-Berger, then wins (as docs/mqtt.md says): Eve and
    # Fay both have 1 point, but Eve's beat Gus, who has a point of his own.
    ranked = standings(
        [
            game(["Eve", "Gus"], 1, small, None),
            game(["Gus", "Hal"], 1, small, None),
            game(["Fay", "Hal"], 1, small, None),
        ],
        None,
        None,
    )
    ranks = {p["person"]: (p["rank"], p["points"], p["tiebreak"]) for p in ranked["people"]}
    assert ranks == {"Eve": (1, 1.0, 1.0), "Fay": (2, 1.0, 0.0), "Gus": (2, 1.0, 0.0),
                     "Hal": (4, 0.0, 0.0)}, ranks  # fmt: skip
    assert "sonneborn_berger" in standings_csv(ranked).splitlines()[0]


def test_the_documented_broker_started_as_root_listens_and_logs_what_it_refuses(
    cleanup: list[Any],
) -> None:
    """Issue 51: docs/mqtt.md's broker, started as root (sudo) from the director's folder,
    drops to the folder's owner (its ``user`` line), listens, and logs a refused login and a
    board publishing as another, where the guide says to look."""
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="club-broker-"))  # in /tmp: its owner reaches it
    try:
        broker = Mosquitto(folder, users={"club": "c", "table1": "t1"}, acl=ACL, conf=CONF,
                           owner="nobody")  # fmt: skip
        cleanup.append(broker)
        mine = Listener(broker.url, f"{PREFIX}/table1/command", user="table1", password="t1")
        cleanup.append(mine)
        mine.client.publish(f"{PREFIX}/table2/state", b"{}", qos=1).wait_for_publish(5)
        stranger = paho.Client(CallbackAPIVersion.VERSION2, protocol=paho.MQTTv5)
        stranger.username_pw_set("table1", "wrong")
        with contextlib.suppress(Exception):
            stranger.connect("127.0.0.1", broker.port)
            stranger.loop(timeout=1.0)
        log = folder / "mosquitto.log"

        def logged(*words: str) -> bool:
            text = log.read_text(errors="replace") if log.exists() else ""
            return all(w in text for w in words)

        wait_until(lambda: logged("not authorised"), "a refused login in the log")
        wait_until(lambda: logged("Denied PUBLISH from", f"{PREFIX}/table2/state"),
                   "a refused publish in the log")  # fmt: skip
        if os.geteuid() == 0:  # it dropped to the folder's owner
            assert not logged("should not be run as root")
            broker.stop()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def test_a_directors_evening_three_boards_agree_everywhere(
    cleanup: list[Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 51's evening, as a director runs it: three boards on the
    documented broker (its logins, ACL and persistence), a game on each played to a result,
    the broker restarted, a finished game taken back from the club view and ended otherwise;
    then every game of every board's journal lists, replays and reports as itself, and the
    club's results are the boards' own."""
    from firmware_bridge import cli
    from firmware_bridge.referee.journal import read_records
    from firmware_bridge.referee.records import result_words
    from tests.helpers import GOAT_IN_REACH

    users = {"club": "club-secret", "table1": "t1", "table2": "t2", "table3": "t3"}
    broker, club, _ = club_with_logins(tmp_path, cleanup, users, ACL, conf=CONF)
    position = tmp_path / "goat.json"
    position.write_text(json.dumps(GOAT_IN_REACH))
    boards = {
        "table1": ("--game", "three-dragons"),
        "table2": ("--game", "vanguard"),
        "table3": ("--game", "protect-the-goat", "--position", str(position)),
    }
    tables = {}
    for name, args in boards.items():
        login = f"mqtt://{name}:{users[name]}@127.0.0.1:{broker.port}"
        tables[name] = referee(tmp_path, login, name, *args, "--mqtt-commands")
        cleanup.append(tables[name])
    for name in boards:
        club.wait_board(name, lambda b: " to move" in (b["status"] or ""))
    board_action(tables["table1"], "lift", "c1")
    board_action(tables["table1"], "place", "c4")
    board_action(tables["table2"], "lift", "C2")
    board_action(tables["table2"], "place", "C3")
    for name in ("table1", "table2"):
        club.wait_board(name, lambda b: b["moves"] == 1)
        code, answer = tables[name].post("/api/result", {"result": "resign", "player": 2})
        assert code == 200, answer
    board_action(tables["table3"], "lift", "a5")
    board_action(tables["table3"], "place", "a6")  # the goat taken: Player 1 wins
    broker.stop()
    broker.start()  # the evening's broker restart: nothing is lost
    for name in boards:
        club.wait_board(name, lambda b: b["online"] is True and b["outcome"], timeout=60)
    code, answer = club.post("/board/table3/api/takeback", {})  # reopens the finished game
    assert (code, answer["ok"]) == (200, True), answer
    club.wait_board("table3", lambda b: not b["outcome"])
    board_action(tables["table3"], "lift", "a6")  # the board put back as the take-back asks
    board_action(tables["table3"], "place", "a5")
    club.wait_board("table3", lambda b: (b["status"] or "").startswith("Player 1 to move"))
    code, answer = tables["table3"].post("/api/result", {"result": "resign", "player": 1})
    assert code == 200, answer

    def club_results() -> dict[tuple[str, int], Any]:
        return {(r["board"], r["game_number"]): r["outcome"]
                for r in club.get("/api/results")["results"]}  # fmt: skip

    expected = {}
    for name, referee_ in tables.items():
        for record in read_records(referee_.tmp / "journal.sqlite3"):
            if record.outcome:
                expected[(name, record.id)] = result_words(record, None)
    wait_until(lambda: club_results() == expected, "the club's results are the boards'")
    for name, referee_ in tables.items():
        referee_.stop()  # its journal whole, its recording written out
        path = referee_.tmp / "journal.sqlite3"
        journal = str(path)
        for record in read_records(path):
            if not record.moves:
                continue
            assert cli.main(["replay", journal, "--game", str(record.id)]) == 0
            out = capsys.readouterr().out
            assert "decided identically" in out, out
            report = tmp_path / f"{name}-{record.id}.report"
            assert cli.main(["report", "--journal", journal, "--game", str(record.id),
                             "-o", str(report)]) == 0  # fmt: skip
            capsys.readouterr()
            assert cli.main(["replay", str(report), "--quiet"]) == 0
            assert "decided identically" in capsys.readouterr().out


def test_the_club_view_shows_each_boards_clocks_and_its_arbiter_pauses_them(
    cleanup: list[Any], tmp_path: Path, browser: Any
) -> None:
    """A board under a clock: its card in the club view shows both clocks (the running one
    arrowed), and the director pauses them from the board's page through its MQTT command,
    as the documented broker's logins and ACL allow."""
    users = {"club": "club-secret", "table1": "t1-secret"}
    broker, club, _ = club_with_logins(tmp_path, cleanup, users, ACL, conf=CONF)
    one = referee(tmp_path, f"mqtt://table1:t1-secret@127.0.0.1:{broker.port}", "table1",
                  "--game", "three-dragons", "--new", "--time-control", "900+5",
                  "--mqtt-commands")  # fmt: skip
    cleanup.append(one)
    club.wait_board("table1", lambda b: (b.get("clocks") or {}).get("running") == 1)
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.goto(club.url)
    clocks = page.locator('.card[data-board="table1"] .clocks')
    expect(clocks).to_contain_text("White 14:")
    expect(clocks).to_contain_text("◀")
    code, answer = club.post("/board/table1/api/clock", {"clock": "pause"})
    assert (code, answer["ok"]) == (200, True), answer
    club.wait_board("table1", lambda b: (b.get("clocks") or {}).get("paused") is True)
    expect(clocks).to_contain_text("(paused)")
    code, answer = club.post("/board/table1/api/clock", {"clock": "add", "player": 9})
    assert code == 400 or answer.get("ok") is False, answer
    one.wait_log(r"Clocks paused\. \(club \(MQTT\)\)")
    page.close()
    # The club view's New game names the clock too.
    code, answer = club.post("/board/table1/api/new-game", {"game": "three-dragons",
                                                          "clock": "120+1"})  # fmt: skip
    assert (code, answer["ok"]) == (200, True), answer
    club.wait_board("table1", lambda b: (b.get("clocks") or {}).get("control") == "120+1")
