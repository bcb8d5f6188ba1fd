"""The clock (engine/clock.py) against a small model of its own, written here differently: a
player's time after each of their moves, worked out move by move from the think times."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.clock import Clock, ClockValue, Delay, Period, TimeControl, clock_text, pgn_clock
from engine.errors import ConfigError


def model(periods: tuple[Period, ...], thinks: list[int]) -> tuple[list[int], int | None]:
    """One player's time left (ms) after each move, and the move their flag fell on."""
    left = periods[0].seconds * 1000
    index = done = 0
    after: list[int] = []
    for number, think in enumerate(thinks):
        period = periods[min(index, len(periods) - 1)]
        charged = max(0, think - period.delay * 1000) if period.kind is Delay.SIMPLE else think
        if charged >= left:
            return after, number
        left -= charged
        if period.kind is Delay.INCREMENT:
            left += period.delay * 1000
        if period.kind is Delay.BRONSTEIN:
            left += min(think, period.delay * 1000)
        done += 1
        if period.moves is not None and done == period.moves:
            index, done = index + 1, 0
            left += periods[min(index, len(periods) - 1)].seconds * 1000
        after.append(left)
    return after, None


periods = st.builds(
    Period,
    seconds=st.integers(1, 30),
    moves=st.none(),
    kind=st.sampled_from(list(Delay)),
    delay=st.integers(0, 5),
).map(lambda p: Period(p.seconds, None, p.kind, p.delay if p.kind is not Delay.NONE else 0))
controls = st.one_of(
    periods.map(lambda p: (p,)),
    st.tuples(
        st.builds(Period, st.integers(1, 20), st.integers(1, 4), st.sampled_from(list(Delay)),
                  st.integers(1, 4)).map(
            lambda p: Period(p.seconds, p.moves, p.kind, p.delay if p.kind is not Delay.NONE else 0)
        ),
        periods,
    ),
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(controls, controls, st.lists(st.integers(0, 9000), min_size=1, max_size=40))
def test_the_clock_matches_the_model(first: tuple[Period, ...], second: tuple[Period, ...],
                                     thinks: list[int]) -> None:  # fmt: skip
    control = TimeControl(first, second)
    assert TimeControl.parse(str(control)) == control
    clock = Clock(control)
    now = 1_000_000
    clock.start(1, now)
    mine: dict[int, list[int]] = {1: [], 2: []}
    flagged = None
    for think in thinks:
        player = clock.running
        assert player is not None
        now += think
        clock.press(now)
        if clock.flagged is not None:
            flagged = clock.flagged
            break
        mine[player].append(clock.remaining(player, now))
    for player, periods_ in ((1, first), (2, second)):
        own = thinks[player - 1 :: 2]
        after, fell = model(periods_, own)
        assert mine[player] == after[: len(mine[player])]
        if flagged == player:
            assert fell == len(mine[player])
    if flagged is None:
        for player, periods_ in ((1, first), (2, second)):
            _, fell = model(periods_, thinks[player - 1 :: 2])
            assert fell is None


def test_increment_delay_and_two_periods_by_hand() -> None:
    clock = Clock(TimeControl.parse("300+3"))
    clock.start(1, 0)
    clock.press(10_000)  # 10 s used, 3 s back
    assert clock.remaining(1, 10_000) == 293_000
    clock = Clock(TimeControl.parse("300d5"))
    clock.start(1, 0)
    assert clock.remaining(1, 4_000) == 300_000  # within the delay: nothing counts
    clock.press(7_000)
    assert clock.remaining(1, 7_000) == 298_000
    clock = Clock(TimeControl.parse("300b5"))
    clock.start(1, 0)
    clock.press(3_000)  # 3 s used, all given back
    assert clock.remaining(1, 3_000) == 300_000
    clock.press(3_000)
    clock.press(11_000)  # 8 s used, 5 given back
    assert clock.remaining(1, 11_000) == 297_000
    clock = Clock(TimeControl.parse("2/60:30"))
    clock.start(1, 0)
    now = 0
    for _ in range(4):  # two moves each of 10 s
        now += 10_000
        clock.press(now)
    assert clock.remaining(1, now) == 60_000 - 20_000 + 30_000
    assert clock.period == [1, 1]


def test_a_flag_falls_at_once_and_stops_the_clock() -> None:
    clock = Clock(TimeControl.parse("5"))
    clock.start(1, 0)
    assert clock.flag(4_999) is None
    assert clock.flag(5_000) == 1
    clock.press(6_000)
    assert clock.running == 1 and clock.remaining(1, 9_000) == 0


def test_pause_adjust_and_restore() -> None:
    clock = Clock(TimeControl.parse("60"))
    clock.start(1, 0)
    clock.pause(10_000)
    assert clock.remaining(1, 50_000) == 50_000  # paused: nothing runs
    clock.adjust(2, -15_000, 50_000)  # a penalty
    clock.resume(50_000)
    assert clock.remaining(1, 55_000) == 45_000
    value = clock.value(55_000)
    assert ClockValue.from_json(value.to_json()) == value
    again = Clock(TimeControl.parse("60"))
    again.restore(value, 999_000)  # a restart: the time it was down is charged to no one
    assert again.remaining(1, 999_000) == 45_000 and again.remaining(2, 999_000) == 45_000


@pytest.mark.parametrize("text", ["", "abc", "0", "40/", "300+", "40/5400:1800:3600+x",
                                  "1800:40/5400", "1,2,3", "0/60", "99999999"])  # fmt: skip
def test_a_bad_time_control_says_what_is_wrong(text: str) -> None:
    with pytest.raises(ConfigError, match="time control"):
        TimeControl.parse(text)


def test_text_round_trips_and_handicaps() -> None:
    for text in ("600", "300+3", "40/5400+30:1800+30", "300d5", "300b5", "300+3,240+3"):
        assert str(TimeControl.parse(text)) == text
    handicap = TimeControl.parse("300+3,240+3")
    assert Clock(handicap).left == [300_000, 240_000]


def test_how_a_clock_shows_time() -> None:
    assert clock_text(9_400) == "9.4"
    assert clock_text(65_000) == "1:05"
    assert clock_text(3_907_000) == "1:05:07"
    assert pgn_clock(3_907_000) == "1:05:07" and pgn_clock(400) == "0:00:01"


def test_the_referee_presses_for_the_computer_and_holds_while_its_move_is_carried_out() -> None:
    """referee/clocks.py: the computer's clock stops when it answers; no clock runs while a
    person carries its move out; the human's starts once the board shows it. A take-back of
    that move gives both clocks back as they were."""
    from firmware_bridge.referee.clocks import GameClocks

    clocks = GameClocks(TimeControl.parse("60+2"))
    clocks.start(1, 0.0)
    clocks.moved(5.0)  # the human (player 1) moved in 5 s: 57 s left
    clocks.answered(8.0)  # the computer thought 3 s: 59 s left with its increment
    view = clocks.view(20.0)  # 12 s of carrying out its move: charged to no one
    assert view is not None and view.held and not view.paused
    assert view.left_ms == (57_000, 59_000)
    clocks.moved(20.0)  # the board shows the computer's move: the human's clock runs
    assert clocks.view(21.0).left_ms == (56_000, 59_000)  # type: ignore[union-attr]
    assert clocks.after == [57_000, 59_000]  # each move's [%clk]
    clocks.took_back(1, 30.0)  # the computer's move taken back: its clock runs again, from
    view = clocks.view(31.0)  # the 57 s it showed when it answered (before the increment)
    assert view is not None and view.running == 2 and view.left_ms == (57_000, 56_000)


def test_the_computers_time_a_move_comes_from_its_clock() -> None:
    from firmware_bridge.referee.clocks import GameClocks

    assert GameClocks(None).budget_ms(2, 0.0) is None
    clocks = GameClocks(TimeControl.parse("300+3"))
    assert clocks.budget_ms(2, 0.0) == int((300_000 / 30 + 0.8 * 3000) * 0.7)
    clocks = GameClocks(TimeControl.parse("40/5400"))
    assert clocks.budget_ms(2, 0.0) == int(5_400_000 / 40 * 0.7)
    clocks = GameClocks(TimeControl.parse("1"))
    assert clocks.budget_ms(1, 0.0) == 50  # never less than its least
