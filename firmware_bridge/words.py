"""The words the players and the arbiter read: the referee's sentences and its pages' phrases,
in one place, ready to be translated.

Pieces by their names ("goat", "phant"), people by their names wherever New game named them,
moves as things a hand does ("goat on e1", "stone c1 to c4"), never the engine's notation or
its internal names (phases, letters). The rules' own clauses (why a move is illegal, what a
capture did) come from each game's module and are placed into these sentences.

``PAGE`` holds the phrases the web pages build their own sentences from; every page loads them
as ``/words.js`` (faces/webserver.py), so a translation changes this file alone.

Imports: ``engine`` only, so every role folder of ``firmware_bridge`` may use it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from engine import Effect, Game, Move, MoveKind, Outcome, Piece, Player
from engine.moves import NO_CELL

People = tuple[str, str]
NOBODY: People = ("", "")


# -- counting and naming -----------------------------------------------------------------------
def plural(noun: str) -> str:
    """``stone``: ``stones``; ``sugarmouse``: ``sugarmice``; ``butterfly``: ``butterflies``."""
    if noun.endswith("mouse"):
        return noun[: -len("mouse")] + "mice"
    if noun.endswith(("s", "x", "ch", "sh")):
        return noun + "es"
    if noun.endswith("y") and noun[-2:-1] not in ("a", "e", "i", "o", "u"):
        return noun[:-1] + "ies"
    return noun + "s"


def count(number: int, noun: str) -> str:
    """``1 move``, ``2 moves``, ``0 moves``."""
    return f"{number} {noun if number == 1 else plural(noun)}"


def join(items: Iterable[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    listed = [item for item in items if item]
    if len(listed) <= 2:
        return " and ".join(listed)
    return ", ".join(listed[:-1]) + " and " + listed[-1]


def person(names: tuple[str, str], people: People, player: Player) -> str:
    """Who is addressed: the person playing the side when New game named one (``Alice``),
    else the side (``White``, ``Player 1``)."""
    named = people[player.index].strip()
    return named or names[player.index]


def side_and_person(names: tuple[str, str], people: People, player: Player) -> str:
    """``Alice (White)``, or the side alone when nobody was named (the result's wording)."""
    named = people[player.index].strip()
    return f"{named} ({names[player.index]})" if named else names[player.index]


def owner(names: tuple[str, str], people: People, player: Player) -> str:
    """Whose pieces: the side where it says which pieces (``White's stone``), the person where
    the sides are only numbers (``Bob's lyon`` for Player 2's)."""
    side = names[player.index]
    named = people[player.index].strip()
    numbered = side.lower() == f"player {int(player)}"
    return f"{named}'s" if named and numbered else f"{side}'s"


def piece_name(game: Game, piece: Piece) -> str:
    """``stone``, ``die (5)``: the kind's own name and, where it has one, its value."""
    return piece.kind if piece.state is None else f"{piece.kind} ({piece.state})"


# -- moves ------------------------------------------------------------------------------------
def move_words(game: Game, move: Move, effect: Effect | None = None,
               people: People = NOBODY, *, moved: str = "") -> str:  # fmt: skip
    """A move as a hand made it, said after who made it: ``stone c1 to c4``, ``goat on e1``,
    ``pass``, ``a5 takes b6``, ``resigns``. ``effect`` (the apply's) or ``moved`` names the
    piece moved."""
    names = game.board.names
    kind = move.kind
    if effect is not None and move.frm != NO_CELL:
        before = next((c.before for c in effect.hand if c.cell == move.frm), None)
        moved = before.kind if before is not None else ""
    if kind is MoveKind.MOVE:
        text = f"{moved + ' ' if moved else ''}{names[move.frm]} to {names[move.to]}"
        if move.frm == move.to:
            text = f"{moved or 'the piece'} on {names[move.frm]} stays"
        if move.cells:
            text += f", taking {join(names[c] for c in move.cells)}"
        return text
    if kind is MoveKind.PLACE:
        return f"{move.piece} on {names[move.to]}"
    if kind is MoveKind.CAPTURE:
        return f"{names[move.frm]} takes {names[move.to]}"
    if kind is MoveKind.REMOVE:
        return f"removes {join(names[c] for c in move.cells)}"
    if kind is MoveKind.RESIGN:  # said after who resigns: "Black: resigns"
        return "resigns"
    if kind is MoveKind.DRAW:
        return "draw agreed"
    return "pass"


def took_back(game: Game, moves: list[tuple[Move, str]], people: People = NOBODY) -> str:
    """The answer to a take-back (``moves``: the moves undone, first played first, each with
    the kind of the piece it moved)."""
    if len(moves) == 1 and moves[0][0].kind is MoveKind.RESIGN:
        return "the resignation is withdrawn: play on"
    if len(moves) == 1 and moves[0][0].kind is MoveKind.DRAW:
        return "the agreed draw is withdrawn: play on"
    said = join(move_words(game, m, people=people, moved=kind) for m, kind in moves)
    return f"took back {said}: put the board back"


# -- results ----------------------------------------------------------------------------------
def result(outcome: Outcome, names: tuple[str, str], people: People = NOBODY) -> str:
    """A result, worded once for every place that shows it (the kiosk, the move list, the
    records, the CSV, the club view): ``Carol (White) wins: two passes, …``, ``draw (…)``."""
    return outcome.describe(names, people)


def declared_result(move: Move, names: tuple[str, str], people: People) -> str:
    """What the kiosk says once a resignation or an agreed draw is recorded."""
    if move.kind is MoveKind.RESIGN:
        player = Player(int(move.piece))
        winner = person(names, people, player.other)
        return f"{person(names, people, player)} resigned: {winner} wins"
    return "draw agreed and recorded"


# -- what is not on the board -----------------------------------------------------------------
def reserve_line(game: Game, people: People, player: Player, counts: Mapping[str, int]) -> str:
    """``Alice still to place: 1 goat, 2 phants, 2 sugarmice``."""
    listed = join(count(n, kind) for kind, n in counts.items() if n)
    return f"{person(game.player_names, people, player)} still to place: {listed}"


def lost(kinds: Iterable[str]) -> str:
    """A player's captured pieces: ``lost 2 stones and 1 lyon`` ("" for none)."""
    tally: dict[str, int] = {}
    for kind in kinds:
        tally[kind] = tally.get(kind, 0) + 1
    return "lost " + join(count(n, kind) for kind, n in tally.items()) if tally else ""


# -- sensors ----------------------------------------------------------------------------------
def sensor_flapping(cell: str, changes: int, window: float) -> str:
    return (f"the sensor under {cell} keeps changing with nothing moved ({changes} times in "
            f"{window:.0f} s): a loose wire or a cold joint? Check the board")  # fmt: skip


def sensor_phantom(cell: str) -> str:
    return (f"{cell} keeps reading a piece the game does not have there: if nothing is on "
            f"{cell}, its sensor may be stuck. Check the board")  # fmt: skip


def sensor_brief(flapping: Iterable[str], phantom: Iterable[str]) -> str:
    """All sensor warnings in one short line, however many cells: ``Check the sensors: c7 may
    be stuck; d4 keeps changing``."""
    parts = []
    stuck, loose = sorted(phantom), sorted(flapping)
    if stuck:
        parts.append(f"{_few(stuck)} may be stuck")
    if loose:
        parts.append(f"{_few(loose)} {'keeps' if len(loose) == 1 else 'keep'} changing")
    return "Check the sensors: " + "; ".join(parts) if parts else ""


def _few(cells: list[str], most: int = 4) -> str:
    if len(cells) <= most:
        return join(cells)
    return ", ".join(cells[:most]) + f" and {len(cells) - most} more"


# -- the pages' phrases ------------------------------------------------------------------------
# Templates with {named} places, filled in by the page (web/say.js: say(key, values)).
PAGE: dict[str, str] = {
    # the kiosk's frame
    "reconnecting": "Reconnecting to the referee…",
    "waiting_referee": "Waiting for the referee…",
    "all_boards": "← all boards",
    "no_answer": "The referee did not answer: is it running?",
    # the board's connection
    "conn_connected": "{id}",
    "conn_connecting": "connecting",
    "conn_waiting": "no board",
    "conn_wrong_board": "wrong board",
    "conn_emulator": "board emulator",
    "conn_offline": "referee offline",
    "conn_state": "state",
    "conn_port": "port",
    "conn_board": "board id",
    "conn_firmware": "firmware",
    "conn_last_frame": "last heard",
    "conn_fault": "fault",
    "last_frame": "{seconds} s ago",
    "no_frame": "not yet",
    # the players and the moves
    "to_move": "to move",
    "to_act": "to act",
    "chooses": "chooses",
    "winner": "winner",
    "score": "score {score}",
    "one_move": "1 move",
    "many_move": "{n} moves",
    # the controls
    "takeback": "Take back",
    "pass": "Pass",
    "confirm": "Confirm",
    "select": "Select",
    "menu": "Menu",
    "close": "Close",
    "cancel": "Cancel",
    "new_game": "New game…",
    "resign": "Resign…",
    "draw": "Agreed draw…",
    "timeline": "Timeline",
    "check": "Check the board",
    "key": "Key: pieces and board",
    "connection": "Board connection",
    "record": "This game's record",
    "results": "Results (CSV)",
    "no_commands": "This board's referee does not take commands from the club view (it runs "
    "without --mqtt-commands): new game and take back are done at the board.",
    "tip_connection": "the board's connection",
    "tip_resign": "a player resigns: the other wins",
    "tip_draw": "both players agree to a draw",
    "tip_timeline": "this game's moves, and under each what the sensors said, the lights lit "
    "and the words shown",
    "tip_check": "check every sensor and LED of the board, cell by cell",
    "tip_record": "this game's record as text (replays with board-referee play --moves-file)",
    "tip_results": "every game of this board: players, results, times (CSV)",
    # a result the players declare
    "resign_title": "Who resigns?",
    "resign_ask": "The one who resigns loses; the other wins. This ends the game.",
    "resign_yes": "{who} resigns",
    "resign_means": "{other} wins",
    "draw_title": "Agreed draw",
    "draw_ask": "Both players agree to a draw. This ends the game.",
    "draw_yes": "Record the draw",
    # a new game
    "new_game_title": "New game",
    "game": "Game",
    "name_of": "{side}: name",
    "optional": "(optional)",
    "abandon": "The game in progress ({moves}) will be abandoned.",
    "abandon_start": "Abandon it and start",
    "start": "Start",
    # the board check
    "check_title": "Board check",
    "check_progress": "{done} of {total}",
    "check_explain": "The game waits while every cell is checked in turn: clear the board, then "
    "put a piece on each lit cell and lift it again. Afterwards the referee shows where the "
    "pieces go back.",
    "check_cells": "Only these cells (empty: the whole board)",
    "check_start": "Start the check",
    "check_stop": "Stop the check",
    "check_back": "Back to the game",
    "check_dark": "No light",
    "check_confirm": "Nothing happened",
    "check_skip": "Skip cell",
    "tip_check_dark": "the lit cell's light is not on (as PASS on the board)",
    "tip_check_confirm": "the piece is down (or lifted) and nothing happened (as CONFIRM)",
    "tip_check_skip": "leave this cell out (as SELECT)",
    # the timeline
    "tl_earlier": "◀ Earlier",
    "tl_later": "Later ▶",
    "tip_earlier": "the game before",
    "tip_later": "the game after",
    "tl_loading": "Game {game}: loading…",
    "tl_game": "Game {game}",
    "tl_none": "No timeline: {why}",
    "tl_title": "Game {game}: {title} ({status}), {moves}",
    "tl_unrecorded": "nothing of this game's flight recording is in the journal yet (it is "
    "written with each move and every 10 s), or recording is off (--record-cap 0) or dropped "
    "it: its moves only",
    "tl_since": "Since the last move",
    "tl_before": " · before the recording",
    "tl_step": "Move {number}: {who}{move}{at}{back}",
    "tl_at": " at {time}",
    "tl_taken_back": " (taken back)",
    "tl_empty": "Nothing recorded under this move.",
    "tl_unrecorded_move": "Played before the recording began: the move only.",
    "tl_nothing": "Nothing was recorded of this game yet.",
    "tl_kind_sensor": "Sensor",
    "tl_kind_scan": "Board",
    "tl_kind_leds": "Lights",
    "tl_kind_shown": "Shown",
    "tl_kind_board": "Board",
    "tl_kind_button": "Button",
    "tl_kind_takeback": "Take-back",
    "tl_kind_result": "Result",
    "tl_kind_referee": "Referee",
    "tl_kind_move": "Move",
    "tl_kind_gap": "…",
}


__all__ = [
    "PAGE", "count", "declared_result", "join", "lost", "move_words", "owner", "person",
    "piece_name", "plural", "reserve_line", "result", "sensor_brief", "sensor_flapping",
    "sensor_phantom", "side_and_person", "took_back",
]  # fmt: skip
