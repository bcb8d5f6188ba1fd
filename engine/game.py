"""``Game`` (immutable, built from config) and ``State`` (mutable position), OpenSpiel-style.

A game module subclasses both. The base classes own everything that is the same for every game:
the cell array, whose turn it is, the phase, the undo stack, move notation, draw rules (no
capture for N moves, repeated positions), the JSON position form, and the bookkeeping that turns
every apply into a physical ``Effect``: which cells the player's hand changed, and which cells
automatic consequences changed after that. Rules code only calls ``_set`` / ``_capture`` /
``_end_turn`` / ``_decide`` / ``_win``; the footprint of a move falls out of that log.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Hashable, Iterator, Mapping
from types import MappingProxyType
from typing import Any, ClassVar, Final, Generic, Self, TypeVar

from engine import notation
from engine.board import Board, build_board
from engine.config import Node
from engine.effects import Effect, EventKind, Footprint, MoveRecord
from engine.errors import IllegalMoveError, PositionError
from engine.moves import Cell, Move, MoveKind
from engine.notes import Note
from engine.options import OptionSpec, OptionValue, parse_option_specs, resolve_options
from engine.outcome import Outcome
from engine.pieces import Piece, PieceKind
from engine.player import Player
from engine.seen import SeenPosition

JSON = dict[str, Any]


class Game(ABC):
    """Static description of one game with its options applied. Never changes after load."""

    rules: ClassVar[str]  # the registry id named by ``rules:`` in the config
    phases: ClassVar[tuple[str, ...]]  # every phase name; the first is where play starts
    decision_phases: ClassVar[frozenset[str]] = frozenset()
    state_class: ClassVar[type[State]]

    def __init__(self, node: Node, given_options: Mapping[str, object]) -> None:
        node.only_keys(*self.config_keys())
        self.source = node.source
        self.id = node.get("id").text()
        self.title = node.get("title", self.id).text()
        self.player_names: tuple[str, str] = _parse_players(node.get("players", {}))
        self.pieces: Mapping[str, PieceKind] = MappingProxyType(_parse_pieces(node.get("pieces")))
        self.kind_by_symbol: Mapping[str, str] = MappingProxyType(
            {kind.symbol: kind.name for kind in self.pieces.values()}
        )
        self.option_specs: Mapping[str, OptionSpec] = MappingProxyType(
            parse_option_specs(node.get("options", {}))
        )
        self.options: Mapping[str, OptionValue] = MappingProxyType(
            resolve_options(self.option_specs, given_options, f"options for {self.id}")
        )
        self.board: Board = build_board(self._board_node(node.get("board")))
        self._step_moves: dict[tuple[Cell, Cell], Move] = {}
        self._descriptions: tuple[dict[object, str], dict[object, str]] = ({}, {})
        self.draw_after = int(self.options.get("draw_after", 0))
        self.repetitions = int(self.options.get("repetitions", 0))
        self._configure(node)

    def _board_node(self, node: Node) -> Node:
        """The board description; ``{option: NAME, boards: {value: board}}`` picks one by an
        option's value (a game playable on several boards)."""
        if not node.has("option"):
            return node
        node.only_keys("option", "boards")
        name = node.get("option").text()
        spec = self.option_specs.get(name)
        if spec is None or spec.type != "choice":
            node.get("option").fail(f"{name!r} is not a choice option of this game")
        boards = node.get("boards")
        missing = [value for value in spec.choices if not boards.has(value)]
        if missing:
            boards.fail(f"no board for {name}={missing[0]}")
        return boards.get(str(self.options[name]))

    def kinds_in_play(self) -> tuple[str, ...]:
        """The piece kinds a game with these options uses (a box of pieces offers only these,
        a key explains only these). Default: every kind the config declares."""
        return tuple(self.pieces)

    def pieces_entering(self) -> int:
        """How many pieces the rules bring onto the board during a game, beyond the start
        position and the players' reserves (Three Dragons' dragons): a set holds them too."""
        return 0

    @classmethod
    def config_keys(cls) -> tuple[str, ...]:
        """Top-level keys a config for this game may have."""
        return ("rules", "id", "title", "doc", "players", "board", "pieces", "options")

    @abstractmethod
    def _configure(self, node: Node) -> None:
        """Read and check the game-specific parts of the config."""

    def __repr__(self) -> str:
        options = ", ".join(f"{k}={v}" for k, v in self.options.items())
        return f"<{type(self).__name__} {self.id} ({options})>"

    # -- states -----------------------------------------------------------------------------
    def new_state(self) -> State:
        state = self.state_class(self)
        state._setup()
        if self.repetitions:
            state._remember()
        return state

    def state_from_json(self, data: object) -> State:
        """A position in the JSON form that ``State.to_json`` writes (see docs/moves-command.md)."""
        node = Node(data, "position", error=PositionError)
        state = self.state_class(self)
        state._load_json(node)
        if self.repetitions:
            state._remember()
        return state

    # -- notation (notation.py) -------------------------------------------------------------
    def move_text(self, move: Move) -> str:
        return notation.move_text(self, move)

    def parse_move(self, text: str) -> Move:
        """Inverse of ``move_text``. Raises InvalidMoveError for text that names no move."""
        return notation.parse_move(self, text)

    # -- helpers for subclasses -------------------------------------------------------------
    def describe(self, piece: Piece) -> str:
        """``White rhinoceros``, ``Player 1 die (5)``: made once per piece value, since every
        move's event text names one."""
        # Keyed by owner, then kind (and state): the pieces on a board are equal to, but seldom
        # the same objects as, the ones first described, and comparing pieces costs more than
        # comparing their kind names.
        by_kind = self._descriptions[piece.owner.index]
        key = piece.kind if piece.state is None else (piece.kind, piece.state)
        text = by_kind.get(key)
        if text is None:
            name = self.player_names[piece.owner.index]
            state = "" if piece.state is None else f" ({piece.state})"
            text = by_kind[key] = f"{name} {piece.kind}{state}"
        return text

    def step_move(self, frm: Cell, to: Cell) -> Move:
        """The MOVE from ``frm`` to ``to``, built once: rules code yields these from tables."""
        return self._step_moves.setdefault((frm, to), Move(MoveKind.MOVE, frm, to))

    def setup_of(self, node: Node) -> tuple[tuple[tuple[Cell, str], ...], ...]:
        """``{1: {cell: kind}, 2: {cell: kind}}``: each player's starting pieces."""
        node.only_keys("1", "2")
        return tuple(
            tuple(
                (self.cell_of(node.get(str(int(p))).key(name)), self.kind_of(kind_node))
                for name, kind_node in node.get(str(int(p))).items()
            )
            for p in Player
        )

    def cells_of(self, node: Node) -> list[Cell]:
        return [self.cell_of(element) for element in node.elements()]

    def cell_of(self, node: Node) -> Cell:
        name = node.text()
        if name not in self.board.index:
            node.fail(f"unknown cell {name!r}")
        return self.board.index[name]

    def kind_of(self, node: Node) -> str:
        name = node.text()
        if name not in self.pieces:
            node.fail(f"unknown piece kind {name!r} (known: {', '.join(self.pieces)})")
        return name


