"""The emulated table: a game's board with its pieces, the hands that move them, and the
commands and faces (terminal, script, JSON lines, web page) that drive it.

The table sits on a ``Board`` (firmware_bridge/boards/board.py): the Python emulation of the
firmware (``board-referee emulate``) or the real Pico firmware running in MicroPython
(``board-referee firmware host``). Both take the same commands and give the same events.

Commands (interactive on stdin, or one per line in a ``--script`` file; ``#`` comments):
  lift CELL...             take pieces off the board (into the hand / box beside it)
  place CELL [PIECE]       put a piece down: PIECE like P (player 1), p (player 2), D5 (die 5);
                           without PIECE, the piece lifted last
  move FROM TO             lift and place
  play MOVE                do a move's physical action from its notation (b2-b5, S@c1 or s@c6
                           for player 2, c5xb6, xd4+f4, pass), then let it settle
  press BUTTON             pass | confirm | takeback | select
  follow [SECONDS]         do what the LEDs ask (remove, move from/to, put back, take away)
                           until they ask for nothing more
  expect [none|CELL=SIGNAL...] [within=SECONDS]
                           wait until the LEDs show exactly this (a script fails otherwise)
  wait SECONDS             pause
  flicker CELL [MS]        a sensor misreads for MS milliseconds
  slide FROM TO            a piece slid across: both cells read occupied for a moment
  knock CELL [TO]          a piece knocked over onto TO, or off the board
  garbage [N]              N random bytes on the line
  corrupt | drop           damage / lose the next frame sent to the host
  unplug | replug          pull the cable, plug it back in (a new pty; the symlink follows)
  fault CODE TEXT          report a board fault
  wire FAULT CELL [CELL]   a wiring fault: dead, stuck, flip, noisy, swap (two cells), led
                           (its LED stays dark), ok (repaired; no cell: all)
  reset [REASON], hang     the firmware only: restart it (power, watchdog, brownout), or stall
                           it until its watchdog restarts it
  show | pieces | say TEXT | quit     (pieces: report the physical layout as an event)
"""

from __future__ import annotations

import json
import math
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from engine import Cell, Game, MoveKind, Piece, Player
from firmware_bridge import words
from firmware_bridge.boards.board import Board, Elapsed
from firmware_bridge.boards.pieces import CommandError, need, piece_from_token, piece_token
from firmware_bridge.link.leds import TAGS, Signal, signals_from_frame
from firmware_bridge.link.profile import BoardProfile
from firmware_bridge.link.protocol import LED_OFF, Button, LedPattern, Leds, Reading, Sensing
from firmware_bridge.link.render import render_board

WIRE_FAULTS = ("dead", "ground", "stuck", "flip", "noisy", "swap", "led", "ok")
# The referee takes a move once the board has been still for the profile's settle time after
# the board reported it (its debounce later). A script playing alone waits that long and this
# much more before the next move, as a player waits for the referee: without the margin, on a
# busy machine the next placement reached the referee just before its settle timer ran, and two
# moves read as one disturbed board (the Goats Wintering demo under pytest -n 4). A driver
# that waits on the referee itself (the tests) leaves Table.move_gap at 0.
REFEREE_MARGIN = 0.3
# Where the referee says how many moves it has taken (the demo, which runs it), a scripted move
# waits for that instead: on a starved machine the referee reads two quick placements' frames
# together whatever the margin, and calls the board disturbed (issue 31: the demo under -n 4).
REFEREE_WAIT = 10.0


