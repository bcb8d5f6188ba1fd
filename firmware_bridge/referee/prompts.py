"""The reconciler's prompts: what the LEDs and the status line ask the players to do.

Given where the footprint search (reconcile.py) stands (the turn's paths, the ones consistent
with the sensed layout, a piece knocked off, a turn finishing), this half works out the
signals (remove, move from and to, put back, illegal, the decision cells), pairs pieces to take
away with places to put them, and says it in words: whose hands, which pieces, why a move is
illegal, what setting up the next game takes. ``Reconciler`` is a ``Prompts``: the two halves
share the turn's state, declared here and set by reconcile.py.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from engine import Cell, Move, MoveKind, NoteKind, Piece, Player, State
from firmware_bridge import words
from firmware_bridge.link.leds import Signal
from firmware_bridge.link.profile import UNREADABLE, BoardProfile, Token
from firmware_bridge.referee.turn import Path, Tokens

CORRECTIONS = frozenset({Signal.ILLEGAL, Signal.PUT_BACK})
NOTE_SIGNALS = {NoteKind.HELD: Signal.HELD, NoteKind.CHARGED: Signal.CHARGED}


class Prompts:
    """The prompts half of the reconciler (see the module's docstring)."""

    state: State
    profile: BoardProfile
    people: tuple[str, str]  # who plays each side ("": not named), for the words
    sensed: Tokens
    signals: dict[Cell, Signal]
    status: str
    acting: Player | None
    next_game: str
    alert: str
    setting_up: bool
    resuming: bool
    taking_back: bool
    restore: bool
    adjust: set[Cell]
    choosing: list[Move]
    choice: int
    turn_layouts: list[dict[Cell, Piece]]
    _pairs: dict[Cell, Cell]
    planned: Move | None  # the computer's chosen move, on its turn
    hinted: Move | None  # the engine's suggestion for the player to move
    # A finished game's review, a turning point's better move lit (referee/review.py), and
    # its words: shown over the ended game's board (or a new one's untouched start) until a
    # piece is moved or the page takes it off; it never moves the game.
    reviewed: tuple[dict[Cell, Signal], str] | None

    @property
    def computer_to_move(self) -> bool:
        raise NotImplementedError

    # -- what the footprint search answers (reconcile.py) -------------------------------------
    def paths(self) -> list[Path]:
        raise NotImplementedError

    def _consistent_paths(self) -> list[Path]:
        raise NotImplementedError

    def _turn_finished(self) -> bool:
        raise NotImplementedError

    def _finishing_last_turn(self) -> bool:
        raise NotImplementedError

    def _knocked(self, consistent: list[Path], current: Tokens) -> list[Cell]:
        raise NotImplementedError

    def _allowed(self) -> dict[Cell, set[Token | None]]:
        raise NotImplementedError

    def _tokens(self, layout: Mapping[Cell, Piece]) -> Tokens:
        raise NotImplementedError

    # -- the signals and their words ---------------------------------------------------------
    def _update_signals(self, settled: bool, now: float) -> None:
        state = self.state
        layout = state.layout()
        current = self._tokens(layout)
        sensed = self.sensed
        signals: dict[Cell, Signal] = {}
        names = state.game.player_names
        player = words.person(names, self.people, state.to_move)
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
            if self.reviewed is not None:
                signals, self.status = dict(self.reviewed[0]), self.reviewed[1]
                self.acting = None
            elif outcome is not None:
                self.acting = None
                target = state.game.new_state().layout()
                # The LEDs stay dark over the final position; the words say the set-up.
                setup = self.guide(sensed, target, setup=True)
                self.next_game = self._next_game_text(setup, target)
                ended = words.result(outcome, names, self.people)
                self.status = words.game_over(ended, self.next_game)
            elif self.computer_to_move:
                signals = self._computer_signals(sensed, player)
            elif self.hinted is not None:
                signals = self._shown_move(sensed, self.hinted)
                suggested = words.said(state, self.hinted, self.people)
                self.status = words.hint_shown(player, suggested, self.status)
            elif state.deciding:
                signals = self._decision_signals()
                self.status = words.choose_one(player, self._options())
            else:
                self.status = words.to_move(player, state.hint())
        else:
            self.reviewed = None  # a hand on the board: the board is the game's again
            consistent = []
            if state.outcome() is None and not self.restore and self._turn_finished():
                consistent = self._consistent_paths()
            knocked = self._knocked(consistent, current) if consistent else []
            if knocked:
                # Only pieces gone that no hand of this turn touched: knocked off, most
                # likely, though a capture could explain them. Say both ways forward.
                signals = dict.fromkeys(knocked, Signal.PUT_BACK)
                self.alert = "knocked"
                captures = sorted({words.said(state, p.moves[0], self.people)
                                   for p in consistent})  # fmt: skip
                names_off = [state.game.board.names[c] for c in knocked]
                self.status = words.knocked(player, self._what_on(names_off, layout), captures)
            elif consistent:
                signals = self._progress_signals(consistent, current)
                self.status = (
                    words.choose_one(player, self._options())
                    if state.deciding
                    else words.is_moving(player)
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
                ended = words.result(outcome, names, self.people)
                self.status = words.game_over(ended, self.next_game)
            elif self.taking_back:
                self.acting = None
                signals = self.guide(sensed, layout, back=True)
                self.status = words.taking_back(self._guide_status(signals, "", sentence=False))
            else:
                signals = self.guide(sensed, layout, setup=self.setting_up)
                if self.setting_up or self.resuming:
                    self.acting = None
                if self.setting_up:
                    self.status = words.setting_up(
                        self._guide_status(signals, "", sentence=False, setup=True)
                    )
                elif self.resuming:  # nobody's move: the board changed while no one looked
                    self.status = words.resuming(self._guide_status(signals, "", sentence=False))
                elif (onward := self._onward(sensed, signals)) is not None:
                    signals = onward  # the computer's move carried out wrongly: carry on
                    assert self.planned is not None
                    plays = words.said(state, self.planned, self.people)
                    self.status = words.computer_moves(player, plays, self.status)
                elif any(s in CORRECTIONS for s in signals.values()):
                    # Only a stable board is called illegal (a flicker never is), and then
                    # together with the lights that show how to correct it.
                    shown = any(self.signals.get(c) == s for c, s in signals.items()
                                if s in CORRECTIONS)  # fmt: skip
                    if settled or shown:
                        self.alert = "illegal"
                        why = self._why_illegal(sensed, current)
                        if self.computer_to_move:  # any move but the computer's is put right
                            planned = self.planned
                            said = None if planned is None else words.said(state, planned,
                                                                           self.people)  # fmt: skip
                            why = words.not_computers(said)
                        todo = self._guide_status(signals, "", sentence=False)
                        self.status = words.illegal(why, todo)
                        for cell, signal in self._planned_targets().items():
                            signals.setdefault(cell, signal)
                    else:
                        self.alert = alert  # not settled yet: what was shown stays
                else:
                    actor = self._actor(signals)
                    self.acting = actor
                    who = words.person(names, self.people, actor)
                    self.status = self._guide_status(signals, who, actor=actor)
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

    def _computer_signals(self, sensed: Tokens, player: str) -> dict[Cell, Signal]:
        """The computer's turn on a board that matches the game: it is thinking, or its move
        is shown to be carried out, every piece to lift, put down and take off."""
        state = self.state
        planned = self.planned
        if planned is None:
            self.status = words.computer_thinking(player)
            return {}
        signals = self._shown_move(sensed, planned)
        self.status = words.computer_moves(player, words.said(state, planned, self.people),
                                           self.status)  # fmt: skip
        return signals

    def _shown_move(self, sensed: Tokens, move: Move) -> dict[Cell, Signal]:
        """The signals that carry out ``move`` from the board as it is (every piece to lift,
        put down and take off), and what they ask in words, left in ``status``."""
        after = self.state.copy(stack=False)
        after.apply(move, check=False)
        signals = self.guide(sensed, after.layout(), setup=True, shown=True)
        self.status = self._guide_status(signals, "", sentence=False, layout=after.layout(),
                                         setup=True)  # fmt: skip
        return signals

    def _onward(self, sensed: Tokens, back: Mapping[Cell, Signal]) -> dict[Cell, Signal] | None:
        """On the computer's turn, a board that is neither the position nor the computer's
        move: when carrying its move on from here takes no more than putting the board back
        (its piece put on b5 where it goes to b4: b5 to b4, not back to b8 and again), the
        signals that carry it on, their words left in ``status``; else None."""
        planned = self.planned
        if planned is None or not self.computer_to_move:
            return None
        if not any(s in CORRECTIONS for s in back.values()):
            return None
        status = self.status
        onward = self._shown_move(sensed, planned)
        # Only the computer's move carried on: every piece put down goes where its move puts
        # one (never a piece put back that it did not move: that is a correction).
        targets = self._planned_targets()
        puts = [c for c, s in onward.items() if s in (Signal.MOVE_TO, Signal.PUT_BACK)]
        if len(onward) <= len(back) and all(c in targets for c in puts):
            return onward
        self.status = status
        return None

    def _planned_targets(self) -> dict[Cell, Signal]:
        """Where the computer's move puts its pieces (the cells it fills), lit as a help
        light while the board is being put right: what is to be done stays in sight, and
        nothing is asked of the hands there before the corrections are done (a *move to*
        there would ask for a piece no hand holds yet)."""
        planned = self.planned
        if planned is None or not self.computer_to_move:
            return {}
        before = self.state.layout()
        after = self.state.copy(stack=False)
        after.apply(planned, check=False)
        return {cell: Signal.HINT for cell, piece in after.layout().items()
                if before.get(cell) != piece}  # fmt: skip

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
        shown: bool = False,
    ) -> dict[Cell, Signal]:
        """Signals that take the board from ``sensed`` to ``target``. Pieces to take away and
        pieces to put down are paired into from->to moves where the same piece fits, nearest
        first. A change the turn explains (a capture to carry out) is shown as a consequence;
        anything else as a correction. ``setup``: setting the board up for a game, where
        nothing is wrong, only not there yet (pieces come from the box: *put back*). ``back``:
        a take-back, where a piece with nowhere to come from is a capture to put back.
        ``shown``: a move shown to be carried out (the computer's, a hint), where a piece with
        nowhere to come from is placed from the hand: *move to*, never *put back*."""
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
            return (
                same_piece(piece, want)
                if piece is not None
                else sensed[cell] == profile.token(want)
            )

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
                fresh = (setup and not shown) or back or not expected(cell)
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

    def named(self, sensed: Tokens) -> dict[Cell, Piece | None]:
        """Which piece each occupied cell most likely holds, as the words name it: a piece of
        the turn that looks like it, else what the sensors say (its owner; its kind where the
        sensors tell it, or where the owner has one kind in play; else kind "piece")."""
        believed = self._believed(sensed)
        for cell, token in sensed.items():  # no piece of the turn looks like it: the sensors
            if believed.get(cell) is None and isinstance(token, (Player, tuple)):  # say
                owner, kind = (token, "") if isinstance(token, Player) else token
                if not kind:  # the owner's only kind of piece in play, if there is one
                    kinds = {p.kind for x in self.turn_layouts for p in x.values()
                             if p.owner is owner}  # fmt: skip
                    kind = kinds.pop() if len(kinds) == 1 else "piece"
                believed[cell] = Piece(kind, owner)
        return believed

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

    def _options(self) -> list[str]:
        return [words.said(self.state, m, self.people) for m in self.state.legal_moves()]

    def _choice_status(self) -> str:
        move = self.choosing[self.choice]
        said = words.said(self.state, move, self.people)
        return words.look_alike(self.choice + 1, len(self.choosing), said)

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
            return words.addressed(player, words.WAITING)
        names = self.state.game.board.names
        layout = self.state.layout() if layout is None else layout
        believed = self.named(self.sensed)
        by: dict[Signal, list[Cell]] = {}
        for cell, signal in sorted(signals.items()):
            by.setdefault(signal, []).append(cell)

        def pieces(cells: list[Cell], where: Mapping[Cell, Piece | None]) -> str:
            """``White's stone``, ``your stones``, ``Black's pieces``, ``the pieces``."""
            found = [where.get(c) for c in cells]
            known = [p for p in found if p is not None]
            many = len(cells) > 1
            if len(known) < len(found) or not known:
                return words.pieces_said("", "", many)
            owners = {p.owner for p in known}
            kinds = {p.kind for p in known}
            kind = kinds.pop() if len(kinds) == 1 else ""
            if len(owners) > 1:
                return words.pieces_said("", kind, many)
            owner = owners.pop()
            names = self.state.game.player_names
            whose = "your" if owner is actor else words.owner(names, self.people, owner)
            return words.pieces_said(whose, kind, many)

        def on(cells: list[Cell]) -> str:
            return words.join([names[c] for c in cells])

        parts: list[str] = []
        if Signal.REMOVE in by:
            cells = by[Signal.REMOVE]
            parts.append(words.take_off(pieces(cells, believed), on(cells)))
        froms, tos = by.get(Signal.MOVE_FROM, []), list(by.get(Signal.MOVE_TO, []))
        for source in froms:
            dest = self._pairs.get(source)
            if dest is not None and dest in tos:
                tos.remove(dest)
            if dest is None:
                parts.append(words.take_from(pieces([source], believed), names[source]))
            else:
                parts.append(words.move_from_to(pieces([source], believed), names[source],
                                                names[dest]))  # fmt: skip

        def put(cells: list[Cell], back: bool) -> str:
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
            return words.put([(pieces(group, layout), on(group)) for group in groups.values()],
                             back=back)  # fmt: skip

        if tos:
            parts.append(put(tos, False))
        if Signal.ILLEGAL in by:
            cells = by[Signal.ILLEGAL]
            parts.append(words.take_off(pieces(cells, believed), on(cells)))
        if Signal.PUT_BACK in by:
            cells = by[Signal.PUT_BACK]
            parts.append(put(cells, not setup))
        if Signal.ADJUST in by:
            parts.append(words.adjust(on(by[Signal.ADJUST])))
        if Signal.CHOOSE in by:
            parts.append(words.choose_by(self._options()))
        text = "; ".join(parts) or words.WAITING
        return words.addressed(player if sentence else "", text)

    def _next_game_text(self, signals: Mapping[Cell, Signal], target: Mapping[Cell, Piece]) -> str:
        """What setting the board up for the next game takes, once this one is over:
        ``signals``, the guide from the board as sensed to ``target``, the next start."""
        if not target:
            return words.next_game("")
        return words.next_game(
            self._guide_status(signals, "", sentence=False, layout=target, setup=True)
        )

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
        return words.what_on(kinds, cells)


def same_piece(a: Piece, b: Piece) -> bool:
    """The same physical piece kind and owner (a die's pips may differ: that is ADJUST)."""
    return a.kind == b.kind and a.owner is b.owner


def _fits(believed: Piece | None, token: Token, want: Piece, profile: BoardProfile) -> bool:
    if believed is not None:
        return same_piece(believed, want)
    return token != UNREADABLE and token == profile.token(want)


def _distance(a: tuple[float, float], b: tuple[float, float]) -> float:
    return math.hypot(a[0] - b[0], a[1] - b[1])
