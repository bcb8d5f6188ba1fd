"""Simulated boards: a table of pieces and hands, and the electronics under it.

``table`` holds the pieces, the hands and the commands (``pieces``: its words for pieces);
``board`` is the interface of the electronics under it, with one implementation per family, as
python-can keeps one ``Bus`` and a folder of interfaces: ``emulated`` plays the firmware in
Python, ``micropython`` runs the Pico's own firmware in MicroPython's Unix port
(``firmware_files`` makes its files). Imports: ``engine``, ``firmware_bridge.link`` and this
folder; never the referee, a face or a command (a simulated board talks to the referee only over
its serial line, as a real one does).
"""

from firmware_bridge.boards.board import Board, BoardCommandError, BoardStartError
from firmware_bridge.boards.emulated import EmulatedBoard, Emulator
from firmware_bridge.boards.pieces import CommandError, piece_from_token, piece_token
from firmware_bridge.boards.table import Table

__all__ = [
    "Board",
    "BoardCommandError",
    "BoardStartError",
    "CommandError",
    "EmulatedBoard",
    "Emulator",
    "Table",
    "piece_from_token",
    "piece_token",
]
