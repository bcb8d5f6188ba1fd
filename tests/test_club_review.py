"""A finished game's review in the club view (issue 52): the board publishes it on its
``reviews`` topic, as its page shows it, and the club view draws it beside the results, a
turning point's position on the page, never on the board's LEDs. What a hostile sender can put
in a review is text and numbers in their places."""

from __future__ import annotations

import json
import logging
import urllib.request
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, expect

from firmware_bridge.faces.club_review import ClubReviews
from firmware_bridge.faces.contract import reviews_problem
from firmware_bridge.faces.review_page import published_review
from firmware_bridge.referee.journal import read_records
from firmware_bridge.referee.review import Analyst
from tests.test_club import ACL, CONF, cleanup, club_with_logins, wait_until
from tests.test_kiosk import TIMEOUT, Referee
from tests.test_kiosk_screen import MEASURE
from tests.test_review import AT_ONCE, finished_journal

__all__ = ["cleanup"]  # the club tests' fixture, used here too


def reviewed_journal(folder: Path) -> Path:
    """The Lion Game's demo (move 6 gives the lion away), finished and reviewed."""
    journal = finished_journal(folder)
    analyst = Analyst(journal, None, logging.getLogger("test-club-review"), command=AT_ONCE,
                      playouts=150)  # fmt: skip
    try:
        analyst.ask(1)
        assert analyst.wait(1, 120), analyst.problem(1)
    finally:
        analyst.close()
    return journal


def published(journal: Path) -> dict[str, Any]:
    (record,) = read_records(journal, 1)
    found = published_review(journal, record, None)
    assert found is not None
    entry, picture = found
    return {"schema": 1, "board": "table1", "reviews": [entry],
            "pictures": {picture.key: picture.to_json()}}  # fmt: skip


def test_a_published_review_is_the_kiosks_page_and_hostile_ones_are_refused_or_text(
    tmp_path: Path,
) -> None:
    body = published(reviewed_journal(tmp_path))
    assert reviews_problem(body) is None
    entry = body["reviews"][0]
    assert entry["names"] == ["Ann", "Bob"] and entry["moves"] == 7
    assert len(entry["chances"]) == 8 and entry["chances"][-1] == 1.0  # White took the lion
    turn = next(t for t in entry["turns"] if t["number"] == 6)
    assert turn["text"].startswith("Move 6: Bob (Black), ")
    assert set(turn["signals"].values()) <= {"move_from", "move_to", "remove"}
    reviews = ClubReviews()
    assert reviews.take("table1", body, 5000) is None and reviews.has("table1", 1)
    status, page = reviews.page("table1", 1, None)
    assert status == 200 and "Move 6: Bob (Black)" in page and 'data-lights="off"' in page
    assert 'href="/board/table1/review/1?at=6"' in page and 'href="/records/table1/1"' in page
    status, page = reviews.page("table1", 1, 6)
    assert status == 200 and 'id="board"' in page and "All turning points" in page
    plain = next(n for n in range(1, 8) if n not in {t["number"] for t in entry["turns"]})
    status, page = reviews.page("table1", 1, plain)
    assert status == 404 and "is not one of this game" in page
    status, page = reviews.page("table1", 2, None)
    assert status == 404 and "holds no review of game 2 of table1" in page

    # Hostile: a script for a title and a name, NaN for a chance: text, and a chance of 50%.
    bad = json.loads(json.dumps(body))
    bad["reviews"][0]["title"] = "<script>alert(1)</script>"
    bad["reviews"][0]["names"][0] = '"><img src=x onerror=alert(1)>'
    bad["reviews"][0]["chances"][1] = float("nan")
    assert reviews_problem(bad) is None
    reviews.take("table1", bad, 5000)
    _, page = reviews.page("table1", 1, None)
    assert "<script>alert" not in page and "<img src=x" not in page
    assert "&lt;script&gt;" in page and "nan" not in page.lower()
    # Refused: a signal that is no signal (it would be a class name), a picture not sent, a
    # chance that is text, more chances than positions.
    for path, value, said in (
        (("turns", 0, "signals", "a1"), "x onclick", "signals.a1"),
        (("picture",), "elsewhere", "not among the pictures sent"),
        (("chances", 0), "0.5", "chances[0]: expected a number"),
        (("moves",), 2, "more than a chance a position"),
    ):
        worse = json.loads(json.dumps(body))
        place = worse["reviews"][0]
        for key in path[:-1]:
            place = place[key]
        place[path[-1]] = value
        problem = reviews_problem(worse)
        assert problem is not None and said in problem, problem


def test_the_club_view_shows_a_boards_finished_review(
    browser: Browser, cleanup: list[Any], tmp_path: Path
) -> None:
    """The board's analyst finishes a game's review (asked for at its kiosk); the board
    publishes it, through docs/mqtt.md's logins and ACL, and the club view's results and
    record link to it: its turning points, and one touched, its position with the better
    move, readable and touchable at 800x480."""
    users = {"club": "club-secret", "table1": "t1-secret"}
    broker, club, _ = club_with_logins(tmp_path, cleanup, users, ACL, conf=CONF)
    folder = tmp_path / "table1"
    folder.mkdir()
    finished_journal(folder)
    one = Referee(folder, "--mqtt", f"mqtt://table1:t1-secret@127.0.0.1:{broker.port}",
                  "--board-id", "table1", "--game", "the-lion-game", "--review-ms", "300",
                  "--review-playouts", "150")  # fmt: skip
    cleanup.append(one)
    with urllib.request.urlopen(one.kiosk_url + "review/1", timeout=10):  # asked at the kiosk
        pass

    def reviewed() -> bool:
        return any(r["board"] == "table1" and r["game_number"] == 1 and r.get("review")
                   for r in club.get("/api/results")["results"])  # fmt: skip

    wait_until(reviewed, "the board's review reached the club view", timeout=120)
    assert "/board/table1/review/1" in club.get("/records/table1/1")
    page = browser.new_page(viewport={"width": 800, "height": 480})
    page.goto(club.url)
    page.get_by_role("link", name="review").first.click()
    turn = page.locator("a.turn", has_text="Move 6: Bob (Black)")
    expect(turn).to_be_visible(timeout=TIMEOUT)
    expect(page.locator("svg.graph polyline")).to_have_count(1)
    assert page.evaluate(MEASURE, False) == []  # 14 px words, 44 px controls, no sideways
    page.screenshot(path=str(tmp_path / "club-review.png"))
    better = json.loads(turn.get_attribute("data-cells") or "{}")
    turn.click()
    expect(page.locator("#board .cell[data-cell]").first).to_be_attached(timeout=TIMEOUT)
    for cell in better:  # the better move, drawn on the page's board
        expect(page.locator(f'#board .signals .mark[data-cell="{cell}"]')).to_have_count(1)
    assert page.evaluate(MEASURE, False) == []
    page.screenshot(path=str(tmp_path / "club-review-turn.png"))
    assert page.locator("#lit").inner_text() == ""  # nothing asked of the board's LEDs
    page.locator("#back").click()
    page.wait_for_url(club.url)
    assert not [line for line in club.log if "ignored a message" in line], club.log
    assert not [line for line in one.log if "refused to take" in line], one.log  # the ACL
