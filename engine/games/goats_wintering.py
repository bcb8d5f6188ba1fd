"""Goats Wintering (Dale W. Walton): place goats out of sight of their own kind, step them
towards friends (group) or away from enemies (stray), surround enemy goats to remove them,
and end with the warmest herd: the most adjacent pairs of one's own goats.

Move for move as version 1.3.13 of the Ludii reference plays it. Rules as implemented:
docs/rules/goats-wintering.md.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from engine.config import Node
from engine.effects import EventKind
from engine.game import JSON, Game, State
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
        self.sight = tuple(
            tuple(rays for rays in (board.rays[d][c][: self.gap] for d in board.adjacency) if rays)
            for c in range(size)
        )
        self.place_moves = tuple(Move.place(GOAT, c) for c in range(size))
        self.step_moves = tuple(
            tuple((n, self.step_move(c, n)) for n in board.adjacent[c]) for c in range(size)
        )


class GoatsWinteringState(State):
    game: GoatsWintering
    extra: GoatsExtra

    def _setup(self) -> None:
        self.extra = GoatsExtra()

    # -- helpers ----------------------------------------------------------------------------
    def _owned(self, player: Player) -> list[bool]:
        """For each cell, whether ``player``'s goat stands there (one pass, then lookups)."""
        return [p is not None and p.owner is player for p in self.cells]

    def score(self, player: Player) -> int:
        """Adjacent pairs of ``player``'s goats."""
        owned = self._owned(player)
        around = self.game.around
        total = 0
        for cell, mine in enumerate(owned):
            if mine:
                total += sum(map(owned.__getitem__, around[cell]))
        return total // 2

    def scores(self) -> dict[Player, int] | None:
        return {player: self.score(player) for player in Player}

    def _group_targets(self, cell: Cell, player: Player) -> list[tuple[Cell, Move]]:
        """Steps from ``cell`` that give its goat more friendly neighbours (not counting
        itself), less the exact reversal of the mover's own last step right after a pass."""
        return self._groups(cell, self._owned(player), [p is None for p in self.cells])

    def _groups(self, cell: Cell, mine: list[bool], empty: list[bool]) -> list[tuple[Cell, Move]]:
        game = self.game
        around = game.around
        count = mine.__getitem__
        friends_here = sum(map(count, around[cell]))
        extra = self.extra
        banned = extra.passes == 1 and cell == extra.ban_from
        found = []
        for target, move in game.step_moves[cell]:
            if not empty[target] or sum(map(count, around[target])) - 1 <= friends_here:
                continue
            if banned and target == extra.ban_to:
                continue  # right after a pass: never undo one's own last step
            found.append((target, move))
        return found

    # -- moves ------------------------------------------------------------------------------
    def _generate(self) -> Iterator[Move]:
        yield PASS
        cells = self.cells
        player = self.to_move
        game = self.game
        around = game.around
        sight = game.sight
        place_moves = game.place_moves
        empty = [p is None for p in cells]
        mine = [p is not None and p.owner is player for p in cells]
        is_empty = empty.__getitem__
        for cell, free in enumerate(empty):
            if not free or not any(map(is_empty, around[cell])):
                continue
            too_close = False
            for ray in sight[cell]:  # the first piece along each line, within the gap
                for target in ray:
                    if not empty[target]:
                        too_close = mine[target]
                        break
                if too_close:
                    break
            if not too_close:
                yield place_moves[cell]
        stray_allowed = self.extra.last in (GROUP, PLACEMENT)
        theirs = [p is not None and p.owner is not player for p in cells]
        enemy_count = theirs.__getitem__
        for cell, own in enumerate(mine):
            if not own:
                continue
            groups = self._groups(cell, mine, empty)
            for _, move in groups:
                yield move
            if groups or not stray_allowed:
                continue
            enemies_here = sum(map(enemy_count, around[cell]))
            for target, move in game.step_moves[cell]:
                if empty[target] and sum(map(enemy_count, around[target])) < enemies_here:
                    yield move

    def _play(self, move: Move) -> None:
        player = self.to_move
        extra = self.extra
        names = self.game.board.names
        if move.kind is MoveKind.PASS:
            self._hand_done()
            self._event(EventKind.PASS, f"{self._name(player)} passes")
            self.extra = GoatsExtra(
                NONE, extra.passes + 1, extra.last_from, extra.last_to,
                ban_from=extra.last_to, ban_to=extra.last_from,
            )  # fmt: skip
            if self.extra.passes >= 2:
                self._finish(player)
            self._end_turn(player.other, PLAY)
            return
        goat = Piece(GOAT, player)
        if move.kind is MoveKind.PLACE:
            self._set(move.to, goat)
            self._event(EventKind.PLACE, f"{self._name(player)} places a goat on {names[move.to]}")
            kind, origin = PLACEMENT, NO_CELL
        else:
            kind = GROUP if (move.to, move) in self._group_targets(move.frm, player) else STRAY
            self._set(move.frm, None)
            self._set(move.to, goat)
            word = "group" if kind == GROUP else "stray"
            self._event(
                EventKind.MOVE,
                f"{self._name(player)} {word}s {names[move.frm]}-{names[move.to]}",
                move.frm,
                move.to,
            )
            origin = move.frm
        self._hand_done()
        self.extra = GoatsExtra(kind, 0, origin, move.to)
        # Every enemy goat with no empty neighbour leaves, all at once.
        cells = self.cells
        enemy = player.other
        around = self.game.around
        doomed = [
            c for c, p in enumerate(cells)
            if p is not None and p.owner is enemy and all(cells[n] is not None for n in around[c])
        ]  # fmt: skip
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
