"""The board emulator: a table of pieces on a board behind a pty, with a terminal face, a
scripted mode, a JSON-lines mode for tests, and a web face (a board to play in the browser).

``table`` holds the pieces, the hands and the commands; ``board`` the electronics under it:
``emulated`` plays the firmware in Python, and ``firmware_bridge.pico.host`` runs the Pico's
own firmware in MicroPython. It is part of the installed package so that ``board-referee
emulate`` and the main command work after a wheel install; ``tools/`` keeps only scripts run
from the source tree.
"""

from firmware_bridge.emulator.board import Board, BoardCommandError, BoardStartError
from firmware_bridge.emulator.command import add_arguments, default_link, run
from firmware_bridge.emulator.emulated import EmulatedBoard, Emulator
from firmware_bridge.emulator.table import CommandError, Table, piece_from_token, piece_token

__all__ = [
    "Board",
    "BoardCommandError",
    "BoardStartError",
    "CommandError",
    "EmulatedBoard",
    "Emulator",
    "Table",
    "add_arguments",
    "default_link",
    "piece_from_token",
    "piece_token",
    "run",
]
