"""Goats Wintering (Dale W. Walton): place goats out of sight of their own kind, step them
towards friends (group) or away from enemies (stray), surround enemy goats to remove them,
and end with the warmest herd: the most adjacent pairs of one's own goats.

Move for move as version 1.3.13 of the Ludii reference plays it. Rules as implemented:
docs/rules/goats-wintering.md.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from itertools import compress

from engine.config import Node
from engine.effects import EventKind
from engine.game import JSON, Game, GameState
from engine.moves import NO_CELL, PASS, Cell, Move, MoveKind
from engine.outcome import Outcome
from engine.pieces import Piece
from engine.player import Player

PLAY = "play"
GOAT = "goat"

# What the last move was, as the reference's variable "LM" records it.
NONE, GROUP, STRAY, PLACEMENT = 0, 1, 2, 3
LAST_NAMES = {NONE: "none", GROUP: "group", STRAY: "stray", PLACEMENT: "placement"}


@dataclass(frozen=True, slots=True)
class GoatsExtra:
    last: int = NONE  # the kind of the previous move (a pass and the start count as NONE)
    passes: int = 0  # passes in a row: two end the game
    # The previous non-pass move's cells, and the step banned right after a pass (the exact
    # reversal of the mover's own last step): set when a pass is made.
    last_from: Cell = NO_CELL
    last_to: Cell = NO_CELL
    ban_from: Cell = NO_CELL
    ban_to: Cell = NO_CELL


# Each GoatsExtra made once, like the game's moves (some thousands at most: the kinds of move
# and the cells of the last step): compiled, a frozen dataclass is still built by Python-level
# code, and every move made one.
_EXTRAS: dict[tuple[int, int, Cell, Cell, Cell, Cell], GoatsExtra] = {}


def _extra(
    last: int, passes: int, last_from: Cell, last_to: Cell, *,
    ban_from: Cell = NO_CELL, ban_to: Cell = NO_CELL,
) -> GoatsExtra:  # fmt: skip
    key = (last, passes, last_from, last_to, ban_from, ban_to)
    extra = _EXTRAS.get(key)
    if extra is None:
        extra = _EXTRAS[key] = GoatsExtra(last, passes, last_from, last_to, ban_from, ban_to)
    return extra


class GoatsWintering(Game):
    rules = "goats_wintering"
    phases = (PLAY,)

    def _configure(self, node: Node) -> None:
        if GOAT not in self.pieces:
            node.get("pieces").fail("Goats Wintering needs a piece kind called 'goat'")
        board = self.board
        self.gap = int(self.options.get("gap", 3))
        size = board.size
        # "Around" a cell and the lines of sight are the board's adjacent directions.
        self.around = board.adjacent
        # For each cell, per adjacent direction: the cells within the gap distance, in order.
        # Sight runs both ways on every board the project builds (the cells between two goats
        # on a line are the same from either end; tests/test_goats_wintering.py holds that), so
        # the generator marks what each of the mover's goats sees instead of looking out from
        # every empty cell.
        self.sight = tuple(
            tuple(rays for rays in (board.rays[d][c][: self.gap] for d in board.adjacency) if rays)
            for c in range(size)
        )
        self.cell_range = range(size)
        self.goats = {player: Piece(GOAT, player) for player in Player}
        self.place_moves = tuple(Move.place(GOAT, c) for c in range(size))
        self.step_moves = tuple(
            tuple((n, self.step_move(c, n)) for n in board.adjacent[c]) for c in range(size)
        )


class GoatsWinteringState(GameState[GoatsWintering, GoatsExtra]):
    # Listed at once (a pass always among them): a list appended in compiled code is quicker
    # than a generator, and a position's moves are all wanted whenever the search plays on.
    list_moves_once = True

    def _setup(self) -> None:
        self.extra = GoatsExtra()

    # -- helpers ----------------------------------------------------------------------------
    def _owned(self, player: Player) -> list[bool]:
        """For each cell, whether ``player``'s goat stands there (one pass, then lookups)."""
        return [p is not None and p.owner is player for p in self.cells]

    def score(self, player: Player) -> int:
        """Adjacent pairs of ``player``'s goats."""
        owned = self._owned(player)
        return sum(compress(self._neighbours(owned), owned)) // 2  # each pair counted twice

    def scores(self) -> dict[Player, int] | None:
        return {player: self.score(player) for player in Player}

    def _neighbours(self, owned: list[bool]) -> list[int]:
        """For each cell, how many of its neighbours hold a goat marked in ``owned`` (one pass
        over those goats, rather than a count around every cell asked about)."""
        around = self.game.around
        counts = [0] * len(owned)
        for cell in range(len(owned)):
            if owned[cell]:
                for neighbour in around[cell]:
                    counts[neighbour] += 1
        return counts

    def _banned(self) -> tuple[Cell, Cell]:
        """The step the mover may not make: the exact reversal of their own last step, right
        after a pass (NO_CELL twice otherwise)."""
        extra = self.extra
        return (extra.ban_from, extra.ban_to) if extra.passes == 1 else (NO_CELL, NO_CELL)

    def _is_group(self, frm: Cell, to: Cell) -> bool:
        """Whether the step ``frm``-``to`` of the mover's goat is a group: its goat gets more
        friendly neighbours (not counting itself) and it is not the banned reversal."""
        player = self.to_move
        friends_there = self._goats_around(to, player) - 1  # the goat itself is around ``to``
        return friends_there > self._goats_around(frm, player) and (frm, to) != self._banned()

    def _goats_around(self, cell: Cell, player: Player) -> int:
        """How many of ``player``'s goats stand next to ``cell``."""
        cells = self.cells
        found = 0
        for neighbour in self.game.around[cell]:
            piece = cells[neighbour]
            if piece is not None and piece.owner is player:
                found += 1
        return found

    # -- moves ------------------------------------------------------------------------------
    def _generate(self) -> Iterator[Move]:
        return iter(self._list_moves())

    def _list_moves(self) -> list[Move]:
        moves: list[Move] = [PASS]
        cells = self.cells
        player = self.to_move
        game = self.game
        size = len(cells)
        around = game.around
        # Plain loops over the cells, not compress() and map(): compiled, they are quicker.
        empty = [p is None for p in cells]
        mine = [p is not None and p.owner is player for p in cells]
        # Placements: an empty cell with an empty neighbour, where the first piece along no
        # line within the gap is the mover's. Sight runs both ways, so mark what each of the
        # mover's goats sees.
        seen = [False] * len(cells)
        for cell in range(size):
            if mine[cell]:
                for ray in game.sight[cell]:
                    for target in ray:
                        if not empty[target]:
                            break
                        seen[target] = True
        place_moves = game.place_moves
        for cell in range(size):
            if empty[cell] and not seen[cell]:
                for neighbour in around[cell]:
                    if empty[neighbour]:
                        moves.append(place_moves[cell])
                        break
        # Steps: each goat groups (more friends) if it can, else strays (fewer enemies) when
        # the last move was a group or a placement.
        friends = self._neighbours(mine)
        enemies: list[int] | None = None
        stray_allowed = self.extra.last in (GROUP, PLACEMENT)
        ban_from, ban_to = self._banned()
        step_moves = game.step_moves
        for cell in range(size):
            if not mine[cell]:
                continue
            grouped = False
            here = friends[cell] + 1  # the goat itself is around each of its targets
            for target, move in step_moves[cell]:
                if empty[target] and friends[target] > here:
                    if cell == ban_from and target == ban_to:
                        continue  # right after a pass: never undo one's own last step
                    grouped = True
                    moves.append(move)
            if grouped or not stray_allowed:
                continue
            if enemies is None:
                enemies = self._neighbours([p is not None and p.owner is not player for p in cells])
            fewer = enemies[cell]
            for target, move in step_moves[cell]:
                if empty[target] and enemies[target] < fewer:
                    moves.append(move)
        return moves

    def _play(self, move: Move) -> None:
        player = self.to_move
        extra = self.extra
        names = self.game.board.names
        if move.kind is MoveKind.PASS:
            self._hand_done()
            if self.narrating:
                ends = " (a second pass in a row ends the game)" if extra.passes == 0 else ""
                self._event(EventKind.PASS, f"{self._name(player)} passes{ends}")
            self.extra = _extra(
                NONE, extra.passes + 1, extra.last_from, extra.last_to,
                ban_from=extra.last_to, ban_to=extra.last_from,
            )  # fmt: skip
            if self.extra.passes >= 2:
                self._finish(player)
            self._end_turn(player.other, PLAY)
            return
        goat = self.game.goats[player]
        if move.kind is MoveKind.PLACE:
            self._set(move.to, goat)
            if self.narrating:
                text = f"{self._name(player)} places a goat on {names[move.to]}"
                self._event(EventKind.PLACE, text)
            kind, origin = PLACEMENT, NO_CELL
        else:
            kind = GROUP if self._is_group(move.frm, move.to) else STRAY
            self._set(move.frm, None)
            self._set(move.to, goat)
            if self.narrating:
                word = "group" if kind == GROUP else "stray"
                self._event(
                    EventKind.MOVE,
                    f"{self._name(player)} {word}s {names[move.frm]}-{names[move.to]}",
                    move.frm,
                    move.to,
                )
            origin = move.frm
        self._hand_done()
        self.extra = _extra(kind, 0, origin, move.to)
        # Every enemy goat with no empty neighbour leaves, all at once.
        cells = self.cells
        enemy = player.other
        around = self.game.around
        doomed: list[Cell] = []
        for cell in range(len(cells)):
            piece = cells[cell]
            if piece is not None and piece.owner is enemy:
                for neighbour in around[cell]:
                    if cells[neighbour] is None:
                        break
                else:
                    doomed.append(cell)
        for cell in doomed:
            self._capture(cell, "(surrounded)")
        self._end_turn(player.other, PLAY)

    def _finish(self, last_to_pass: Player) -> None:
        mine, theirs = self.score(last_to_pass), self.score(last_to_pass.other)
        winner = last_to_pass if mine > theirs else last_to_pass.other
        tie = "" if mine != theirs else "; a tie loses for the last to pass"
        self._win(winner, f"two passes, {self._score_text()}{tie}")

    def _name(self, player: Player) -> str:
        return self.game.player_names[player.index]

    def hint(self) -> str:
        if self.extra.passes == 1:
            return "a pass now ends the game"
        return ""

    def _explain_illegal(self, move: Move) -> str | None:
        cells, names = self.cells, self.game.board.names
        if move.kind is MoveKind.PLACE:
            if cells[move.to] is not None:
                return f"{names[move.to]} is taken"
            if not any(cells[n] is None for n in self.game.around[move.to]):
                return "a goat is placed only next to an empty cell"
            for ray in self.game.sight[move.to]:
                for target in ray:
                    piece = cells[target]
                    if piece is None:
                        continue
                    if piece.owner is self.to_move:
                        return f"too close in line to your goat on {names[target]}"
                    break
            return None
        if move.kind is MoveKind.MOVE:
            if move.to not in self.game.around[move.frm]:
                return "a goat steps to a neighbouring cell"
            if cells[move.to] is not None:
                return f"{names[move.to]} is taken"
            if (move.frm, move.to) == self._banned():
                return "right after a pass a goat may not undo its own last step"
            if self.extra.last not in (GROUP, PLACEMENT):
                return "a step must group (more friendly neighbours) after a stray or a pass"
            return "a step must group, or stray away from enemy goats"
        return None

    def _score_text(self) -> str:
        return ", ".join(f"{self._name(p)} {self.score(p)}" for p in Player)

    def status_lines(self) -> list[str]:
        return [f"score: {self._score_text()}"]

    # -- positions --------------------------------------------------------------------------
    def _extra_keys(self) -> tuple[str, ...]:
        return ("last", "passes", "last_step", "reversal_ban", "scores")

    def _extra_to_json(self) -> JSON:
        names = self.game.board.names
        extra = self.extra

        def step(frm: Cell, to: Cell) -> str | None:
            if to == NO_CELL:
                return None
            return names[to] if frm == NO_CELL else f"{names[frm]}-{names[to]}"

        return {
            "last": LAST_NAMES[extra.last],
            "passes": extra.passes,
            "last_step": step(extra.last_from, extra.last_to),
            "reversal_ban": step(extra.ban_from, extra.ban_to) if extra.passes else None,
            "scores": {str(int(p)): self.score(p) for p in Player},
        }

    def _extra_from_json(self, node: Node) -> None:
        last_name = node.get("last", "none").choice(tuple(LAST_NAMES.values()))
        last = next(k for k, v in LAST_NAMES.items() if v == last_name)
        passes = node.get("passes", 0).integer(0, 1)
        last_from, last_to = self._step_from_json(node.get("last_step", None))
        ban_from, ban_to = self._step_from_json(node.get("reversal_ban", None))
        self.extra = GoatsExtra(last, passes, last_from, last_to, ban_from, ban_to)

    def _step_from_json(self, node: Node) -> tuple[Cell, Cell]:
        if node.value is None:
            return NO_CELL, NO_CELL
        text = node.text()
        frm, _, to = text.rpartition("-")
        board = self.game.board
        for name in (frm, to):
            if name and name not in board.index:
                node.fail(f"no cell {name!r}")
        return (board.index[frm] if frm else NO_CELL), board.index[to]

    def _check_position(self, node: Node) -> None:
        for piece in self.cells:
            if piece is not None and piece.kind != GOAT:
                node.get("layout").fail("Goats Wintering has only goats")

    def _position_outcome(self) -> Outcome | None:
        return None


GoatsWintering.state_class = GoatsWinteringState
