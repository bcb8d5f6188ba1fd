"""Board Referee rules engine: pure rules, no I/O, no threads, no clocks.

Build a game from a parsed config with ``build_game``; play it through its ``State``.
"""

from engine.board import Board, Zone
from engine.effects import Change, Effect, Event, EventKind, Footprint, Layout
from engine.errors import ConfigError, IllegalMoveError, InvalidMoveError, PositionError
from engine.game import Game, State
from engine.moves import NO_CELL, Cell, Move, MoveKind
from engine.notation import declared, moves_played
from engine.notes import Note, NoteKind
from engine.outcome import Outcome
from engine.pieces import Piece, PieceKind
from engine.player import Player
from engine.registry import RULES, build_game

__all__ = [
    "NO_CELL",
    "RULES",
    "Board",
    "Cell",
    "Change",
    "ConfigError",
    "Effect",
    "Event",
    "EventKind",
    "Footprint",
    "Game",
    "IllegalMoveError",
    "InvalidMoveError",
    "Layout",
    "Move",
    "MoveKind",
    "Note",
    "NoteKind",
    "Outcome",
    "Piece",
    "PieceKind",
    "Player",
    "PositionError",
    "State",
    "Zone",
    "build_game",
    "declared",
    "moves_played",
]
