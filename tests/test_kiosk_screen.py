"""The kiosk at the table: 800x480, by touch, in Chromium (issue 38).

One referee with its built-in emulated board, and every screen a club meets in an evening:
a capture prompt, a game in progress, an illegal move, the menu, the timeline, the board
check, the New game dialog over every game, each game's start, and a game over (a
resignation, confirmed). At each, the page is measured as it is drawn: every text a player
reads is 14 px or more, every control and link 44x44 px or more, the latest move and the
controls in view without scrolling, and no control the game cannot use. Every offender is
named. (The board's own drawing, its cell names and piece letters, scales with the board and
is left out.)
"""

from __future__ import annotations

import os
from pathlib import Path

from playwright.sync_api import Browser, Page, expect

from tests.test_kiosk import (
    TIMEOUT,
    Referee,
    capture_referee,
    click,
    open_pages,
    referees,
)

__all__ = ["referees"]  # the fixtures this file uses

MEASURE = """(kiosk) => {
  const bad = [];
  const name = (el) => el.id ? `#${el.id}` : el.className && typeof el.className === "string"
    ? `${el.tagName.toLowerCase()}.${el.className.split(" ")[0]}` : el.tagName.toLowerCase();
  const what = (el) => `${name(el)} "${(el.textContent || el.value || "").trim().slice(0, 40)}"`;
  const shown = (el) => {
    const r = el.getBoundingClientRect();
    const s = getComputedStyle(el);
    return r.width > 0 && r.height > 0 && s.visibility !== "hidden";
  };
  // Behind an open modal dialog nothing can be touched or is meant to be read.
  const modal = [...document.querySelectorAll("dialog")].find((d) => d.open);
  const inScope = (el) => !modal || modal.contains(el);
  for (const el of document.querySelectorAll("body *")) {
    if (el.closest("svg") || !shown(el) || !inScope(el)) continue;
    const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    const size = parseFloat(getComputedStyle(el).fontSize);
    if (own && size < 14) bad.push(`text ${what(el)}: ${size.toFixed(1)} px`);
  }
  // The board's own words (the cells' names, the lights' tags), at the size they are drawn;
  // a terrain's glyph is a mark, explained in the key.
  for (const el of document.querySelectorAll("#board text:not(.glyph)")) {
    if (el.closest(".piece")) continue;  // a piece's letter is its symbol, named in the key
    if (!shown(el) || !inScope(el) || !el.textContent.trim()) continue;
    const ctm = el.getScreenCTM();
    const size = parseFloat(el.getAttribute("font-size") || getComputedStyle(el).fontSize) *
      (ctm ? Math.hypot(ctm.a, ctm.b) : 1);
    if (size < 14) bad.push(`board text "${el.textContent.trim()}": ${size.toFixed(1)} px`);
  }
  for (const el of document.querySelectorAll("button, a[href], input, select, summary")) {
    if (!shown(el) || !inScope(el)) continue;
    const r = el.getBoundingClientRect();
    if (r.width < 44 || r.height < 44) {
      bad.push(`target ${what(el)}: ${Math.round(r.width)}x${Math.round(r.height)} px`);
    }
    if (el.tagName === "BUTTON" && el.scrollWidth > el.clientWidth + 1) {
      const words = `${el.scrollWidth} px in ${el.clientWidth}`;
      bad.push(`target ${what(el)}: its words are wider than it (${words})`);
    }
    if (r.right > innerWidth + 0.5 || kiosk && (r.bottom > innerHeight + 0.5 || r.top < -0.5)) {
      bad.push(`target ${what(el)} is off the screen (${Math.round(r.left)},${Math.round(r.top)})`);
    }
  }
  if (document.documentElement.scrollWidth > innerWidth) {
    bad.push(`the page scrolls sideways: ${document.documentElement.scrollWidth} px`);
  }
  // The key's swatches: a light's tag inside one is too small to read (it is in its words).
  for (const el of document.querySelectorAll(".legend-item svg text")) {
    const tag = el.textContent.trim();
    if (shown(el) && tag) bad.push(`a key's swatch holds the tag "${tag}"`);
  }
  const side = document.getElementById("side");
  if (side && !modal && side.scrollHeight > side.clientHeight + 1) {
    bad.push(`the right pane scrolls: ${side.scrollHeight} px of ${side.clientHeight}`);
  }
  if (kiosk && !modal) {
    const moves = document.getElementById("moves");
    const last = moves.lastElementChild;
    if (last && !moves.hidden) {
      const box = moves.getBoundingClientRect(), r = last.getBoundingClientRect();
      if (r.top < box.top - 1 || r.bottom > box.bottom + 1 || r.bottom > innerHeight) {
        bad.push(`the latest move is not in view: ${what(last)}`);
      }
    }
    const status = document.getElementById("status");
    if (status.scrollHeight > status.clientHeight + 1) bad.push("the status is cut");
  }
  return bad;
}"""


