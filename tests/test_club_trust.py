"""Trust on the broker: anyone who may publish (a stranger on an open broker, or one board's
own login) cannot run script in the director's page, blank the club grid, poison another
board's picture, fill the club view's memory or cut a referee off. Real Mosquitto, real club
view and referee processes, the page in Debian's chromium."""

from __future__ import annotations

import csv
import io
import json
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

import paho.mqtt.client as paho
from paho.mqtt.enums import CallbackAPIVersion
from playwright.sync_api import Browser, expect

from tests.mosquitto import Mosquitto
from tests.netns import Namespace
from tests.test_club import PREFIX, Club, Listener, board_action, cleanup, referee
from tests.test_kiosk import TIMEOUT

__all__ = ["cleanup"]

XSS = '"><img src=x onerror="window.pwned=1">'


def picture(key: str, cells: list[str]) -> dict[str, Any]:
    shown = [{"name": name, "x": i, "y": 0, "shape": "square", "zone": None, "region": None,
              "blocked": False} for i, name in enumerate(cells)]  # fmt: skip
    return {"key": key, "links": [], "cells": shown}


FORMULA = '=HYPERLINK("http://evil.example/","win")'


def state(title: str = "Three Dragons", **changes: Any) -> dict[str, Any]:
    """A state as a referee publishes it, with the fields the club view reads."""
    body: dict[str, Any] = {
        "schema": 1, "at": time.time(), "game_number": 1, "status": "White to move",
        "game": {"id": "three-dragons", "title": title, "options": {"variant": "base"},
                 "players": ["White", "Black"], "profile": "three-dragons"},
        "board": picture("three-dragons?variant=base", ["a1", "b1", "c1"]),
        "pieces": [{"cell": "a1", "kind": "soldier", "symbol": "S", "owner": 1, "state": None}],
        "signals": {}, "moves": [], "to_move": 1, "outcome": None, "winner": None,
        "connection": {"state": "connected", "message": "", "faults": []},
    }  # fmt: skip
    body.update(changes)
    return body


