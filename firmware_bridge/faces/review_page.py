"""A finished game's review as a page of the kiosk (``/review/N``): the winning chances move
by move as a graph, the moves where they turned most in words, and, for a turning point
touched, its position with the better move, which the board's LEDs show too.

Made on the server from the kept analysis (referee/review.py): no build step, no script but
``review.js``, which draws the position with the kiosk's own board drawing and asks the
referee to light the better move. At 800x480 every word is 14 px or more and every control
44 px (review.css).
"""

from __future__ import annotations

import html
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine import NO_CELL, Game, Player, State
from engine.search.review import Turn, filled, turning_points
from firmware_bridge import words
from firmware_bridge.referee.journal import GameRecord
from firmware_bridge.referee.records import result_words
from firmware_bridge.referee.review import (
    Analyst,
    Review,
    ReviewError,
    game_record,
    load_review,
    played_moves,
    reviewable,
)
from firmware_bridge.referee.snapshot import BoardPicture, board_picture

GRAPH_W, GRAPH_H, PAD = 760, 200, 30


@dataclass(frozen=True)
class Shown:
    """A turning point's position and the better move, as the page and the LEDs show it."""

    number: int  # the move's number
    text: str  # what happened, in words
    pieces: tuple[dict[str, object], ...]
    signals: dict[str, str]  # cell -> LED signal: the better move, on the page and the LEDs
    board: str  # the board's picture as JSON (snapshot.py), for the page's drawing


def _percent(chance: float) -> str:
    return f"{round(chance * 100)}%"


def turn_text(game: Game, positions: Sequence[State], people: tuple[str, str], turn: Turn) -> str:
    """``Move 14: Ann (Player 1), outrider F4 to F5: chances 62% to 31%; better: ram D2 to
    D6``."""
    state = positions[turn.number - 1]
    who = words.person(game.player_names, people, state.to_move)
    side = game.player_names[state.to_move.index]
    named = who if who == side else f"{who} ({side})"
    played = words.said(state, state.parse(turn.played), people)
    better = words.said(state, state.parse(turn.better), people)
    return (f"Move {turn.number}: {named}, {played}: chances {_percent(turn.before)} to "
            f"{_percent(turn.after)}. Better: {better}.")  # fmt: skip


def shown_move(state: State, text: str) -> dict[str, str]:
    """The LED signals of a move shown to be made: where from, where to, what it takes."""
    move = state.parse(text)
    names = state.game.board.names
    signals = {}
    if move.frm != NO_CELL:
        signals[names[move.frm]] = "move_from"
    if move.to != NO_CELL:
        signals[names[move.to]] = "move_to"
    for cell in move.cells:
        signals.setdefault(names[cell], "remove")
    return signals


def _pieces(state: State) -> tuple[dict[str, object], ...]:
    game, names = state.game, state.game.board.names
    return tuple(
        {"cell": names[c], "kind": p.kind, "symbol": game.pieces[p.kind].symbol,
         "owner": int(p.owner), "state": p.state}
        for c, p in sorted(state.layout().items())
    )  # fmt: skip


def graph(chances: Sequence[float], total: int, names: tuple[str, str],
          turns: Sequence[int]) -> str:  # fmt: skip
    """Player 1's chance position by position (``turns``: the turning points' move numbers),
    as inline SVG (presentation attributes only: the page's security policy allows no inline
    style)."""
    inner_w, inner_h = GRAPH_W - 2 * PAD, GRAPH_H - 2 * PAD

    def xy(k: int, chance: float) -> tuple[float, float]:
        return PAD + inner_w * k / max(total, 1), PAD + inner_h * (1 - chance)

    points = " ".join(f"{x:.1f},{y:.1f}" for x, y in (xy(k, c) for k, c in enumerate(chances)))
    parts = [
        f'<svg class="graph" viewBox="0 0 {GRAPH_W} {GRAPH_H}" role="img" '
        f'aria-label="{html.escape(names[0])}\'s chance of winning, move by move">',
        f'<rect x="{PAD}" y="{PAD}" width="{inner_w}" height="{inner_h}" fill="#f5f5f4" '
        'stroke="#a8a29e"/>',
        f'<line x1="{PAD}" y1="{PAD + inner_h / 2}" x2="{PAD + inner_w}" '
        f'y2="{PAD + inner_h / 2}" stroke="#a8a29e" stroke-dasharray="6 6"/>',
        f'<text x="{PAD}" y="{PAD - 8}" font-size="16" fill="#1c1917">'
        f"{html.escape(names[0])} wins</text>",
        f'<text x="{PAD}" y="{GRAPH_H - 8}" font-size="16" fill="#1c1917">'
        f"{html.escape(names[1])} wins</text>",
    ]
    if len(chances) > 1:
        parts.append(f'<polyline points="{points}" fill="none" stroke="#1d4ed8" '
                     'stroke-width="3"/>')  # fmt: skip
    for number in turns:
        if 0 <= number < len(chances):
            x, y = xy(number, chances[number])
            parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="7" fill="#b91c1c"/>'
                         f'<text x="{x:.1f}" y="{y - 12:.1f}" font-size="16" fill="#b91c1c" '
                         f'text-anchor="middle">{number}</text>')  # fmt: skip
    parts.append("</svg>")
    return "".join(parts)