SHOTS = os.environ.get("BOARD_REFEREE_SHOTS")  # a folder: a picture of every moment measured


def measure(page: Page, moment: str, problems: list[str]) -> None:
    page.wait_for_timeout(150)  # the page's own fitting of its headline
    found: list[str] = page.evaluate(MEASURE, True)
    problems.extend(f"{moment}: {problem}" for problem in found)
    if SHOTS:
        page.screenshot(path=str(Path(SHOTS) / f"{moment.replace(' ', '-')}.png"))


def measure_board(page: Page, moment: str, problems: list[str], *, lit: bool) -> None:
    """The emulated board's page (``lit``: once its lights are drawn)."""
    if lit:
        page.wait_for_function("() => document.getElementById('leds').textContent !== 'All "
                               "lights off'", timeout=TIMEOUT)  # fmt: skip
    found: list[str] = page.evaluate(MEASURE, False)
    problems.extend(f"{moment}: {problem}" for problem in found)
    if SHOTS:
        page.screenshot(path=str(Path(SHOTS) / f"{moment.replace(' ', '-')}.png"))


def test_the_measure_names_what_is_too_small(browser: Browser) -> None:
    """The measure itself: small text, a small target, a control off the screen."""
    page = browser.new_page(viewport={"width": 800, "height": 480})
    page.set_content('<main><aside id="side"><p>fine text</p><p style="font-size:12px">small'
                     '</p><button style="width:30px;height:30px">x</button><ol id="moves"></ol>'
                     '<p id="status">s</p><button style="position:fixed;top:470px">far</button>'
                     "</aside></main>")  # fmt: skip
    found: list[str] = page.evaluate(MEASURE, True)
    page.close()
    assert any(p.startswith('text p "small": 12.0 px') for p in found), found
    assert any(p.startswith('target button "x": 30x30') for p in found), found
    assert any('button "far" is off the screen' in p for p in found), found
    assert not any("fine text" in p for p in found), found


