"""A finished game's review: the turning points from the engine's judgements (pure), the
analyst that makes them in its own process and keeps them beside the journal, and the review
on the kiosk in a real browser, with a turning point's better move on the emulated board's
LEDs (over the serial line, as every LED frame)."""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path

from playwright.sync_api import Browser, expect

from engine import Outcome
from engine.search.review import Judged, filled, turning_points
from firmware_bridge.faces.review_page import review_view
from firmware_bridge.link import catalog
from firmware_bridge.opponent.client import engine_command
from firmware_bridge.referee.journal import Journal
from firmware_bridge.referee.review import (
    Analyst,
    Review,
    ReviewError,
    load_review,
    review_path,
    save_review,
)
from tests.test_kiosk import TIMEOUT, Referee, signal_tag
from tests.test_kiosk_screen import MEASURE

__all__ = ["referees"]  # the fixtures this file uses
from tests.test_kiosk import referees

# The Lion Game's demo: White's rhinoceros takes the lion at move 7. Black's c7-c6 (move 6)
# let it: the engine sees the capture at once, so move 6 is a turning point every run.
# The analyst's logic, not its priority (the kiosk's test below runs it as run does, at nice
# 19): at nice 0 it keeps pace with the suite's other workers.
AT_ONCE = engine_command()
LION = ("g3-g3", "f7-f6", "d3-d4", "e8-e6", "d4-d6", "c7-c6", "d6-d8")


def finished_journal(folder: Path, moves: tuple[str, ...] = LION, game_id: str = "the-lion-game",
                     people: tuple[str, str] = ("Ann", "Bob")) -> Path:  # fmt: skip
    """A journal holding one finished game, played as the referee records one."""
    path = folder / "journal.sqlite3"
    game = catalog.load_game(game_id, {}, None)
    journal = Journal(path)
    number = journal.start_game(game, game_id, None, people)
    state = game.new_state()
    for text in moves:
        state.apply(state.parse(text))
        journal.record_move(number, text, state.outcome())
    assert state.outcome() is not None
    journal.close()
    return path


def test_turning_points_are_the_moves_that_gave_chances_away() -> None:
    judged = [
        Judged(1, 0.5, "a"),
        Judged(2, 0.55, "b"),  # move 1 (a) kept the chances
        Judged(1, 0.9, "c"),  # move 2 (x, not b): Black's chance 45% to 10%
        Judged(2, 0.9, "d", known=False),  # a forced move: its chance is the next one's
        Judged(1, 0.3, "e"),  # move 4, the forced one: no turning point; move 3 (y): 90 to 30
        Judged(0, 0.0),
    ]
    assert [j.first for j in filled(judged)][3] == 0.3
    turns = turning_points(judged, ["a", "x", "y", "d", "e"])
    assert [(t.number, t.mover, t.played, t.better) for t in turns] == [
        (2, 2, "x", "b"),
        (3, 1, "y", "c"),
    ]
    assert round(turns[1].drop, 2) == 0.6
    # The search's own move falling short is no one's mistake; a small fall is its noise.
    assert turning_points(judged, ["a", "b", "c", "d", "e"]) == []
    assert turning_points([Judged(1, 0.5, "z"), Judged(2, 0.4, "q")], ["a"]) == []
    # Under way: positions not judged yet end the list.
    assert [t.number for t in turning_points(judged[:3], ["a", "x", "y", "d", "e"])] == [2]
    # The largest falls only, in the order played.
    many = [Judged(1 + k % 2, 0.5, "best") for k in range(12)]
    assert len(turning_points(many, [f"m{k}" for k in range(11)], least=0.0, most=3)) == 3


def test_the_analyst_reviews_keeps_and_goes_on_from_what_it_kept(tmp_path: Path) -> None:
    journal = finished_journal(tmp_path)
    log = logging.getLogger("test-review")
    analyst = Analyst(journal, None, log, command=AT_ONCE, playouts=150)
    try:
        assert analyst.ask(1) == ""
        assert analyst.wait(1, 120), analyst.problem(1)
    finally:
        analyst.close()
    review = load_review(journal, 1)
    assert review is not None and review.complete and review.moves == LION
    assert review.judged[-1] == Judged(0, 1.0)  # White took the lion
    turns = turning_points(review.judged, review.moves)
    assert 6 in [t.number for t in turns]  # c7-c6 let the rhinoceros in
    view = review_view(journal, 1, None, None)
    said = next(text for number, text, _ in view.turns if number == 6)
    assert said.startswith("Move 6: Bob (Black), ") and "Better: " in said
    assert view.complete and not view.sentence

    # Cut short: what was kept is not redone, and the rest is made.
    kept = Review(1, review.game, review.options, review.moves, review.judged[:3])
    save_review(journal, kept)
    again = Analyst(journal, None, log, command=AT_ONCE, playouts=150)
    try:
        again.ask(1)
        assert again.wait(1, 120), again.problem(1)
    finally:
        again.close()
    done = load_review(journal, 1)
    assert done is not None and done.complete and done.judged[:3] == review.judged[:3]

    # A damaged file is made again, never a refusal.
    review_path(journal, 1).write_text("{not json", encoding="utf-8")
    assert load_review(journal, 1) is None