def _parse_players(node: Node) -> tuple[str, str]:
    names = ["Player 1", "Player 2"]
    for key, name_node in node.items():
        if key not in ("1", "2"):
            name_node.fail("players are numbered 1 and 2")
        names[int(key) - 1] = name_node.text()
    if names[0] == names[1]:
        node.fail("the two players need different names")
    return names[0], names[1]


def _parse_pieces(node: Node) -> dict[str, PieceKind]:
    kinds: dict[str, PieceKind] = {}
    symbols: set[str] = set()
    for name, kind_node in node.items():
        kind_node.only_keys("symbol", "state", "doc")
        symbol = kind_node.get("symbol").text()
        if len(symbol) != 1 or not symbol.isalpha() or not symbol.isupper():
            kind_node.get("symbol").fail("a symbol is one capital letter")
        if symbol in symbols:
            kind_node.get("symbol").fail(f"symbol {symbol} is used twice")
        symbols.add(symbol)
        doc = kind_node.get("doc").text() if kind_node.has("doc") else ""
        kinds[name] = PieceKind(name, symbol, kind_node.get("state", False).boolean(), doc)
    if not kinds:
        node.fail("a game needs at least one kind of piece")
    return kinds


_UNKNOWN: Final[Any] = object()


# Covariant: a game's state is a ``State`` (its game is a ``Game``, its extra ``Hashable``).
GameT_co = TypeVar("GameT_co", bound=Game, covariant=True)
ExtraT_co = TypeVar("ExtraT_co", bound=Hashable, covariant=True)