@dataclass(frozen=True)
class Paths:
    """Where a review page's links go: the kiosk's own pages, or the club view's for one of
    its boards (which lights no LEDs: it is not at the board)."""

    back: str = "/"
    back_words: str = "Back to the board"
    record: str = "/record/{n}"
    review: str = "/review/{n}"
    lights: bool = True

    def of(self, template: str, number: int) -> str:
        return template.replace("{n}", str(number))


KIOSK = Paths()


@dataclass(frozen=True)
class ReviewView:
    """What the page shows, worked out from the journal and the kept analysis."""

    number: int
    title: str
    result: str
    sentence: str  # how far the analysis is, or why there is none ("" when complete)
    graph: str
    turns: tuple[tuple[int, str, dict[str, str]], ...]  # (move, words, the better move's LEDs)
    complete: bool
    stopped: bool = False  # the analysis stopped (the engine gone): the page offers a retry
    shown: Shown | None = None
    previous: int = 0  # the game before, for the way to earlier reviews (0: none)


def review_view(journal: Path, number: int, config_dir: Path | None, analyst: Analyst | None,
                at: int | None = None, *, retry: bool = False) -> ReviewView:  # fmt: skip
    """Raises ReviewError (in words) for a game that cannot be reviewed."""
    record = game_record(journal, number)
    game, positions, moves, review = _analysed(journal, record, config_dir)
    judged = review.judged if review is not None else ()
    complete = review is not None and review.complete
    sentence, stopped = "", False
    if not complete:
        if analyst is None:
            raise ReviewError("This referee has no engine to analyse games with "
                              "(it runs without its kiosk's analyst).")  # fmt: skip
        said = analyst.ask(number, retry)  # why it stopped, if it did and no retry is asked
        stopped = bool(said) and said == analyst.problem(number)
        sentence = said or (
            f"The engine is analysing this game at low priority: {len(judged)} of "
            f"{len(moves) + 1} positions so far. This page fills in as it goes."
        )
    people = record.players
    turns = turning_points(judged, moves)
    texts = tuple((t.number, turn_text(game, positions, people, t),
                   shown_move(positions[t.number - 1], t.better)) for t in turns)  # fmt: skip
    shown = None
    if at is not None:
        found = next((t for t in texts if t[0] == at), None)
        if found is None:
            raise ReviewError(f"Move {at} is not one of this game's turning points.")
        _, said_turn, signals = found
        shown = Shown(at, said_turn, _pieces(positions[at - 1]), signals, board_picture(game).text)
    names = _names(game, people)
    chances = [j.first for j in filled(judged)]
    return ReviewView(
        number=number, title=game.title,
        result=result_words(record, str(config_dir) if config_dir else None),
        sentence=sentence, graph=graph(chances, len(moves), names, [t.number for t in turns]),
        turns=texts, complete=complete, shown=shown, previous=number - 1,
        stopped=stopped,
    )  # fmt: skip


def _names(game: Game, people: tuple[str, str]) -> tuple[str, str]:
    one, two = (words.person(game.player_names, people, p) for p in (Player.ONE, Player.TWO))
    return one, two


def _analysed(
    journal: Path, record: GameRecord, config_dir: Path | None
) -> tuple[Game, tuple[State, ...], tuple[str, ...], Review | None]:
    """A game's rules, positions and moves, and its kept analysis (None: none of these
    moves). Raises ReviewError for a game that cannot be reviewed."""
    game, positions = reviewable(record, config_dir)
    moves = played_moves(record)
    review = load_review(journal, record.id)
    if review is not None and review.moves != moves:
        review = None
    return game, positions, moves, review


def published_review(
    journal: Path, record: GameRecord, config_dir: Path | None
) -> tuple[dict[str, Any], BoardPicture] | None:
    """A game's finished review as a board publishes it for the club view (the MQTT
    ``reviews`` topic, docs/mqtt.md): everything its page shows, worked out here, so the club
    view draws it without the game's rules or its journal. None: not analysed to its end."""
    number = record.id
    try:
        game, positions, moves, review = _analysed(journal, record, config_dir)
    except ReviewError:
        return None
    if review is None or not review.complete:
        return None
    people = record.players
    turns = turning_points(review.judged, moves)
    picture = board_picture(game)
    entry = {
        "game": number, "title": game.title,
        "result": result_words(record, str(config_dir) if config_dir else None),
        "names": list(_names(game, people)), "moves": len(moves),
        "chances": [round(j.first, 4) for j in filled(review.judged)],
        "turns": [{"number": t.number, "text": turn_text(game, positions, people, t),
                   "signals": shown_move(positions[t.number - 1], t.better),
                   "pieces": list(_pieces(positions[t.number - 1]))} for t in turns],
        "picture": picture.key,
    }  # fmt: skip
    return entry, picture


