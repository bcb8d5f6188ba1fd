"""Drawing a position as text for terminals and logs.

Works for any board from the cells' drawing positions: square grids, offset hex rows and
irregular boards alike. Player 1's pieces are upper case, player 2's lower case, and a piece's
state (a die's strength) follows its symbol. ``marks`` lets a caller overlay a cell with a short
tag, as the LED view of the emulator does.
"""

from __future__ import annotations

from collections.abc import Mapping

from engine import Cell, Game, Piece, Player, State
from engine.outcome import player_label
from firmware_bridge import words

CELL_WIDTH = 4  # characters per unit of x


def piece_token(game: Game, piece: Piece) -> str:
    symbol = game.pieces[piece.kind].symbol
    if piece.owner is Player.TWO:
        symbol = symbol.lower()
    return symbol if piece.state is None else f"{symbol}{piece.state}"


def empty_token(game: Game, cell: Cell) -> str:
    board = game.board
    if cell in board.blocked:
        return board.glyphs.get("blocked", "##")
    for region, glyph in board.glyphs.items():
        if region != "blocked" and cell in board.region(region):
            return glyph
    return "."


def render_board(
    game: Game, pieces: Mapping[Cell, Piece], marks: Mapping[Cell, str] | None = None
) -> str:
    """``pieces`` on ``game``'s board; ``marks`` replace what a cell shows (LED tags)."""
    board = game.board
    marks = marks or {}
    xs = [x for x, _ in board.coords]
    min_x = min(xs)
    rows: dict[int, list[Cell]] = {}
    for cell, (_, y) in enumerate(board.coords):
        rows.setdefault(round(y * 100), []).append(cell)
    width = round((max(xs) - min_x) * CELL_WIDTH) + CELL_WIDTH
    lines: list[str] = []
    label_width = max(len(_row_label(board.names[cells[0]])) for cells in rows.values())
    for key in sorted(rows, reverse=True):
        cells = rows[key]
        line = [" "] * width
        for cell in cells:
            piece = pieces.get(cell)
            token = piece_token(game, piece) if piece else empty_token(game, cell)
            if cell in marks:
                token = marks[cell]
            column = round((board.coords[cell][0] - min_x) * CELL_WIDTH)
            for offset, char in enumerate(f"{token:^3}"[:3]):
                line[column + offset] = char
        label = _row_label(board.names[cells[0]]).rjust(label_width)
        lines.append(f"{label} {''.join(line).rstrip()}")
    # One file letter per column, from the lowest cell of each (a framed board's bottom row
    # may not reach every column).
    lowest: dict[int, Cell] = {}
    for cell, (x, y) in enumerate(board.coords):
        column = round(x * 100)
        if column not in lowest or y < board.coords[lowest[column]][1]:
            lowest[column] = cell
    footer = [" "] * width
    for cell in lowest.values():
        column = round((board.coords[cell][0] - min_x) * CELL_WIDTH)
        footer[column + 1] = _file_label(board.names[cell])
    lines.append(" " * (label_width + 1) + "".join(footer).rstrip())
    return "\n".join(lines)


def _row_label(name: str) -> str:
    digits = name.lstrip("ABCDEFGHIJKLMNOPQRSTUVWYZabcdefghijklmnopqrstuvwyz")
    return digits if digits.isdigit() else ""


def _file_label(name: str) -> str:
    return name[0] if name else " "


def render_state(state: State, marks: Mapping[Cell, str] | None = None) -> str:
    game = state.game
    lines = [render_board(game, state.layout(), marks)]
    names = game.player_names
    lines.append(
        f"upper case: {player_label(names, Player.ONE)}   "
        f"lower case: {player_label(names, Player.TWO)}"
    )
    lines.extend(state.status_lines())
    outcome = state.outcome()
    if outcome is not None:
        lines.append(f"game over: {outcome.describe(names)}")
    else:
        who = names[state.to_move.index]
        lines.append(f"{who} chooses" if state.deciding else words.to_move(who, state.hint()))
    return "\n".join(lines)
