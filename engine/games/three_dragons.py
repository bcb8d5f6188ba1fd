"""Three Dragons (Scott Allen Czysz): rook moves, custodial capture against pieces, mountains
and caves; variants "strength" (dice that capture weaker neighbours) and "dragons".

Rules as implemented, with every interpretation: docs/rules/three-dragons.md.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace

from engine.board import ORTHOGONAL
from engine.config import Node
from engine.effects import EventKind
from engine.game import JSON, Game, GameState
from engine.moves import NO_CELL, Cell, Move, MoveKind
from engine.outcome import Outcome
from engine.pieces import Piece
from engine.player import Player

MOVE_PHASE = "move"
CAPTURE_PHASE = "capture"  # decision: which capture the mover makes
CUSTODIAL = "custodial"
STRENGTH = "strength"
MAX_STRENGTH = 6  # the pips of a D6


@dataclass(frozen=True, slots=True)
class DragonsExtra:
    tamed: frozenset[Cell] = frozenset()  # caves whose dragon has come out (one per cave, ever)
    pending: Cell = NO_CELL  # in the capture phase: where the moved piece stands


@dataclass(frozen=True, slots=True)
class CaptureOption:
    how: str  # CUSTODIAL (every sandwiched piece) or STRENGTH (one weaker neighbour)
    cells: tuple[Cell, ...]


class ThreeDragons(Game):
    rules = "three_dragons"
    phases = (MOVE_PHASE, CAPTURE_PHASE)
    decision_phases = frozenset({CAPTURE_PHASE})

    @classmethod
    def config_keys(cls) -> tuple[str, ...]:
        return (*super().config_keys(), "setup", "dragons")

    def kinds_in_play(self) -> tuple[str, ...]:
        if self.uses_dragons:
            return ("die", "dragon")
        return ("die",) if self.uses_strength else ("stone",)

    def pieces_entering(self) -> int:
        return len(self.caves) if self.uses_dragons else 0  # a dragon a cave, once

    def _configure(self, node: Node) -> None:
        board = self.board
        variant = str(self.options.get("variant", "base"))
        self.variant = variant
        self.uses_strength = variant in ("strength", "dragons")
        self.uses_dragons = variant == "dragons"
        for kind in ("stone", "die", "dragon"):
            if kind not in self.pieces:
                node.get("pieces").fail(f"Three Dragons needs a piece kind called {kind!r}")
        if not self.pieces["die"].has_state or not self.pieces["dragon"].has_state:
            node.get("pieces").fail("dice and dragons carry a strength: give them 'state: true'")
        regions = node.get("board").get("regions")
        self.mountains = frozenset(self.cells_of(regions.get("mountains")))
        self.caves = frozenset(self.cells_of(regions.get("caves")))
        if self.mountains & self.caves:
            regions.fail("a cell cannot be both a mountain and a cave")
        # Cells nothing may cross or stop on. Caves are also anvils while empty.
        self.walls = self.mountains | board.blocked
        self.obstacles = self.walls | self.caves

        setup_node = node.get("setup")
        setup_node.only_keys("1", "2")
        self.setup: tuple[tuple[tuple[Cell, int], ...], ...] = tuple(
            self._read_setup(setup_node.get(str(int(player)))) for player in Player
        )
        taken = [cell for side in self.setup for cell, _ in side]
        if len(set(taken)) != len(taken):
            setup_node.fail("the two players' set-ups share a cell")

        dragons_node = node.get("dragons")
        self.dragon_strength: dict[Cell, int] = {}
        for name, strength_node in dragons_node.items():
            cave = board.index.get(name, NO_CELL)
            if cave not in self.caves:
                strength_node.fail(f"{name} is not a cave")
            self.dragon_strength[cave] = strength_node.integer(1, MAX_STRENGTH)
        if set(self.dragon_strength) != self.caves:
            dragons_node.fail("give a dragon strength for every cave")

        step = board.step
        self.orthogonal_steps = tuple(step[d] for d in ORTHOGONAL)
        # Rays cut at the first mountain or cave (pieces never cross them), with the move that
        # stops on each cell, so move generation only walks tables.
        open_rays: list[tuple[tuple[tuple[Cell, Move], ...], ...]] = []
        for cell in range(board.size):
            rays = []
            for direction in ORTHOGONAL:
                ray: list[tuple[Cell, Move]] = []
                for target in board.rays[direction][cell]:
                    if target in self.obstacles:
                        break
                    ray.append((target, self.step_move(cell, target)))
                if ray:
                    rays.append(tuple(ray))
            open_rays.append(tuple(rays))
        self.open_rays = tuple(open_rays)
        self.cave_rings = {
            cave: tuple(step[d][cave] for d in ORTHOGONAL if step[d][cave] != NO_CELL)
            for cave in sorted(self.caves)
        }

    def _read_setup(self, node: Node) -> tuple[tuple[Cell, int], ...]:
        placements: list[tuple[Cell, int]] = []
        for name, strength_node in node.items():
            cell = self.board.index.get(name)
            if cell is None:
                strength_node.fail(f"unknown cell {name!r}")
            if cell in self.obstacles:
                strength_node.fail(f"{name} is a mountain or cave: no piece may stand there")
            placements.append((cell, strength_node.integer(1, MAX_STRENGTH)))
        if len(placements) < 2:
            node.fail("each player needs at least two pieces (one piece loses at once)")
        return tuple(sorted(placements))

    def start_piece(self, owner: Player, strength: int) -> Piece:
        if self.uses_strength:
            return Piece("die", owner, strength)
        return Piece("stone", owner)


class ThreeDragonsState(GameState[ThreeDragons, DragonsExtra]):
    def _setup(self) -> None:
        for player in Player:
            for cell, strength in self.game.setup[player.index]:
                self.cells[cell] = self.game.start_piece(player, strength)
        self.extra = DragonsExtra()

    # -- move generation --------------------------------------------------------------------
    def _generate(self) -> Iterator[Move]:
        if self.phase == CAPTURE_PHASE:
            for option in self.capture_options(self.extra.pending):
                yield Move.remove(option.cells)
            return
        cells = self.cells
        player = self.to_move
        open_rays = self.game.open_rays
        for cell, piece in enumerate(cells):
            if piece is None or piece.owner is not player:
                continue
            for ray in open_rays[cell]:
                for target, move in ray:
                    if cells[target] is not None:
                        break
                    yield move

    def custodial_targets(self, cell: Cell) -> list[Cell]:
        """Enemies sandwiched by the piece on ``cell`` against a friend, mountain or empty cave."""
        cells = self.cells
        mover = cells[cell]
        assert mover is not None
        game = self.game
        found: list[Cell] = []
        for table in game.orthogonal_steps:
            victim_cell = table[cell]
            if victim_cell == NO_CELL:
                continue
            victim = cells[victim_cell]
            if victim is None or victim.owner is mover.owner:
                continue
            anvil = table[victim_cell]
            if anvil == NO_CELL:
                continue
            anvil_piece = cells[anvil]
            if anvil_piece is not None:
                if anvil_piece.owner is mover.owner:
                    found.append(victim_cell)
            elif anvil in game.walls or anvil in game.caves:
                found.append(victim_cell)
        return found

    def strength_targets(self, cell: Cell) -> list[Cell]:
        """Orthogonal enemy neighbours weaker than the piece on ``cell`` (strength variants)."""
        cells = self.cells
        mover = cells[cell]
        if not self.game.uses_strength or mover is None or mover.state is None:
            return []
        found: list[Cell] = []
        for neighbour in self.game.board.adjacent[cell]:
            other = cells[neighbour]
            if (
                other is not None
                and other.owner is not mover.owner
                and other.state is not None
                and other.state < mover.state
            ):
                found.append(neighbour)
        return found

    def capture_options(self, cell: Cell) -> list[CaptureOption]:
        """The captures the move ending on ``cell`` allows; the mover makes exactly one.

        All custodial captures happen together as one option. Each strength capture of a piece
        that is not also captured custodially is another option (one that is, is dominated:
        it takes fewer pieces and costs a pip, so it is not offered).
        """
        custodial = self.custodial_targets(cell)
        options: list[CaptureOption] = []
        if custodial:
            options.append(CaptureOption(CUSTODIAL, tuple(sorted(custodial))))
        for target in self.strength_targets(cell):
            if target not in custodial:
                options.append(CaptureOption(STRENGTH, (target,)))
        return options

    # -- applying moves ---------------------------------------------------------------------
    def _play(self, move: Move) -> None:
        names = self.game.board.names
        if move.kind is MoveKind.MOVE:
            piece = self.cells[move.frm]
            assert piece is not None
            self._set(move.frm, None)
            self._set(move.to, piece)
            self._hand_done()
            self._moved(piece, move.frm, move.to)
            options = self.capture_options(move.to)
            if len(options) > 1:
                self.extra = replace(self.extra, pending=move.to)
                choices = " or ".join(
                    f"x{'+'.join(names[c] for c in o.cells)} ({o.how})" for o in options
                )
                self._decide(self.to_move, CAPTURE_PHASE, f"capture choice: {choices}")
                return
            if options:
                self._carry_out(move.to, options[0])
            self._finish(move.to)
            return
        # A REMOVE decision: the player's hand removes the chosen pieces (and turns the die).
        cell = self.extra.pending
        chosen = next(o for o in self.capture_options(cell) if o.cells == move.cells)
        self.extra = replace(self.extra, pending=NO_CELL)
        self._carry_out(cell, chosen)
        self._hand_done()
        self._finish(cell)

    def _carry_out(self, cell: Cell, option: CaptureOption) -> None:
        mover = self.cells[cell]
        assert mover is not None
        if option.how == CUSTODIAL:
            for victim in option.cells:
                self._capture(victim, "by custodial capture")
            return
        victim_piece = self.cells[option.cells[0]]
        assert victim_piece is not None and mover.state is not None
        self._capture(option.cells[0], f"by strength ({mover.state} against {victim_piece.state})")
        weaker = mover.with_state(mover.state - 1)
        self._set(cell, weaker)
        self._event(
            EventKind.STRENGTH,
            f"{self._describe(mover)} on {self.game.board.names[cell]} turns to {weaker.state}",
            cell,
        )

    def _finish(self, cell: Cell) -> None:
        """After the captures: dragons come out, then the one-piece loss, then the next turn."""
        player = self.to_move
        game = self.game
        if game.uses_dragons:
            for cave, ring in game.cave_rings.items():
                if cave in self.extra.tamed or self.cells[cave] is not None:
                    continue
                if all((p := self.cells[c]) is not None and p.owner is player for c in ring):
                    dragon = Piece("dragon", player, game.dragon_strength[cave])
                    self._set(cave, dragon)
                    self.extra = replace(self.extra, tamed=self.extra.tamed | {cave})
                    self._event(
                        EventKind.SPAWN,
                        f"{self._describe(dragon)} comes out of the cave {game.board.names[cave]}",
                        cave,
                    )
        opponent = player.other
        if self.count(opponent) <= 1:
            name = game.player_names[opponent.index]
            self._win(player, f"{name} is reduced to one piece")
        self._end_turn(opponent, MOVE_PHASE)

    def _explain_illegal(self, move: Move) -> str | None:
        if move.kind is not MoveKind.MOVE:
            return "pieces move; the only choices are the capture choices after a move"
        game = self.game
        names = game.board.names
        if move.to in game.obstacles:
            return f"no piece may stop on the mountain or cave {names[move.to]}"
        for direction in ORTHOGONAL:
            path = game.board.rays[direction][move.frm]
            if move.to in path:
                for cell in path[: path.index(move.to) + 1]:
                    if cell in game.obstacles or self.cells[cell] is not None:
                        return f"the way is blocked at {names[cell]}"
        return "pieces move in a straight line along a rank or file, like a rook"

    def count(self, player: Player) -> int:
        return sum(1 for p in self.cells if p is not None and p.owner is player)

    def status_lines(self) -> list[str]:
        if not self.game.uses_dragons:
            return []
        names = self.game.board.names
        tamed = ", ".join(names[c] for c in sorted(self.extra.tamed)) or "none"
        return [f"caves whose dragon has come out: {tamed}"]

    # -- positions --------------------------------------------------------------------------
    def _extra_keys(self) -> tuple[str, ...]:
        return ("tamed", "capture_at")

    def _extra_to_json(self) -> JSON:
        names = self.game.board.names
        data: JSON = {}
        if self.game.uses_dragons:
            data["tamed"] = sorted(names[c] for c in self.extra.tamed)
        if self.phase == CAPTURE_PHASE:
            data["capture_at"] = names[self.extra.pending]
        return data

    def _extra_from_json(self, node: Node) -> None:
        game = self.game
        tamed: set[Cell] = set()
        if node.has("tamed"):
            if not game.uses_dragons:
                node.get("tamed").fail("only the dragons variant has tamed caves")
            for cave_node in node.get("tamed").elements():
                cave = game.cell_of(cave_node)
                if cave not in game.caves:
                    cave_node.fail("not a cave")
                tamed.add(cave)
        pending = NO_CELL
        if self.phase == CAPTURE_PHASE:
            pending = game.cell_of(node.get("capture_at"))
        elif node.has("capture_at"):
            node.get("capture_at").fail("only a position in the capture phase has this key")
        self.extra = DragonsExtra(frozenset(tamed), pending)

    def _check_position(self, node: Node) -> None:
        game = self.game
        layout = node.get("layout")
        for cell, piece in enumerate(self.cells):
            if piece is None:
                continue
            where = layout.get(game.board.names[cell])
            allowed = ("die", "dragon") if game.uses_strength else ("stone",)
            if piece.kind not in allowed or (piece.kind == "dragon" and not game.uses_dragons):
                where.fail(f"the {game.variant} game has no {piece.kind} pieces")
            if piece.state is not None and not 1 <= piece.state <= MAX_STRENGTH:
                where.fail(f"a strength is 1 to {MAX_STRENGTH}")
            if cell in game.walls:
                where.fail("nothing may stand on a mountain")
            if cell in game.caves and not (piece.kind == "dragon" and cell in self.extra.tamed):
                where.fail("only a tamed dragon may stand on its cave")
        if self.phase == CAPTURE_PHASE:
            mover = self.cells[self.extra.pending]
            if mover is None or mover.owner is not self.to_move:
                node.get("capture_at").fail("the player to move has no piece there")
            if len(self.capture_options(self.extra.pending)) < 2:
                node.get("capture_at").fail("there is no capture choice to make there")

    def _position_outcome(self) -> Outcome | None:
        for player in (self.to_move, self.to_move.other):
            if self.count(player) <= 1:
                name = self.game.player_names[player.index]
                return Outcome(player.other, f"{name} is reduced to one piece")
        return None


ThreeDragons.state_class = ThreeDragonsState
