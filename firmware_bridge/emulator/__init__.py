"""The board emulator: the firmware side of protocol v1 on a pty, with a terminal face, a
scripted mode, a JSON-lines mode for tests, and a web face (a board to play in the browser).

It is part of the installed package so that ``board-referee emulate`` and the main command work
after a wheel install; ``tools/`` keeps only scripts run from the source tree.
"""

from firmware_bridge.emulator.core import (
    CommandError,
    Emulator,
    add_arguments,
    default_link,
    piece_from_token,
    piece_token,
    run,
)

__all__ = [
    "CommandError",
    "Emulator",
    "add_arguments",
    "default_link",
    "piece_from_token",
    "piece_token",
    "run",
]