class GameState(ABC, Generic[GameT_co, ExtraT_co]):
    """A position and its history. Mutable: ``apply`` and ``undo`` change it in place.

    Generic in its game and its game-specific state, so a game's rules code sees its own
    ``Game`` subclass and ``extra`` with their types (and a compiled build knows them too).
    A game's state class derives from ``GameState[ItsGame, ItsExtra]``; code that takes any
    game's state says ``State``."""

    # Whether a position's whole move list is cheap enough to make at once: then ``outcome()``
    # (asked by every ``apply``) lists the moves and ``legal_moves()`` hands out that list,
    # instead of generating twice. A game whose first move is quick and whole list costly: off.
    list_moves_once: ClassVar[bool] = False

    def __init__(self, game: GameT_co) -> None:
        self.game: GameT_co = game
        self.cells: list[Piece | None] = [None] * game.board.size
        self.to_move = Player.ONE
        self.phase = game.phases[0]
        # Game-specific immutable state (a frozen dataclass), set by ``_setup``.
        self.extra: ExtraT_co = None  # type: ignore[assignment]
        self.quiet = 0  # counted turns since the last capture, for the draw_after rule
        self.turn_captured = False  # a capture happened in the turn in progress
        self._outcome: Outcome | None = None
        self._stack: list[MoveRecord] = []
        self._seen: dict[SeenPosition, int] = {}
        self._record: MoveRecord | None = None
        self._in_hand = False
        self._lazy: Any = _UNKNOWN  # cached outcome() for "no legal move" positions
        self._moves: list[Move] | None = None  # this position's moves, with list_moves_once
        self._legal: frozenset[Move] | None = None  # the same as a set, once a move is checked
        # Read on every apply: kept on the instance, where a compiled build reads them directly.
        self._list_once: bool = self.list_moves_once
        self._decision_phases: frozenset[str] = game.decision_phases

    # -- what rules code implements ---------------------------------------------------------
    @abstractmethod
    def _setup(self) -> None:
        """Put the start position in place (cells, to_move, phase, extra)."""

    @abstractmethod
    def _generate(self) -> Iterator[Move]:
        """Legal moves of the current phase, ignoring whether the game has ended."""

    def _list_moves(self) -> list[Move]:
        """All of ``_generate``'s moves, for a game that lists them at once (list_moves_once);
        such a game may build its list here directly and generate from it."""
        return list(self._generate())

    @abstractmethod
    def _play(self, move: Move) -> None:
        """Carry out a legal move through ``_set`` etc., then the forced consequences."""

    def _no_moves_outcome(self) -> Outcome | None:
        """Outcome when the player to move has no legal move. Default: that player loses."""
        return Outcome(self.to_move.other, "opponent has no legal move")

    def _extra_to_json(self) -> JSON:
        return {}

    @abstractmethod
    def _extra_from_json(self, node: Node) -> None:
        """Read game-specific position keys; must set ``self.extra``."""

    @abstractmethod
    def _check_position(self, node: Node) -> None:
        """Reject a loaded position the rules cannot reach or handle."""

    def _position_outcome(self) -> Outcome | None:
        """For a loaded position: an outcome already decided by the layout."""
        return None

    def _extra_keys(self) -> tuple[str, ...]:
        return ()

    def _royal_missing(self, kind: str, how: str) -> Outcome | None:
        """For a loaded position: the game is won by whoever still has a ``kind`` (the piece
        whose capture wins) when the other side has none."""
        for player in (self.to_move, self.to_move.other):
            if not any(p is not None and p.owner is player and p.kind == kind
                       for p in self.cells):  # fmt: skip
                name = self.game.player_names[player.other.index]
                return Outcome(player.other, f"{name} {how}")
        return None

    def status_lines(self) -> list[str]:
        """Game state that is not on the board, in words (reserves, tamed caves, scores)."""
        return []

    def hint(self) -> str:
        """What the player to move does now, in a few words, beyond "to move" (default: "")."""
        return ""

    def notes(self) -> dict[Cell, Note]:
        """Per cell, piece state the sensors cannot see (a stuck or immobilised piece, a
        charge), for LED marks and the display. Default: none."""
        return {}

    def scores(self) -> dict[Player, int] | None:
        """Each player's score, for games that keep one (None: the game has no score)."""
        return None

    def reserve(self, player: Player) -> dict[str, int]:
        """The pieces ``player`` still has to place, by kind (none: no placement phase)."""
        return {}

    # -- public API -------------------------------------------------------------------------
    @property
    def deciding(self) -> bool:
        """A decision is pending: the legal moves are the choosing player's options."""
        return self.phase in self.game.decision_phases

    def legal_moves(self) -> Iterator[Move]:
        """The legal moves, generated lazily (none once the game is over)."""
        if self._outcome is None and self._moves is None and not self._list_once:
            return self._generate()
        return iter(self.move_list())

    def move_list(self) -> list[Move]:
        """The legal moves as a list not to be changed: a playout's, without a copy."""
        if self._outcome is not None:
            return []
        if (moves := self._moves) is None:
            if not self._list_once:
                return list(self._generate())
            moves = self._moves = self._list_moves()
        return moves

    def is_legal(self, move: Move) -> bool:
        if self._legal is None:  # kept: checking each of a position's moves lists them once
            self._legal = frozenset(self.legal_moves())
        return move in self._legal

    def outcome(self) -> Outcome | None:
        if self._outcome is not None:
            return self._outcome
        if self._lazy is _UNKNOWN:
            if self._list_once:
                moves = self._moves
                if moves is None:
                    moves = self._moves = self._list_moves()
                has_move = bool(moves)
            else:
                has_move = next(iter(self._generate()), None) is not None
            self._lazy = None if has_move else self._no_moves_outcome()
        result: Outcome | None = self._lazy
        return result

    def layout(self) -> dict[Cell, Piece]:
        return {cell: piece for cell, piece in enumerate(self.cells) if piece is not None}

    def piece_at(self, cell: Cell) -> Piece | None:
        return self.cells[cell]

    def notation(self, move: Move) -> str:
        """``move`` as the player to move writes it: a placement by player 2 in lower case
        (``s@c6``), as their pieces are drawn, so the journal, the log and the emulator's hands
        share one notation. ``parse`` reads either case."""
        text = self.game.move_text(move)
        if move.kind is MoveKind.PLACE and self.to_move is Player.TWO:
            return text[0].lower() + text[1:]
        return text

    def parse(self, text: str) -> Move:
        return self.game.parse_move(text)

    @property
    def plies(self) -> int:
        return len(self._stack)

    @property
    def last_mover(self) -> Player | None:
        """Who made the last applied move (or decision); None at the start."""
        return self._stack[-1].player if self._stack else None

    @property
    def history(self) -> list[Move]:
        return [record.move for record in self._stack]

    def apply(self, move: Move, *, check: bool = True) -> Effect:
        """Play ``move`` and its forced consequences. With ``check``, reject illegal moves."""
        if move.is_declared:
            return self._declare(move)
        if check:
            self._check_legal(move)
        known = (self._lazy, self._moves, self._legal)
        record = MoveRecord(move, self.to_move, self._snapshot(), known)
        self._record = record
        self._in_hand = True
        try:
            self._play(move)
        except BaseException:
            self._stack.append(record)
            self._record = None
            self.undo()
            raise
        self._record = None
        self._stack.append(record)
        self._lazy, self._moves, self._legal = _UNKNOWN, None, None  # a new position
        phase = self.phase
        return Effect(record, self.to_move, phase, phase in self._decision_phases, self.outcome())

    def push(self, move: Move) -> None:
        """Play ``move`` (legal: not checked) keeping nothing: no undo, no words, no ``Effect``;
        the search's playouts, on a throwaway copy, by the same rules code. Empties the stack."""
        self._stack.clear()
        self._in_hand = True
        self._play(move)
        self._lazy, self._moves, self._legal = _UNKNOWN, None, None  # a new position

    @property
    def narrating(self) -> bool:
        """Whether a move's words are kept (``apply``, not ``push``): else rules skip them."""
        return self._record is not None

    def _declare(self, move: Move) -> Effect:
        """A declared result (a resignation, a flag fall, an agreed draw); ``undo`` withdraws it."""
        outcome = self.outcome()
        if outcome is not None:
            raise IllegalMoveError(f"the game is over ({outcome.describe(self.game.player_names)})")
        one_side = move.kind in (MoveKind.RESIGN, MoveKind.TIME)
        if one_side and move.piece not in ("1", "2"):
            raise IllegalMoveError(f"{move.piece!r}: a resignation or flag fall is a player's")
        known = (self._lazy, self._moves, self._legal)
        player = Player(int(move.piece)) if one_side else self.to_move
        record = MoveRecord(move, player, self._snapshot(), known)
        self._record = record
        if one_side:
            how = "resigned" if move.kind is MoveKind.RESIGN else "lost on time"
            self._win(player.other, f"{self.game.player_names[player.index]} {how}")
        else:
            self._draw("agreed by the players")
        self._record = None
        self._stack.append(record)
        self._lazy, self._moves, self._legal = _UNKNOWN, None, None
        return Effect(record, self.to_move, self.phase, False, self._outcome)

    def undo(self) -> Move:
        """Take back the last applied move (a hand move or a decision) with its consequences."""
        if not self._stack:
            raise IllegalMoveError("there is no move to take back")
        record = self._stack.pop()
        cells = self.cells
        for cell, before, _ in reversed(record.auto):
            cells[cell] = before
        for cell, before, _ in reversed(record.hand):
            cells[cell] = before
        self._restore(record.snapshot)
        if record.seen_key is not None:
            count = self._seen.pop(record.seen_key) - 1
            if count:
                self._seen[record.seen_key] = count
        self._lazy, self._moves, self._legal = record.known  # as found before the move
        return record.move

    def copy(self, *, stack: bool = True) -> Self:
        """An independent copy; with ``stack`` it can also undo the moves played so far."""
        clone = type(self)(self.game)
        clone.cells = list(self.cells)
        clone._restore(self._snapshot())  # whose turn, the phase, the game's state, the draw count
        clone._stack = list(self._stack) if stack else []
        clone._seen = dict(self._seen)
        clone._lazy, clone._moves, clone._legal = self._lazy, self._moves, self._legal
        return clone

    def footprint(self, move: Move) -> Footprint:
        """Where ``move`` (checked for legality) leaves the board; the state is unchanged."""
        effect = self.apply(move)
        self.undo()
        return effect.footprint()

    def footprints(self) -> Iterator[Footprint]:
        """The footprint of every legal move."""
        for move in list(self.legal_moves()):
            effect = self.apply(move, check=False)
            self.undo()
            yield effect.footprint()

    def same_position(self, other: State) -> bool:
        """Same game, layout, player, phase and game state (the history may differ)."""
        return (
            self.game is other.game
            and self.cells == other.cells
            and self._snapshot() == other._snapshot()
        )

    def to_json(self) -> JSON:
        outcome = self.outcome()
        data: JSON = {
            "game": self.game.id,
            "options": dict(self.game.options),
            "to_move": int(self.to_move),
            "phase": self.phase,
            "outcome": None if outcome is None else outcome.to_json(),
            "layout": {
                name: piece.to_json()
                for name, piece in zip(self.game.board.names, self.cells, strict=True)
                if piece is not None
            },
            "quiet_moves": self.quiet,
        }
        data.update(self._extra_to_json())
        return data

    # -- helpers for rules code -------------------------------------------------------------
    def _set(self, cell: Cell, piece: Piece | None) -> None:
        cells = self.cells
        if (record := self._record) is not None:  # inside apply (push keeps nothing)
            (record.hand if self._in_hand else record.auto).append((cell, cells[cell], piece))
        cells[cell] = piece

    def _hand_done(self) -> None:
        """Everything ``_set`` from now on is an automatic consequence, not the hand action."""
        self._in_hand = False

    def _event(self, kind: EventKind, text: str, *cells: Cell) -> None:
        if self._record is not None:
            self._record.events.append((kind, text, cells))

    def _moved(self, piece: Piece, frm: Cell, to: Cell) -> None:
        """Record that ``piece`` went from ``frm`` to ``to``."""
        if (record := self._record) is None:
            return
        names = self.game.board.names
        text = f"{self.game.describe(piece)} {names[frm]}-{names[to]}"
        record.events.append((EventKind.MOVE, text, (frm, to)))

    def _capture(self, cell: Cell, how: str) -> Piece:
        piece = self.cells[cell]
        assert piece is not None, "capturing an empty cell"
        self._set(cell, None)
        self.turn_captured = True
        if self._record is not None:
            text = f"{self._describe(piece)} on {self.game.board.names[cell]} captured {how}"
            self._record.events.append((EventKind.CAPTURE, text, (cell,)))
        return piece

    def _decide(self, chooser: Player, phase: str, text: str) -> None:
        """Stop resolving: ``chooser`` must pick one of the options of ``phase``."""
        assert phase in self.game.decision_phases
        self.to_move = chooser
        self.phase = phase
        self._event(EventKind.DECISION, text)

    def _win(self, winner: Player | None, reason: str) -> None:
        """The game ends: ``winner`` wins (None: a draw) for ``reason``."""
        self._outcome = Outcome(winner, reason)
        if self._record is not None:
            self._event(EventKind.END, self._outcome.describe(self.game.player_names))

    def _draw(self, reason: str) -> None:
        self._win(None, reason)

    def _end_turn(self, next_player: Player, phase: str, *, counted: bool = True) -> None:
        """The turn is over: hand over to ``next_player`` and apply the draw rules."""
        self.to_move = next_player
        self.phase = phase
        if counted:
            self.quiet = 0 if self.turn_captured else self.quiet + 1
        self.turn_captured = False
        if self._outcome is not None:
            return
        if self.game.draw_after and self.quiet >= self.game.draw_after:
            self._outcome = Outcome(None, f"no capture in {self.game.draw_after} moves")
        # Positions are only remembered when the rule is on.
        if self.game.repetitions and self._remember() >= self.game.repetitions:
            self._outcome = Outcome(None, f"position repeated {self.game.repetitions} times")
        if self._outcome is not None and self._record is not None:
            self._event(EventKind.END, self._outcome.describe(self.game.player_names))

    def _remember(self) -> int:
        """Count this position for the repetition rule; how often it has now been seen."""
        key = SeenPosition(tuple(self.cells), self.to_move, self.phase, self.extra)
        seen = self._seen
        count = seen.get(key, 0) + 1
        seen[key] = count
        if self._record is not None:
            self._record.seen_key = key
        return count

    def _describe(self, piece: Piece) -> str:
        return self.game.describe(piece)

    def _snapshot(self) -> tuple[Any, ...]:
        return (self.to_move, self.phase, self.extra, self.quiet, self.turn_captured, self._outcome)

    def _restore(self, snapshot: tuple[Any, ...]) -> None:
        (
            self.to_move,
            self.phase,
            self.extra,
            self.quiet,
            self.turn_captured,
            self._outcome,
        ) = snapshot

    def _check_legal(self, move: Move) -> None:
        outcome = self.outcome()
        if outcome is not None:
            raise IllegalMoveError(f"the game is over ({outcome.describe(self.game.player_names)})")
        if not self.is_legal(move):
            raise IllegalMoveError(self._why_illegal(move))

    def _why_illegal(self, move: Move) -> str:
        text = self.notation(move)
        player = self.game.player_names[self.to_move.index]
        if self.deciding:
            options = ", ".join(self.notation(m) for m in self.legal_moves())
            return f"{text} is not one of {player}'s choices now ({options})"
        if move.kind in (MoveKind.MOVE, MoveKind.CAPTURE):
            piece = self.cells[move.frm]
            if piece is None or piece.owner is not self.to_move:
                where = self.game.board.names[move.frm]
                return f"{text}: {player} has no piece on {where}"
        reason = self._explain_illegal(move)
        detail = f": {reason}" if reason else ""
        return f"{text} is not legal for {player} in the {self.phase} phase{detail}"

    def why_illegal(self, move: Move) -> str:
        """Why ``move`` is not legal now, in one short clause for the players ("the way is
        blocked at c5", "that is Black's piece"); "" where the game cannot say."""
        if move.kind in (MoveKind.MOVE, MoveKind.CAPTURE):
            piece = self.cells[move.frm]
            if piece is not None and piece.owner is not self.to_move:
                return f"that is {self.game.player_names[piece.owner.index]}'s piece"
        try:
            return self._explain_illegal(move) or ""
        except (IndexError, KeyError, ValueError):  # a guess at a move may fit no rule at all
            return ""

    def _explain_illegal(self, move: Move) -> str | None:
        """Why an illegal move is illegal, in words a player understands, where the game knows."""
        return None

    # -- JSON positions ---------------------------------------------------------------------
    def _load_json(self, node: Node) -> None:
        game = self.game
        allowed = (
            "game", "options", "to_move", "phase", "outcome", "layout", "quiet_moves",
            *self._extra_keys(),
        )  # fmt: skip
        node.only_keys(*allowed)
        if node.has("game") and node.get("game").text() != game.id:
            node.get("game").fail(f"this position is for {node.get('game').value}, not {game.id}")
        if node.has("options"):
            for name, value_node in node.get("options").items():
                if (
                    name in game.options
                    and str(game.options[name]).lower() != str(value_node.value).lower()
                ):
                    value_node.fail(
                        f"position was made with {name}={value_node.value}, "
                        f"but the game has {name}={game.options[name]}"
                    )
        for name, piece_node in node.get("layout").items():
            cell = game.board.index.get(name)
            if cell is None:
                piece_node.fail(f"{game.id} has no cell {name!r}")
            if cell in game.board.blocked:
                piece_node.fail("nothing can stand on a blocked cell")
            self.cells[cell] = self._piece_from_json(piece_node)
        to_move = node.get("to_move")
        try:
            self.to_move = Player.parse(to_move.value)
        except ValueError as exc:
            to_move.fail(str(exc))
        self.phase = node.get("phase", game.phases[0]).choice(game.phases)
        self.quiet = node.get("quiet_moves", 0).integer(0)
        self._extra_from_json(node)
        self._check_position(node)
        self._outcome = self._position_outcome()

    def _piece_from_json(self, node: Node) -> Piece:
        node.only_keys("owner", "piece", "state")
        kind = self.game.kind_of(node.get("piece"))
        try:
            owner = Player.parse(node.get("owner").value)
        except ValueError as exc:
            node.get("owner").fail(str(exc))
        state: int | None = None
        if self.game.pieces[kind].has_state:
            state = node.get("state").integer()
        elif node.has("state"):
            node.get("state").fail(f"a {kind} has no state")
        return Piece(kind, owner, state)


State = GameState[Game, Hashable]
"""Any game's state, for code that is not one game's rules."""
