"""Vanguard (K. M. Lewis, 2024): outriders, a ram pushed off by its friends, a captain whose
flag follows it. Capture by replacement; capturing the enemy flag wins.

Move for move as the Ludii reference plays it, except its two known defects, where the rules
text is followed. Rules as implemented: docs/rules/vanguard.md.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from itertools import compress
from typing import Final

from engine.board import OPPOSITE
from engine.config import Node
from engine.effects import EventKind
from engine.game import Game, GameState
from engine.hexgrid import ADJACENT, ALL_DIRECTIONS
from engine.moves import NO_CELL, Cell, Move, MoveKind
from engine.outcome import Outcome
from engine.pieces import Piece
from engine.player import Player

PLAY: Final = "play"
OUTRIDER: Final = "outrider"
CAPTAIN: Final = "captain"
FLAG: Final = "flag"
RAM: Final = "ram"


@dataclass(frozen=True, slots=True)
class RamRun:
    """Where a ram's move from a cell, starting with a given first step, ends."""

    path: tuple[Cell, ...]  # every cell the ram enters, in order; the last is where it stops
    capture: Cell  # the cell whose enemy piece it captures (the last of the path), or NO_CELL


class Vanguard(Game):
    rules = "vanguard"
    phases = (PLAY,)

    @classmethod
    def config_keys(cls) -> tuple[str, ...]:
        return (*super().config_keys(), "setup", "ram")

    def _configure(self, node: Node) -> None:
        board = self.board
        for kind in (OUTRIDER, CAPTAIN, FLAG, RAM):
            if kind not in self.pieces:
                node.get("pieces").fail(f"Vanguard needs a piece kind called {kind!r}")
        self.setup = self.setup_of(node.get("setup"))
        ram = node.get("ram")
        ram.only_keys("steps", "start_bounces", "bounces")
        self.ram_steps = ram.get("steps", 3).integer(1, 9)
        self.start_bounces = self._bounces(ram.get("start_bounces"))
        self.bounces = self._bounces(ram.get("bounces"))
        step = board.step
        self.cell_range = range(board.size)
        # Tables: (target, move) for outrider steps in all 12 directions, captain steps in 6.
        self.outrider_moves = tuple(
            tuple((step[d][c], self.step_move(c, step[d][c]))
                  for d in ALL_DIRECTIONS if step[d][c] != NO_CELL)
            for c in range(board.size)
        )  # fmt: skip
        self.captain_moves = tuple(
            tuple((step[d][c], self.step_move(c, step[d][c]))
                  for d in ADJACENT if step[d][c] != NO_CELL)
            for c in range(board.size)
        )  # fmt: skip
        # For each cell: the ram's possible first steps, each with its direction, its move and
        # the cells where a friend would push it that way (opposite, or bounced on an edge).
        ram_starts = []
        for cell in range(board.size):
            by_first: dict[Cell, tuple[str, list[Cell]]] = {}
            for friend in ADJACENT:
                pusher = step[friend][cell]
                first, direction = self._ram_start(cell, friend)
                if NO_CELL not in (pusher, first):
                    by_first.setdefault(first, (direction, []))[1].append(pusher)
            ram_starts.append(tuple(
                (first, direction, self.step_move(cell, first), tuple(pushers))
                for first, (direction, pushers) in by_first.items()
            ))  # fmt: skip
        self.ram_starts: tuple[tuple[tuple[Cell, str, Move, tuple[Cell, ...]], ...], ...] = tuple(
            ram_starts
        )

    def _bounces(self, node: Node) -> dict[Cell, dict[str, str]]:
        """``{region: {direction arriving/natural: direction to take instead}}`` by cell."""
        table: dict[Cell, dict[str, str]] = {}
        for region, mapping in node.items():
            cells = self.board.regions.get(region)
            if cells is None:
                node.key(region).fail(f"no board region called {region!r}")
            turns: dict[str, str] = {}
            for before, after_node in mapping.items():
                after = after_node.text()
                for name in (before, after):
                    if name not in ADJACENT:
                        after_node.fail(f"{name!r} is not one of {', '.join(ADJACENT)}")
                turns[before] = after
            for cell in cells:
                table.setdefault(cell, {}).update(turns)
        return table

    def _ram_start(self, cell: Cell, friend: str) -> tuple[Cell, str]:
        """The first step of a ram on ``cell`` pushed by a friend in direction ``friend``."""
        step = self.board.step
        direction = OPPOSITE[friend]
        first = step[direction][cell]
        if first == NO_CELL:
            direction = self.start_bounces.get(cell, {}).get(direction, "")
            first = step[direction][cell] if direction else NO_CELL
        return first, direction


