"""The game's clock as the referee presses it (engine/clock.py keeps the time).

Who presses it and when (docs/clocks.md):
- the player to move's clock starts when the board first shows the game's position, as an
  arbiter starts it once the pieces are set up;
- it switches when the referee accepts a move: the moment the board shows the finished, legal
  move (the settle window, which waits for hands to be still, counts to the mover: it is part
  of making the move on the board);
- the computer's clock runs while it thinks; it is pressed when its answer comes, and the
  human's clock starts only once the board shows the computer's move carried out (a person
  moving the computer's piece is not spending their own time);
- a take-back puts both clocks back as they were before the moves taken back;
- a result (a resignation, an agreed draw, a flag fall) stops them.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.clock import Clock, ClockValue, Delay, TimeControl, clock_text

MS = 1000
LOW_MS = 20 * MS  # a clock this low shows its warning
MIN_THINK_MS = 50  # the computer's least time for a move, whatever its clock shows


@dataclass(frozen=True, slots=True)
class ClocksView:
    """What a face shows of the clocks (the snapshot's ``clocks``)."""

    control: str
    left_ms: tuple[int, int]
    text: tuple[str, str]
    running: int | None
    paused: bool
    held: bool  # the computer has answered: no one's clock runs until its move is on the board
    flagged: int | None
    low: tuple[bool, bool]
    started: bool

    def to_json(self) -> dict[str, object]:
        return {
            "control": self.control,
            "left_ms": list(self.left_ms),
            "text": list(self.text),
            "running": self.running,
            "paused": self.paused,
            "held": self.held,
            "flagged": self.flagged,
            "low": list(self.low),
            "started": self.started,
        }


class GameClocks:
    """One game's clocks, pressed by the referee; ``now`` in seconds (the loop's clock)."""

    def __init__(self, control: TimeControl | None) -> None:
        self.control = control
        self.new_game()

    def new_game(self) -> None:
        self.clock = Clock(self.control) if self.control is not None else None
        self.started = False
        self.held = False
        self.pending: ClockValue | None = None  # before the computer's answer was pressed
        self.pending_left = 0  # the computer's time left once its answer was pressed
        self.history: list[ClockValue] = []  # the value before each journaled entry
        self.after: list[int] = []  # the mover's time left after each entry (PGN's [%clk])
        self.restored = False  # the clocks were restored after a restart

    @property
    def active(self) -> bool:
        return self.clock is not None

    @staticmethod
    def ms(now: float) -> int:
        return round(now * MS)

    def start(self, player: int, now: float) -> None:
        clock = self.clock
        if clock is None or self.started:
            return
        self.started = True
        if clock.flagged is None:
            clock.start(player, self.ms(now))

    def answered(self, now: float) -> None:
        """The computer's answer: its clock stops, and no one's runs until it is carried out."""
        clock = self.clock
        if clock is None or not self.started or self.held:
            return
        self.pending = clock.value(self.ms(now))
        player = clock.running
        clock.press(self.ms(now))
        self.pending_left = clock.remaining(player, self.ms(now)) if player else 0
        clock.pause(self.ms(now))
        self.held = True

    def moved(self, now: float) -> None:
        """A move was accepted (the board shows it)."""
        clock = self.clock
        if clock is None or not self.started:
            return
        if self.held and self.pending is not None:
            self.history.append(self.pending)
            self.after.append(self.pending_left)
            self.held, self.pending = False, None
            clock.resume(self.ms(now))
            return
        self.history.append(clock.value(self.ms(now)))
        mover = clock.running
        clock.press(self.ms(now))
        self.after.append(clock.remaining(mover, self.ms(now)) if mover else 0)

    def ended(self, now: float) -> None:
        """A result was declared (a resignation, a draw, a flag fall): the clocks stop."""
        clock = self.clock
        if clock is None:
            return
        self.history.append(clock.value(self.ms(now)))
        mover = clock.flagged or clock.running
        self.after.append(clock.remaining(mover, self.ms(now)) if mover else 0)
        self.held, self.pending = False, None
        clock.stop(self.ms(now))

    def took_back(self, entries: int, now: float) -> None:
        """``entries`` moves (or a result) taken back: the clocks as they were before them."""
        clock = self.clock
        if clock is None or not self.started or entries <= 0:
            return
        if self.held and self.pending is not None:  # the computer's answer is withdrawn too
            clock.restore(self.pending, self.ms(now))
            self.held, self.pending = False, None
        del self.after[max(0, len(self.after) - entries) :]
        if len(self.history) >= entries:
            value = self.history[-entries]
            del self.history[-entries:]
            clock.restore(value, self.ms(now))
            running = clock.running
            if running is not None and clock.remaining(running, self.ms(now)) <= 0:
                # A loss on time withdrawn: its clock at nought would fall again at once. The
                # clocks wait, paused, for the arbiter to add time and resume them.
                clock.flagged = None
                clock.pause(self.ms(now))
        # (Moves from before a restart have no value kept: their take-back leaves the clocks.)

    def restore(self, value: ClockValue, after: tuple[int, ...]) -> None:
        """The clocks as the journal kept them before a restart: they go on, from the figures
        they showed, once the board shows the game again (``start``)."""
        clock = self.clock
        if clock is None:
            return
        clock.restore(value, 0)
        clock.running = None  # started again by ``start``, as the game goes on
        self.after = list(after)
        self.restored = True

    def pause(self, now: float) -> bool:
        """An arbiter stops both clocks (a dispute); False when there is nothing to pause."""
        clock = self.clock
        if clock is None or not self.started or self.held or clock.paused:
            return False
        clock.pause(self.ms(now))
        return True

    def resume(self, now: float) -> bool:
        clock = self.clock
        if clock is None or not self.started or self.held or not clock.paused:
            return False
        clock.resume(self.ms(now))
        return True

    def adjust(self, player: int, ms: int, now: float) -> bool:
        """An arbiter adds time to ``player``'s clock (negative: takes it; a penalty)."""
        clock = self.clock
        if clock is None or not self.started or clock.flagged is not None:
            return False
        clock.adjust(player, ms, self.ms(now))
        return True

    def flag(self, now: float) -> int | None:
        """The player whose time has just run out, or None."""
        if self.clock is None or not self.started or self.held:
            return None
        return self.clock.flag(self.ms(now))

    def session(self, new_games: TimeControl | None) -> dict[str, object] | None:
        """The clocks as a flight recording's session begins (replay.py starts from them):
        this game's control and figures (as restored, for a game that goes on), and the
        control new games get."""
        clock = self.clock
        if clock is None and new_games is None:
            return None
        return {
            "control": None if self.control is None else str(self.control),
            "value": None if clock is None else clock.value(0).to_json(),
            "moves": list(self.after),
            "restored": self.restored,
            "new_games": None if new_games is None else str(new_games),
        }

    def budget_ms(self, player: int, now: float) -> int | None:
        """The computer's time for its move under this clock (None: no clock): its time left
        shared over the moves still to make in the period (30 in a game's last period), and
        most of its increment, at most a fifth of what is left; asked for with 30% in hand
        (a loaded machine's search overshoots, and its answer travels)."""
        clock = self.clock
        if clock is None:
            return None
        left = clock.remaining(player, self.ms(now))
        period = clock.current(player)
        to_make = (period.moves - clock.moves[player - 1]) if period.moves else 30
        extra = period.delay * MS if period.kind is not Delay.NONE else 0
        share = min(left / max(to_make, 10) + 0.8 * extra, left / 5)
        return int(max(MIN_THINK_MS, share * 0.7))

    def view(self, now: float) -> ClocksView | None:
        clock = self.clock
        if clock is None or self.control is None:
            return None
        at = self.ms(now)
        left = (clock.remaining(1, at), clock.remaining(2, at))
        return ClocksView(
            str(self.control),
            left,
            (clock_text(left[0]), clock_text(left[1])),
            clock.running if self.started and not self.held else None,
            clock.paused and not self.held,
            self.held,
            clock.flagged,
            (left[0] <= LOW_MS, left[1] <= LOW_MS),
            self.started,
        )

    def next_change(self, now: float) -> float | None:
        """When the running clock's flag would fall (seconds on the loop's clock): the loop
        wakes then. The faces count the figures down themselves between snapshots."""
        view = self.view(now)
        if view is None or view.running is None or view.paused or view.held:
            return None
        return now + view.left_ms[view.running - 1] / MS
