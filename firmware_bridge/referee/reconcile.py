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

Over 700 lines, for now: the footprint search (steps 2-3) and the prompts and their words
(step 4-5) share the turn's state; they are the seam along which this module splits next
(issue 31).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from engine import Cell, Effect, Move, MoveKind, NoteKind, Piece, Player, State
from firmware_bridge.link.leds import Signal
from firmware_bridge.link.profile import UNREADABLE, BoardProfile, Token
from firmware_bridge.link.protocol import Button

MAX_PATHS = 5000  # a bound on turn paths examined; far above what the games produce
CORRECTIONS = frozenset({Signal.ILLEGAL, Signal.PUT_BACK})
NOTE_SIGNALS = {NoteKind.HELD: Signal.HELD, NoteKind.CHARGED: Signal.CHARGED}

Tokens = dict[Cell, Token]


@dataclass(frozen=True, slots=True)
class Committed:
    """A move (or decision) the engine accepted; journal it before the LEDs change."""

    move: Move
    text: str
    effect: Effect


@dataclass(frozen=True, slots=True)
class TookBack:
    moves: tuple[str, ...]  # the moves undone, last first


@dataclass(frozen=True, slots=True)
class NewGame:
    """The board was set up for a new game after the last one ended."""


Record = Committed | TookBack | NewGame


@dataclass(frozen=True, slots=True)
class Path:
    """One way the rest of a turn can go: its steps and the layouts they lead to."""

    moves: tuple[Move, ...]
    tokens: tuple[Tokens, ...]  # what the sensors see after each step's hand action and result
    hand_cells: frozenset[Cell]  # cells the first step's hand action visibly changes
    # Cells with a sensor whose piece the first step's hand action changes, seen or not (a
    # capture by replacement on an occupancy board changes a piece, not what the sensor reads):
    # a hand must have been there.
    touch_cells: frozenset[Cell] = frozenset()


