"""The table's words for pieces: the text ``place`` takes and ``pieces`` prints (S for player
1's stone, s for player 2's, D5 for a die showing 5), and the error its commands raise."""

from __future__ import annotations

from engine import Game, Piece, Player


class CommandError(Exception):
    """A command that cannot be carried out (the message says why)."""


def need(args: list[str], count: int, usage: str) -> None:
    """A command's words: at least ``count``, else its usage as the error."""
    if len(args) < count:
        raise CommandError(f"usage: {usage}")


def piece_from_token(game: Game, token: str) -> Piece:
    """A piece from the text form ``place`` takes and ``pieces`` prints: P (player 1's), p
    (player 2's), D5 (a die showing 5; a stateful piece without pips shows 1)."""
    symbol, digits = token[0], token[1:]
    kind = game.kind_by_symbol.get(symbol.upper())
    if kind is None or (digits and not digits.isdigit()):
        raise CommandError(f"{token!r} is not a piece (a symbol like P or p, then pips)")
    owner = Player.ONE if symbol.isupper() else Player.TWO
    state = int(digits) if digits else None
    if state is None and game.pieces[kind].has_state:
        state = 1
    return Piece(kind, owner, state)


def piece_token(game: Game, piece: Piece) -> str:
    """The text form of ``piece``, as ``piece_from_token`` reads it."""
    symbol = game.pieces[piece.kind].symbol
    symbol = symbol if piece.owner is Player.ONE else symbol.lower()
    return symbol if piece.state is None else f"{symbol}{piece.state}"


def layout_text(game: Game, pieces: dict[int, Piece]) -> dict[str, str]:
    """A layout as cell name -> piece text, as ``keep_file`` and ``pieces`` write it."""
    names = game.board.names
    return {names[cell]: piece_token(game, piece) for cell, piece in sorted(pieces.items())}


def layout_from_text(game: Game, text: object) -> dict[int, Piece]:
    """The layout ``layout_text`` wrote; CommandError for one that does not fit ``game``."""
    if not isinstance(text, dict):
        raise CommandError("a layout is an object of cell: piece")
    index = game.board.index
    layout: dict[int, Piece] = {}
    for name, token in text.items():
        if name not in index or not isinstance(token, str) or not token:
            raise CommandError(f"{name!r}: {token!r} does not fit this board")
        layout[index[name]] = piece_from_token(game, token)
    return layout
