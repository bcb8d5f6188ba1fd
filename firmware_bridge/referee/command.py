"""A control from a face (the kiosk page, a club view, the terminal) and its answer: what goes
through the daemon's one queue beside the board's frames. (Split from daemon.py, which
re-exports both.)"""

from __future__ import annotations

import concurrent.futures
from dataclasses import dataclass, field

from engine import Game
from firmware_bridge.link.profile import BoardProfile
from firmware_bridge.link.protocol import Button


@dataclass(frozen=True, slots=True)
class CommandResult:
    ok: bool
    message: str
    # The serial of the first snapshot that shows what the command did (0: not known): a page
    # keeps its answer until the game moves on from that one, never from an older state.
    serial: int = 0


@dataclass(frozen=True, slots=True)
class Command:
    """A control from a face (the kiosk page, a club view). It goes through the daemon's one
    queue, like the board's frames, and acts through the same path as the board's buttons:
    ``press`` a button, or start a ``new_game`` of ``game`` on ``profile``."""

    action: str  # press | new_game | check | declare | hint | review | computer...
    button: Button | None = None
    game: Game | None = None
    profile: BoardProfile | None = None
    source: str = "kiosk"
    what: str = ""  # check: start | stop | confirm | dark | skip; declare: resign:N | draw
    cells: tuple[str, ...] | None = None  # check start: these cells; review: CELL=SIGNAL
    players: tuple[str, str] | None = None  # for new_game: who plays each side (None: as now)
    reply: concurrent.futures.Future[CommandResult] = field(
        default_factory=concurrent.futures.Future, compare=False
    )


__all__ = ["Command", "CommandResult"]