class Reconciler:
    def __init__(self, state: State, profile: BoardProfile) -> None:
        self.state = state
        self.profile = profile
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
            if dict(sensed) != self._tokens(self.state.layout()) and not self.setting_up:
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

    def restart_turn_from(self, layouts: list[dict[Cell, Piece]]) -> None:
        """After a resume: the layouts the last turn went through, so that its consequences
        are still prompted as consequences."""
        self.turn_layouts = layouts or [self.state.layout()]
        self.synced = False
        self._changed()

    def new_state(self, state: State) -> None:
        self.state = state
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
        elif button is Button.SELECT:
            if self.choosing:
                self.choice = (self.choice + 1) % len(self.choosing)
            else:
                self._refuse("nothing to select")
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
                    self._refuse(
                        "to make a move that changes nothing on the board (a null move), lift "
                        "its piece, put it back, then press CONFIRM"
                    )
                else:
                    self._refuse("nothing to confirm")
        elif button is Button.PASS:
            if state.outcome() is None and any(
                m.kind is MoveKind.PASS for m in state.legal_moves()
            ):
                records.append(self._commit(Move.pass_()))
            else:
                self._refuse("passing is not allowed now")
        records.extend(self.evaluate(now))
        return records

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
            if (was is not None and was != piece and _same(piece, was)) or (
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
            self._refuse("nothing to take back")
            return []
        undone: list[str] = []
        shown = [*self.turn_layouts, state.layout()]  # what the board may show now
        # Back to the start of the turn in progress, or else of the previous turn.
        while state.plies:
            move = state.undo()
            undone.append(state.notation(move))
            if not move.is_decision:
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
        self.notice = f"took back {' '.join(reversed(undone))}: put the board back"
        return [TookBack(tuple(undone))]

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
    ) -> None:
        state = self.state
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
                self._extend(after, steps, seen, cells, found, first_touch=touch)
            else:
                tokens = tuple(self._tokens(x) for x in seen)
                found.append(Path(steps, tokens, cells, touch))
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
                if all(
                    sensed.get(cell)
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
        if not path.hand_cells or not path.touch_cells <= self.touched:
            return False
        first = path.moves[0]
        if (
            first.kind is MoveKind.MOVE
            and first.frm == first.to
            and first.frm not in path.hand_cells
            and first.frm not in self.lifted
        ):
            return False
        current = self._tokens(self.state.layout())
        for cell in path.hand_cells:
            shown = self.sensed.get(cell)
            if shown == current.get(cell) or shown not in {t.get(cell) for t in path.tokens}:
                return False
        return True

    def _actor(self, signals: Mapping[Cell, Signal]) -> Player:
        """Who carries out the consequences the signals ask for: the owner of the pieces to
        move on (a defender's piece taking the attacker's hex moves by the defender's hand),
        else the player whose move caused them."""
        believed = self._believed(self.sensed)
        owners = {
            piece.owner
            for cell, signal in signals.items()
            if signal is Signal.MOVE_FROM and (piece := believed.get(cell)) is not None
        }
        if not owners:  # the piece is in a hand already: whose piece goes down where
            layout = self.state.layout()
            owners = {
                piece.owner
                for cell, signal in signals.items()
                if signal is Signal.MOVE_TO and (piece := layout.get(cell)) is not None
            }
        if len(owners) == 1:
            return owners.pop()
        last = self.state.last_mover if len(self.turn_layouts) > 1 else None
        return last if last is not None else self.state.to_move

    def _what_on(self, cells: list[str], layout: Mapping[Cell, Piece]) -> str:
        """``a stone on d4``, ``pieces on d4 and e5``: the pieces ``layout`` has there."""
        index = self.state.game.board.index
        kinds = {layout[c].kind for c in map(index.get, cells) if c is not None and c in layout}
        what = f"a {kinds.pop()}" if len(kinds) == 1 else "a piece"
        return f"{what} on {_join(cells)}" if len(cells) == 1 else f"pieces on {_join(cells)}"

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

    def _invisible_moves(self) -> list[Move]:
        return [p.moves[0] for p in self.paths() if not p.hand_cells and len(p.moves) == 1]

    # -- signals ----------------------------------------------------------------------------
    def _tokens(self, layout: Mapping[Cell, Piece]) -> Tokens:
        return self.profile.tokens(layout)

    def _update_signals(self, settled: bool, now: float) -> None:
        state = self.state
        layout = state.layout()
        current = self._tokens(layout)
        sensed = self.sensed
        signals: dict[Cell, Signal] = {}
        names = state.game.player_names
        player = names[state.to_move.index]
        alert, self.alert = self.alert, ""
        self.acting = state.to_move
        self.next_game = ""
        if self.choosing:
            for move in self.choosing:
                for path in self.paths():
                    if path.moves[0] == move:
                        signals.update(dict.fromkeys(path.hand_cells, Signal.CHOOSE))
            self.status = self._choice_status()
        elif sensed == current:
            outcome = state.outcome()
            if outcome is not None:
                self.acting = None
                target = state.game.new_state().layout()
                # The LEDs stay dark over the final position; the words say the set-up.
                setup = self.guide(sensed, target, setup=True)
                self.next_game = self._next_game_text(setup, target)
                self.status = f"game over: {outcome.describe(names)}; {self.next_game}"
            elif state.deciding:
                signals = self._decision_signals()
                self.status = f"{player}: choose by doing one of {self._options_text()}"
            else:
                hint = state.hint()
                self.status = f"{player} to move" + (f": {hint}" if hint else "")
        else:
            consistent = []
            if state.outcome() is None and not self.restore and self._turn_finished():
                consistent = self._consistent_paths()
            knocked = self._knocked(consistent, current) if consistent else []
            if knocked:
                # Only pieces gone that no hand of this turn touched: knocked off, most
                # likely, though a capture could explain them. Say both ways forward.
                signals = dict.fromkeys(knocked, Signal.PUT_BACK)
                self.alert = "knocked"
                captures = sorted({state.notation(p.moves[0]) for p in consistent})
                names_off = [state.game.board.names[c] for c in knocked]
                self.status = (
                    f"{player}: put back {self._what_on(names_off, layout)} (knocked off?), or "
                    f"finish the capture that takes it: {', '.join(captures[:4])}"
                )
            elif consistent:
                signals = self._progress_signals(consistent, current)
                self.status = (
                    f"{player}: choose by doing one of {self._options_text()}"
                    if state.deciding
                    else f"{player} is moving"
                )
            elif state.outcome() is not None and not self._finishing_last_turn():
                # The game is over and the board is being set up again: guide it towards a
                # new game's start, keeping the result in the words.
                target = state.game.new_state().layout()
                signals = self.guide(sensed, target, setup=True)
                outcome = state.outcome()
                assert outcome is not None
                self.acting = None
                self.next_game = self._next_game_text(signals, target)
                self.status = f"game over: {outcome.describe(names)}; {self.next_game}"
            elif self.taking_back:
                self.acting = None
                signals = self.guide(sensed, layout, back=True)
                self.status = "take back: " + self._guide_status(signals, "", sentence=False)
            else:
                signals = self.guide(sensed, layout, setup=self.setting_up)
                if self.setting_up or self.resuming:
                    self.acting = None
                if self.setting_up:
                    self.status = "new game: " + self._guide_status(
                        signals, "", sentence=False, setup=True
                    )
                elif self.resuming:  # nobody's move: the board changed while no one looked
                    self.status = "resuming: set the board to the position: " + (
                        self._guide_status(signals, "", sentence=False)
                    )
                elif any(s in CORRECTIONS for s in signals.values()):
                    # Only a stable board is called illegal (a flicker never is), and then
                    # together with the lights that show how to correct it.
                    shown = any(self.signals.get(c) == s for c, s in signals.items()
                                if s in CORRECTIONS)  # fmt: skip
                    if settled or shown:
                        self.alert = "illegal"
                        why = self._why_illegal(sensed, current)
                        self.status = (
                            f"illegal move ({why}): "
                            if why
                            else "illegal move or disturbed board: "
                        ) + self._guide_status(signals, "", sentence=False)
                    else:
                        self.alert = alert  # not settled yet: what was shown stays
                else:
                    actor = self._actor(signals)
                    self.acting = actor
                    self.status = self._guide_status(signals, names[actor.index], actor=actor)
        if not settled:  # corrections wait for a stable board, so a flicker never shows one
            signals = {
                c: s for c, s in signals.items()
                if s not in CORRECTIONS or self.signals.get(c) == s
            }  # fmt: skip
        for cell in self.adjust:
            signals.setdefault(cell, Signal.ADJUST)
        if not self.choosing:  # why a piece may not move (stuck, immobilised), or a charge
            for cell, note in state.notes().items():
                if sensed.get(cell) == current.get(cell):
                    signals.setdefault(cell, NOTE_SIGNALS[note.kind])
        self.signals = signals

    def _decision_signals(self) -> dict[Cell, Signal]:
        signals: dict[Cell, Signal] = {}
        for path in self.paths():
            signals.update(dict.fromkeys(path.hand_cells, Signal.CHOOSE))
        return signals

    def _progress_signals(self, consistent: list[Path], current: Tokens) -> dict[Cell, Signal]:
        """While a step is under way: where the held piece may go, what a choice offers, and
        what earlier consequences still need doing."""
        signals: dict[Cell, Signal] = {}
        sensed = self.sensed
        involved: set[Cell] = set()
        deciding = self.state.deciding
        for path in consistent:
            involved |= path.hand_cells
            for cell in path.hand_cells:
                if sensed.get(cell) == current.get(cell):
                    signals[cell] = Signal.CHOOSE if deciding else Signal.HINT
                elif not deciding and sensed.get(cell) is None:
                    signals[cell] = Signal.HINT  # where a held piece came from: back is fine
        if self.state.deciding:
            pending = self.guide(
                {c: t for c, t in sensed.items() if c not in involved},
                {c: p for c, p in self.state.layout().items() if c not in involved},
            )
            for cell, signal in pending.items():
                signals.setdefault(cell, signal)
        return signals

    def guide(
        self,
        sensed: Tokens,
        target: Mapping[Cell, Piece],
        *,
        setup: bool = False,
        back: bool = False,
    ) -> dict[Cell, Signal]:
        """Signals that take the board from ``sensed`` to ``target``. Pieces to take away and
        pieces to put down are paired into from->to moves where the same piece fits, nearest
        first. A change the turn explains (a capture to carry out) is shown as a consequence;
        anything else as a correction. ``setup``: setting the board up for a game, where
        nothing is wrong, only not there yet (pieces come from the box: *put back*). ``back``:
        a take-back, where a piece with nowhere to come from is a capture to put back."""
        profile = self.profile
        allowed = self._allowed()
        believed = self._believed(sensed)

        def correct(cell: Cell) -> bool:
            want = target.get(cell)
            if cell not in sensed:
                return want is None
            if want is None:
                return False
            piece = believed.get(cell)
            return _same(piece, want) if piece is not None else sensed[cell] == profile.token(want)

        wrong = sorted(c for c in set(sensed) | set(target)
                       if c in profile.sensor_of and not correct(c))  # fmt: skip
        extras = [c for c in wrong if c in sensed]  # a piece to take away from here
        missing = [c for c in wrong if c in target]  # a piece to put down here

        def expected(cell: Cell) -> bool:
            return setup or sensed.get(cell) in allowed.get(cell, {None})

        board = self.state.game.board
        signals: dict[Cell, Signal] = {}
        self._pairs = {}
        free = list(extras)
        for cell in missing:
            want = target[cell]
            fits = [e for e in free
                    if e != cell and _fits(believed.get(e), sensed[e], want, profile)]  # fmt: skip
            if not fits:
                fresh = setup or back or not expected(cell)
                signals.setdefault(cell, Signal.PUT_BACK if fresh else Signal.MOVE_TO)
                continue
            source = min(fits, key=lambda e: _distance(board.coords[e], board.coords[cell]))
            free.remove(source)
            self._pairs[source] = cell
            ok = expected(source) and expected(cell)
            signals[source] = Signal.MOVE_FROM if ok else Signal.ILLEGAL
            signals.setdefault(cell, Signal.MOVE_TO if ok else Signal.PUT_BACK)
        for cell in free:  # an extra that is also missing keeps its removal signal first
            signals[cell] = Signal.REMOVE if expected(cell) else Signal.ILLEGAL
        return signals

    def _believed(self, sensed: Tokens) -> dict[Cell, Piece | None]:
        """Which piece is most likely on each occupied cell: the earliest piece of the turn
        that looks like what is sensed there (None: nothing in the turn looks like it)."""
        believed: dict[Cell, Piece | None] = {}
        for cell, token in sensed.items():
            believed[cell] = None
            for layout in self.turn_layouts:
                piece = layout.get(cell)
                if piece is not None and self.profile.token(piece) == token:
                    believed[cell] = piece
                    break
        return believed

    def _options_text(self) -> str:
        return ", ".join(self.state.notation(m) for m in self.state.legal_moves())

    def _choice_status(self) -> str:
        move = self.choosing[self.choice]
        return (
            f"the board cannot tell these apart: [{self.choice + 1}/{len(self.choosing)}] "
            f"{self.state.notation(move)} — press SELECT for the next, CONFIRM to accept"
        )

    def _guide_status(
        self,
        signals: Mapping[Cell, Signal],
        player: str,
        *,
        sentence: bool = True,
        layout: Mapping[Cell, Piece] | None = None,
        setup: bool = False,
        actor: Player | None = None,
    ) -> str:
        """What the signals ask for, as one plain sentence naming each piece, its owner, where
        it is and where it goes: "Black: take White's stone off d4; move your stone from c6 to
        c5". ``layout`` names the pieces to put down (default: the engine's position);
        ``actor``, the player addressed ("your")."""
        if not signals:
            return f"{player}: waiting for the board" if player else "waiting for the board"
        names = self.state.game.board.names
        layout = self.state.layout() if layout is None else layout
        believed = self._believed(self.sensed)
        for cell, token in self.sensed.items():  # no piece of the turn looks like it: the
            if believed.get(cell) is None and isinstance(token, (Player, tuple)):  # sensors say
                owner, kind = (token, "") if isinstance(token, Player) else token
                if not kind:  # the owner's only kind of piece in play, if there is one
                    kinds = {p.kind for x in self.turn_layouts for p in x.values()
                             if p.owner is owner}  # fmt: skip
                    kind = kinds.pop() if len(kinds) == 1 else "piece"
                believed[cell] = Piece(kind, owner)
        by: dict[Signal, list[Cell]] = {}
        for cell, signal in sorted(signals.items()):
            by.setdefault(signal, []).append(cell)

        def pieces(cells: list[Cell], where: Mapping[Cell, Piece | None]) -> str:
            """``White's stone``, ``your stones``, ``Black's pieces``, ``the pieces``."""
            found = [where.get(c) for c in cells]
            known = [p for p in found if p is not None]
            many = len(cells) > 1
            if len(known) < len(found) or not known:
                return "the pieces" if many else "the piece"
            owners = {p.owner for p in known}
            kinds = {p.kind for p in known}
            kind = kinds.pop() if len(kinds) == 1 else "piece"
            noun = f"{kind}s" if many else kind
            if len(owners) > 1:
                return f"the {noun}"
            owner = owners.pop()
            whose = "your" if owner is actor else f"{self.state.game.player_names[owner.index]}'s"
            return f"{whose} {noun}"

        def on(cells: list[Cell]) -> str:
            return _join([names[c] for c in cells])

        parts: list[str] = []
        if Signal.REMOVE in by:
            cells = by[Signal.REMOVE]
            parts.append(f"take {pieces(cells, believed)} off {on(cells)}")
        froms, tos = by.get(Signal.MOVE_FROM, []), list(by.get(Signal.MOVE_TO, []))
        for source in froms:
            dest = self._pairs.get(source)
            if dest is not None and dest in tos:
                tos.remove(dest)
            if dest is None:
                parts.append(f"take {pieces([source], believed)} from {names[source]}")
            else:
                parts.append(f"move {pieces([source], believed)} from {names[source]} to "
                             f"{names[dest]}")  # fmt: skip

        def put(cells: list[Cell], verb: str) -> str:
            """Pieces to put down, grouped by owner and kind: "put White's stones on b1 and
            c1, Black's stone on b9"."""

            def grouped(by_kind: bool) -> dict[tuple[Player, str] | None, list[Cell]]:
                groups: dict[tuple[Player, str] | None, list[Cell]] = {}
                for cell in cells:
                    piece = layout.get(cell)
                    key = None if piece is None else (piece.owner, piece.kind if by_kind else "")
                    groups.setdefault(key, []).append(cell)
                return groups

            groups = grouped(by_kind=True)
            if len(groups) > 4:  # many kinds (a whole set-up): by owner
                groups = grouped(by_kind=False)
            said = ", ".join(f"{pieces(group, layout)} on {on(group)}" for group in groups.values())
            return f"{verb} {said}"

        if tos:
            parts.append(put(tos, "put"))
        if Signal.ILLEGAL in by:
            cells = by[Signal.ILLEGAL]
            parts.append(f"take {pieces(cells, believed)} off {on(cells)}")
        if Signal.PUT_BACK in by:
            cells = by[Signal.PUT_BACK]
            parts.append(put(cells, "put" if setup else "put back"))
        if Signal.ADJUST in by:
            parts.append(f"turn the piece on {on(by[Signal.ADJUST])} to its new value")
        if Signal.CHOOSE in by:
            parts.append(f"choose by doing one of {self._options_text()}")
        text = "; ".join(parts) or "waiting for the board"
        return f"{player}: {text}" if player and sentence else text

    def _next_game_text(self, signals: Mapping[Cell, Signal], target: Mapping[Cell, Piece]) -> str:
        """What setting the board up for the next game takes, once this one is over:
        ``signals``, the guide from the board as sensed to ``target``, the next start."""
        if not target:
            return "clearing the board starts the next game"
        todo = self._guide_status(signals, "", sentence=False, layout=target, setup=True)
        return f"setting the board up starts the next game: {todo}"

    def _why_illegal(self, sensed: Tokens, current: Tokens) -> str:
        """Why the board shows no legal move, when it shows one hand action the rules refuse
        (a piece moved from one cell to another, or one piece put down): "" otherwise."""
        state = self.state
        gone = [c for c in current if c not in sensed]
        new = [c for c in sensed if sensed[c] != current.get(c)]
        if len(new) != 1 or len(gone) > 1 or state.deciding:
            return ""
        to = new[0]
        legal = list(state.legal_moves())
        if gone:
            move = Move.step(gone[0], to)
            same = any(m.frm == move.frm and m.to == to for m in legal)
        else:
            token = sensed[to]  # an identity board tells the kind; else a kind one may place
            placeable = [m.piece for m in legal if m.kind is MoveKind.PLACE]
            kind = token[1] if isinstance(token, tuple) else (placeable or [*state.game.pieces])[0]
            move = Move.place(kind, to)
            same = any(m.kind is MoveKind.PLACE and m.to == to for m in legal)
        return "" if same else state.why_illegal(move)


def _join(names: list[str]) -> str:
    if len(names) <= 2:
        return " and ".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


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
        if was is None or now is None or not _same(was, now):
            cells.add(cell)
    return frozenset(cells)


def _same(a: Piece, b: Piece) -> bool:
    """The same physical piece kind and owner (a die's pips may differ: that is ADJUST)."""
    return a.kind == b.kind and a.owner is b.owner


def _fits(believed: Piece | None, token: Token, want: Piece, profile: BoardProfile) -> bool:
    if believed is not None:
        return _same(believed, want)
    return token != UNREADABLE and token == profile.token(want)


def _distance(a: tuple[float, float], b: tuple[float, float]) -> float:
    return math.hypot(a[0] - b[0], a[1] - b[1])


__all__ = [
    "Committed",
    "NewGame",
    "Path",
    "Reconciler",
    "Record",
    "TookBack",
]
