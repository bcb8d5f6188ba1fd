"""Sensors going bad during play, told apart from players' mistakes.

A sensor that flaps again and again (a loose wire, a cold joint) and a cell that keeps reading
a piece the game says is not there (a stuck switch, a magnet under the board) would otherwise
show as an endless "disturbed board". The daemon feeds this tracker every sensed change and the
cells its LEDs ask to clear; it names the cell, for the kiosk and the club view.

Pure logic: no I/O, no clock (``now`` is passed in).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from engine import Cell, Player, State
from firmware_bridge import words
from firmware_bridge.link.leds import Signal
from firmware_bridge.link.profile import Token

FLAP_WINDOW = 30.0  # seconds in which ...
FLAP_COUNT = 8  # ... this many changes of one sensor, with no move made there, is flapping
PHANTOM_AFTER = 20.0  # seconds a cell may read a piece the game does not have, while asked
QUIET_AFTER = 60.0  # a flapping warning ends after this long without a change


@dataclass(frozen=True, slots=True)
class SensorWarning:
    cell: str
    kind: str  # flapping | phantom
    text: str

    def to_json(self) -> dict[str, str]:
        return {"cell": self.cell, "kind": self.kind, "text": self.text}


def hand_explains(signals: Mapping[Cell, Signal], state: State) -> bool:
    """Whether a player's hand explains a piece read where the game has none: a piece of the
    game's is missing from another cell (a move left unfinished, or illegal), or a player
    still has pieces to place. Only when nothing does is its sensor suspected."""
    if any(signal is Signal.PUT_BACK for signal in signals.values()):
        return True
    return any(any(state.reserve(player).values()) for player in Player)


class SensorHealth:
    def __init__(self, names: tuple[str, ...]) -> None:
        self.names = names
        self.changes: dict[Cell, deque[float]] = {}
        self.phantom_since: dict[Cell, float] = {}
        self.flapping: dict[Cell, float] = {}  # cell -> when it last changed
        self.phantoms: set[Cell] = set()

    def observe(
        self, before: Mapping[Cell, Token], after: Mapping[Cell, Token], now: float
    ) -> bool:
        """A new sensed layout; True if the warnings changed."""
        changed = False
        for cell in set(before) | set(after):
            if before.get(cell) == after.get(cell):
                continue
            times = self.changes.setdefault(cell, deque())
            times.append(now)
            while times and now - times[0] > FLAP_WINDOW:
                times.popleft()
            if len(times) >= FLAP_COUNT:
                changed |= cell not in self.flapping
                self.flapping[cell] = now
            elif cell in self.flapping:
                self.flapping[cell] = now
        return changed

    def moved(self, cells: Iterable[Cell]) -> None:
        """A move was made on these cells: their changes were hands, not a bad sensor."""
        for cell in cells:
            self.changes.pop(cell, None)

    def asked_to_clear(self, cells: Iterable[Cell], now: float) -> bool:
        """The cells the LEDs now ask to clear of a piece the game does not have there; True if
        the warnings changed."""
        wanted = set(cells)
        for cell in list(self.phantom_since):
            if cell not in wanted:
                del self.phantom_since[cell]
        for cell in wanted:
            self.phantom_since.setdefault(cell, now)
        return self.tick(now)

    def tick(self, now: float) -> bool:
        before = (set(self.flapping), set(self.phantoms))
        self.phantoms = {c for c, t in self.phantom_since.items() if now - t >= PHANTOM_AFTER}
        for cell, last in list(self.flapping.items()):
            if now - last >= QUIET_AFTER:
                del self.flapping[cell]
        return before != (set(self.flapping), set(self.phantoms))

    def warnings(self) -> tuple[SensorWarning, ...]:
        found = []
        for cell in sorted(self.flapping):
            name = self.names[cell]
            count = len(self.changes.get(cell, ()))
            text = words.sensor_flapping(name, count, FLAP_WINDOW)
            found.append(SensorWarning(name, "flapping", text))
        for cell in sorted(self.phantoms):
            name = self.names[cell]
            found.append(SensorWarning(name, "phantom", words.sensor_phantom(name)))
        return tuple(found)

    def brief(self) -> str:
        """Every warning in one short line (the kiosk shows it under what must happen now,
        never in its place: a suspicion of a sensor never hides an illegal move)."""
        names = self.names
        return words.sensor_brief((names[c] for c in self.flapping),
                                  (names[c] for c in self.phantoms))  # fmt: skip
