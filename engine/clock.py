"""Chess clocks for tournament play: time controls and the clock itself.

Pure like the rules: no thread, no clock of its own. Every call that depends on the time is
given ``now`` (milliseconds on any monotonic scale), so the same clock runs in the referee,
in a test stepping time by hand, and after a restart from its journaled value.

A time control is written in the PGN standard's ``TimeControl`` syntax (seconds), extended
with delays as DGT clocks offer them:

- ``600``: sudden death, 10 minutes each;
- ``300+3``: 5 minutes, 3 seconds added after each move (Fischer increment);
- ``40/5400+30:1800+30``: 40 moves in 90 minutes (30 s a move), then 30 minutes for the rest;
- ``300d5``: simple (US) delay: the clock waits 5 s each move before it counts down;
- ``300b5``: Bronstein delay: after each move, the time used is given back, up to 5 s;
- ``300+3,240+3``: a handicap: the first player's control, then the second player's.

``str()`` writes a control back in the same syntax (``TimeControl.parse(str(tc)) == tc``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import Enum

from engine.errors import ConfigError

MS = 1000


class Delay(Enum):
    """What a period does after each move (or before it counts down)."""

    NONE = ""
    INCREMENT = "+"  # Fischer: the increment added after the move
    SIMPLE = "d"  # US delay: the clock counts down only once the delay has passed
    BRONSTEIN = "b"  # after the move, the time used is given back, at most the delay


@dataclass(frozen=True, slots=True)
class Period:
    """``moves`` moves (None: the rest of the game) in ``seconds``, with a delay."""

    seconds: int
    moves: int | None = None
    kind: Delay = Delay.NONE
    delay: int = 0  # seconds of increment or delay

    def __str__(self) -> str:
        text = f"{self.moves}/" if self.moves else ""
        text += str(self.seconds)
        if self.kind is not Delay.NONE:
            text += f"{self.kind.value}{self.delay}"
        return text


_PERIOD = re.compile(r"^(?:(\d+)/)?(\d+)(?:([+db])(\d+))?$")
LONGEST_S = 24 * 3600  # a period longer than a day is a typing slip


@dataclass(frozen=True, slots=True)
class TimeControl:
    """Each player's periods (one tuple each: the same unless a handicap)."""

    first: tuple[Period, ...]
    second: tuple[Period, ...]

    @classmethod
    def parse(cls, text: str) -> TimeControl:
        """A control in the syntax above; ConfigError names what is wrong."""
        raw = text.strip()
        sides = raw.split(",")
        if not raw or len(sides) > 2:
            raise ConfigError(
                f"time control {text!r}: write seconds (600), an increment (300+3), periods "
                "(40/5400+30:1800+30), a delay (300d5, 300b5), or two controls for a "
                "handicap (300+3,240+3)"
            )
        parsed = [cls._periods(side, text) for side in sides]
        return cls(parsed[0], parsed[-1])

    @staticmethod
    def _periods(text: str, whole: str) -> tuple[Period, ...]:
        periods = []
        parts = text.strip().split(":")
        for index, part in enumerate(parts):
            match = _PERIOD.match(part.strip())
            if match is None:
                raise ConfigError(
                    f"time control {whole!r}: {part!r} is not a period: seconds, then "
                    "+increment, dDELAY or bDELAY, after MOVES/ for a period of so many moves"
                )
            moves, seconds, sign, delay = match.groups()
            if moves is not None and int(moves) == 0:
                raise ConfigError(f"time control {whole!r}: a period of 0 moves")
            if moves is None and index < len(parts) - 1:
                raise ConfigError(
                    f"time control {whole!r}: only the last period may be for the rest of the "
                    f"game ({part!r} has no MOVES/)"
                )
            if int(seconds) == 0 or int(seconds) > LONGEST_S:
                raise ConfigError(
                    f"time control {whole!r}: {seconds} s (a period has 1 to {LONGEST_S} s)"
                )
            if delay is not None and int(delay) > 3600:
                raise ConfigError(f"time control {whole!r}: a delay of {delay} s")
            periods.append(
                Period(
                    int(seconds),
                    int(moves) if moves is not None else None,
                    Delay(sign) if sign else Delay.NONE,
                    int(delay or 0),
                )
            )
        return tuple(periods)

    def periods(self, player: int) -> tuple[Period, ...]:
        """Player 1's or player 2's periods."""
        return self.first if player == 1 else self.second

    def __str__(self) -> str:
        first = ":".join(str(p) for p in self.first)
        if self.second == self.first:
            return first
        return first + "," + ":".join(str(p) for p in self.second)

    def pgn(self) -> str:
        """The PGN header's value: the standard's syntax where it has one (delays and a
        handicap are ours, as above)."""
        return str(self)


@dataclass(frozen=True, slots=True)
class ClockValue:
    """What a clock shows at a moment, and all it needs to go on: journaled with each move
    and each pause, restored after a restart (times in milliseconds)."""

    left: tuple[int, int]  # each player's time left
    period: tuple[int, int]  # the period each player is in
    moves: tuple[int, int]  # moves each made in that period
    running: int | None  # the player whose clock runs (1 or 2), None when stopped
    paused: bool = False
    flagged: int | None = None  # the player whose time ran out first

    def to_json(self) -> dict[str, object]:
        return {
            "left_ms": list(self.left),
            "period": list(self.period),
            "moves": list(self.moves),
            "running": self.running,
            "paused": self.paused,
            "flagged": self.flagged,
        }

    @classmethod
    def from_json(cls, data: dict[str, object]) -> ClockValue:
        def pair(key: str) -> tuple[int, int]:
            value = data.get(key)
            if not isinstance(value, list) or len(value) != 2:
                raise ConfigError(f"a clock's {key} is not a pair")
            return int(value[0]), int(value[1])

        running = data.get("running")
        flagged = data.get("flagged")
        return cls(
            pair("left_ms"),
            pair("period"),
            pair("moves"),
            _player(running),
            bool(data.get("paused", False)),
            _player(flagged),
        )