class VanguardState(GameState[Vanguard, None]):
    list_moves_once = True  # some 20 moves, listed in microseconds

    def _setup(self) -> None:
        for player in Player:
            for cell, kind in self.game.setup[player.index]:
                self.cells[cell] = Piece(kind, player)

    # -- moves ------------------------------------------------------------------------------
    def _generate(self) -> Iterator[Move]:
        return iter(self._list_moves())

    def _list_moves(self) -> list[Move]:
        # A list, not a generator: every position's whole list is wanted (list_moves_once),
        # and appending is cheaper than yielding, above all compiled.
        moves: list[Move] = []
        cells = self.cells
        player = self.to_move
        game = self.game
        for cell in range(len(cells)):  # a plain loop: compiled, quicker than compress()
            piece = cells[cell]
            if piece is None or piece.owner is not player:
                continue
            kind = piece.kind
            if kind == OUTRIDER:
                for target, move in game.outrider_moves[cell]:
                    other = cells[target]
                    if other is None or (other.owner is not player and other.kind != RAM):
                        moves.append(move)
            elif kind == CAPTAIN:
                for target, move in game.captain_moves[cell]:
                    other = cells[target]
                    if other is None or other.owner is not player:
                        moves.append(move)
            elif kind == RAM:
                for _, move in self.ram_moves(cell, player):
                    moves.append(move)
        return moves

    def ram_moves(self, cell: Cell, player: Player) -> list[tuple[Cell, Move]]:
        """The moves of ``player``'s ram on ``cell`` (each with its first step's cell): a
        friend (not a ram) pushes it from behind, and its first cell holds no friend and no
        ram. ``player`` may be the one not to move: a search asks what the other threatens."""
        cells = self.cells
        found: list[tuple[Cell, Move]] = []
        for first, _, move, pushers in self.game.ram_starts[cell]:
            other = cells[first]
            if other is not None and (other.owner is player or other.kind == RAM):
                continue
            for pusher in pushers:
                friend = cells[pusher]
                if friend is not None and friend.owner is player and friend.kind != RAM:
                    found.append((first, move))
                    break
        return found

    def ram_run(self, cell: Cell, first: Cell, player: Player | None = None) -> RamRun:
        """Follow a ram from ``cell`` through ``first`` to where the rules make it stop, the
        ram being ``player``'s (the player to move's unless said: a search asks of the other)."""
        game = self.game
        step = game.board.step
        cells = self.cells
        if player is None:
            player = self.to_move
        direction = next(d for c, d, _, _ in game.ram_starts[cell] if c == first)
        occupant = cells[first]
        if occupant is not None:
            return RamRun((first,), first)
        path = [first]
        current = first
        for _ in range(game.ram_steps - 1):
            nxt = step[direction][current]
            if nxt == NO_CELL:
                turned = game.bounces.get(current, {}).get(direction)
                if turned is None:
                    break
                direction = turned
                nxt = step[direction][current]
                if nxt == NO_CELL:
                    break
            occupant = cells[nxt]
            if occupant is None:
                path.append(nxt)
                current = nxt
                continue
            if occupant.owner is not player and occupant.kind != RAM:
                path.append(nxt)
                return RamRun(tuple(path), nxt)
            break
        return RamRun(tuple(path), NO_CELL)

    def _play(self, move: Move) -> None:
        assert move.kind is MoveKind.MOVE
        cells = self.cells
        piece = cells[move.frm]
        assert piece is not None
        game = self.game
        names = game.board.names
        player = self.to_move
        if piece.kind == RAM:
            run = self.ram_run(move.frm, move.to)
            self._step_piece(move.frm, move.to, piece)
            self._hand_done()
            current = move.to
            for cell in run.path[1:]:
                if cell == run.capture:
                    self._take(cell, piece)
                self._set(current, None)
                self._set(cell, piece)
                current = cell
            if len(run.path) > 1 and self.narrating:
                route = "-".join(names[c] for c in run.path)
                self._event(EventKind.MOVE, f"the ram runs on: {route}", *run.path)
        elif piece.kind == CAPTAIN:
            self._step_piece(move.frm, move.to, piece)
            self._hand_done()
            flag = next(
                (c for c in compress(game.cell_range, cells)
                 if cells[c].owner is player and cells[c].kind == FLAG),  # type: ignore[union-attr]
                NO_CELL,
            )  # fmt: skip
            if flag != NO_CELL:
                flag_piece = cells[flag]
                assert flag_piece is not None
                self._set(flag, None)
                self._set(move.frm, flag_piece)
                if self.narrating:
                    self._event(EventKind.MOVE,
                                f"the flag follows: {names[flag]}-{names[move.frm]}",
                                flag, move.frm)  # fmt: skip
        else:
            self._step_piece(move.frm, move.to, piece)
            self._hand_done()
        self._end_turn(player.other, PLAY)

    def _step_piece(self, frm: Cell, to: Cell, piece: Piece) -> None:
        victim = self.cells[to]
        self._moved(piece, frm, to)
        if victim is not None:
            self._take(to, piece)
        self._set(frm, None)
        self._set(to, piece)

    def _take(self, cell: Cell, attacker: Piece) -> None:
        victim = self._capture(cell, f"by the {attacker.kind}")
        if victim.kind == FLAG:
            self._win(attacker.owner, f"{self.game.player_names[attacker.owner.index]} "
                                      "captured the flag")  # fmt: skip

    # -- positions --------------------------------------------------------------------------
    def _extra_from_json(self, node: Node) -> None:
        self.extra = None

    def _check_position(self, node: Node) -> None:
        counts: dict[tuple[Player, str], int] = {}
        for piece in self.cells:
            if piece is not None:
                key = (piece.owner, piece.kind)
                counts[key] = counts.get(key, 0) + 1
        limits: Mapping[str, int] = {OUTRIDER: 3, CAPTAIN: 1, FLAG: 1, RAM: 1}
        for (owner, kind), count in counts.items():
            if count > limits[kind]:
                node.get("layout").fail(f"player {int(owner)} has {count} {kind}s")

    def _position_outcome(self) -> Outcome | None:
        return self._royal_missing(FLAG, "captured the flag")


Vanguard.state_class = VanguardState
