"""The words the players and the arbiter read: the referee's sentences and its pages' phrases,
in one place, ready to be translated. Over 700 lines on purpose: a translation changes this
one file, so the sentences are not split by the parts of the program that say them.

Pieces by their names ("goat", "phant"), people by their names wherever New game named them,
moves as things a hand does ("goat on e1", "stone c1 to c4"), never the engine's notation or
its internal names (phases, letters). The rules' own clauses (why a move is illegal, what a
capture did) come from each game's module and are placed into these sentences.

``PAGE`` holds the phrases the web pages build their own sentences from; every page loads them
as ``/words.js`` (faces/webserver.py), so a translation changes this file alone.

Imports: ``engine`` only, so every role folder of ``firmware_bridge`` may use it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from engine import Effect, Game, Move, MoveKind, Outcome, Player, State
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


def options_said(game: Game) -> str:
    """``size=5x5, variant=strength``, or ``no options``."""
    return ", ".join(f"{k}={v}" for k, v in game.options.items()) or "no options"


def join(items: Iterable[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    listed = [item for item in items if item]
    if len(listed) <= 2:
        return " and ".join(listed)
    return ", ".join(listed[:-1]) + " and " + listed[-1]


def person(names: tuple[str, str], people: People, player: Player) -> str:
    """Who is addressed: the person playing the side when New game named one (``Alice``),
    the computer when it plays the side, else the side (``White``, ``Player 1``)."""
    named = people[player.index].strip()
    if named.startswith(COMPUTER_PREFIX):
        return "the computer"
    return named or names[player.index]


def owner(names: tuple[str, str], people: People, player: Player) -> str:
    """Whose pieces: the side where it says which pieces (``White's stone``), the person where
    the sides are only numbers (``Bob's lyon`` for Player 2's)."""
    side = names[player.index]
    named = people[player.index].strip()
    numbered = side.lower() == f"player {int(player)}"
    if named.startswith(COMPUTER_PREFIX):
        named = "the computer"
    return f"{named}'s" if named and numbered else f"{side}'s"


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
    if kind is MoveKind.TIME:  # said after whose flag fell: "Black: loses on time"
        return "loses on time"
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
    if len(moves) == 1 and moves[0][0].kind is MoveKind.TIME:
        return "the loss on time is withdrawn: play on"
    said = join(move_words(game, m, people=people, moved=kind) for m, kind in moves)
    return f"took back {said}: put the board back"


def said(state: State, move: Move, people: People = NOBODY) -> str:
    """A move of ``state`` (not yet made) in words, its piece named from the position."""
    piece = state.piece_at(move.frm) if move.frm != NO_CELL else None
    return move_words(state.game, move, people=people, moved="" if piece is None else piece.kind)


# -- what must happen now (the reconciler's status: prompts.py) --------------------------------
def to_move(who: str, hint: str) -> str:
    """``White to move``, ``Player 1 to move: place a piece on your first row``."""
    return f"{who} to move" + (f": {hint}" if hint else "")


def computer_thinking(who: str) -> str:
    """The computer's turn, before it has chosen."""
    return f"{who} is thinking…"


def computer_moves(who: str, move: str, todo: str) -> str:
    """``Computer, level 3 plays dragon c3-c5: move Black's dragon from c3 to c5``: the
    computer's move, for the players to carry out on the board."""
    return f"{who} plays {move}: {todo}"


COMPUTER_PREFIX = "Computer, level "


def computer_name(level: int) -> str:
    """The computer as a player in the records, the results and the club view."""
    return f"{COMPUTER_PREFIX}{level}"


def hint_shown(who: str, move: str, todo: str) -> str:
    """The engine's suggestion, shown on the board: the player may play it, or anything else."""
    return f"{who} to move — hint: {move} ({todo})"


def not_computers(move: str | None) -> str:
    """Why a move on the computer's turn is put right: only its own is played there."""
    if not move:
        return "the computer has not chosen its move yet"
    return f"the computer plays {move}"


def is_moving(who: str) -> str:
    return f"{who} is moving"


def choose_one(who: str, options: list[str]) -> str:
    """A decision made by doing one of its options on the board."""
    return f"{who}: {choose_by(options)}"


def choose_by(options: list[str]) -> str:
    return f"choose by doing one of {', '.join(options)}"


def knocked(who: str, what_on: str, captures: list[str]) -> str:
    """Pieces gone that no hand touched: knocked off, or a capture's consequence."""
    return (f"{who}: put back {what_on} (knocked off?), or finish the capture that takes it: "
            f"{', '.join(captures[:4])}")  # fmt: skip


def game_over(ended: str, next_game: str) -> str:
    return f"game over: {ended}; {next_game}"


def taking_back(todo: str) -> str:
    return "take back: " + todo


def setting_up(todo: str) -> str:
    return "new game: " + todo


def resuming(todo: str) -> str:
    """The board changed while no referee looked: set it to the game's position."""
    return "resuming: set the board to the position: " + todo


def illegal(why: str, todo: str) -> str:
    """``illegal move (the way is blocked at c3): take …; put back …``."""
    return (f"illegal move ({why}): " if why else "illegal move or disturbed board: ") + todo


def look_alike(index: int, of: int, move: str) -> str:
    """Moves the sensors cannot tell apart, offered one by one."""
    return (f"the board cannot tell these apart: [{index}/{of}] {move} — press SELECT for the "
            "next, CONFIRM to accept")  # fmt: skip


def addressed(who: str, text: str) -> str:
    """``The computer: put …``: who is asked, at the start of a sentence."""
    return f"{who[:1].upper()}{who[1:]}: {text}" if who else text


WAITING = "waiting for the board"


def pieces_said(owner: str, kind: str, many: bool) -> str:
    """``White's stone``, ``your stones``, ``the pieces`` (owner "": several owners or
    unknown; kind "": unknown kinds)."""
    noun = kind or "piece"
    noun = plural(noun) if many else noun
    return f"{owner} {noun}" if owner else f"the {noun}"


def take_off(pieces: str, cells: str) -> str:
    return f"take {pieces} off {cells}"


def take_from(pieces: str, cell: str) -> str:
    return f"take {pieces} from {cell}"


def move_from_to(pieces: str, source: str, dest: str) -> str:
    return f"move {pieces} from {source} to {dest}"


def put(groups: list[tuple[str, str]], *, back: bool) -> str:
    """``put back White's stones on b1 and c1, Black's stone on b9``."""
    return ("put back " if back else "put ") + ", ".join(f"{p} on {c}" for p, c in groups)


def adjust(cells: str) -> str:
    return f"turn the piece on {cells} to its new value"


def next_game(todo: str) -> str:
    """Once a game is over: setting the board up (``todo``; "": clearing it) starts the
    next one."""
    if not todo:
        return "clearing the board starts the next game"
    return f"setting the board up starts the next game: {todo}"


def what_on(kinds: set[str], cells: list[str]) -> str:
    """``a stone on d4``, ``pieces on d4 and e5``."""
    what = f"a {next(iter(kinds))}" if len(kinds) == 1 else "a piece"
    return f"{what} on {join(cells)}" if len(cells) == 1 else f"pieces on {join(cells)}"


# -- results ----------------------------------------------------------------------------------
def result(outcome: Outcome, names: tuple[str, str], people: People = NOBODY) -> str:
    """A result, worded once for every place that shows it (the kiosk, the move list, the
    records, the CSV, the club view): ``Carol (White) wins: two passes, …``, ``Draw (…)``."""
    return outcome.describe(names, people)


def declared_result(move: Move, names: tuple[str, str], people: People) -> str:
    """What the kiosk says once a resignation or an agreed draw is recorded."""
    if move.kind in (MoveKind.RESIGN, MoveKind.TIME):
        player = Player(int(move.piece))
        winner = person(names, people, player.other)
        how = "resigned" if move.kind is MoveKind.RESIGN else "lost on time"
        return f"{person(names, people, player)} {how}: {winner} wins"
    return "draw agreed and recorded"


# -- what is not on the board -----------------------------------------------------------------
def reserve_line(
    game: Game, people: People, player: Player, counts: Mapping[str, int], *, whole: bool = True
) -> str:
    """``Alice still to place: 1 goat, 2 phants, 2 sugarmice``; not ``whole``: ``Bob still to
    place: 5 pieces``."""
    if whole:
        listed = join(count(n, kind) for kind, n in counts.items() if n)
    else:
        listed = count(sum(counts.values()), "piece")
    return f"{person(game.player_names, people, player)} still to place: {listed}"


def lost(kinds: Iterable[str]) -> str:
    """A player's captured pieces: ``lost 2 stones and 1 lyon`` ("" for none)."""
    tally: dict[str, int] = {}
    for kind in kinds:
        tally[kind] = tally.get(kind, 0) + 1
    return "lost " + join(count(n, kind) for kind, n in tally.items()) if tally else ""


# -- the board's port, in words ------------------------------------------------------------
# What the serial library says when a port fails, as a director reads it: the cause first,
# the system's own words last (shortened) for whoever mends it.
PORT_CAUSES: tuple[tuple[str, str], ...] = (
    (
        "readiness to read but returned no data",
        "the board stopped answering: its USB cable was pulled, or it restarted",
    ),
    ("No such file or directory", "the board's port is not there: is its USB cable in?"),
    (
        "Permission denied",
        "this referee may not open the board's port: its user must be in "
        "the dialout group (docs/raspberry-pi.md)",
    ),
    ("Device or resource busy", "another program has the board's port open"),
    ("Input/output error", "the board's USB connection failed: its cable or its power"),
    ("timed out", "the board did not answer in time"),
)


def port_trouble(reason: str) -> str:
    """``the board stopped answering: its USB cable was pulled, or it restarted (the system
    said: device reports readiness to read but returned no data …)``."""
    text = " ".join(str(reason).split())
    if text in ("", "closed"):
        return "the port was closed"
    cause = next((said for key, said in PORT_CAUSES if key.lower() in text.lower()),
                 "the board's connection failed")  # fmt: skip
    detail = text if len(text) <= 80 else text[:77] + "…"
    return f"{cause} (the system said: {detail})"


# -- the lights, in words -------------------------------------------------------------------
# What each LED signal asks (link/leds.py's vocabulary), as a person says it: the timeline and
# the terminal board say the lights so, never by their two-letter tags.
LIGHT_WORDS: dict[str, str] = {
    "move_to": "put the piece on",
    "move_from": "take the piece from",
    "remove": "take off the captured piece on",
    "put_back": "put a piece back on",
    "illegal": "take away the piece on",
    "choose": "choose one of",
    "adjust": "turn the piece on",
    "hint": "the held piece may go to",
    "held": "may not move now:",
    "charged": "charging:",
    "refused": "the button does nothing now:",
    "flag": "time ran out for the pieces on",
}


def lights_said(by_signal: Mapping[str, Sequence[str]]) -> str:
    """``take off the captured piece on d4; put a piece back on h8`` (what the lights ask; the
    timeline's column says they are the lights); the help lights of many cells counted."""
    if not by_signal:
        return "all lights off"
    said = []
    for signal, cells in by_signal.items():
        where = count(len(cells), "cell") if signal == "hint" and len(cells) > 4 else join(cells)
        said.append(f"{LIGHT_WORDS.get(signal, signal.replace('_', ' '))} {where}")
    return "; ".join(said)


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


# -- answers to a button or a control, and the board's state (reconcile, daemon, showing) -----
NOTHING_TO_SELECT = "nothing to select"
NOTHING_TO_CONFIRM = "nothing to confirm"
NULL_MOVE = ("to make a move that changes nothing on the board (a null move), lift its piece, "
             "put it back, then press CONFIRM")  # fmt: skip
NO_PASSING = "passing is not allowed now"
NOTHING_TO_TAKE_BACK = "nothing to take back"


def board_differs(status: str) -> str:
    """Why PASS, CONFIRM or a declared result is refused: the board does not show the game's
    position, and what puts it right (the status the board shows)."""
    todo = f" ({status})" if status else ""
    return f"Not now: the board does not show the game's position{todo}. Put it right first."


BOARD_BEING_READ = "Not now: the board is being read (a new game, or a reconnection). Try again."
BOARD_AWAY = ("Not now: the board is not connected, so no one can see the position. Connect "
              "it first.")  # fmt: skip

NEW_GAME = "new game of {title}: set up the board"
CHECK_RUNNING = "a board check is already running"
CHECK_FIRST = "the board check is running: finish it first"
CHECK_NOT_RUNNING = "no board check is running"
CHECK_STARTED = "board check started: {instruction}"
CHECK_STATUS = "board check: {instruction}"
BACK_TO_GAME = "back to the game"
NO_SENSOR_ON = "no sensor on {cells} in {profile}"
GAME_OVER_ALREADY = "the game is over already"
DECLARE_HOW = "{what!r}: resign:1, resign:2 or draw"
SENSES = {"owner": "tell whose piece is where", "identity": "tell which piece is where",
          "occupancy": "see where a piece is"}  # fmt: skip


def wrong_board(title: str, sensors: int, sensing: str, *, board_id: str, has: int,
                fits: Sequence[str]) -> str:  # fmt: skip
    """A board of another kind connected: which board the game needs, what is connected (the
    games whose boards it fits, ``fits``), and what to do, in one plain sentence."""
    needs = f"{title} needs its own board ({sensors} sensors that {SENSES.get(sensing, sensing)})"
    if fits:
        games = join(fits[:3])
        return (
            f"{needs}; the board connected ({board_id}) is a board for {games}, with {has} "
            f"sensors. Connect the {title} board, or start a game of {fits[0]}."
        )
    return (
        f"{needs}; the board connected ({board_id}) has {has} sensors and fits no game "
        f"here. Connect the {title} board."
    )


SWAPPING = "Waiting for the {title} board…"
PLUG_IN = "plug in the board and switch it on ({title})"
WAITING_FOR_BOARD = "waiting for the board ({title})"
# The board's FAULT 7: every sensor out of band at once (a linear board's 5 V supply off).
NO_SENSOR_POWER = ("The board's sensors have no power: is its 5 V supply plugged in and "
                   "switched on?")  # fmt: skip
HALTED = ("the board's firmware could not start ({what}): its fault is under Board "
          "connection")  # fmt: skip


# -- the board check (referee/check.py): what it asks, and each finding, seen and fix ----------
CHECK_CLEAR = "Take every piece off the board, then press CONFIRM{still}."
CHECK_STILL = " ({cells} still read a piece)"
CHECK_DONE = "The check is finished: {summary}"
CHECK_PLACE = (
    "Put {piece} on {cell}: its light is on. If {cell} stays dark, press PASS; if nothing "
    "happens once the piece is down, press CONFIRM; SELECT skips the cell."
)
CHECK_LIFT = "Now lift the piece off {cell} (press CONFIRM if nothing happens)."
CHECK_A_PIECE = "a piece"
CHECK_ONE_OF = "one of {side}'s pieces"
CHECK_SO_FAR = "{done} of {total} checked so far"
CHECK_ALL_GOOD = "all {good} cells checked are good"
CHECK_GOOD = "{good} of {cells} cells good"
CHECK_TO_FIX = "; to fix: {cells}"
CHECK_SKIPPED = "; skipped: {cells}"
CHECK_SKIPPED_LINE = "skipped: {cells}"
# kind -> (what was seen, what to fix); {input}: where the cell's sensor is wired (M0.12)
CHECK_FINDINGS: dict[str, tuple[str, str]] = {
    "stuck_linear": ("its sensor reads a piece with the board empty",
                     "calibrate with the board empty (hold SELECT at power-on); if it still "
                     "reads a piece, replace the sensor"),
    "stuck_switch": ("its sensor reads a piece with the board empty",
                     "a reed switch stuck closed, or a switch output shorted to ground at "
                     "{input}: replace the switch or clear the short"),
    "dead": ("its sensor did not see the piece put on it",
             "check the sensor's wire to {input} and its power and ground (a broken wire to a "
             "linear sensor also shows as a board fault); on a switch board, the switch itself"),
    "stays": ("it still read a piece after the piece was lifted",
              "a reed switch that sticks, or a magnetised part near the sensor: replace the "
              "switch or move the part"),
    "led": ("its LED ({led}) did not light",
            "check that LED's solder joints and the data line into it; if another cell lit "
            "instead, the LED chain's order differs from the profile's led_wiring"),
    "fault": ("the board reports its sensor reads outside every band",
              "a broken wire or a dead sensor at {input}: resolder it"),
    "weak": ("it saw a piece but could not tell whose",
             "the magnet is too weak or too far from the sensor: a stronger magnet, the sensor "
             "closer to the surface, or calibrate again (hold SELECT at power-on, the board "
             "empty)"),
    "noisy_piece": ("its reading changed {count} times for one piece put down and lifted",
                    "a loose wire or a cold solder joint at {input}"),
    "noisy_idle": ("its reading changed {count} times with nothing put on it",
                   "a loose wire or a cold solder joint at {input}"),
    "swapped": ("{a} and {b} are swapped: each reads the other's piece",
                "their sensors go to each other's inputs ({input_a} and {input_b}): swap the "
                "two wires, or swap {a} and {b} in the profile's sensors: cells list"),
    "miswired": ("a piece on it was read by {b}'s sensor ({input_b})",
                 "{a}'s sensor wire goes to {input_b}: move it to {input_a}"),
    "polarity": ("it read each player's piece as the other's",
                 "the sensor is mounted the other way round: turn it over, or list {cell} "
                 "under pico: flip: in the profile and install board.json again"),
    "weak_one": ("it read {other}'s piece when {asked}'s was asked for, and the other right",
                 "check that the right piece was put down; if it was, the sensor reads too "
                 "close to its threshold: calibrate again (hold SELECT at power-on, the board "
                 "empty) or bring the magnet closer"),
}  # fmt: skip


def check_finding(kind: str, **values: object) -> tuple[str, str]:
    """A board check finding's words: what was seen and what to fix."""
    seen, fix = CHECK_FINDINGS[kind]
    return seen.format(**values), fix.format(**values)


# -- the pages' phrases ------------------------------------------------------------------------
# Templates with {named} places, filled in by the page (web/say.js: say(key, values)).
NO_CLOCK = "This game has no clock (New game sets one)."
CLOCKS_PAUSED = "Clocks paused."
CLOCKS_RESUMED = "Clocks running again."
CLOCK_NOT_NOW = (
    "Not now: the clocks have not started, are already so, or the computer's move is being "
    "carried out."
)


def clock_adjusted(side: str, ms: int) -> str:
    """An arbiter's change to a clock, as the kiosk and the log say it."""
    seconds = abs(ms) // 1000
    amount = f"{seconds // 60} min {seconds % 60} s" if seconds >= 60 else f"{seconds} s"
    amount = amount.replace(" 0 s", "")
    return (
        f"{amount} added to {side}'s clock." if ms > 0 else f"{amount} taken from {side}'s clock."
    )


CLOCKS_RESTORED = (
    "The clocks go on as they stood when the referee stopped: the time it was down is charged "
    "to no one."
)

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
    # the clocks
    "clock_running": "running",
    "clock_paused": "clocks paused",
    "clock_held": "the computer's move: no clock runs until it is on the board",
    "clock_flag": "flag fell",
    "clock_low": "low time",
    "clock_control": "time control {control}",
    "clock_not_started": "starts when the board is set up",
    "clock_field": "Clock",
    "clock_arbiter": "Clocks (arbiter)",
    "tip_clock": "Pause or resume the clocks, add or take time",
    "clock_pause": "Pause clocks",
    "clock_resume": "Resume clocks",
    "clock_add": "+{n} min {side}",
    "clock_take": "-{n} min {side}",
    "clock_none": "none (e.g. 600, 300+3)",
    "clock_how": "PGN TimeControl in seconds: 600, 300+3, 40/5400+30:1800+30; delays 300d5 "
    "(simple) or 300b5 (Bronstein); a handicap 300+3,240+3. Blank: no clock.",
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
    "hint": "Hint",
    "restart_computer": "Restart computer",
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
    "review": "Review this game",
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
    "tip_review": "where the chances turned, with the better moves, from the engine's analysis",
    "tip_results": "every game of this board: players, results, times (CSV)",
    # a result the players declare
    "resign_title": "Who resigns?",
    "resign_ask": "The one who resigns loses; the other wins. This ends the game.",
    "resign_yes": "{who} resigns",
    "resign_means": "{other} wins",
    "takeback_title": "Take back",
    "takeback_ask": "Take back {move}?",
    "takeback_reopen": "The game is over ({result}). Taking back {move} withdraws the result "
    "and reopens the game.",
    "takeback_far": "The players at the board are asked to put it back as it was.",
    "takeback_yes": "Take it back",
    "draw_title": "Agreed draw",
    "draw_ask": "Both players agree to a draw. This ends the game.",
    "draw_yes": "Record the draw",
    # a new game
    "new_game_title": "New game",
    "game": "Game",
    "name_of": "{side}: name",
    "played_by": "{side} is played by",
    "same_players": "Same players: {who}",
    "a_person": "a person",
    "computer_level": "the computer, level {level} ({name})",
    "computer_time": "The computer thinks for",
    "hints_allowed": "Hints may be asked (the Hint button)",
    "seconds": "{n} s a move",
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
    "tl_kind_control": "Control",
    "tl_kind_takeback": "Take-back",
    "tl_kind_result": "Result",
    "tl_kind_referee": "Referee",
    "tl_kind_move": "Move",
    "tl_kind_gap": "…",
}


__all__ = [
    "CHECK_FINDINGS", "PAGE", "check_finding", "count", "declared_result", "join", "lost",
    "move_words", "owner", "person", "plural", "reserve_line", "result", "said",
    "sensor_brief", "sensor_flapping", "sensor_phantom", "took_back",
]  # fmt: skip