def club_view(entry: dict[str, Any], picture: str, at: int | None, previous: int) -> ReviewView:
    """A published review (checked against the contract: faces/contract.py) as the club
    view's page shows it; ``picture``: its board's picture as JSON. Raises ReviewError for a
    move that is not one of its turning points."""
    turns = tuple((int(t["number"]), str(t["text"]), dict(t["signals"])) for t in entry["turns"])
    shown = None
    if at is not None:
        found = next((t for t in entry["turns"] if t["number"] == at), None)
        if found is None:
            raise ReviewError(f"Move {at} is not one of this game's turning points.")
        shown = Shown(at, str(found["text"]), tuple(found["pieces"]), dict(found["signals"]),
                      picture)  # fmt: skip
    # Numbers from 0 to 1 on the graph (JSON lets a sender write NaN and Infinity).
    chances = [min(max(c, 0.0), 1.0) if math.isfinite(c) else 0.5
               for c in map(float, entry["chances"])]  # fmt: skip
    names = (str(entry["names"][0]), str(entry["names"][1]))
    return ReviewView(
        number=int(entry["game"]), title=str(entry["title"]), result=str(entry["result"]),
        sentence="", graph=graph(chances, int(entry["moves"]), names, [t[0] for t in turns]),
        turns=turns, complete=True, shown=shown, previous=previous,
    )  # fmt: skip


def review_page(view: ReviewView, paths: Paths = KIOSK) -> str:
    """The page's HTML."""
    esc = html.escape
    n = view.number
    still = view.complete or view.shown or view.stopped
    refresh = "" if still else '<meta http-equiv="refresh" content="3">'
    review = paths.of(paths.review, n)
    links = [(paths.back, paths.back_words, "back"), (paths.of(paths.record, n), "Record", "")]
    if view.stopped:
        links.insert(1, (f"{review}?retry=1", "Try again", "retry"))
    if view.shown is not None:
        links.insert(1, (review, "All turning points", ""))
    if view.previous > 0:
        links.append((paths.of(paths.review, view.previous), "Previous game", ""))
    nav = " ".join(f'<a href="{esc(h)}"{f" id={chr(34)}{i}{chr(34)}" if i else ""}>{esc(w)}</a>'
                   for h, w, i in links)  # fmt: skip
    body = [f"<h1>Review of game {n}: {esc(view.title)}</h1>", f'<p class="nav">{nav}</p>']
    if view.result and view.shown is None:
        body.append(f'<p class="result">{esc(view.result)}</p>')
    if view.sentence and view.shown is None:  # a turning point's page: the position whole
        body.append(f'<p class="sentence" role="status">{esc(view.sentence)}</p>')
    if view.shown is not None:
        shown = view.shown
        data = {"pieces": list(shown.pieces), "signals": shown.signals, "game": n,
                "move": shown.number}  # fmt: skip
        body.append(
            '<div class="shown"><div class="position">'
            f'<svg id="board" data-show="{esc(json.dumps(data))}" data-board="{esc(shown.board)}">'
            f'</svg></div><div><p class="turn-text">{esc(shown.text)}</p>'
            '<p id="lit" class="sentence" role="status"></p></div></div>'
        )
    else:
        body.append(view.graph)
        if view.turns:
            body.append('<h2>Where the chances turned</h2><ol class="turns">')
            for number, text, cells in view.turns:
                lit = esc(json.dumps(cells))
                body.append(f'<li><a class="turn" href="{esc(review)}?at={number}" '
                            f'data-cells="{lit}">{esc(text)}</a></li>')  # fmt: skip
            body.append("</ol>")
        elif view.complete:
            body.append('<p class="sentence">No move gave the chances away: the engine found '
                        "nothing much better anywhere.</p>")  # fmt: skip
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        + refresh
        + f"<title>Review of game {n}</title>"
        '<link rel="stylesheet" href="/static/board.css">'
        '<link rel="stylesheet" href="/static/review.css">'
        '<script type="module" src="/static/review.js"></script></head>'
        + ("<body>" if paths.lights else '<body data-lights="off">')
        + f"{''.join(body)}</body></html>\n"
    )


def problem_page(number: int, sentence: str, paths: Paths = KIOSK) -> str:
    """A review that cannot be shown: the sentence that says why, and the way back."""
    esc = html.escape
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>Review of game {number}</title>"
        '<link rel="stylesheet" href="/static/review.css"></head><body>'
        f"<h1>Review of game {number}</h1>"
        f'<p class="nav"><a href="{esc(paths.back)}">{esc(paths.back_words)}</a></p>'
        f'<p class="sentence" role="status">{esc(sentence)}</p></body></html>\n'
    )
