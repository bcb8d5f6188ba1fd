"""Protect the Goat (J. Baugher, Vicious Magick): placement on the home row, one-step moves on
light hexes, and automatic battles with combos decided by a rock-paper-scissors capture table.

Rules as implemented, with every interpretation: docs/rules/protect-the-goat.md.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace

from engine.config import Node
from engine.effects import EventKind
from engine.game import JSON, Game, GameState
from engine.moves import NO_CELL, PASS, Cell, Move, MoveKind
from engine.outcome import Outcome
from engine.pieces import Piece
from engine.player import Player

PLACEMENT = "placement"
MOVEMENT = "movement"
BATTLE = "battle"  # decision: the side whose captures come next picks one
SOUTH, NORTH = "south", "north"


@dataclass(frozen=True, slots=True)
class GoatExtra:
    reserve: tuple[tuple[int, ...], tuple[int, ...]]  # unplaced pieces per player, per kind
    south: Player | None  # who sits at the south edge; None until the first placement decides
    initiative: Player | None = None  # in a battle decision: whose move started the battle
    passes: int = 0  # passes in a row


class ProtectTheGoat(Game):
    rules = "protect_the_goat"
    phases = (PLACEMENT, MOVEMENT, BATTLE)
    decision_phases = frozenset({BATTLE})

    @classmethod
    def config_keys(cls) -> tuple[str, ...]:
        return (*super().config_keys(), "counts", "captures", "mutual", "royal", "home_rows")

    def _configure(self, node: Node) -> None:
        board = self.board
        self.kinds: tuple[str, ...] = tuple(self.pieces)
        counts_node = node.get("counts")
        counts = {kind: 0 for kind in self.kinds}
        for name, count_node in counts_node.items():
            counts[self.kind_of(counts_node.key(name))] = count_node.integer(0, 99)
        self.counts = tuple(counts[k] for k in self.kinds)

        self.royal = self.kind_of(node.get("royal"))
        if counts[self.royal] < 1:
            node.get("royal").fail("each player needs at least one piece of the royal kind")
        mutual_node = node.get("mutual", [])
        self.mutual = frozenset(self.kind_of(n) for n in mutual_node.elements())
        beats: dict[str, frozenset[str]] = {}
        captures_node = node.get("captures")
        for name, victims_node in captures_node.items():
            attacker = self.kind_of(captures_node.key(name))
            beats[attacker] = frozenset(self.kind_of(v) for v in victims_node.elements())
        for kind in self.kinds:
            beats.setdefault(kind, frozenset())
            for victim in beats[kind]:
                if kind in beats.get(victim, frozenset()) and kind != victim:
                    captures_node.fail(
                        f"{kind} and {victim} capture each other: list such kinds under "
                        "'mutual' only when they are the same kind"
                    )
                if victim == kind:
                    captures_node.fail(f"{kind} captures its own kind: use 'mutual' for that")
        self.beats = beats
        # The kinds each kind fights (it takes them, they take it, or they destroy each other):
        # a step next to none of them starts no battle.
        self.fights: dict[str, frozenset[str]] = {
            kind: frozenset(
                other for other in beats
                if other in beats[kind] or kind in beats[other]
                or (other == kind and kind in self.mutual)
            )
            for kind in beats
        }  # fmt: skip

        rows = node.get("home_rows")
        rows.only_keys(SOUTH, NORTH)
        self.home_rows: dict[str, tuple[Cell, ...]] = {
            side: tuple(self.cells_of(rows.get(side))) for side in (SOUTH, NORTH)
        }
        for side, cells in self.home_rows.items():
            if any(c in board.blocked for c in cells):
                rows.get(side).fail("a home row cell is dark (blocked)")
            if len(cells) < sum(self.counts):
                rows.get(side).fail(
                    f"the home row has room for {len(cells)} of {sum(self.counts)} pieces"
                )
        if set(self.home_rows[SOUTH]) & set(self.home_rows[NORTH]):
            rows.fail("the two home rows share a cell")
        self.toss_winner = str(self.options.get("toss_winner", SOUTH))
        # Moves go to adjacent light hexes; battles happen between adjacent hexes.
        self.steps = tuple(
            tuple(n for n in board.adjacent[c] if n not in board.blocked) for c in range(board.size)
        )
        # Moves built once, so move generation only walks tables.
        self.step_moves = tuple(
            tuple((n, self.step_move(c, n)) for n in self.steps[c]) for c in range(board.size)
        )
        self.place_moves = tuple(
            tuple(Move.place(kind, c) for kind in self.kinds) for c in range(board.size)
        )

    def meets_a_fight(self, cells: list[Piece | None], piece: Piece, cell: Cell) -> bool:
        """Whether ``piece``, on ``cell`` or stepping there, is next to an enemy it fights:
        only then can its arrival start a battle."""
        fights = self.fights[piece.kind]
        owner = piece.owner
        for neighbour in self.board.adjacent[cell]:
            other = cells[neighbour]
            if other is not None and other.owner is not owner and other.kind in fights:
                return True
        return False

    def home(self, state_south: Player | None, player: Player) -> tuple[Cell, ...]:
        """Cells where ``player`` may place; both home rows while the seats are undecided."""
        if state_south is None:
            return self.home_rows[SOUTH] + self.home_rows[NORTH]
        return self.home_rows[SOUTH if state_south is player else NORTH]


class ProtectTheGoatState(GameState[ProtectTheGoat, GoatExtra]):
    def _setup(self) -> None:
        game = self.game
        south: Player | None = {
            SOUTH: Player.ONE, NORTH: Player.TWO, "first_placement": None
        }[game.toss_winner]  # fmt: skip
        self.extra = GoatExtra((game.counts, game.counts), south)
        self.phase = PLACEMENT if any(game.counts) else MOVEMENT

    # -- move generation --------------------------------------------------------------------
    def _generate(self) -> Iterator[Move]:
        if self.phase == PLACEMENT:
            yield from self._placements()
        elif self.phase == MOVEMENT:
            yield from self._steps()
        else:
            assert self.extra.initiative is not None
            yield from self.battle_options(self.extra.initiative)[0]

    def _placements(self) -> Iterator[Move]:
        cells = self.cells
        place_moves = self.game.place_moves
        reserve = self.extra.reserve[self.to_move.index]
        for cell in self.game.home(self.extra.south, self.to_move):
            if cells[cell] is None:
                for index, count in enumerate(reserve):
                    if count:
                        yield place_moves[cell][index]

    def _steps(self) -> Iterator[Move]:
        cells = self.cells
        player = self.to_move
        step_moves = self.game.step_moves
        any_move = False
        for cell, piece in enumerate(cells):
            if piece is None or piece.owner is not player:
                continue
            for target, move in step_moves[cell]:
                if cells[target] is None:
                    any_move = True
                    yield move
        if not any_move:
            yield PASS

    def captures_by(self, player: Player) -> list[Move]:
        """Every capture ``player``'s pieces can make now, as (attacker, victim) moves."""
        cells = self.cells
        game = self.game
        beats = game.beats
        adjacent = game.board.adjacent
        found: list[Move] = []
        for cell, attacker in enumerate(cells):
            if attacker is None or attacker.owner is not player:
                continue
            wins = beats[attacker.kind]
            for neighbour in adjacent[cell]:
                victim = cells[neighbour]
                if victim is None or victim.owner is player:
                    continue
                if victim.kind in wins or (
                    victim.kind == attacker.kind and attacker.kind in game.mutual
                ):
                    found.append(Move(MoveKind.CAPTURE, cell, neighbour))
        return found

    def battle_options(self, initiative: Player) -> tuple[list[Move], Player]:
        """The captures that may come next and who chooses among them.

        Offensive captures (by the side whose move started the battle) come first; only when
        it has none do the other side's defensive captures happen.
        """
        offensive = self.captures_by(initiative)
        if offensive:
            return offensive, initiative
        return self.captures_by(initiative.other), initiative.other

    # -- applying moves ---------------------------------------------------------------------
    def _play(self, move: Move) -> None:
        player = self.to_move
        names = self.game.board.names
        extra = self.extra
        if move.kind is MoveKind.PASS:
            self._hand_done()
            if self.narrating:
                ends = "" if extra.passes else " (a second pass in a row ends the game in a draw)"
                self._event(EventKind.PASS, f"{self._name(player)} cannot move and passes{ends}")
            self.extra = replace(extra, passes=extra.passes + 1)
            if self.extra.passes >= 2:
                self._draw("neither player can move")
            self._end_turn(player.other, MOVEMENT)
            return
        if move.kind is MoveKind.CAPTURE:
            initiative = extra.initiative
            assert initiative is not None
            self.extra = replace(extra, initiative=None)
            self._fight(move.frm, move.to)
            self._battle(initiative)
            return
        if move.kind is MoveKind.PLACE:
            index = self.game.kinds.index(move.piece)
            reserve = list(extra.reserve)
            own = list(reserve[player.index])
            own[index] -= 1
            reserve[player.index] = tuple(own)
            south = extra.south
            if south is None:
                south = player if move.to in self.game.home_rows[SOUTH] else player.other
            self.extra = replace(extra, reserve=(reserve[0], reserve[1]), south=south, passes=0)
            piece = Piece(move.piece, player)
            self._set(move.to, piece)
            if self.narrating:
                self._event(EventKind.PLACE, f"{self._describe(piece)} placed on {names[move.to]}")
        else:
            walker = self.cells[move.frm]
            assert walker is not None
            self._set(move.frm, None)
            self._set(move.to, walker)
            if extra.passes:
                self.extra = replace(extra, passes=0)
            self._moved(walker, move.frm, move.to)
        self._hand_done()
        self._battle(player, move.to)

    def _starts_no_battle(self, cell: Cell) -> bool:
        """Whether the piece that arrived on ``cell`` is next to no enemy it fights. Between
        turns no battle is left (every battle runs until none is possible, and a loaded
        position with one is refused), so only the arrived piece can start one: a step next
        to no enemy it fights needs no look over the whole board."""
        cells = self.cells
        piece = cells[cell]
        assert piece is not None
        return not self.game.meets_a_fight(cells, piece, cell)

    def _battle(self, initiative: Player, arrived: Cell = NO_CELL) -> None:
        """Resolve captures until none is possible, stopping for a choice or a goat capture.
        ``arrived``: the cell a piece was just stepped or placed on, when the turn so far
        changed nothing else."""
        calm = arrived != NO_CELL and self._starts_no_battle(arrived)
        while self._outcome is None and not calm:
            options, chooser = self.battle_options(initiative)
            if not options:
                break
            if len(options) > 1:
                self.extra = replace(self.extra, initiative=initiative)
                listed = ", ".join(self.notation(m) for m in options)
                self._decide(chooser, BATTLE, f"{self._name(chooser)} chooses a capture: {listed}")
                return
            self._fight(options[0].frm, options[0].to)
        reserve = self.extra.reserve
        if self.phase == PLACEMENT or any(any(r) for r in reserve):
            # Alternate while both have pieces to place; the toss winner moves first after.
            if any(reserve[initiative.other.index]):
                self._end_turn(initiative.other, PLACEMENT, counted=False)
            elif any(reserve[initiative.index]):
                self._end_turn(initiative, PLACEMENT, counted=False)
            else:
                self._end_turn(Player.ONE, MOVEMENT, counted=False)
            return
        self._end_turn(initiative.other, MOVEMENT)

    def _fight(self, attacker_cell: Cell, victim_cell: Cell) -> None:
        """One capture: the attacker takes the victim's hex (opposing yafbeests both go).

        A chosen capture is the hand action up to the attacker standing on the victim's hex,
        as every capture looks on the board; an attacker destroyed with its victim then goes
        as a consequence. So a player may take both yafbeests off at once, or move theirs in
        and take it off as the LEDs ask: the referee sees the same capture either way."""
        attacker = self.cells[attacker_cell]
        victim = self.cells[victim_cell]
        assert attacker is not None and victim is not None
        names = self.game.board.names
        mutual = attacker.kind == victim.kind
        if mutual:
            how = f"together with the {self._describe(attacker)} on {names[attacker_cell]}"
        else:
            how = f"by the {self._describe(attacker)} from {names[attacker_cell]}"
        self._capture(victim_cell, how)
        self._set(attacker_cell, None)
        self._set(victim_cell, attacker)
        self._hand_done()  # a no-op for a forced capture, which is a consequence anyway
        if mutual:
            self._set(victim_cell, None)
            self._event(
                EventKind.CAPTURE,
                f"{self._describe(attacker)} on {names[attacker_cell]} captured "
                "(mutual destruction)",
                attacker_cell,
            )
        if victim.kind == self.game.royal:
            self._win(attacker.owner, f"{self._name(attacker.owner)} captured the {victim.kind}")

    def _explain_illegal(self, move: Move) -> str | None:
        game = self.game
        names = game.board.names
        if move.kind is MoveKind.PLACE:
            if self.phase != PLACEMENT:
                return "all pieces have been placed"
            if move.to not in game.home(self.extra.south, self.to_move):
                return "pieces are placed on the player's own first row"
            if self.cells[move.to] is not None:
                return f"{names[move.to]} is taken"
            return f"no {move.piece} is left to place"
        if move.kind is MoveKind.MOVE:
            if self.phase != MOVEMENT:
                return "pieces are still being placed"
            if move.to in game.board.blocked:
                return f"{names[move.to]} is a dark hex: impassable"
            if move.to not in game.steps[move.frm]:
                return "a piece moves one step to an adjacent hex"
            return f"{names[move.to]} is occupied"
        if move.kind is MoveKind.PASS:
            return "a player may pass only when no move is possible"
        return None

    def _name(self, player: Player) -> str:
        return self.game.player_names[player.index]

    def hint(self) -> str:
        if self.phase == PLACEMENT:
            return "place a piece on your first row"
        if self.phase == MOVEMENT and self.extra.passes == 1:
            return "if you cannot move either, passing ends the game in a draw"
        return ""

    def reserve(self, player: Player) -> dict[str, int]:
        counts = self.extra.reserve[player.index]
        return {k: n for k, n in zip(self.game.kinds, counts, strict=True) if n}

    def status_lines(self) -> list[str]:
        # What is still to place is ``reserve``: a face says it in its own words.
        if self.extra.south is not None:
            return [f"{self._name(self.extra.south)} sits at the south edge"]
        return []

    # -- positions --------------------------------------------------------------------------
    def _extra_keys(self) -> tuple[str, ...]:
        return ("reserve", "south", "initiative", "passes")

    def _extra_to_json(self) -> JSON:
        kinds = self.game.kinds
        extra = self.extra
        data: JSON = {
            "reserve": {
                str(int(p)): {k: n for k, n in zip(kinds, extra.reserve[p.index], strict=True)}
                for p in Player
            },
            "south": None if extra.south is None else int(extra.south),
            "passes": extra.passes,
        }
        if extra.initiative is not None:
            data["initiative"] = int(extra.initiative)
        return data

    def _extra_from_json(self, node: Node) -> None:
        game = self.game
        reserve: list[tuple[int, ...]] = []
        reserve_node = node.get("reserve", {})
        reserve_node.only_keys("1", "2")
        for player in Player:
            counts = dict.fromkeys(game.kinds, 0)
            side = reserve_node.get(str(int(player)), {})
            for name, count_node in side.items():
                counts[game.kind_of(side.key(name))] = count_node.integer(0, 99)
            reserve.append(tuple(counts[k] for k in game.kinds))
        south: Player | None = None
        south_node = node.get("south", 1)
        if south_node.value is not None:
            south = _player(south_node)
        initiative: Player | None = None
        if self.phase == BATTLE:
            initiative = _player(node.get("initiative"))
        elif node.has("initiative"):
            node.get("initiative").fail("only a position in the battle phase has this key")
        passes = node.get("passes", 0).integer(0, 1)
        self.extra = GoatExtra((reserve[0], reserve[1]), south, initiative, passes)

    def _check_position(self, node: Node) -> None:
        game = self.game
        extra = self.extra
        for player in Player:
            on_board = [0] * len(game.kinds)
            for piece in self.cells:
                if piece is not None and piece.owner is player:
                    on_board[game.kinds.index(piece.kind)] += 1
            for index, kind in enumerate(game.kinds):
                total = on_board[index] + extra.reserve[player.index][index]
                if total > game.counts[index]:
                    node.fail(
                        f"player {int(player)} has {total} {kind} pieces; the game has "
                        f"{game.counts[index]}"
                    )
        in_reserve = any(any(r) for r in extra.reserve)
        if self.phase == PLACEMENT:
            if not in_reserve:
                node.get("phase").fail("no piece is left to place")
            if extra.south is None and any(p is not None for p in self.cells):
                node.get("south").fail("say who sits south once pieces are placed")
            free = [c for c in game.home(extra.south, self.to_move) if self.cells[c] is None]
            if len(free) < sum(extra.reserve[self.to_move.index]):
                node.fail("the player to move has more pieces to place than free home cells")
        elif in_reserve:
            node.get("phase").fail("pieces are still to be placed: the phase is placement")
        if extra.south is None and game.toss_winner != "first_placement":
            node.get("south").fail("say which player (1 or 2) sits at the south edge")
        if self.phase == BATTLE:
            assert extra.initiative is not None
            options, chooser = self.battle_options(extra.initiative)
            if len(options) < 2 or chooser is not self.to_move:
                node.get("initiative").fail(
                    "no battle choice for the player to move in this position"
                )
        else:
            pending = self.captures_by(Player.ONE) + self.captures_by(Player.TWO)
            if pending:
                names = game.board.names
                fight = pending[0]
                node.get("layout").fail(
                    f"the pieces on {names[fight.frm]} and {names[fight.to]} would already "
                    "have fought: a position between turns has no battle left"
                )

    def _position_outcome(self) -> Outcome | None:
        royal = self.game.kinds.index(self.game.royal)
        for player in (self.to_move, self.to_move.other):
            on_board = any(
                p is not None and p.owner is player and p.kind == self.game.royal
                for p in self.cells
            )
            if not on_board and not self.extra.reserve[player.index][royal]:
                return Outcome(player.other, f"{self._name(player)} has no {self.game.royal}")
        return None


def _player(node: Node) -> Player:
    try:
        return Player.parse(node.value)
    except ValueError as exc:
        node.fail(str(exc))


ProtectTheGoat.state_class = ProtectTheGoatState