class Table:
    def __init__(
        self,
        game: Game,
        profile: BoardProfile,
        pieces: dict[Cell, Piece],
        board: Board,
        *,
        link_path: Path,
        out: TextIO,
        json_mode: bool = False,
        pace: float = 0.15,
        host_settle: float | None = None,
        draw: bool = True,
    ) -> None:
        self.game = game
        self.profile = profile
        # The referee's settle window (the profile's, unless it runs with another): the hands
        # give it this long to take in what they did before they look again.
        self.host_settle = profile.settle if host_settle is None else host_settle
        self.board = board
        self.pieces = dict(pieces)
        self.box: list[tuple[Cell | None, Piece]] = []  # the hand: each piece, where from
        # The hand's pieces before this index were held when a piece was last put down: the
        # page never puts one of them down by itself (a stray click), only when it is picked.
        self.settled_hand = 0
        # While following the LEDs: the piece taken off each cell as wrong there, so the
        # put-back the LEDs then ask for is never that piece again.
        self.taken_off: dict[Cell, Piece] = {}
        self.link_path = link_path
        self.out = out
        # Events come from the command thread and the I/O threads: each is written whole, under
        # this lock (print() writes the text and its newline separately, so two events could
        # interleave into one undecodable line and both be lost to a JSON reader).
        self.out_lock = threading.Lock()
        self.json_mode = json_mode
        self.pace = pace
        # A script's ``wait`` pauses are for a person watching: the demo at a quicker pace
        # shortens them with it (emulate --pauses).
        self.pauses = 1.0
        self.move_gap = 0.0  # see REFEREE_MARGIN
        # The referee's word on how many moves its game has, when it sends it (the demo does,
        # on the script's stdin): a scripted move then waits for the referee to take it.
        self.referee_moves: tuple[int, bool] | None = None  # (moves, asking for a choice)
        self.referee_said = threading.Condition()
        self.draw = draw
        self.lock = threading.RLock()
        self.leds_changed = threading.Condition(self.lock)
        self.leds: tuple[LedPattern, ...] = (LED_OFF,) * len(profile.led_cells)
        self.signals: dict[Cell, Signal] = {}
        self.led_frames = 0
        # Wiring faults of this board (``wire``): sensor -> dead | stuck | flip | noisy, sensors
        # whose wires are swapped, and LEDs that stay dark.
        self.faulty: dict[int, str] = {}
        self.supply = True  # the board's own 5 V supply (``supply off``: USB alone)
        self.swapped: dict[int, int] = {}
        self.dark: set[int] = set()
        self.on_change: Callable[[], None] | None = None  # the web face: something changed
        board.attach(self)

    @property
    def host_seen(self) -> threading.Event:
        return self.board.host_seen

    # -- output -----------------------------------------------------------------------------
    def write(self, *lines: str, end: str = "\n") -> None:
        """Write lines to the output in one piece, whichever thread calls."""
        text = "\n".join(lines) + end
        with self.out_lock:
            self.out.write(text)
            self.out.flush()

    def emit(self, event: str, **data: Any) -> None:
        if self.json_mode:
            self.write(json.dumps({"event": event, **data}))
        elif event == "say":
            self.write("", f">>> {data['text']}")
        elif event == "fault":
            self.write(f"[emulator] fault {data['code']} sent: {data['text']}")
        elif event == "plug":
            where = f" on {data['device']}" if data.get("device") else ""
            self.write(f"[emulator] board {data['state']}{where}")
        # Errors are said once, as a sentence, by whoever ran the command (run_commands).

    def show(self) -> None:
        if self.json_mode or not self.draw:
            return
        with self.lock:
            marks = {c: TAGS[s] for c, s in self.signals.items()}
            drawing = render_board(self.game, self.pieces, marks)
            names = self.game.board.names
            by_signal: dict[str, list[str]] = {}
            for cell, signal in sorted(self.signals.items()):
                by_signal.setdefault(signal.value, []).append(names[cell])
        said = words.lights_said(by_signal)
        self.write(drawing, f"The lights show: {said}" if by_signal else said.capitalize())

    # -- sensors and LEDs, as the board's electronics meet them ------------------------------
    def piece_at(self, sensor: int) -> Piece | None:
        """The piece over sensor ``sensor`` (through swapped wires), or None."""
        source = self.swapped.get(sensor, sensor)
        cells = self.profile.sensor_cells
        cell = cells[source] if source < len(cells) else None
        return None if cell is None else self.pieces.get(cell)

    def reading(self, sensor: int) -> Reading:
        """What sensor ``sensor`` reports, wiring faults and all (for the Python board)."""
        fault = self.faulty.get(sensor)
        if fault in ("dead", "ground"):
            return Reading(0, 0)
        if fault == "stuck":
            return Reading(1 if self.profile.sensing is Sensing.OCCUPANCY else 2, 0)
        reading = self.profile.reading(self.piece_at(sensor))
        if fault == "flip" and reading.code in (2, 3):
            return Reading(5 - reading.code, reading.ident)
        return reading

    def leds_shown(self, leds: tuple[LedPattern, ...], via: str, size: int) -> None:
        """The board's firmware now shows ``leds`` (brought by a ``via`` frame of ``size``
        bytes): what the players read off it, but for LEDs that stay dark."""
        with self.lock:
            self.leds = leds
            if self.dark:
                leds = tuple(LED_OFF if i in self.dark else led for i, led in enumerate(leds))
            signals = signals_from_frame(Leds(leds), self.profile)
            if signals == self.signals:
                return
            self.signals = signals
            self.led_frames += 1
            names = self.game.board.names
            self.emit("leds", signals={names[c]: s.value for c, s in sorted(signals.items())},
                      via=via, size=size)  # fmt: skip
            self.leds_changed.notify_all()
        self.changed()
        if self.draw and not self.json_mode:
            threading.Thread(target=self.show, daemon=True).start()

    def unlit(self) -> None:
        """The board lost its power: its LEDs are dark (the host was not asked)."""
        with self.lock:
            self.signals = {}
            self.leds = (LED_OFF,) * len(self.profile.led_cells)

    def changed(self) -> None:
        if self.on_change is not None:
            self.on_change()

    def _sense(self) -> None:
        self.board.sense()
        self.changed()

    # -- physical actions -------------------------------------------------------------------
    def cell(self, name: str) -> Cell:
        cell = self.game.board.index.get(name)
        if cell is None:
            raise CommandError(f"no cell {name!r} on this board")
        return cell

    def lift(self, name: str, *, away: bool = False) -> None:
        """Take the piece off ``name`` into the hand; ``away``: straight into the box beside
        the board (a captured piece taken off, never to be put down again by a stray click)."""
        with self.lock:
            cell = self.cell(name)
            piece = self.pieces.pop(cell, None)
            if piece is None:
                raise CommandError(f"there is no piece on {name}")
            if not away:
                self.box.append((cell, piece))
            self._sense()

    def take_off(self, name: str) -> None:
        """A hand lifting the piece off ``name`` as a person does: a piece the LEDs ask to
        remove goes into the box, any other into the hand (the emulated board's page)."""
        with self.lock:
            away = self.signals.get(self.cell(name)) is Signal.REMOVE
            self.lift(name, away=away)

    def put_down(self, name: str, index: int | None = None, token: str | None = None) -> None:
        """A hand putting a piece down on ``name`` as a person does (the emulated board's
        page): the hand's piece at ``index``, a new one ``token`` from the box, or the one
        lifted last. A piece that came off the same cell was replaced there (a capture by
        replacement): it goes into the box."""
        with self.lock:
            if index is not None:
                self.place_from_hand(name, index)
            else:
                self.place(name, token)
            cell = self.cell(name)
            self.box = [(c, p) for c, p in self.box if c != cell]
            self.settled_hand = len(self.box)  # what stays in the hand is no longer in play
            self.changed()

    def place(self, name: str, token: str | None = None) -> None:
        with self.lock:
            cell = self.cell(name)
            if cell in self.pieces:
                raise CommandError(f"{name} is already occupied")
            if token:
                piece = piece_from_token(self.game, token)
            elif self.box:
                piece = self.box.pop()[1]
            else:
                raise CommandError("no piece in hand: say which piece to place")
            self.pieces[cell] = piece
            self._sense()

    def place_from_hand(self, name: str, index: int) -> None:
        """Put down the piece at ``index`` of the hand (the pieces lifted, oldest first)."""
        with self.lock:
            cell = self.cell(name)
            if cell in self.pieces:
                raise CommandError(f"{name} is already occupied")
            if not 0 <= index < len(self.box):
                raise CommandError("that piece is no longer in the hand")
            self.pieces[cell] = self.box.pop(index)[1]
            self._sense()

    def set_up(self, pieces: dict[Cell, Piece]) -> None:
        """Sweep the board and set these pieces out (the start of a new game)."""
        with self.lock:
            self.pieces = dict(pieces)
            self.box.clear()
            self.settled_hand = 0
            self._sense()

    def swap(self, game: Game, profile: BoardProfile) -> None:
        """Unplug this board and plug in another (another game's board, set up to start)."""
        with self.lock:
            self.game, self.profile = game, profile
            self.pieces = game.new_state().layout()
            self.box.clear()
            self.settled_hand = 0
            self.faulty.clear()
            self.swapped.clear()
            self.dark.clear()
            self.signals = {}
            self.leds = (LED_OFF,) * len(profile.led_cells)
            self.board.swap(profile)
        self.emit("plug", state="swapped", game=game.id, profile=profile.id,
                  device=self.board.device)  # fmt: skip
        self.changed()

    def view(self) -> dict[str, Any]:
        """What the web face shows: the board, the pieces on it and in the hand, the LEDs."""
        with self.lock:
            game = self.game
            names = game.board.names

            def piece_json(piece: Piece) -> dict[str, Any]:
                symbol = game.pieces[piece.kind].symbol
                return {"kind": piece.kind, "symbol": symbol, "owner": int(piece.owner),
                        "state": piece.state, "token": piece_token(self.game, piece)}  # fmt: skip

            supply = [
                piece_json(Piece(kind, owner, 1 if game.pieces[kind].has_state else None))
                for owner in (Player.ONE, Player.TWO)
                for kind in game.kinds_in_play()  # a base game's box holds no dice
            ]
            return {
                "game": {
                    "id": game.id,
                    "title": game.title,
                    "options": {k: str(v) for k, v in game.options.items()},
                    "profile": self.profile.id,
                    "players": list(game.player_names),
                },
                "pieces": [
                    {"cell": names[c], **piece_json(p)} for c, p in sorted(self.pieces.items())
                ],
                "hand": [
                    {
                        "index": i,
                        "from": None if c is None else names[c],
                        "fresh": i >= self.settled_hand,
                        **piece_json(p),
                    }
                    for i, (c, p) in enumerate(self.box)
                ],
                "supply": supply,
                "signals": {names[c]: s.value for c, s in sorted(self.signals.items())},
                "plugged": self.board.plugged,
                "host": self.board.scanned,
                "device": self.board.device,
                "link": str(self.link_path),
            }

    def put_back(self, cell: Cell, avoid: Piece | None = None) -> bool:
        """Place the piece that came from ``cell``, or else the one lifted last; never a piece
        like ``avoid`` (one just taken off ``cell`` as wrong there)."""
        with self.lock:
            if cell in self.pieces:
                return False
            fits = [i for i, (_, piece) in enumerate(self.box) if piece != avoid]
            if not fits:
                return False
            index = next((i for i in reversed(fits) if self.box[i][0] == cell), fits[-1])
            self.pieces[cell] = self.box.pop(index)[1]
            self._sense()
            return True

    def press(self, name: str) -> None:
        try:
            button = Button[name.upper()]
        except KeyError as exc:
            raise CommandError(f"no button {name!r} (pass, confirm, takeback, select)") from exc
        self.board.press(button)

    def play(self, text: str) -> None:
        move = self.game.parse_move(text)
        names = self.game.board.names
        if move.kind is MoveKind.PASS:
            self.press("pass")
        elif move.kind is MoveKind.PLACE:
            symbol = text.strip()[0]
            self.place(names[move.to], symbol)
        elif move.kind is MoveKind.REMOVE:
            for cell in move.cells:
                self.lift(names[cell])
                self._pause()
        else:
            # Pieces a move names as taken off its path (a cobra's strike, a squash) go first,
            # as a player who knows the move takes them; then a victim by replacement.
            for cell in move.cells:
                self.lift(names[cell])
                self._pause()
            if move.to != move.frm and move.to in self.pieces:
                self.lift(names[move.to])
                self._pause()
            reported = self.board.changes_sent
            self.lift(names[move.frm])
            self._pause()
            if move.frm == move.to:  # held until the firmware has reported the lift
                self.board.hold_until_reported(reported, 2 * self.profile.debounce + 0.02)
            self.place(names[move.to])
            if move.frm == move.to and not move.cells:  # a null move: lifted, back, CONFIRM
                self._pause(2)
                time.sleep(self.host_settle)  # the host's settle window, in its own time
                self.press("confirm")

    def referee_told(self, moves: tuple[int, bool]) -> None:
        """The referee says how many moves its game has, and whether it asks for a choice
        (a line on the script's stdin)."""
        with self.referee_said:
            self.referee_moves = moves
            self.referee_said.notify_all()

    def _referee_took(self, before: tuple[int, bool], timeout: float) -> bool:
        with self.referee_said:
            return self.referee_said.wait_for(lambda: self.referee_moves != before, timeout)

    def _pause(self, factor: float = 1.0) -> None:
        """The hands' pace, in the board's own time (a slow board's debounce is its own)."""
        self.board.hold(self.pace * factor)

    def follow(self, timeout: float) -> None:
        """Carry out what the LEDs ask for, like a player reading them, until nothing is asked
        that a player could do without knowing the rules (placing a new piece is not). The
        LEDs are not still while the host's newest LED frame is on its way to them."""
        deadline = time.monotonic() + timeout
        self.taken_off.clear()
        # Still for the host's settle and answer (wall time) and for the board's own debounce
        # of the last hand's action and its answer to the LEDs (the board's time).
        quiet_needed = 2 * self.host_settle + 0.3

        def still_from_now() -> tuple[float, Elapsed]:
            return time.monotonic(), self.board.timer(2 * self.pace)

        quiet_since, board_quiet = still_from_now()
        while time.monotonic() < deadline:
            with self.lock:
                before = self.led_frames
            if self._act_on_leds():
                self.wait_for_leds(before, 1.0 + self.host_settle)
                # Still from the LEDs' answer on, the hands' pause included, unless they ask
                # for more meanwhile.
                with self.lock:
                    answered = self.led_frames
                quiet_since, board_quiet = still_from_now()
                self._pause()
                with self.lock:
                    if self.led_frames != answered:
                        quiet_since, board_quiet = still_from_now()
                continue
            with self.lock:
                moved = self.led_frames != before
            if moved or self.board.leds_on_the_way():  # the host asked for more than they show
                quiet_since, board_quiet = still_from_now()
            elif time.monotonic() - quiet_since >= quiet_needed and board_quiet.is_set():
                return
            with self.lock:
                self.leds_changed.wait(timeout=0.05)
        raise CommandError("follow: the LEDs still asked for something when time ran out")

    def wait_for_leds(self, since: int, timeout: float) -> bool:
        """Wait until an LED frame newer than frame number ``since`` has arrived."""
        with self.lock:
            return self.leds_changed.wait_for(lambda: self.led_frames != since, timeout=timeout)

    def _act_on_leds(self) -> bool:
        with self.lock:
            signals = dict(self.signals)
        board = self.game.board
        names = board.names
        takes = [c for c, s in signals.items() if s in (Signal.REMOVE, Signal.ILLEGAL)]
        sources = [c for c, s in signals.items() if s is Signal.MOVE_FROM and c in self.pieces]
        targets = [c for c, s in signals.items() if s is Signal.MOVE_TO and c not in self.pieces]
        if sources and targets:
            source = sources[0]
            target = min(targets, key=lambda t: _distance(board.coords[source], board.coords[t]))
            self.lift(names[source])
            self._pause(0.5)
            self.place(names[target])
            return True
        for cell in takes:
            if cell in self.pieces:
                if signals[cell] is Signal.ILLEGAL:
                    self.taken_off[cell] = self.pieces[cell]
                self.lift(names[cell])
                return True
        for cell, signal in signals.items():
            if signal is Signal.PUT_BACK and self.put_back(cell, self.taken_off.get(cell)):
                return True
        return False

    def expect(self, spec: dict[str, str] | None, within: float) -> None:
        """Wait until the LEDs show exactly ``spec`` (cell name -> signal value), for at most
        ``within`` seconds of the board's own time (a slow board's answer comes in its time)."""
        names = self.game.board.names
        wanted = spec or {}
        passed = self.board.timer(within)
        stalled = time.monotonic() + 30 * within  # a board whose time stopped

        def shown() -> dict[str, str]:
            return {names[c]: s.value for c, s in self.signals.items()}

        with self.lock:
            while shown() != wanted:
                if passed.is_set() or time.monotonic() > stalled:
                    raise CommandError(
                        f"expected LEDs {wanted or 'all off'}, saw {shown() or 'all off'}"
                    )
                self.leds_changed.wait(timeout=0.05)

    def slide(self, frm: str, to: str) -> None:
        with self.lock:
            source, target = self.cell(frm), self.cell(to)
            piece = self.pieces.get(source)
            if piece is None or target in self.pieces:
                raise CommandError(f"cannot slide from {frm} to {to}")
            self.pieces[target] = piece
            self._sense()
        self.board.hold(self.profile.debounce + 0.05)  # both cells read occupied for a moment
        with self.lock:
            del self.pieces[source]
            self._sense()

    def flicker(self, name: str, millis: float) -> None:
        with self.lock:
            sensor = self.sensor(name)
            self.board.flicker(sensor, millis)

    def sensor(self, name: str) -> int:
        cell = self.cell(name)
        sensor = self.profile.sensor_of.get(cell)
        if sensor is None:
            raise CommandError(f"{name} has no sensor")
        return sensor

    def power(self, on: bool) -> None:
        """The board's own 5 V supply switched on or off, its USB cable still in: a linear
        board's sensors lose their power (the firmware on the Pico's USB power goes on)."""
        with self.lock:
            self.supply = on
            self.board.sense()
        self.changed()

    def wire(self, fault: str, names: list[str]) -> None:
        """A wiring fault of the board, as a builder might solder one (the board check finds
        them): ``dead`` (a broken wire), ``ground`` (a sensor's ground wire broken: a
        linear sensor's output floats up, out of its range), ``stuck`` (always reads a
        piece), ``flip`` (a sensor mounted the other way round), ``noisy``, ``swap`` (two
        cells' wires exchanged), ``led`` (an LED that stays dark), ``ok`` (repaired)."""
        if fault not in WIRE_FAULTS:
            raise CommandError(f"no wiring fault {fault!r} ({', '.join(WIRE_FAULTS)})")
        with self.lock:
            if fault == "ok":
                sensors = [self.sensor(n) for n in names] if names else None
                self.faulty = {s: f for s, f in self.faulty.items() if sensors and s not in sensors}
                self.swapped = {a: b for a, b in self.swapped.items()
                                if sensors and a not in sensors and b not in sensors}  # fmt: skip
                if not names:
                    self.dark.clear()
                for name in names:
                    led = self.profile.led_of.get(self.cell(name))
                    self.dark.discard(-1 if led is None else led)
            elif fault == "swap":
                need(names, 2, "wire swap CELL CELL")
                a, b = self.sensor(names[0]), self.sensor(names[1])
                self.swapped[a], self.swapped[b] = b, a
            elif fault == "led":
                need(names, 1, "wire led CELL")
                led = self.profile.led_of.get(self.cell(names[0]))
                if led is None:
                    raise CommandError(f"{names[0]} has no LED")
                self.dark.add(led)
            else:
                need(names, 1, f"wire {fault} CELL")
                if fault == "flip" and self.profile.sensing is not Sensing.OWNER:
                    raise CommandError("only an owner board's sensors have a polarity")
                for name in names:
                    self.faulty[self.sensor(name)] = fault
            self.board.sense()
            self.leds_shown(self.leds, "", 0)
        self.changed()


def _distance(a: tuple[float, float], b: tuple[float, float]) -> float:
    return math.hypot(a[0] - b[0], a[1] - b[1])