def test_every_screen_at_800x480_is_readable_and_touchable(
    browser: Browser, referees: list[Referee], tmp_path: Path
) -> None:
    referee = capture_referee(tmp_path, referees)
    kiosk, board = open_pages(browser, referee)
    problems: list[str] = []
    status = kiosk.locator("#status")
    # A capture: the prompt, then the game going on.
    click(board, "c2", "c4")
    expect(status).to_have_text("White: take Black's stone off d4", timeout=TIMEOUT)
    assert kiosk.locator("#btn-pass").is_hidden()  # Three Dragons has no pass: none offered
    measure(kiosk, "a capture prompt", problems)
    click(board, "d4")
    expect(status).to_have_text("Black to move", timeout=TIMEOUT)
    # An illegal move (no piece moves diagonally), then put right.
    click(board, "h8", "g7")
    expect(status).to_contain_text("Illegal move", timeout=TIMEOUT)
    measure(kiosk, "an illegal move", problems)
    click(board, "g7", "h8")
    expect(status).to_have_text("Black to move", timeout=TIMEOUT)
    for cells in (("h8", "h6"), ("e4", "f4"), ("i7", "i6"), ("h2", "h3"), ("h6", "h7")):
        made = kiosk.locator("#moves li").count() + 1  # counted before: the move may list fast
        click(board, *cells)
        kiosk.wait_for_function("n => document.querySelectorAll('#moves li').length >= n",
                                arg=made, timeout=TIMEOUT)  # fmt: skip
    measure(kiosk, "a game in progress", problems)
    kiosk.locator("#btn-menu").click()
    measure(kiosk, "the menu", problems)
    kiosk.locator("#btn-timeline").click()
    expect(kiosk.locator("#tl-steps button")).to_have_count(6, timeout=TIMEOUT)
    measure(kiosk, "the timeline", problems)
    kiosk.locator("#tl-close").click()
    kiosk.locator("#btn-menu").click()
    kiosk.locator("#btn-check").click()
    measure(kiosk, "the board check's dialog", problems)
    kiosk.locator("#check-cells").fill("d3 d2")
    kiosk.locator("#check-start").click()
    expect(kiosk.locator("#check-instruction")).to_contain_text("Take every piece off",
                                                                timeout=TIMEOUT)  # fmt: skip
    measure(kiosk, "the board check", problems)
    kiosk.locator("#check-stop").click()
    expect(kiosk.locator("#check")).to_be_hidden(timeout=TIMEOUT)
    # A resignation, asked once more: the game is over, worded as its result everywhere.
    kiosk.locator("#btn-menu").click()
    kiosk.locator("#btn-resign").click()
    measure(kiosk, "the resignation dialog", problems)
    kiosk.locator("#resign-2").click()
    expect(status).to_have_text("White wins: Black resigned", timeout=TIMEOUT)
    measure(kiosk, "game over", problems)
    # The New game dialog over every game, and each game's start on the emulated board.
    for game in ("protect-the-goat", "vanguard", "goats-wintering", "the-lion-game"):
        kiosk.locator("#btn-menu").click()
        kiosk.locator("#btn-newgame").click()
        expect(kiosk.locator("#ng-abandon")).to_be_hidden()  # a game over: nothing to lose
        kiosk.locator("#ng-game").select_option(game)
        measure(kiosk, f"the New game dialog ({game})", problems)
        labels = kiosk.locator("#ng-options .option-label").all_text_contents()
        assert not [t for t in labels if "_" in t], labels  # words, not option names
        if game == "protect-the-goat":
            expect(kiosk.locator("#ng-options")).to_contain_text("Who places first")
            choices = kiosk.locator('#ng-options select[name="toss_winner"] option')
            assert "whoever places the first piece" in choices.all_text_contents()
        kiosk.locator("#ng-start").click()
        expect(kiosk.locator("body")).to_have_attribute("data-game", game, timeout=TIMEOUT)
        expect(board.locator("body")).to_have_attribute("data-game", game, timeout=TIMEOUT)
        board.locator("button[data-do='setup']").click()
        expect(status).to_contain_text("to move", timeout=TIMEOUT)
        measure(kiosk, f"the start of {game}", problems)
        # The emulated board's page at 800x480 (issue 64): a piece lifted and put where it
        # may not go, so the lights and their key show; every button's words in it.
        pieces = board.locator(".slot:has(.piece)")
        if pieces.count():  # a game that starts with its pieces on the board
            cell = pieces.first.get_attribute("data-cell")
            board.locator(f'.cell[data-cell="{cell}"]').click()
            board.locator("#hand button").first.wait_for(timeout=TIMEOUT)
        measure_board(board, f"the emulated board of {game}", problems, lit=bool(pieces.count()))
    assert not problems, "\n".join(problems)
    # The mouse arrow stays on a page opened as a plain one (the screen beside the board,
    # ?screen=1, hides it: tests/test_service.py).
    assert kiosk.evaluate("getComputedStyle(document.getElementById('btn-menu')).cursor") != "none"