def _player(value: object) -> int | None:
    return 1 if value == 1 else 2 if value == 2 else None


@dataclass(slots=True)
class Clock:
    """Two players' clocks under one time control. ``now`` is milliseconds on any monotonic
    scale; a player is 1 or 2."""

    control: TimeControl
    left: list[int] = field(default_factory=list)
    period: list[int] = field(default_factory=lambda: [0, 0])
    moves: list[int] = field(default_factory=lambda: [0, 0])
    running: int | None = None
    paused: bool = False
    flagged: int | None = None
    since: int = 0  # when the running clock last started (or was last charged)
    delay_left: int = 0  # ms of a simple delay still to wait this move
    used: int = 0  # ms the running player has used this move (for a Bronstein delay)

    def __post_init__(self) -> None:
        if not self.left:
            self.left = [self.control.first[0].seconds * MS, self.control.second[0].seconds * MS]

    # -- reading --------------------------------------------------------------------------

    def current(self, player: int) -> Period:
        periods = self.control.periods(player)
        return periods[min(self.period[player - 1], len(periods) - 1)]

    def remaining(self, player: int, now: int) -> int:
        """Player's time left at ``now`` (ms, never below 0)."""
        left = self.left[player - 1]
        if self.running == player and not self.paused and self.flagged is None:
            left -= max(0, (now - self.since) - self.delay_left)
        return max(0, left)

    def flag(self, now: int) -> int | None:
        """The player whose time has run out (first), or None."""
        running = self.running
        if (
            self.flagged is None
            and running is not None
            and not self.paused
            and (self.remaining(running, now) <= 0)
        ):
            self._charge(now)
            self.flagged = running
        return self.flagged

    def value(self, now: int) -> ClockValue:
        return ClockValue(
            (self.remaining(1, now), self.remaining(2, now)),
            (self.period[0], self.period[1]),
            (self.moves[0], self.moves[1]),
            self.running,
            self.paused,
            self.flagged,
        )

    # -- what the referee does ------------------------------------------------------------

    def start(self, player: int, now: int) -> None:
        """Start ``player``'s clock (the game begins, or goes on after a restart)."""
        self.running = player
        self._begin_move(now)

    def press(self, now: int) -> None:
        """The running player has moved: their move's time, increment or delay, and the
        next period if this move finished one; the other player's clock starts."""
        if self.running is None or self.flagged is not None or self.flag(now) is not None:
            return
        player = self.running
        self._charge(now)
        index = player - 1
        period = self.current(player)
        if period.kind is Delay.INCREMENT:
            self.left[index] += period.delay * MS
        elif period.kind is Delay.BRONSTEIN:
            self.left[index] += min(self.used, period.delay * MS)
        self.moves[index] += 1
        if period.moves is not None and self.moves[index] >= period.moves:
            periods = self.control.periods(player)
            following = min(self.period[index] + 1, len(periods) - 1)
            self.period[index] += 1
            self.moves[index] = 0
            self.left[index] += periods[following].seconds * MS
        self.running = 2 if player == 1 else 1
        self._begin_move(now)

    def stop(self, now: int) -> None:
        """The game is over: both clocks stop where they are."""
        self._charge(now)
        self.running = None

    def pause(self, now: int) -> None:
        """An arbiter stops the clocks (a dispute): no one's time runs until resumed."""
        if self.paused or self.running is None:
            return
        self._charge(now)
        self.paused = True

    def resume(self, now: int) -> None:
        if not self.paused:
            return
        self.paused = False
        self.since = now

    def adjust(self, player: int, ms: int, now: int) -> None:
        """Add (or, negative, take) time: an arbiter's penalty or correction."""
        self._charge(now)
        self.left[player - 1] = max(0, self.left[player - 1] + ms)
        if self.running is not None and not self.paused:
            self.since = now

    def restore(self, value: ClockValue, now: int) -> None:
        """Go on from a journaled value (a take-back, a restart): the running player's move
        starts again at ``now``; the time in between is not charged to anyone."""
        self.left = list(value.left)
        self.period = list(value.period)
        self.moves = list(value.moves)
        self.running = value.running
        self.paused = value.paused
        self.flagged = value.flagged
        self._begin_move(now)

    # -- inside ---------------------------------------------------------------------------

    def _begin_move(self, now: int) -> None:
        self.since = now
        self.used = 0
        running = self.running
        period = self.current(running) if running is not None else None
        self.delay_left = period.delay * MS if period and period.kind is Delay.SIMPLE else 0

    def _charge(self, now: int) -> None:
        """Take the running player's time since ``since`` off their clock."""
        if self.running is None or self.paused or self.flagged is not None:
            self.since = now
            return
        elapsed = max(0, now - self.since)
        self.used += elapsed
        waited = min(elapsed, self.delay_left)
        self.delay_left -= waited
        index = self.running - 1
        self.left[index] = max(0, self.left[index] - (elapsed - waited))
        self.since = now


def clock_text(ms: int) -> str:
    """As a clock shows it: ``1:05:07``, ``4:59``, and tenths under ten seconds: ``9.4``."""
    if ms < 10 * MS:
        return f"{ms // MS}.{ms % MS // 100}"
    seconds = ms // MS
    hours, rest = divmod(seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{seconds:02d}" if hours else f"{minutes}:{seconds:02d}"


def pgn_clock(ms: int) -> str:
    """PGN's ``[%clk h:mm:ss]`` value."""
    seconds = (ms + MS - 1) // MS
    hours, rest = divmod(seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{seconds:02d}"
