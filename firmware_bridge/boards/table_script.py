"""The emulated table's text commands (``lift c1``, ``play c1-c4``, ``follow``, ``expect``...):
what a person types at ``board-referee emulate``, a script's lines, the demo's. Each acts on a
``Table`` (table.py) through its physical actions. (Split from table.py.)"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterable

from firmware_bridge.boards.board import BoardCommandError
from firmware_bridge.boards.pieces import CommandError, layout_text, need, piece_token
from firmware_bridge.boards.table import REFEREE_MARGIN, REFEREE_WAIT, Table


def run_commands(
    table: Table, lines: Iterable[str], *, stop_on_error: bool, interactive: bool = False
) -> bool:
    """Carry out commands; returns False if one failed (and ``stop_on_error``).
    ``interactive``: a person at a terminal: a prompt, and errors without line numbers."""
    ok = True
    for number, raw in enumerate(lines, start=1):
        line = raw.split("#", 1)[0].strip()
        if line:
            try:
                if not command(table, line):
                    return ok
                table.emit("ok", command=line)
            except (CommandError, BoardCommandError, ValueError) as exc:
                ok = False
                table.emit("error", command=line, line=number, message=str(exc))
                if not table.json_mode:
                    where = "" if interactive else f"line {number}: {line}: "
                    print(f"[emulator] {where}{_sentence(str(exc))}", file=sys.stderr)
                if stop_on_error:
                    return False
        if interactive:
            prompt(table)
    return ok


def prompt(table: Table) -> None:
    table.write(PROMPT, end="")


def command(table: Table, line: str) -> bool:
    """One command; returns False for quit."""
    word, *args = line.split()
    word = word.lower()
    if word == "quit":
        return False
    if word == "lift":
        need(args, 1, "lift CELL...")
        for index, name in enumerate(args):
            if index:
                table._pause()
            table.lift(name)
    elif word == "place":
        need(args, 1, "place CELL [PIECE]")
        table.place(args[0], args[1] if len(args) > 1 else None)
    elif word == "move":
        need(args, 2, "move FROM TO")
        table.lift(args[0])
        table._pause()
        table.place(args[1])
    elif word == "play":
        need(args, 1, "play MOVE")
        with table.referee_said:
            before = table.referee_moves
        table.play(args[0])
        # A finished move: the next player acts once the referee has taken it, as it says
        # where it says so, else after its settle window and a margin.
        if before is None or not table._referee_took(before, REFEREE_WAIT):
            gap = table.profile.debounce + table.move_gap if table.move_gap else 0.0
            time.sleep(table.host_settle + gap)
    elif word == "press":
        need(args, 1, "press BUTTON")
        table.press(args[0])
    elif word == "follow":
        table.follow(float(args[0]) if args else 10.0)
    elif word == "expect":
        within = 5.0
        spec: dict[str, str] = {}
        for arg in args:
            if arg.startswith("within="):
                within = float(arg.split("=", 1)[1])
            elif arg != "none":
                cell, _, signal = arg.partition("=")
                spec[cell] = signal
        table.expect(spec, within)
    elif word == "wait":
        need(args, 1, "wait SECONDS")
        # Shortened (emulate --pauses), a pause still gives the referee its settle window and
        # a margin: a script's pause after a place also lets the referee take the move.
        seconds = float(args[0])
        floor = min(seconds, table.host_settle + table.profile.debounce + REFEREE_MARGIN)
        time.sleep(max(seconds * table.pauses, floor))
    elif word == "flicker":
        need(args, 1, "flicker CELL [MS]")
        table.flicker(args[0], float(args[1]) if len(args) > 1 else 150.0)
    elif word == "slide":
        need(args, 2, "slide FROM TO")
        table.slide(args[0], args[1])
    elif word == "knock":
        need(args, 1, "knock CELL [TO]")
        table.lift(args[0])
        if len(args) > 1:
            table.place(args[1])
    elif word == "garbage":
        table.board.garbage(int(args[0]) if args else 40)
    elif word == "corrupt":
        table.board.corrupt()
    elif word == "drop":
        table.board.drop()
    elif word == "unplug":
        table.board.unplug()
        table.emit("plug", state="unplugged")
    elif word == "replug":
        table.board.replug()
        table.emit("plug", state="plugged", device=table.board.device)
    elif word == "fault":
        need(args, 2, "fault CODE TEXT")
        table.board.fault(int(args[0]), " ".join(args[1:]))
    elif word == "blank":
        table.board.blank()  # an LED driver glitch: dark, and the host is not told
    elif word == "wire":
        need(args, 1, "wire FAULT CELL [CELL]")
        table.wire(args[0].lower(), args[1:])
    elif word == "supply":
        need(args, 1, "supply on|off")
        if args[0].lower() not in ("on", "off"):
            raise CommandError("supply on|off")
        table.power(args[0].lower() == "on")
    elif word == "reset":
        table.board.reset(args[0].lower() if args else "power")
        table.emit("plug", state="reset", device=table.board.device)
    elif word == "hang":
        table.board.hang()
    elif word == "show":
        table.show()
    elif word == "pieces":
        with table.lock:
            layout = layout_text(table.game, table.pieces)
            hand = [piece_token(table.game, p) for _, p in table.box]
        table.emit("pieces", layout=layout)
        if not table.json_mode:
            listed = " ".join(f"{cell}={token}" for cell, token in layout.items())
            table.write(f"on the board ({len(layout)}): {listed or 'nothing'}",
                       f"in the hand: {' '.join(hand) or 'nothing'}")  # fmt: skip
    elif word == "help":
        table.write(HELP)
    elif word == "say":
        table.emit("say", text=" ".join(args))
    else:
        raise CommandError(f"unknown command {word!r}: type help for the list")
    if word in ("lift", "place", "move", "play", "knock", "slide"):
        table._pause()
        table.show()  # what the hands did, drawn (the LEDs redraw it too when they change)
    return True


PROMPT = "board> "
HELP = """commands (cells like c4; pieces like S for player 1's, s for player 2's):
  lift CELL...        take pieces off (into the hand)
  place CELL [PIECE]  put a piece down: the one lifted from there or last, or a new PIECE
  move FROM TO        lift and place            play MOVE   a move's hand action (c1-c4, s@c6)
  press BUTTON        pass, confirm, takeback, select
  follow [SECONDS]    do what the LEDs ask      show        draw the board and its LEDs
  pieces              list the pieces           say TEXT    print a line
  flicker CELL [MS], slide FROM TO, knock CELL [TO], garbage [N], corrupt, drop,
  unplug, replug, fault CODE TEXT, blank         faults to inject (docs/emulator.md)
  wire dead|ground|stuck|flip|noisy|led CELL, wire swap CELL CELL, wire ok [CELL]
                      wiring faults (the board check finds them)
  supply off|on       the board's own 5 V supply, its USB cable still in
  reset [watchdog|brownout|power], hang         the firmware in MicroPython only
  expect CELL=SIGNAL... [within=S], wait S      for scripts
  quit"""


def _sentence(message: str) -> str:
    """An error as a sentence: capital first letter, full stop."""
    text = message.strip()
    text = text[:1].upper() + text[1:]
    return text if text.endswith((".", "!", "?", ")")) else text + "."
