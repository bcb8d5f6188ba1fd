"""The reconciler: keeps the rules engine and the physical board in step, for any game.

It sees the board only as *tokens* per cell (what the sensors can tell: occupancy, owner or
identity) and the game only through the engine's layouts and move footprints. It never reads
a clock: the caller passes ``now``.

How a turn goes:
1. At the start of a turn the board matches the engine's layout (``synced``).
2. The player's hands change cells. The reconciler enumerates the *turn paths* from the current
   position (a legal move, then any decisions inside its consequences) with the layouts each
   step leads to. The sensed layout is *consistent* with a path when every cell shows a value
   that cell takes somewhere in the turn (or is empty while it changes); a path's first step is
   *done* when every cell its hand action changes shows the new value.
3. Once the sensed layout has been stable for the settle window, a done step that is the only
   possible one is committed to the engine (and journaled by the caller before any LED
   changes). Several done steps that no further action could tell apart (a placement of
   different kinds on an occupancy board) become a choice made with the SELECT and CONFIRM
   buttons; otherwise the reconciler waits for more evidence. A debounce timer never picks.
4. After a step, the LEDs show what the rules require (remove a captured piece, move the
   capturing piece on, place a dragon) until the board matches; decisions are made by doing
   one option physically. The next turn starts only when the board matches.
5. A stable layout consistent with no path is an illegal move or a disturbed board: the LEDs
   guide the players back to the last legal layout, then play continues.

This module is the footprint search (steps 1-3 and the take-back): the turn's paths, which of
them the sensed layout is consistent with, which step is done, committing it. The prompts of
steps 4-5 (the signals and their words) are ``prompts.Prompts``, which ``Reconciler`` is.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from engine import Cell, Effect, Move, MoveKind, Piece, Player, State
from engine.moves import PASS
from firmware_bridge import words
from firmware_bridge.link.leds import Signal
from firmware_bridge.link.profile import BoardProfile, Token
from firmware_bridge.link.protocol import Button
from firmware_bridge.referee.prompts import Prompts, same_piece
from firmware_bridge.referee.turn import Path, Tokens

MAX_PATHS = 5000  # a bound on turn paths examined; far above what the games produce


@dataclass(frozen=True, slots=True)
class Committed:
    """A move (or decision) the engine accepted; journal it before the LEDs change."""

    move: Move
    text: str
    effect: Effect


@dataclass(frozen=True, slots=True)
class TookBack:
    moves: tuple[str, ...]  # the moves undone, last first
    reopened: bool = False  # it took back the end of the game: its result is withdrawn


@dataclass(frozen=True, slots=True)
class NewGame:
    """The board was set up for a new game after the last one ended."""


Record = Committed | TookBack | NewGame


class Reconciler(Prompts):
    def __init__(self, state: State, profile: BoardProfile) -> None:
        self.state = state
        self.profile = profile
        self.people: tuple[str, str] = ("", "")  # who plays each side, for the words
        self.settle = profile.settle
        self.sensed: Tokens = {}
        self.last_change = -math.inf
        self.synced = False
        self.restore = False  # after a take-back: the board must be put back before play
        self.turn_layouts: list[dict[Cell, Piece]] = [state.layout()]
        self.adjust: set[Cell] = set()
        self.choosing: list[Move] = []
        self.choice = 0
        self.signals: dict[Cell, Signal] = {}
        self.status = ""  # what the players should do now, for the display and the log
        self.acting: Player | None = None  # whose hands the status asks for (None: anyone's)
        # Once a game is over: what setting the board up for the next game takes (it starts
        # that game), for a display to show beside the result.
        self.next_game = ""
        self.notice = ""  # the answer to the last button press
        self.refused = False  # the last button press was refused (its notice says why)
        # What a director should look at: "illegal" (an illegal move or a disturbed board is
        # shown), "knocked" (a piece gone that no hand touched), else "".
        self.alert = ""
        self.setting_up = False  # a new game was started: the board is being set up for it
        self.resuming = False  # a resumed game's board did not match: it is being set to it
        self.resumed = False  # the daemon took the game up from its journal
        self.taking_back = False  # a take-back is being carried out on the board
        # Cells whose piece was lifted off since the last step, latest last: a move that
        # changes nothing on the board (a null move) is made by lifting its piece, putting it
        # back and pressing CONFIRM, never inferred from a lift alone.
        self.lifted: list[Cell] = []
        # Cells whose sensor changed since the last position the referee trusted (the board
        # matching it, or a turn committed): a move is accepted only where hands have been,
        # so a piece knocked off next to one it could capture is never taken for the capture.
        self.touched: set[Cell] = set()
        self.observed = False
        self._paths: list[Path] | None = None
        self._turn_cache: list[Tokens] | None = None
        self._consistent: list[Path] | None = None  # for the current sensed layout and turn
        self._waiting_since: float | None = None
        self._pairs: dict[Cell, Cell] = {}  # the last guide's moves: source -> destination
        # The sides the computer plays (computer.py). On its turn the board accepts only the
        # move it chose (``planned``; None while it thinks): anything else is put right.
        self.computer: frozenset[Player] = frozenset()
        self.planned: Move | None = None
        self.hinted: Move | None = None  # the engine's suggestion, shown until a move is made
        self.reviewed: tuple[dict[Cell, Signal], str] | None = None  # prompts.py

    @property
    def computer_to_move(self) -> bool:
        state = self.state
        return bool(self.computer) and state.outcome() is None and state.to_move in self.computer

    def plan(self, move: Move | None) -> None:
        """The computer's move for the position as it stands (None: it is thinking)."""
        self.planned = move
        self._changed()

    def hint(self, move: Move) -> None:
        """Show the engine's suggestion for the player to move, without playing it."""
        self.hinted = move

    # -- inputs -----------------------------------------------------------------------------
    def observe(self, sensed: Mapping[Cell, Token], now: float) -> None:
        """The sensed layout (occupied cells only) as of ``now``."""
        before = self.sensed
        if not self.observed:
            before = dict(sensed)  # no hand has been seen yet
            # The first reading after a start: whatever differs from the game's position was
            # changed while no referee looked, by hands nobody saw. No move is ever taken
            # from it: the board is set to the position first ("resuming"), or to the new
            # game's start, and only then is play taken from what hands do.
            self.observed = True
            if self._shows_planned(sensed):
                pass  # the computer's move, carried out while no referee looked: taken
            elif dict(sensed) != self._tokens(self.state.layout()) and not self.setting_up:
                self.restore = True
                self.synced = False
                if self.state.plies or self.resumed:
                    self.resuming = True
                else:
                    self.setting_up = True
        if dict(sensed) != self.sensed:
            self.touched.update(c for c in set(before) | set(sensed)
                                if before.get(c) != sensed.get(c))  # fmt: skip
            self.sensed = dict(sensed)
            self._consistent = None
            self._waiting_since = None  # look-alike moves wait anew once the board is still
            self.last_change = now
            if self.choosing:
                self.choosing = []
            for cell in self.state.layout():
                if cell not in self.sensed and cell in self.profile.sensor_of:
                    if cell in self.lifted:
                        self.lifted.remove(cell)
                    self.lifted.append(cell)

    def _shows_planned(self, sensed: Mapping[Cell, Token]) -> bool:
        """Whether a board first seen shows the computer's chosen move carried out (its hand
        action, or its consequences too): the players did what they were told while the
        referee was down. Its cells count as touched, so the move is taken as made."""
        if self.planned is None or not self.computer_to_move:
            return False
        shown = dict(sensed)
        current = self._tokens(self.state.layout())
        for path in self.paths():
            if any(shown == layer for layer in path.tokens):
                self.touched.update(c for c in shown.keys() | current.keys()
                                    if shown.get(c) != current.get(c))  # fmt: skip
                self.touched.update(path.touch_cells | path.end_touch)
                return True
        return False

    def restart_turn_from(self, layouts: list[dict[Cell, Piece]]) -> None:
        """After a resume: the layouts the last turn went through, so that its consequences
        are still prompted as consequences."""
        self.turn_layouts = layouts or [self.state.layout()]
        self.synced = False
        self._changed()

    def new_state(self, state: State) -> None:
        self.state = state
        self.planned = self.hinted = self.reviewed = None
        self.taking_back = False
        self.turn_layouts = [state.layout()]
        self.synced = False
        self.adjust.clear()
        self.touched.clear()
        self._changed()

    def settle_deadline(self) -> float:
        return self.last_change + self.settle

    def wake_at(self) -> float | None:
        """When to evaluate again with nothing new sensed: when moves that look alike but end
        differently have waited long enough to be offered with SELECT and CONFIRM."""
        if self._waiting_since is None or self.choosing:
            return None
        return self._waiting_since + 4 * self.settle

    def press(self, button: Button, now: float) -> list[Record]:
        """A button on the board was pressed."""
        state = self.state
        records: list[Record] = []
        self.notice = ""
        self.refused = False
        if button is Button.TAKEBACK:
            records.extend(self._take_back())
        elif (button in (Button.PASS, Button.CONFIRM) and self.computer_to_move
              and not self.choosing and self.planned != PASS):  # fmt: skip
            # The computer's turn: a button makes no move of the players' (a pass, a null
            # move); the computer's own pass is pressed as any pass is.
            planned = self.planned
            said = None if planned is None else words.said(state, planned, self.people)
            self._refuse(words.not_computers(said))
        elif (button in (Button.PASS, Button.CONFIRM) and not self.choosing
              and not self.shows_position()):  # fmt: skip
            # A pass or a null move is made on the position the board shows: never on a board
            # that shows something else (an illegal move, a move half carried out), so no
            # result is scored on a position nobody can see (a second pass ends some games).
            self._refuse(words.board_differs(self.status))
        elif button is Button.SELECT:
            if self.choosing:
                self.choice = (self.choice + 1) % len(self.choosing)
            else:
                self._refuse(words.NOTHING_TO_SELECT)
        elif button is Button.CONFIRM:
            if self.choosing:
                move = self.choosing[self.choice]
                self.choosing = []
                records.append(self._commit(move))
            elif self.adjust:
                self.adjust.clear()
            else:
                invisible = self._invisible_moves()
                matching = self.sensed == self._tokens(state.layout())
                chosen = [c for c in reversed(self.lifted)
                          if any(m.frm == c for m in invisible)][:1]  # fmt: skip
                if invisible and matching and chosen:
                    move = next(m for m in invisible if m.frm == chosen[0])
                    records.append(self._commit(move))
                elif invisible and matching:
                    self._refuse(words.NULL_MOVE)
                else:
                    self._refuse(words.NOTHING_TO_CONFIRM)
        elif button is Button.PASS:
            if state.outcome() is None and state.is_legal(PASS):  # as showing offers it
                records.append(self._commit(PASS))
            else:
                self._refuse(words.NO_PASSING)
        records.extend(self.evaluate(now))
        return records

    def shows_position(self) -> bool:
        """The board, as last sensed, shows the game's position (nothing to carry out, put
        right or set up): what a pass, a null move or a declared result is made on."""
        return self.observed and self.sensed == self._tokens(self.state.layout())

    def declare(self, move: Move, now: float) -> list[Record]:
        """A result the players declare (a resignation, an agreed draw): the game ends with
        the board as it stands; a take-back withdraws it."""
        text = self.state.notation(move)
        effect = self.state.apply(move)
        self.choosing = []
        self.lifted.clear()
        self._changed()
        return [Committed(move, text, effect), *self.evaluate(now)]

    def _refuse(self, why: str) -> None:
        self.notice = why
        self.refused = True

    def start_setup(self) -> None:
        """A new game was chosen (from a face): guide the board to its start layout, and take
        nothing on the board for a move until it matches."""
        self.setting_up = True
        self.restore = True
        self.synced = False

    # -- the core ---------------------------------------------------------------------------
    def evaluate(self, now: float) -> list[Record]:
        """Act on what is sensed as of ``now``; returns what to journal, in order."""
        settled = now - self.last_change >= self.settle
        records: list[Record] = []
        for _ in range(32):  # one settled layout can complete a move and its decisions
            record = self._step(settled, now)
            if record is None:
                break
            records.append(record)
        self._update_signals(settled, now)
        return records

    def _step(self, settled: bool, now: float) -> Record | None:
        state = self.state
        layout = state.layout()
        current = self._tokens(layout)
        sensed = self.sensed
        if sensed == current:
            # The whole board matching is evidence enough (a flicker does not make every
            # pending cell right at once), so a quick player never waits for the window.
            self.restore = False
            self.setting_up = False
            self.resuming = False
            self.taking_back = False
            self.touched.clear()  # a position to trust
            if not self.synced:
                self.synced = True
                self.turn_layouts = [layout]
                self._forget_turn()
            return None
        if state.outcome() is not None:
            fresh = state.game.new_state()
            if settled and sensed == self._tokens(fresh.layout()):
                self.new_state(fresh)
                self.synced = True
                return NewGame()
            return None
        if not settled or self.choosing or self.restore or not self._turn_finished():
            return None
        done = [p for p in self._consistent_paths() if self._done(p)]
        firsts = list(dict.fromkeys(p.moves[0] for p in done))
        if len(firsts) <= 1:
            self._waiting_since = None
        if len(firsts) == 1:
            return self._commit(firsts[0])
        if len(firsts) > 1:
            finals = {tuple(sorted(p.tokens[-1].items(), key=str)) for p in done}
            if self._waiting_since is None:
                self._waiting_since = now
            if len(finals) == 1 or now - self._waiting_since >= 4 * self.settle:
                self.choosing = firsts
                self.choice = 0
                self.status = self._choice_status()
        return None

    def _commit(self, move: Move) -> Committed:
        state = self.state
        text = state.notation(move)
        before = state.layout()
        was_deciding = state.deciding
        if not was_deciding:
            self.turn_layouts = [before]  # a new turn: the last one's layouts are history
        effect = state.apply(move)
        self.planned = self.hinted = None  # for the position before
        footprint = effect.footprint()
        hand = footprint.hand_layout(before)
        after = state.layout()
        if not was_deciding:
            self.adjust.clear()
        self.lifted.clear()
        if not state.deciding:
            self.touched.clear()  # the turn's hands are spent (a decision still needs them)
        # Cells whose piece changed in a way the sensors cannot see: a die turned, a frog
        # swapped for a butterfly on a board that senses only owners.
        profile = self.profile
        # Either the same piece changed where it stood (a die turned), or the piece the hand
        # left on the cell was swapped in a way its token does not show (a promotion). A
        # different piece brought there by a consequence is a move, and is shown as one.
        for cell, piece in footprint.result.items():
            if piece is None:
                continue
            was, left = before.get(cell), hand.get(cell)
            if (was is not None and was != piece and same_piece(piece, was)) or (
                left is not None and left != piece and profile.token(piece) == profile.token(left)
            ):
                self.adjust.add(cell)
        self.turn_layouts.extend([hand, after])
        self._forget_turn()
        if not state.deciding:
            self.synced = False  # the consequences must be on the board before play goes on
        self._changed()
        return Committed(move, text, effect)

    def _take_back(self) -> list[Record]:
        state = self.state
        if state.plies == 0:
            self._refuse(words.NOTHING_TO_TAKE_BACK)
            return []
        undone: list[str] = []
        taken: list[tuple[Move, str]] = []
        ended = state.outcome() is not None
        shown = [*self.turn_layouts, state.layout()]  # what the board may show now
        # Back to the start of the turn in progress, or else of the previous turn; against
        # the computer, back to the person's turn: their move and the computer's answer.
        while True:
            while state.plies:
                move = state.undo()
                undone.append(state.notation(move))
                self.planned = self.hinted = None
                piece = state.piece_at(move.frm) if move.frm >= 0 else None
                taken.insert(0, (move, "" if piece is None else piece.kind))
                if not move.is_decision:
                    break
            against = len(self.computer) == 1 and state.to_move in self.computer
            if not (against and state.plies):
                break
        # The layouts taken back stay in the turn's layouts, so the pieces going back are
        # guided as moves (from -> to) and restored captures as put-backs, never as illegal.
        self.turn_layouts = [state.layout(), *shown]
        self.taking_back = True
        self.synced = False
        self.restore = True  # the board still shows what was taken back
        self.adjust.clear()
        self.lifted.clear()
        self.touched.clear()
        self.choosing = []
        self._changed()
        self.notice = words.took_back(state.game, taken, self.people)
        return [TookBack(tuple(undone), reopened=ended)]

    def _changed(self) -> None:
        self._paths = None
        self._forget_turn()
        self._waiting_since = None

    # -- paths ------------------------------------------------------------------------------
    def paths(self) -> list[Path]:
        """Every way the rest of the turn can go from the engine's position (cached)."""
        if self._paths is None:
            state = self.state
            found: list[Path] = []
            if state.outcome() is None:
                self._extend(state.layout(), (), (), frozenset(), found)
            if self.computer_to_move:  # only the computer's own move, once it has chosen
                found = [p for p in found if p.moves[0] == self.planned]
            self._paths = found
        return self._paths

    def _extend(
        self,
        layout: dict[Cell, Piece],
        moves: tuple[Move, ...],
        layouts: tuple[dict[Cell, Piece], ...],
        first_cells: frozenset[Cell],
        found: list[Path],
        *,
        first_touch: frozenset[Cell] = frozenset(),
        origin: Mapping[Cell, Piece] | None = None,
    ) -> None:
        state = self.state
        origin = layout if origin is None else origin
        for move in list(state.legal_moves()):
            if len(found) >= MAX_PATHS:
                return
            effect = state.apply(move, check=False)
            hand = effect.footprint().hand_layout(layout)
            after = state.layout()
            cells, touch = first_cells, first_touch
            if not moves:
                before, shown = self._tokens(layout), self._tokens(hand)
                cells = frozenset(c for c in before.keys() | shown.keys()
                                  if before.get(c) != shown.get(c))  # fmt: skip
                touch = _placed(layout, hand, self.profile)
            steps, seen = (*moves, move), (*layouts, hand, after)
            if state.deciding and state.outcome() is None:
                self._extend(after, steps, seen, cells, found, first_touch=touch, origin=origin)
            else:
                tokens = tuple(self._tokens(x) for x in seen)
                found.append(Path(steps, tokens, cells, touch,
                                  _placed(origin, after, self.profile)))  # fmt: skip
            state.undo()

    def _forget_turn(self) -> None:
        self._turn_cache = None
        self._consistent = None

    def _turn_tokens(self) -> list[Tokens]:
        if self._turn_cache is None:
            self._turn_cache = [self._tokens(x) for x in self.turn_layouts]
        return self._turn_cache

    def _turn_finished(self) -> bool:
        """Whether the last turn's consequences are on the board, so the next move may begin:
        seen once (``synced``), or visible now on every cell the turn changed (which is how a
        restarted daemon learns it). Until then nothing counts as the next move: a captured
        piece still standing could otherwise pass for an opponent's move in progress."""
        if self.synced or self.state.deciding:
            return True
        # Only what the consequences changed can be unfinished (the layouts after the first
        # hand action): a cell the hand itself changed may be changed again by the next move.
        layers = self._turn_tokens()[1:] or self._turn_tokens()
        current = self._tokens(self.state.layout())
        touched: set[Cell] = set()
        for layer in layers:
            touched.update(layer)
        touched.update(current)
        touched = {c for c in touched if len({layer.get(c) for layer in layers}) > 1}
        if all(self.sensed.get(c) == current.get(c) for c in touched):
            self.synced = True
        return self.synced

    def _base_tokens(self) -> list[Tokens]:
        """What a path's step starts from: inside a turn (a decision pending) every layout of
        the turn so far, since its consequences may still be under way; at the start of a turn
        only the current layout, so a move is never accepted over unfinished consequences."""
        if self.state.deciding:
            return self._turn_tokens()
        return [self._tokens(self.state.layout())]

    def _allowed(self) -> dict[Cell, set[Token | None]]:
        """Per cell, every value it shows somewhere in the turn so far; a cell that changes
        may also be empty for a moment, between a lift and a placement."""
        cells: set[Cell] = set(self.sensed)
        return {
            cell: _with_gap(values) for cell, values in _values(self._turn_tokens(), cells).items()
        }

    def _consistent_paths(self) -> list[Path]:
        """The paths the sensed layout is consistent with (computed once per layout)."""
        if self._consistent is None:
            sensed = self.sensed
            base = _values(self._base_tokens(), set(sensed))
            found = []
            for path in self.paths():
                cells = set(base)
                for layer in path.tokens:
                    cells.update(layer)
                held = _held(path.moves[0])
                if all(
                    (cell == held and sensed.get(cell) is None)
                    or sensed.get(cell)
                    in _with_gap(
                        base.get(cell, {None}) | {layer.get(cell) for layer in path.tokens}
                    )
                    for cell in cells
                ):
                    found.append(path)
            self._consistent = found
        return self._consistent

    def _done(self, path: Path) -> bool:
        """Every cell the first step's hand action changes shows a value from after it, and
        has been touched (its sensor changed) since the last trusted position. A move
        that takes a piece but leaves its own piece where it stands (a cobra's strike and
        return, an elephant's squash) also needs that piece lifted and put back: a piece
        knocked off the board must never pass for one."""
        if not path.hand_cells:
            return False
        current = self._tokens(self.state.layout())
        held = _held(path.moves[0])
        if (
            held is not None
            and held not in path.hand_cells
            and (held not in self.lifted or self.sensed.get(held) != current.get(held))
        ):
            return False  # not lifted yet, or still in the hand
        if path.touch_cells <= self.touched and all(
            self.sensed.get(cell) != current.get(cell)
            and self.sensed.get(cell) in {t.get(cell) for t in path.tokens}
            for cell in path.hand_cells
        ):
            return True
        return self._ended(path, current)

    def _ended(self, path: Path, current: Tokens) -> bool:
        """Whether the board shows where the path ends, every cell it changes touched: a
        player who knows the rules (or follows the LEDs, which show a move's end) puts a
        ram that runs on straight onto the cell it stops on, never on its first step, whose
        cell the hand action changes and the run-on changes back."""
        final = path.tokens[-1]
        changed = {c for c in final.keys() | current.keys() if final.get(c) != current.get(c)}
        return (
            bool(changed)
            and (changed | path.end_touch) <= self.touched
            and all(self.sensed.get(c) == final.get(c) for c in changed)
        )

    def _knocked(self, consistent: list[Path], current: Tokens) -> list[Cell]:
        """Cells whose piece is gone while nothing a hand does for any consistent step has
        begun: only a capture's consequence could explain them."""
        sensed = self.sensed
        changed = [c for c in set(sensed) | set(current) if sensed.get(c) != current.get(c)]
        if self.state.deciding or not changed or any(c in sensed for c in changed):
            return []
        if any(c in p.hand_cells for p in consistent for c in changed):
            return []
        return sorted(changed)

    def _finishing_last_turn(self) -> bool:
        """Whether every difference from the engine's layout is on a cell the last turn
        changed, showing a value it showed during that turn: its consequences are being
        carried out (a captured piece still to remove), not the board set up anew."""
        layers = self._turn_tokens()
        current = self._tokens(self.state.layout())
        sensed = self.sensed
        for cell in set(sensed) | set(current):
            if sensed.get(cell) == current.get(cell):
                continue
            values = {layer.get(cell) for layer in layers}
            if len(values) < 2 or sensed.get(cell) not in _with_gap(values):
                return False
        return True

    def has_invisible_moves(self, *, cached_only: bool = False) -> bool:
        """Whether a move of this turn changes nothing the sensors see (made with CONFIRM);
        ``cached_only``: as far as the turn's paths are already worked out (False if not)."""
        if cached_only and self._paths is None:
            return False
        return bool(self._invisible_moves())

    def _invisible_moves(self) -> list[Move]:
        return [p.moves[0] for p in self.paths() if not p.hand_cells and len(p.moves) == 1]

    # -- signals ----------------------------------------------------------------------------
    def _tokens(self, layout: Mapping[Cell, Piece]) -> Tokens:
        return self.profile.tokens(layout)