class Stranger:
    """An MQTT client anyone could run on an open broker."""

    def __init__(self, broker: Mosquitto) -> None:
        self.client = paho.Client(CallbackAPIVersion.VERSION2)
        self.client.connect("127.0.0.1", broker.port)
        self.client.loop_start()

    def send(self, topic: str, payload: bytes | str | dict[str, Any], retain: bool = True) -> None:
        data = json.dumps(payload) if isinstance(payload, dict) else payload
        self.client.publish(topic, data, qos=1, retain=retain).wait_for_publish(10)

    def close(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


def status_of(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=10) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as error:
        return error.code


def test_no_publisher_can_script_blank_or_poison_the_club_view(
    browser: Browser, cleanup: list[Any], tmp_path: Path
) -> None:
    broker = Mosquitto(tmp_path / "broker")
    cleanup.append(broker)
    club = Club(tmp_path, broker.url, "--max-boards", "8")
    cleanup.append(club)
    stranger = Stranger(broker)
    cleanup.append(stranger)
    stranger.send(f"{PREFIX}/table1/state", state())
    stranger.send(f"{PREFIX}/table2/state", state("Vanguard"))
    club.wait_board("table2", lambda b: b["title"] == "Vanguard")

    # Script in a board name: ignored; a link with it is a 404 and runs nothing.
    stranger.send(f"{PREFIX}/{XSS}/state", state())
    stranger.send(f"{PREFIX}/{XSS}/status", {"schema": 1, "state": "online"})
    # Fields of the wrong type: the board is shown as bad, the others are drawn.
    stranger.send(f"{PREFIX}/table3/state", state(status=5))
    stranger.send(f"{PREFIX}/table2/status", {"schema": 1, "state": "online", "at": "soon"})
    # A finished game whose players are one string: refused, never kept in the results.
    stranger.send(f"{PREFIX}/table4/state",
                  state(outcome="White wins", winner=1, to_move=None,
                        game={**state()["game"], "players": "White and Black"}))  # fmt: skip
    # A finished game whose players' names are a spreadsheet formula: kept, and defused in
    # the CSV (a leading apostrophe), shown as plain text on the page.
    stranger.send(f"{PREFIX}/table5/state",
                  state(outcome="Black wins", winner=2, to_move=None,
                        moves=[{"text": "c1-c4", "at": "2026-11-24T19:02:03.000+00:00"}],
                        game={**state()["game"], "people": [FORMULA, "Bob"]}))  # fmt: skip

    # Results come from a board's results topic, each checked: players that are one string
    # are refused; names that are a spreadsheet formula are kept, defused in the CSV.
    def result(**fields: Any) -> dict[str, Any]:
        return {"board": "table5", "game_number": 1, "game": "three-dragons",
                "title": "Three Dragons", "options": {}, "profile": "three-dragons",
                "players": ["White", "Black"], "people": [FORMULA, "Bob"], "status": "finished",
                "outcome": "Black wins", "winner": 2, "started": "2026-11-24T19:00:00+00:00",
                "moves": [["c1-c4", "2026-11-24T19:02:03.000+00:00"]],
                "ended": "2026-11-24T19:02:03.000+00:00", **fields}  # fmt: skip

    stranger.send(f"{PREFIX}/table4/results", {"schema": 1, "board": "table4", "since": 1,
                  "results": [result(board="table4", players="White and Black")]})  # fmt: skip
    stranger.send(f"{PREFIX}/table5/results", {"schema": 1, "board": "table5", "since": 1,
                                               "results": [result()]})  # fmt: skip
    # Another board's picture under table1's key: table1 keeps its own.
    stranger.send(f"{PREFIX}/table6/state", state(board=picture(state()["board"]["key"], ["zz"])))
    # Too big, too deep: refused before parsing.
    stranger.send(f"{PREFIX}/table7/state", json.dumps(state(notice="x" * 600_000)))
    stranger.send(f"{PREFIX}/table8/state", b'{"schema": 1, "game": ' + b"[" * 50000
                  + b"]" * 50000 + b"}")  # fmt: skip

    club.wait_board("table8", lambda b: "nests more than" in b["problem"])
    club.wait_board("table7", lambda b: "more than the 524,288 accepted" in b["problem"])
    assert club.wait_board("table3", lambda b: b["problem"])["problem"] == (
        "state.status: expected text"
    )
    assert club.board("table2")["problem"] == "status.at: expected a number"  # type: ignore[index]
    assert "players" in club.wait_board("table4", lambda b: b["problem"])["problem"]
    club.wait_board("table6", lambda b: b["key"])
    names = {b["name"] for b in club.get("/api/club")["boards"]}
    assert names == {f"table{n}" for n in range(1, 9)}
    own = club.get(f"/api/picture/table1?key={state()['board']['key']}")
    assert [c["name"] for c in own["cells"]] == ["a1", "b1", "c1"]
    results = club.get("/api/results")["results"]
    assert [(r["board"], r["outcome"]) for r in results] == [("table5", "Black wins")]
    assert "White and Black" not in (tmp_path / "results.jsonl").read_text()
    table = list(csv.DictReader(io.StringIO(club.get("/api/results.csv"))))
    rows = [(r["board"], r["side_1"], r["player_1"], r["player_2"], r["result"], r["winner"])
            for r in table]  # fmt: skip
    assert rows == [("table5", "White", "'" + FORMULA, "Bob", "Black wins", "Black")]
    assert table[0]["ended"] == "2026-11-24T19:02:03.000+00:00"

    # The ninth board is over the cap: ignored with one log line, the eight are kept.
    for n in range(9, 30):
        stranger.send(f"{PREFIX}/table{n}/state", state())
    club.wait_log("already following 8 boards")
    assert len(club.get("/api/club")["boards"]) == 8
    assert sum("already following" in line for line in club.log) == 1
    assert not any("Traceback" in line for line in club.log), "\n".join(club.log)

    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.goto(club.url)
    expect(page.locator(".card")).to_have_count(8, timeout=TIMEOUT)
    expect(page.locator('.card[data-board="table1"] .status')).to_have_text("White to move")
    expect(page.locator('#alerts .alert[data-board="table3"]')).to_contain_text(
        "state.status: expected text", timeout=TIMEOUT
    )
    expect(page.locator("#results tbody tr")).to_have_count(1, timeout=TIMEOUT)
    expect(page.locator("#results tbody tr")).to_contain_text(
        f"{FORMULA} (White) against Bob (Black)"
    )
    expect(page.locator("#summary")).to_contain_text("8 boards · ")
    expect(page.locator("#summary")).to_contain_text(" · 1 game over")  # not "1 games over"
    quoted = urllib.parse.quote(XSS, safe="")
    assert status_of(f"{club.url}board/{quoted}/") == 404
    page.goto(f"{club.url}board/{quoted}/")
    page.goto(f"{club.url}board/table1/")
    expect(page.locator("#title")).to_have_text("table1: Three Dragons", timeout=TIMEOUT)
    # No referee said it takes commands here: no take back or new game that would fail.
    expect(page.locator("#no-commands")).to_be_visible(timeout=TIMEOUT)
    expect(page.locator("#btn-takeback")).to_be_hidden()
    expect(page.locator("#btn-newgame")).to_be_hidden()
    assert page.evaluate("window.pwned") is None
    page.close()


def test_a_deep_command_is_answered_and_the_referee_stays_on_the_broker(
    browser: Browser, cleanup: list[Any], tmp_path: Path
) -> None:
    broker = Mosquitto(tmp_path / "broker")
    cleanup.append(broker)
    club = Club(tmp_path, broker.url, listen="0.0.0.0")
    cleanup.append(club)
    one = referee(tmp_path, broker.url, "table1", "--game", "three-dragons", "--mqtt-commands")
    cleanup.append(one)
    events = Listener(broker.url, f"{PREFIX}/table1/events")
    cleanup.append(events)
    stranger = Stranger(broker)
    cleanup.append(stranger)
    deep = b'{"action": "takeback", "id": "deep", "x": ' + b"[" * 97000 + b"]" * 97000 + b"}"
    stranger.send(f"{PREFIX}/table1/command", deep, retain=False)
    answer = events.wait_event("command")
    assert answer["ok"] is False and "refused" in answer["message"]
    one.wait_log("ignored a command")
    assert not any("RecursionError" in line or "Traceback" in line for line in one.log)

    # The club view's page keeps the token it was opened with: its board page's Take back
    # goes to the board (and the referee still hears its command topic).
    board_action(one, "lift", "c1")
    board_action(one, "place", "c4")
    club.wait_board("table1", lambda b: b["moves"] == 1)
    token = (tmp_path / "club-token").read_text().strip()
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.goto(club.url + f"?token={token}")
    expect(page).to_have_url(club.url)
    page.locator('.card[data-board="table1"]').click()
    expect(page.locator("#title")).to_have_text("table1: Three Dragons", timeout=TIMEOUT)
    page.locator("#btn-takeback").click()  # asked once more: the director is not at the board
    expect(page.locator("#takeback")).to_be_visible()
    expect(page.locator("#takeback-ask")).to_have_text("Take back stone c1 to c4?")
    page.locator("#takeback-cancel").click()
    assert (club.board("table1") or {}).get("moves") == 1  # nothing sent
    page.locator("#btn-takeback").click()
    page.locator("#takeback-yes").click()
    one.wait_log(r"button TAKEBACK pressed on the club \(MQTT\)")
    club.wait_board("table1", lambda b: b["moves"] == 0)
    page.close()


def test_a_timeline_too_large_for_the_club_drops_its_oldest_moves_events_first() -> None:
    from firmware_bridge.faces.contract import timeline_problem
    from firmware_bridge.faces.mqtt import fit_timeline

    event = {"at": "2026-11-26T10:00:00.000+00:00", "kind": "sensor", "text": "c4: " + "x" * 90}
    steps = [{"number": n, "move": f"m{n}", "player": "P", "at": "", "taken_back": False,
              "marks": [], "recorded": True, "events": [event] * 100}
             for n in range(1, 11)]  # fmt: skip
    body = {"schema": 1, "board": "t", "game": 1, "title": "T", "status": "playing",
            "steps": steps, "tail": {**steps[0], "number": 0, "events": []}}  # fmt: skip
    text = fit_timeline(body, 60_000)
    fitted = json.loads(text)
    assert len(text) <= 60_000 and timeline_problem(fitted) is None
    kept = [len(s["events"]) for s in fitted["steps"]]
    assert kept[-1] == 100 and kept[0] == 1 and fitted["steps"][0]["events"][0]["kind"] == "gap"
    assert [s["move"] for s in fitted["steps"]] == [f"m{n}" for n in range(1, 11)]
    assert kept == sorted(kept)  # the oldest went first


def test_no_boards_login_can_cut_another_board_off_and_the_club_sees_what_was_refused(
    browser: Browser, cleanup: list[Any], tmp_path: Path
) -> None:
    """Issue 64: on the broker as docs/mqtt.md sets it up, table2's login connecting with the
    client id table1's referee used to have ("board-referee-table1") and publishing on
    table1's topics never closes table1's connection: the broker names it by its login
    (use_username_as_clientid), refuses the publish, and its log says "table2". The club view,
    given that log, shows the refusal. table1's own login used by a second client does take
    turns with table1's referee: the referee says so, and so does its card."""
    from tests.test_club import ACL, CONF

    users = {"club": "club-secret", "table1": "t1-secret", "table2": "t2-secret"}
    broker = Mosquitto(tmp_path / "broker", users=users, acl=ACL, conf=CONF)
    cleanup.append(broker)
    assert "use_username_as_clientid true" in broker.config.read_text()
    (tmp_path / "club-password").write_text("club-secret\n")
    url = f"mqtt://127.0.0.1:{broker.port}"
    club = Club(tmp_path, url, "--mqtt-user", "club", "--mqtt-password-file",
                str(tmp_path / "club-password"), "--broker-log",
                str(tmp_path / "broker" / "mosquitto.log"))  # fmt: skip
    cleanup.append(club)
    one = referee(tmp_path, f"mqtt://table1:t1-secret@127.0.0.1:{broker.port}", "table1",
                  "--game", "three-dragons")  # fmt: skip
    cleanup.append(one)
    club.wait_board("table1", lambda b: b["online"] is True)
    one.wait_log("MQTT: connected to")

    for client_id in ("board-referee-table1", "table1"):
        spoofer = paho.Client(CallbackAPIVersion.VERSION2, client_id=client_id,
                              protocol=paho.MQTTv5)  # fmt: skip
        spoofer.username_pw_set("table2", "t2-secret")
        spoofer.connect("127.0.0.1", broker.port)
        spoofer.loop_start()
        spoofer.publish(f"{PREFIX}/table1/state", b"{}", qos=1).wait_for_publish(5)
        spoofer.subscribe(f"{PREFIX}/table1/command")
        spoofer.loop_stop()
        spoofer.disconnect()
    log = tmp_path / "broker" / "mosquitto.log"
    wait_until(lambda: "Denied PUBLISH from table2" in log.read_text(errors="replace"))
    text = log.read_text(errors="replace")
    assert "already connected" not in text, text
    assert "MQTT: lost the broker" not in "\n".join(one.log)
    assert "MQTT: connected again" not in "\n".join(one.log)
    wait_until(lambda: any(r["who"] == "table2" and r["topic"] == f"{PREFIX}/table1/state"
                           for r in club.get("/api/club")["broker_refusals"]))  # fmt: skip
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.goto(club.url)
    expect(page.locator('#alerts [data-refused="table2"]').first).to_contain_text(
        f"the broker refused table2 publishing on {PREFIX}/table1/state", timeout=TIMEOUT
    )
    assert club.wait_board("table1", lambda b: True)["online"] is True

    # table1's own login, used by a second client: the two take turns, and both say so.
    twin = paho.Client(CallbackAPIVersion.VERSION2, client_id="x", protocol=paho.MQTTv5)
    twin.username_pw_set("table1", "t1-secret")
    twin.reconnect_delay_set(1, 1)
    twin.connect_async("127.0.0.1", broker.port)
    twin.loop_start()
    try:
        one.wait_log("is a second referee running as table1, or is this board's login used "
                     "elsewhere", timeout=60)  # fmt: skip
        expect(page.locator('#alerts [data-board="table1"]')).to_contain_text(
            "another client connected with this board's login", timeout=TIMEOUT
        )
    finally:
        twin.loop_stop()
        twin.disconnect()


def wait_until(check: Any, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "not within the time"
        time.sleep(0.1)


def test_the_club_views_token_reaches_its_board_pages_on_another_machine(
    remote_browser: Browser, namespace: Namespace, cleanup: list[Any], tmp_path: Path
) -> None:
    """Issue 64: the club view opened from another machine with its token (``/?token=…`` on a
    0.0.0.0 listener): a board's card, then Take back, did nothing but show an empty error.
    The board page takes the token the club view holds, and the take-back is made."""
    from tests.test_club import ACL, CONF

    users = {"club": "club-secret", "table1": "t1-secret"}
    broker = Mosquitto(tmp_path / "broker", users=users, acl=ACL, conf=CONF)
    cleanup.append(broker)
    (tmp_path / "club-password").write_text("club-secret\n")
    club = Club(tmp_path, broker.url, "--mqtt-user", "club", "--mqtt-password-file",
                str(tmp_path / "club-password"), listen="0.0.0.0")  # fmt: skip
    cleanup.append(club)
    token = (tmp_path / "club-token").read_text().strip()
    one = referee(tmp_path, f"mqtt://table1:t1-secret@127.0.0.1:{broker.port}", "table1",
                  "--game", "three-dragons", "--mqtt-commands")  # fmt: skip
    cleanup.append(one)
    club.wait_board("table1", lambda b: b["commands"] is True)
    board_action(one, "lift", "c1")
    board_action(one, "place", "c4")
    club.wait_board("table1", lambda b: b["moves"] == 1)
    page = remote_browser.new_page(viewport={"width": 1280, "height": 800})
    page.goto(f"http://{namespace.host}:{club.port}/?token={token}")
    expect(page.locator('.card[data-board="table1"]')).to_be_visible(timeout=TIMEOUT)
    assert "token" not in page.url
    page.locator('.card[data-board="table1"]').click()
    expect(page.locator("#title")).to_have_text("table1: Three Dragons", timeout=TIMEOUT)
    page.locator("#btn-takeback").click()
    page.locator("#takeback-yes").click()
    expect(page.locator("#takeback")).to_be_hidden(timeout=TIMEOUT)
    club.wait_board("table1", lambda b: b["moves"] == 0, timeout=30)
    assert one.state()["moves"] == []
