"""The game's move list as the faces show it (who moved, when, what it captured), kept beside
the journal and rebuilt from it when a game resumes. (Split from daemon.py.)"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from engine import Effect, EventKind, Game, MoveKind, Piece, Player
from firmware_bridge import words
from firmware_bridge.referee.journal import NOTES, Journal
from firmware_bridge.referee.snapshot import MoveView
from firmware_bridge.words import NOBODY, People

MoveList = list[tuple[MoveView, tuple[Piece, ...]]]  # each move, and the pieces it captured


def iso_now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def move_entry(
    game: Game, number: int, text: str, at: str, effect: Effect, *, people: People = NOBODY
) -> tuple[MoveView, tuple[Piece, ...]]:
    """A move as the faces list it: who (the person, when named), the move in words, what it
    made happen, and its result in the one wording results have everywhere."""
    names = game.player_names
    move = effect.move
    body = effect.events if move.is_declared else effect.events[1:]  # [0]: the move itself
    events = [e.text for e in body if e.kind is not EventKind.END]
    if effect.outcome is not None:
        events.append(words.result(effect.outcome, names, people))
    who = words.person(names, people, effect.player)
    if move.kind is MoveKind.DRAW:  # agreed by both: never one player's
        who = "Both players"
    elif move.kind in (MoveKind.RESIGN, MoveKind.TIME):  # who resigned, or whose flag fell
        who = words.person(names, people, Player(int(move.piece)))
    view = MoveView(number, names[effect.player.index], text, at, tuple(events),
                    words.move_words(game, move, effect, people), who)  # fmt: skip
    return view, captured(effect)


def captured(effect: Effect) -> tuple[Piece, ...]:
    """The pieces a move captured (from its capture events and the cells they emptied)."""
    cells = {c for e in effect.events if e.kind is EventKind.CAPTURE for c in e.cells[:1]}
    if not cells:
        return ()
    lost: dict[int, Piece] = {}
    for change in (*effect.hand, *effect.consequences):
        if change.cell in cells and change.after is None and change.before is not None:
            lost[change.cell] = change.before
    return tuple(lost.values())


def history_from_journal(
    journal: Journal,
    game: Game,
    game_id: int,
    start: dict[str, Any] | None,
    people: People = NOBODY,
) -> MoveList:
    """The move list of a resumed game, rebuilt from the journal with its times."""
    state = game.state_from_json(start) if start else game.new_state()
    moves: MoveList = []
    for action, text, at in journal.timed_entries(game_id):
        if action == "takeback":
            for _ in range(int(text)):
                state.undo()
            del moves[len(moves) - int(text) :]
            continue
        if action in NOTES:
            continue
        effect = state.apply(state.parse(text), check=False)
        moves.append(move_entry(game, len(moves) + 1, text, at, effect, people=people))
    return moves