def test_what_cannot_be_reviewed_is_said_in_a_sentence(tmp_path: Path) -> None:
    log = logging.getLogger("test-review")
    # The engine down: said, and what was found is kept.
    journal = finished_journal(tmp_path)
    dead = Analyst(journal, None, log, command=[sys.executable, "-c", "raise SystemExit(3)"])
    try:
        dead.ask(1)
        assert not dead.wait(1, 60)
        assert dead.problem(1).startswith("The engine stopped (")
        view = review_view(journal, 1, None, dead)
        assert view.sentence.startswith("The engine stopped") and not view.complete
        assert view.stopped and review_view(journal, 1, None, dead).stopped  # said, not redone
        # Try again: started anew (and, the engine still down, stopped again).
        again = review_view(journal, 1, None, dead, retry=True)
        assert again.sentence.startswith("The engine is analysing") and not again.stopped
        assert not dead.wait(1, 60)
        assert dead.problem(1).startswith("The engine stopped (")
    finally:
        dead.close()
    # A game with no moves, a game still played, no such game, a damaged journal.
    game = catalog.load_game("vanguard", {}, None)
    other = Journal(tmp_path / "other.sqlite3")
    empty = other.start_game(game, "vanguard", None)
    other.finish(empty, game.new_state().outcome() or _resigned())
    playing = other.start_game(game, "vanguard", None)
    other.record_move(playing, "B1-A1")
    other.close()
    said = []
    for path, number in ((tmp_path / "other.sqlite3", empty), (tmp_path / "other.sqlite3",
                         playing), (journal, 9)):  # fmt: skip
        try:
            review_view(path, number, None, None)
        except ReviewError as exc:
            said.append(str(exc))
    assert said == [
        f"Game {empty} has no moves to review.",
        f"Game {playing} is still being played: it is reviewed once it ends.",
        "There is no game 9 in this board's journal.",
    ]
    broken = tmp_path / "broken.sqlite3"
    broken.write_bytes(b"this is not a journal" * 100)
    try:
        review_view(broken, 1, None, None)
        raise AssertionError("a damaged journal was reviewed")
    except ReviewError as exc:
        assert str(exc).startswith("The journal cannot be read, so game 1 cannot be reviewed")


def _resigned() -> Outcome:
    from engine import Player

    return Outcome(Player.ONE, "Player 2 resigned")


def test_the_review_on_the_kiosk_lights_the_better_move_and_survives_a_restart(
    browser: Browser, referees: list[Referee], tmp_path: Path
) -> None:
    finished_journal(tmp_path)
    referee = Referee(tmp_path, "--game", "the-lion-game", "--review-ms", "300",
                      "--review-playouts", "150")  # fmt: skip
    referees.append(referee)
    page = browser.new_page(viewport={"width": 800, "height": 480})
    board = browser.new_page(viewport={"width": 800, "height": 480})
    board.goto(referee.board_url)
    board.wait_for_selector(".cell[data-cell]")
    # From the records: the game's record page has its review one touch away.
    page.goto(referee.kiosk_url + "record/1")
    page.get_by_role("link", name="Review").click()
    turn = page.locator("a.turn", has_text="Move 6: Bob (Black)")
    # The page fills in as the analysis goes (at nice 19: after the suite's other workers)
    expect(turn).to_be_visible(timeout=120_000)
    expect(page.locator("svg.graph polyline")).to_have_count(1)
    assert page.evaluate(MEASURE, False) == []  # 14 px words, 44 px controls, no sideways
    page.screenshot(path=str(tmp_path / "review.png"))
    # Touching it: its position, and the better move on the board's LEDs.
    better = json.loads(turn.get_attribute("data-cells") or "{}")
    turn.click()
    expect(page.locator("#lit")).to_contain_text("lit on the board", timeout=TIMEOUT)
    assert page.evaluate(MEASURE, False) == []
    bottom = page.locator("#board").evaluate("(e) => e.getBoundingClientRect().bottom")
    assert bottom <= 480  # the whole position on the kiosk's screen
    page.screenshot(path=str(tmp_path / "review-turn.png"))
    tags = {"move_from": "FR", "move_to": "TO", "remove": "RM"}
    for cell, value in better.items():  # the board page draws what its LEDs received
        board.wait_for_function(
            """([cell, tag]) => {
                const mark = document.querySelector(`.signals .mark[data-cell="${cell}"]`);
                const t = mark && mark.querySelector('.signal .tag');
                return t && t.textContent === tag;
            }""",
            arg=[cell, tags[value]], timeout=TIMEOUT,
        )  # fmt: skip
    assert referee.state()["status"].startswith("Review of game 1, move 6: Bob (Black)")
    # The way back: the lights are the game's again, and the game never moved.
    page.locator("#back").click()
    page.wait_for_url(referee.kiosk_url)
    for cell in better:
        board.wait_for_function(
            """(cell) => !document.querySelector(
                `.signals .mark[data-cell="${cell}"] .signal`)""",
            arg=cell, timeout=TIMEOUT,
        )  # fmt: skip
        assert signal_tag(board, cell) == ""
    assert referee.state()["moves"] == []
    # A restart: the review kept with the game opens at once, complete.
    referee.stop()
    referee.start()
    page.goto(referee.kiosk_url + "review/1")
    expect(page.locator("a.turn", has_text="Move 6: Bob (Black)")).to_be_visible()
    expect(page.locator(".sentence")).to_have_count(0)
    assert "review of game 1: analysing" not in "\n".join(referee.log[-40:])
