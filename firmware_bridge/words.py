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
               people: People = NOBODY) -> str:  # fmt: skip
    """A move as a hand made it: ``stone c1 to c4``, ``goat on e1``, ``pass``, ``lyon on a5
    takes the goat on b6``, ``Black resigns``. ``effect`` (the apply's) names the piece moved."""
    names = game.board.names
    kind = move.kind
    moved = ""
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
    if kind is MoveKind.RESIGN:
        player = Player(int(move.piece))
        return f"{person(game.player_names, people, player)} resigns"
    if kind is MoveKind.DRAW:
        return "draw agreed"
    return "pass"


def took_back(game: Game, moves: list[Move], people: People = NOBODY) -> str:
    """The answer to a take-back (``moves``: the moves undone, first played first)."""
    if len(moves) == 1 and moves[0].kind is MoveKind.RESIGN:
        return "the resignation is withdrawn: play on"
    if len(moves) == 1 and moves[0].kind is MoveKind.DRAW:
        return "the agreed draw is withdrawn: play on"
    said = join(move_words(game, m, people=people) for m in moves)
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
# Templates with {named} places, filled in by the page (web/words.js: say(key, values)).
PAGE: dict[str, str] = {
    "reconnecting": "Reconnecting to the referee…",
    "referee_gone": "The referee is not running: its board waits",
    "waiting_referee": "Waiting for the referee…",
    "to_move": "to move",
    "to_act": "to act",
    "chooses": "chooses",
    "winner": "winner",
    "score": "score {score}",
    "lost": "lost {count}: {pieces}",
    "moves_none": "No moves yet",
    "game_over": "Game over",
    "conn_connected": "board {id}",
    "conn_offline": "referee offline",
    "conn_waiting": "waiting for the board",
    "conn_connecting": "connecting",
    "conn_wrong": "wrong board",
    "menu": "Menu",
    "close": "Close",
    "cancel": "Cancel",
    "new_game": "New game…",
    "takeback": "Take back",
    "pass": "Pass",
    "confirm": "Confirm",
    "select": "Select",
    "resign": "Resign…",
    "draw": "Agreed draw…",
    "resign_title": "Who resigns?",
    "resign_ask": "{who} resigns: {other} wins. This ends the game.",
    "resign_yes": "{who} resigns",
    "draw_title": "Agreed draw",
    "draw_ask": "Both players agree to a draw. This ends the game.",
    "draw_yes": "Record the draw",
    "timeline": "Timeline",
    "check": "Check the board",
    "key": "Key: pieces and board",
    "connection": "Board connection",
    "record": "This game's record",
    "results": "Results (CSV)",
    "abandon": "The game in progress ({moves}) will be abandoned.",
    "abandon_start": "Abandon it and start",
    "start": "Start",
    "name_of": "{side}: name",
    "optional": "(optional)",
    "move": "move",
    "last_frame": "{seconds} s ago",
    "no_frame": "none yet",
    "failed": "That did not work: {why}",
    "no_answer": "The referee did not answer: is it running?",
    "token_needed": "This control needs the kiosk's access token",
}


__all__ = [
    "PAGE", "count", "declared_result", "join", "move_words", "owner", "person", "piece_name",
    "plural", "reserve_line", "result", "sensor_brief", "sensor_flapping", "sensor_phantom",
    "side_and_person", "took_back",
]  # fmt: skip