def _held(move: Move) -> Cell | None:
    """The cell of a move that leaves its piece where it stands (a strike and return, a
    squash, a null move): the piece is lifted and put back, so the cell may be empty for as
    long as a player holds it, though no layout of the turn shows it empty."""
    if move.kind is MoveKind.MOVE and move.frm == move.to:
        return move.frm
    return None


def _values(layers: list[Tokens], cells: set[Cell]) -> dict[Cell, set[Token | None]]:
    """Per cell (those of ``cells`` and of the layers), the values the layers show there."""
    every = set(cells)
    for layer in layers:
        every.update(layer)
    return {cell: {layer.get(cell) for layer in layers} for cell in every}


def _with_gap(values: set[Token | None]) -> set[Token | None]:
    """A cell whose value changes may also be empty while a piece is in the hand."""
    return values | {None} if len(values) > 1 else values


def _placed(
    before: Mapping[Cell, Piece], after: Mapping[Cell, Piece], profile: BoardProfile
) -> frozenset[Cell]:
    """Cells with a sensor where a piece was taken off, put down or swapped for another
    (not a die turned where it stands: that is an adjustment, not a hand on the sensor)."""
    cells = set()
    for cell in before.keys() | after.keys():
        was, now = before.get(cell), after.get(cell)
        if was == now or cell not in profile.sensor_of:
            continue
        if was is None or now is None or not same_piece(was, now):
            cells.add(cell)
    return frozenset(cells)


__all__ = [
    "Committed",
    "NewGame",
    "Path",
    "Reconciler",
    "Record",
    "TookBack",
]
