"""The Lion Game: a 5x7 field inside a ring of 12 burrow squares, eight kinds of piece, and
state the board's sensors cannot see (stuck elephants, immobilised pieces, a rhinoceros's
charge, a butterfly that must leave the burrow). Capturing the enemy lion wins.

Every reading of the rules text, with its reason: docs/rules/the-lion-game.md.

Over 700 lines: one game is one module (the engine's rule), and this game has eight kinds of
piece, each with its own moves and its own hidden state.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from engine.board import ORTHOGONAL
from engine.config import Node
from engine.effects import EventKind
from engine.game import JSON, Game, GameState
from engine.moves import NO_CELL, Cell, Move, MoveKind
from engine.notes import Note, NoteKind
from engine.outcome import Outcome
from engine.pieces import Piece
from engine.player import Player

PLAY = "play"
LION, TIGER, SPIDER, COBRA = "lion", "tiger", "spider", "cobra"
RHINO, ELEPHANT, FROG, BUTTERFLY = "rhinoceros", "elephant", "frog", "butterfly"
KINDS = (LION, TIGER, SPIDER, COBRA, RHINO, ELEPHANT, FROG, BUTTERFLY)

DIAGONAL = ("NE", "NW", "SE", "SW")
COMPASS = (*ORTHOGONAL, *DIAGONAL)
RING = "RNG"  # the board's link from a burrow square to the next one, anticlockwise
FORWARD = {Player.ONE: "N", Player.TWO: "S"}

TIGER_LEAPS = frozenset({FROG, SPIDER, COBRA})  # what a tiger may leap over (besides nothing)
SPIDER_TAKES = frozenset({FROG, COBRA, SPIDER, BUTTERFLY})
FROG_NEVER_TAKES = frozenset({ELEPHANT, RHINO})  # by its diagonal capture (a leapfrog may)


@dataclass(frozen=True, slots=True)
class Charge:
    """A rhinoceros that went the full distance last turn: it may go ``level`` squares on in
    ``direction`` this turn, capturing everything on its way."""

    cell: Cell
    direction: str
    level: int


@dataclass(frozen=True, slots=True)
class LionExtra:
    """The game state the sensors cannot see (part of the position: repetition, JSON, undo)."""

    stuck: frozenset[Cell] = frozenset()  # elephants stuck after a squash
    marks: frozenset[tuple[Cell, Cell]] = frozenset()  # (spider, enemy it leapt over)
    charges: tuple[Charge | None, Charge | None] = (None, None)  # per player
    leaving: tuple[Cell, Cell] = (NO_CELL, NO_CELL)  # per player: a butterfly that must leave


NO_EXTRA = LionExtra()


class TheLionGame(Game):
    rules = "the_lion_game"
    phases = (PLAY,)

    @classmethod
    def config_keys(cls) -> tuple[str, ...]:
        return (*super().config_keys(), "setup", "promotion")

    def _configure(self, node: Node) -> None:
        board = self.board
        for kind in KINDS:
            if kind not in self.pieces:
                node.get("pieces").fail(f"the Lion Game needs a piece kind called {kind!r}")
        burrow_zone = board.zones.get("burrow")
        if burrow_zone is None or not burrow_zone.cells:
            node.get("board").fail("the Lion Game needs a zone called 'burrow' with cells")
        self.burrow = frozenset(burrow_zone.cells)
        self.field = frozenset(c for c in range(board.size) if c not in self.burrow)
        for d in COMPASS:
            if d not in board.step:
                node.get("board").fail(f"the board needs the direction {d}")
        ring = board.step.get(RING)
        if ring is None or any(ring[c] == NO_CELL for c in self.burrow):
            node.get("board").fail(f"every burrow square needs a {RING} link to the next")
        back = [NO_CELL] * board.size
        for c in self.burrow:
            back[ring[c]] = c
        # Per cell: the burrow squares one burrow step away (either way round).
        self.ring_steps: tuple[tuple[Cell, ...], ...] = tuple(
            (ring[c], back[c]) if c in self.burrow else () for c in range(board.size)
        )
        step = board.step
        # Per cell and compass direction: the neighbour (NO_CELL where there is none).
        self.compass: tuple[dict[str, Cell], ...] = tuple(
            {d: step[d][c] for d in COMPASS} for c in range(board.size)
        )
        self.king: tuple[tuple[Cell, ...], ...] = tuple(
            tuple(t for t in self.compass[c].values() if t != NO_CELL) for c in range(board.size)
        )
        self.field_king = tuple(tuple(t for t in ks if t in self.field) for ks in self.king)
        # A cobra may stand only on the burrow or next to it.
        self.cobra_ground = frozenset(
            c for c in range(board.size)
            if c in self.burrow or any(t in self.burrow for t in self.king[c])
        )  # fmt: skip
        self.cobra_steps = tuple(
            tuple(dict.fromkeys((*self.king[c], *self.ring_steps[c]))) for c in range(board.size)
        )
        # Per cell and direction: the field squares met walking that way (linear pieces).
        self.field_rays: tuple[dict[str, tuple[Cell, ...]], ...] = tuple(
            {d: _until_burrow(board.rays[d][c], self.field) for d in COMPASS}
            for c in range(board.size)
        )
        promotion = node.get("promotion")
        promotion.only_keys("1", "2")
        self.promotes: tuple[frozenset[Cell], frozenset[Cell]] = tuple(  # type: ignore[assignment]
            self._promotion_cells(promotion.get(str(int(p)))) for p in Player
        )
        setup = node.get("setup")
        self.setup = self.setup_of(setup)
        for p in Player:
            placed = self.setup[p.index]
            if sum(1 for _, kind in placed if kind == LION) != 1:
                setup.get(str(int(p))).fail("each side needs exactly one lion")
            for cell, kind in placed:
                if cell in self.burrow and kind not in (COBRA, SPIDER, FROG, BUTTERFLY):
                    setup.get(str(int(p))).fail(
                        f"a {kind} may not stand in the burrow ({board.names[cell]})"
                    )
        cells = [c for side in self.setup for c, _ in side]
        if len(cells) != len(set(cells)):
            setup.fail("two pieces on one square")
        self.must_leave = bool(self.options.get("butterfly_must_leave", True))
        self._moves: dict[tuple[Cell, Cell, tuple[Cell, ...]], Move] = {}
        # Every plain move, built once: generation only indexes this table.
        self._plain = tuple(
            tuple(Move.step(a, b) for b in range(board.size)) for a in range(board.size)
        )

    def _promotion_cells(self, node: Node) -> frozenset[Cell]:
        region = node.text()
        cells = self.board.regions.get(region)
        if cells is None:
            node.fail(f"no board region called {region!r}")
        if not cells <= self.burrow:
            node.fail("frogs promote on burrow squares")
        return cells

    def move(self, frm: Cell, to: Cell, taking: tuple[Cell, ...] = ()) -> Move:
        """A MOVE value, built once per (from, to, taking)."""
        if not taking:
            return self._plain[frm][to]
        key = (frm, to, taking)
        move = self._moves.get(key)
        if move is None:
            move = self._moves[key] = Move.step(frm, to, taking)
        return move


def _until_burrow(ray: tuple[Cell, ...], field: frozenset[Cell]) -> tuple[Cell, ...]:
    out: list[Cell] = []
    for cell in ray:
        if cell not in field:
            break
        out.append(cell)
    return tuple(out)


class TheLionGameState(GameState[TheLionGame, LionExtra]):
    def _setup(self) -> None:
        for player in Player:
            for cell, kind in self.game.setup[player.index]:
                self.cells[cell] = Piece(kind, player)
        self.extra = NO_EXTRA

    # -- what may not move ------------------------------------------------------------------
    def _held(self, player: Player) -> set[Cell]:
        """Cells of ``player``'s pieces that may not move: stuck or immobilised."""
        extra = self.extra
        held = {c for c in extra.stuck if (p := self.cells[c]) is not None and p.owner is player}
        king = self.game.king
        for spider, victim in extra.marks:
            piece = self.cells[victim]
            if piece is not None and piece.owner is player and spider in king[victim]:
                held.add(victim)
        return held

    def _charge(self, player: Player) -> Charge | None:
        charge = self.extra.charges[player.index]
        if charge is None:
            return None
        piece = self.cells[charge.cell]
        if piece is None or piece.kind != RHINO or piece.owner is not player:
            return None
        return charge

    # -- moves ------------------------------------------------------------------------------
    def _generate(self) -> Iterator[Move]:
        player = self.to_move
        held = self._held(player)
        leaving = self.extra.leaving[player.index]
        if leaving != NO_CELL and self.game.must_leave and leaving not in held:
            piece = self.cells[leaving]
            if piece is not None and piece.kind == BUTTERFLY and piece.owner is player:
                forced = list(dict.fromkeys(self._butterfly(leaving, player)))
                if forced:
                    yield from forced
                    return
        for cell, piece in enumerate(self.cells):
            if piece is None or piece.owner is not player or cell in held:
                continue
            kind = piece.kind
            if kind == FROG:
                yield from self._frog(cell, player)
            elif kind == LION:
                yield from self._lion(cell, player)
            elif kind == COBRA:
                yield from self._cobra(cell, player)
            elif kind == SPIDER:
                yield from self._spider(cell, player)
            elif kind == TIGER:
                yield from self._tiger(cell, player)
            elif kind == RHINO:
                yield from self._rhino(cell, player)
            elif kind == ELEPHANT:
                yield from self._elephant(cell, player)
            else:
                yield from dict.fromkeys(self._butterfly(cell, player))

    def _lion(self, cell: Cell, player: Player) -> Iterator[Move]:
        cells, game = self.cells, self.game
        seen: set[Cell] = set()
        for first in game.field_king[cell]:
            other = cells[first]
            if other is not None:
                if other.owner is not player and first not in seen:
                    seen.add(first)
                    yield game.move(cell, first)
                continue  # a capture ends the move; a friend blocks
            if first not in seen:
                seen.add(first)
                yield game.move(cell, first)
            for second in game.field_king[first]:
                if second == cell or second in seen:
                    continue
                other = cells[second]
                if other is None or other.owner is not player:
                    seen.add(second)
                    yield game.move(cell, second)

    def _tiger(self, cell: Cell, player: Player) -> Iterator[Move]:
        cells, game = self.cells, self.game

        def leapable(c: Cell) -> bool:
            piece = cells[c]
            return piece is None or piece.kind in TIGER_LEAPS

        for ray in game.field_rays[cell].values():
            targets: list[Cell] = []
            if len(ray) >= 1:
                targets.append(ray[0])
            if len(ray) >= 2 and leapable(ray[0]):
                targets.append(ray[1])
            if len(ray) >= 3 and (
                (cells[ray[0]] is None and leapable(ray[1]))
                or (leapable(ray[0]) and cells[ray[1]] is None)
            ):
                targets.append(ray[2])
            for target in targets:
                other = cells[target]
                if other is None or other.owner is not player:
                    yield game.move(cell, target)

    def _spider(self, cell: Cell, player: Player) -> Iterator[Move]:
        cells, game = self.cells, self.game

        def can_land(c: Cell) -> bool:
            piece = cells[c]
            return piece is None or (piece.owner is not player and piece.kind in SPIDER_TAKES)

        compass = game.compass
        for d, first in compass[cell].items():
            if first == NO_CELL:
                continue
            if can_land(first):
                yield game.move(cell, first)
            beyond = compass[first][d]  # the leap: over anything
            if beyond != NO_CELL and can_land(beyond):
                yield game.move(cell, beyond)
        for ring in game.ring_steps[cell]:
            if can_land(ring):
                yield game.move(cell, ring)

    def _cobra(self, cell: Cell, player: Player) -> Iterator[Move]:
        cells, game = self.cells, self.game
        ground = game.cobra_ground
        seen: set[tuple[Cell, Cell]] = set()  # (where it ends, what it struck on the way)
        for first in game.cobra_steps[cell]:
            other = cells[first]
            if other is not None and other.owner is player:
                continue
            striking = other is not None
            if first in ground and (first, NO_CELL) not in seen:
                seen.add((first, NO_CELL))
                yield game.move(cell, first)  # one step (a capture by replacement, if any)
            struck = first if striking else NO_CELL
            for second in game.cobra_steps[first]:
                if second == cell:  # back to its start: the null move
                    if not striking and first not in ground:
                        continue
                elif first in ground and second in ground:
                    target = cells[second]
                    if target is not None and target.owner is player:
                        continue
                else:
                    continue
                if (second, struck) not in seen:
                    seen.add((second, struck))
                    yield game.move(cell, second, (first,) if striking else ())

    def _rhino(self, cell: Cell, player: Player) -> Iterator[Move]:
        cells, game = self.cells, self.game
        charge = self._charge(player)
        for d in ORTHOGONAL:
            reach = charge.level if charge is not None and charge.cell == cell and (
                charge.direction == d) else 1  # fmt: skip
            for target in game.field_rays[cell][d][:reach]:
                other = cells[target]
                if reach == 1:
                    if other is None or other.owner is not player:
                        yield game.move(cell, target)
                    break
                if other is not None and other.owner is player and other.kind == LION:
                    break  # a charge never tramples its own lion
                yield game.move(cell, target)

    def _elephant(self, cell: Cell, player: Player) -> Iterator[Move]:
        cells, game = self.cells, self.game
        burrow = game.burrow
        compass = game.compass

        def enemy(c: Cell) -> bool:
            piece = cells[c]
            return piece is not None and piece.owner is not player

        for d in DIAGONAL:
            target = compass[cell][d]
            if target == NO_CELL:
                continue
            if target in burrow:
                if enemy(target):
                    yield game.move(cell, cell, (target,))  # the squash, where it stands
            elif cells[target] is None or enemy(target):
                yield game.move(cell, target)
        forward = FORWARD[player]
        one = compass[cell][forward]
        if one == NO_CELL:
            return
        if one in burrow:
            if enemy(one):
                yield game.move(cell, cell, (one,))
            return
        if cells[one] is not None:
            if enemy(one):
                yield game.move(cell, one)
            return
        yield game.move(cell, one)
        two = compass[one][forward]
        if two == NO_CELL:
            return
        if two in burrow:
            if enemy(two):
                yield game.move(cell, one, (two,))  # stops on the square before the burrow
        elif cells[two] is None or enemy(two):
            yield game.move(cell, two)

    def _frog(self, cell: Cell, player: Player) -> Iterator[Move]:
        cells, game = self.cells, self.game
        compass = game.compass[cell]
        forward = FORWARD[player]
        for d in (forward, "E", "W"):
            target = compass[d]
            if target != NO_CELL and cells[target] is None:
                yield game.move(cell, target)
        for d in (forward + "E", forward + "W"):
            over = compass[d]
            if over == NO_CELL:
                continue
            other = cells[over]
            if other is None:
                continue
            if other.owner is not player and other.kind not in FROG_NEVER_TAKES:
                yield game.move(cell, over)  # the diagonal capture
            land = game.compass[over][d]
            if land != NO_CELL:
                landing = cells[land]
                if landing is None or landing.owner is not player:
                    yield game.move(cell, land)  # the leapfrog
        for ring in game.ring_steps[cell]:
            if cells[ring] is None:
                yield game.move(cell, ring)

    def _butterfly(self, cell: Cell, player: Player) -> Iterator[Move]:
        cells, game = self.cells, self.game
        burrow = game.burrow

        def can_land(c: Cell) -> bool:
            piece = cells[c]
            return piece is None or (piece.owner is not player and piece.kind != FROG)

        for d, first in game.compass[cell].items():
            if first == NO_CELL or not can_land(first):
                continue
            yield game.move(cell, first)
            if cells[first] is not None or first in burrow:
                continue  # a capture ends the move; so does entering the burrow
            turns = DIAGONAL if d in ORTHOGONAL else ORTHOGONAL
            for turn in turns:
                second = game.compass[first][turn]
                if second not in (NO_CELL, cell) and can_land(second):
                    yield game.move(cell, second)
        for ring in game.ring_steps[cell]:
            if can_land(ring):
                yield game.move(cell, ring)

    # -- playing ----------------------------------------------------------------------------
    def _play(self, move: Move) -> None:
        assert move.kind is MoveKind.MOVE
        game = self.game
        cells = self.cells
        frm, to = move.frm, move.to
        piece = cells[frm]
        assert piece is not None
        player = self.to_move
        names = game.board.names
        kind = piece.kind
        gone: set[Cell] = set()  # cells whose pieces were captured
        on_path: list[Cell] = []  # a charge's captures before its landing square
        charging = False
        if kind == RHINO:
            charge = self._charge(player)
            direction = _direction(game, frm, to)
            charging = charge is not None and charge.cell == frm and charge.direction == direction
            if charging:
                ray = game.field_rays[frm][direction]
                on_path = [c for c in ray[: ray.index(to)] if cells[c] is not None]
        in_place = frm == to
        if in_place:
            what = self._describe(piece)
            if kind == ELEPHANT:
                text = f"{what} on {names[frm]} squashes {names[move.cells[0]]}"
            elif move.cells:
                text = f"{what} strikes {names[move.cells[0]]} and returns to {names[frm]}"
            else:
                text = f"{what} leaves {names[frm]} and returns (a null move)"
            self._event(EventKind.MOVE, text, frm, *move.cells)
            for cell in move.cells:  # the struck or squashed piece: taking it is the move
                self._take(cell, piece, gone)
        else:
            self._moved(piece, frm, to)
            if cells[to] is not None:
                self._take(to, piece, gone)
            self._set(frm, None)
            self._set(to, piece)
        self._hand_done()
        if not in_place:
            for cell in (*move.cells, *on_path):
                self._take(cell, piece, gone)
        if charging:
            self._event(EventKind.MOVE, f"the rhinoceros charges {names[frm]}-{names[to]}, "
                        f"trampling {len(gone) or 'nothing'}", frm, to)  # fmt: skip
        promoted = kind == FROG and to in game.promotes[player.index]
        if promoted:
            self._set(to, Piece(BUTTERFLY, player))
            self._event(EventKind.STRENGTH, f"the frog on {names[to]} becomes a butterfly", to)
        self.extra = self._next_extra(move, piece, gone, charging, promoted)
        self._end_turn(player.other, PLAY)

    def _take(self, cell: Cell, attacker: Piece, gone: set[Cell]) -> None:
        how = {ELEPHANT: "by the elephant's squash", RHINO: "by the rhinoceros"}.get(
            attacker.kind, f"by the {attacker.kind}")  # fmt: skip
        victim = self._capture(cell, how)
        gone.add(cell)
        if victim.kind == LION and victim.owner is not attacker.owner:
            name = self.game.player_names[attacker.owner.index]
            self._win(attacker.owner, f"{name} captured the lion")

    def _next_extra(
        self, move: Move, piece: Piece, gone: set[Cell], charging: bool, promoted: bool
    ) -> LionExtra:
        game = self.game
        extra = self.extra
        player = self.to_move
        frm, to = move.frm, move.to
        kind = piece.kind
        moved = frm != to
        # Stuck elephants: a squash sticks the elephant; its own lion ending a move next to
        # it pulls it out; a captured one is gone.
        stuck = set(extra.stuck) - gone
        if kind == ELEPHANT and move.cells:
            stuck.add(to)
        if kind == LION:
            for cell in game.king[to]:
                other = self.cells[cell]
                if cell in stuck and other is not None and other.owner is player:
                    stuck.discard(cell)
        # Spider marks follow their spider, end when the marked piece moves away or either is
        # captured; a leap over an enemy piece makes one.
        marks: set[tuple[Cell, Cell]] = set()
        for spider, victim in extra.marks:
            if spider in gone or victim in gone or (moved and victim == frm):
                continue
            marks.add((to if moved and spider == frm else spider, victim))
        if kind == SPIDER and moved and to not in game.king[frm] and to not in (
            game.ring_steps[frm]):  # fmt: skip
            over = _between(game, frm, to)
            victim_piece = self.cells[over]
            if victim_piece is not None and victim_piece.owner is not player:
                marks.add((to, over))
        # The charge: the rhinoceros that went the full distance grows it; one that went on in
        # the same direction but less far made a fresh step (level 2 next turn, as from rest).
        charges = list(extra.charges)
        opponent = player.other
        held = charges[opponent.index]
        if held is not None and held.cell in gone:
            charges[opponent.index] = None
        charges[player.index] = None
        if kind == RHINO:
            direction = _direction(game, frm, to)
            level = extra.charges[player.index].level if charging else 1  # type: ignore[union-attr]
            distance = game.field_rays[frm][direction].index(to) + 1
            if game.field_rays[to][direction]:
                if distance == level:
                    charges[player.index] = Charge(to, direction, level + 1)
                elif charging:
                    charges[player.index] = Charge(to, direction, 2)
        # A butterfly that ended its move in the burrow must leave it on its side's next turn
        # (recorded only when the option makes it a duty: else it is no part of the position).
        leaving = list(extra.leaving)
        leaving[player.index] = (
            to
            if game.must_leave and kind == BUTTERFLY and not promoted and to in game.burrow
            else NO_CELL
        )
        if leaving[opponent.index] in gone:
            leaving[opponent.index] = NO_CELL
        return LionExtra(
            frozenset(stuck), frozenset(marks), (charges[0], charges[1]),
            (leaving[0], leaving[1]),
        )  # fmt: skip

    # -- what the players are told -----------------------------------------------------------
    def notes(self) -> dict[Cell, Note]:
        notes: dict[Cell, Note] = {}
        names = self.game.board.names
        king = self.game.king
        for cell in self.extra.stuck:
            notes[cell] = Note(NoteKind.HELD, "stuck: freed when its lion ends a move beside it")
        for spider, victim in sorted(self.extra.marks):
            if spider in king[victim]:
                notes[victim] = Note(NoteKind.HELD, f"immobilised by the spider on {names[spider]}")
        for player in Player:
            charge = self._charge(player)
            if charge is not None:
                notes.setdefault(charge.cell, Note(
                    NoteKind.CHARGED, f"charging {_WORDS[charge.direction]}: may go up to "
                    f"{charge.level} squares on, trampling all in its way"))  # fmt: skip
        return notes

    def status_lines(self) -> list[str]:
        names = self.game.board.names
        lines = []
        for cell, note in sorted(self.notes().items()):
            piece = self.cells[cell]
            what = f"{self._describe(piece)} on {names[cell]}" if piece else names[cell]
            lines.append(f"{what}: {note.text}")
        for player in Player:
            cell = self.extra.leaving[player.index]
            piece = self.cells[cell] if cell != NO_CELL else None
            if piece is not None and self.game.must_leave:
                lines.append(f"{self._describe(piece)} on {names[cell]} must leave the burrow")
        return lines

    def _explain_illegal(self, move: Move) -> str | None:
        if move.kind is not MoveKind.MOVE:
            return "the Lion Game has only moves (a1-a2, a cobra's c2-c4xd3, a squash b7-b8xb9)"
        piece = self.cells[move.frm]
        if piece is None:
            return None
        notes = self.notes()
        if move.frm in notes and notes[move.frm].kind is NoteKind.HELD:
            where = self.game.board.names[move.frm]
            return f"the {piece.kind} on {where} is {notes[move.frm].text}"
        names = self.game.board.names
        rays = self.game.field_rays[move.frm]
        distance = next((rays[d].index(move.to) + 1 for d in ORTHOGONAL if move.to in rays[d]), 0)
        charge = self._charge(self.to_move)
        reach = charge.level if charge is not None and charge.cell == move.frm else 1
        if piece.kind == RHINO and piece.owner is self.to_move and distance > reach:
            return (f"the rhinoceros on {names[move.frm]} may go {reach} square"
                    f"{'s' if reach > 1 else ''} at most, in a line, and only a charge goes "
                    "further (the same direction as its last full move)")  # fmt: skip
        if piece.kind == COBRA and move.to not in self.game.cobra_ground:
            return "a cobra never stands more than one square from the burrow"
        leaving = self.extra.leaving[self.to_move.index]
        if leaving not in (NO_CELL, move.frm) and self.game.must_leave:
            return f"the butterfly on {self.game.board.names[leaving]} must leave the burrow first"
        return None

    # -- positions --------------------------------------------------------------------------
    def _extra_keys(self) -> tuple[str, ...]:
        return ("stuck", "immobilised", "charges", "leaving")

    def _extra_to_json(self) -> JSON:
        names = self.game.board.names
        extra = self.extra
        data: JSON = {}
        if extra.stuck:
            data["stuck"] = sorted(names[c] for c in extra.stuck)
        if extra.marks:
            data["immobilised"] = sorted([names[s], names[v]] for s, v in extra.marks)
        charges = {
            str(int(p)): {"rhinoceros": names[c.cell], "direction": c.direction, "level": c.level}
            for p in Player if (c := extra.charges[p.index]) is not None
        }  # fmt: skip
        if charges:
            data["charges"] = charges
        leaving = {
            str(int(p)): names[extra.leaving[p.index]]
            for p in Player
            if extra.leaving[p.index] != NO_CELL
        }
        if leaving:
            data["leaving"] = leaving
        return data

    def _extra_from_json(self, node: Node) -> None:
        game = self.game
        stuck = frozenset(game.cell_of(n) for n in node.get("stuck", []).elements())
        marks: set[tuple[Cell, Cell]] = set()
        for pair in node.get("immobilised", []).elements():
            parts = pair.elements()
            if len(parts) != 2:
                pair.fail("expected [spider cell, immobilised cell]")
            marks.add((game.cell_of(parts[0]), game.cell_of(parts[1])))
        charges: list[Charge | None] = [None, None]
        charges_node = node.get("charges", {})
        charges_node.only_keys("1", "2")
        for key, charge_node in charges_node.items():
            charge_node.only_keys("rhinoceros", "direction", "level")
            charges[int(key) - 1] = Charge(
                game.cell_of(charge_node.get("rhinoceros")),
                charge_node.get("direction").choice(ORTHOGONAL),
                charge_node.get("level").integer(2, 99),
            )
        leaving = [NO_CELL, NO_CELL]
        leaving_node = node.get("leaving", {})
        leaving_node.only_keys("1", "2")
        for key, cell_node in leaving_node.items():
            if not game.must_leave:
                cell_node.fail("with butterfly_must_leave false no butterfly must leave")
            leaving[int(key) - 1] = game.cell_of(cell_node)
        self.extra = LionExtra(
            stuck, frozenset(marks), (charges[0], charges[1]), (leaving[0], leaving[1])
        )

    def _check_position(self, node: Node) -> None:
        game = self.game
        names = game.board.names
        layout = node.get("layout")
        for cell, piece in enumerate(self.cells):
            if piece is not None and cell in game.burrow and piece.kind in (
                LION, TIGER, RHINO, ELEPHANT):  # fmt: skip
                layout.fail(f"a {piece.kind} may not stand in the burrow ({names[cell]})")
        for player in Player:
            lions = sum(1 for p in self.cells if p is not None and p.owner is player
                        and p.kind == LION)  # fmt: skip
            if lions > 1:
                layout.fail(f"player {int(player)} has {lions} lions")
        extra = self.extra

        def need(cell: Cell, kind: str, key: str) -> Piece:
            piece = self.cells[cell]
            if piece is None or piece.kind != kind:
                node.get(key).fail(f"there is no {kind} on {names[cell]}")
            return piece

        for cell in extra.stuck:
            need(cell, ELEPHANT, "stuck")
        for spider, victim in extra.marks:
            owner = need(spider, SPIDER, "immobilised").owner
            other = self.cells[victim]
            if other is None or other.owner is owner:
                node.get("immobilised").fail(f"no enemy of that spider on {names[victim]}")
        for player in Player:
            charge = extra.charges[player.index]
            if charge is not None and need(charge.cell, RHINO, "charges").owner is not player:
                node.get("charges").fail(f"the rhinoceros on {names[charge.cell]} is not theirs")
            cell = extra.leaving[player.index]
            if cell != NO_CELL and (
                need(cell, BUTTERFLY, "leaving").owner is not player or cell not in game.burrow
            ):
                node.get("leaving").fail(f"no butterfly of theirs in the burrow on {names[cell]}")

    def _position_outcome(self) -> Outcome | None:
        return self._royal_missing(LION, "captured the lion")


_WORDS = {"N": "north", "S": "south", "E": "east", "W": "west"}


def _direction(game: TheLionGame, frm: Cell, to: Cell) -> str:
    """The compass direction of a linear move (the rhinoceros's)."""
    for d in ORTHOGONAL:
        if to in game.field_rays[frm][d]:
            return d
    raise AssertionError("not a linear move")


def _between(game: TheLionGame, frm: Cell, to: Cell) -> Cell:
    """The square a two-square leap passes over."""
    for d, first in game.compass[frm].items():
        if first != NO_CELL and game.compass[first][d] == to:
            return first
    raise AssertionError("not a leap")


TheLionGame.state_class = TheLionGameState
