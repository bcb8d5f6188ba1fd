"""Vanguard: every special rule, from positions built for it (docs/rules/vanguard.md).

Board: 8 rows of 5 hexes, labelled as the reference labels them (A1-E1 at the bottom, E8-I8
at the top). Along a row the letter goes up by one going east; NNE is one row up and one
letter on, NNW one row up and the same letter. O outrider, C captain, F flag, R ram; upper
case player 1, lower case player 2.
"""

from __future__ import annotations

import pytest

from engine import IllegalMoveError, Player
from tests.helpers import load, mover, play, position, texts, tokens

GAME = load("vanguard")
FLAGS = {"C5": "F", "I8": "f"}  # out of the way; capturing one ends the game


def test_start_position_and_its_twenty_moves() -> None:
    state = GAME.new_state()
    assert tokens(state) == {
        "B1": "C", "C1": "F", "D1": "O", "C2": "O", "D2": "O", "E2": "R",
        "H8": "c", "G8": "f", "F8": "o", "G7": "o", "F7": "o", "E7": "r",
    }  # fmt: skip
    moves = set(texts(state))
    assert len(moves) == 20
    assert {"E2-F2", "E2-F3"} <= moves  # the ram, pushed off by D2 and by D1
    assert {"B1-A1", "B1-B2"} <= moves  # the captain
    assert "C1-B2" not in moves  # the flag never moves by itself


def test_outrider_steps_in_all_twelve_directions_but_never_onto_a_ram() -> None:
    state = position(GAME, {**FLAGS, "D4": "O", "E4": "r", "D5": "R", "E5": "o"})
    moves = {m for m in texts(state) if m.startswith("D4-")}
    # Six adjacent cells and six two steps away: E4 and D5 hold rams, C5 its own flag.
    assert moves == {
        "D4-C4", "D4-C3", "D4-D3", "D4-E5",
        "D4-E6", "D4-F5", "D4-E3", "D4-C2", "D4-B3",
    }  # fmt: skip
    play(state, "D4-E5")  # captures the enemy outrider by replacement
    assert tokens(state)["E5"] == "O" and "D4" not in tokens(state)


def test_captain_steps_and_the_flag_follows_in_the_same_move() -> None:
    state = position(GAME, {"B1": "C", "C1": "F", "G8": "f", "E5": "o"})
    effect = state.apply(state.parse("B1-B2"))
    assert tokens(state) == {"B2": "C", "B1": "F", "G8": "f", "E5": "o"}
    names = GAME.board.names
    assert sorted(names[c.cell] for c in effect.hand) == ["B1", "B2"]
    assert sorted(names[c.cell] for c in effect.consequences) == ["B1", "C1"]
    assert mover(state) is Player.TWO


def test_only_the_captain_can_capture_a_ram() -> None:
    state = position(GAME, {"B1": "C", "C1": "F", "B2": "r", "B3": "O", "G8": "f"})
    assert "B1-B2" in texts(state)
    assert not any(m.endswith("-B2") and not m.startswith("B1") for m in texts(state))
    play(state, "B1-B2")
    assert tokens(state)["B2"] == "C" and tokens(state)["B1"] == "F"


def test_capturing_the_flag_wins() -> None:
    state = position(GAME, {**FLAGS, "H7": "O", "H8": "c"})
    effect = state.apply(state.parse("H7-I8"))
    assert effect.outcome is not None and effect.outcome.winner is Player.ONE
    assert "captured the flag" in effect.outcome.reason


def test_a_player_with_no_legal_move_loses() -> None:
    # Player 1 has only a flag (it never moves by itself) and a ram with no friend beside it.
    state = position(GAME, {"A1": "F", "E5": "R", "G8": "f", "H8": "c"})
    assert texts(state) == []
    outcome = state.outcome()
    assert outcome is not None and outcome.winner is Player.TWO


# -- the ram ---------------------------------------------------------------------------------


def ram(pieces: dict[str, str], move: str) -> dict[str, str]:
    state = position(GAME, {**FLAGS, **pieces})
    assert move in texts(state), texts(state)
    state.apply(state.parse(move))
    return tokens(state)


def test_ram_runs_three_steps_away_from_its_friend() -> None:
    # Pushed by B1 (south-south-west of C2): north-north-east through D3 and E4 to F5.
    after = ram({"C2": "R", "B1": "O"}, "C2-D3")
    assert after["F5"] == "R" and "C2" not in after


def test_the_player_does_not_choose_where_the_ram_stops() -> None:
    state = position(GAME, {**FLAGS, "C2": "R", "B1": "O"})
    assert [m for m in texts(state) if m.startswith("C2-")] == ["C2-D3"]
    with pytest.raises(IllegalMoveError):
        play(state, "C2-F5")


def test_ram_stops_before_a_friend_or_any_ram() -> None:
    assert ram({"C2": "R", "B1": "O", "E4": "O"}, "C2-D3")["D3"] == "R"
    assert ram({"C2": "R", "B1": "O", "E4": "r"}, "C2-D3")["D3"] == "R"


def test_ram_captures_an_enemy_and_stops_there() -> None:
    after = ram({"C2": "R", "B1": "O", "E4": "o", "F5": "o"}, "C2-D3")
    assert after["E4"] == "R" and after["F5"] == "o" and "D3" not in after


def test_ram_first_step_capture_and_blocked_starts() -> None:
    assert ram({"C2": "R", "B1": "O", "D3": "c"}, "C2-D3")["D3"] == "R"
    for blocker in ("O", "r"):  # a friend, or a ram (each side has one)
        state = position(GAME, {**FLAGS, "C2": "R", "B1": "O", "D3": blocker})
        assert not any(m.startswith("C2-") for m in texts(state))


def test_any_friendly_outrider_captain_or_flag_pushes_but_not_an_enemy() -> None:
    state = position(GAME, {"C2": "R", "B1": "F", "D2": "C", "G8": "f", "C3": "o"})
    moves = {m for m in texts(state) if m.startswith("C2-")}
    assert moves == {"C2-D3", "C2-B2"}  # away from the flag (B1) and the captain (D2)


def test_ram_moving_east_stops_at_the_east_edge() -> None:
    after = ram({"D3": "R", "C3": "O"}, "D3-E3")
    assert after["F3"] == "R"


def test_ram_keeps_running_east_along_the_bottom_edge() -> None:
    # The reference does not stop a ram running east or west along the top or bottom row.
    assert ram({"B1": "R", "A1": "O"}, "B1-C1")["E1"] == "R"


def test_ram_bounces_off_the_east_edge_and_starts_from_a_corner() -> None:
    # From the corner E1, pushed by D1 to the west: east leads off, so it starts NNE to F2;
    # running NNE into F2 it turns NNW, to F3 and F4.
    after = ram({"E1": "R", "D1": "O"}, "E1-F2")
    assert after["F4"] == "R"


def test_ram_bounces_off_the_bottom_edge_and_keeps_going() -> None:
    # Pushed SSE by D4: D2, then D1 on the bottom edge, then it turns NNE to E2.
    assert ram({"D3": "R", "D4": "O"}, "D3-D2")["E2"] == "R"
    # Entering the edge on its first step, it turns and still runs its last step straight.
    assert ram({"C2": "R", "C3": "O"}, "C2-C1")["E3"] == "R"


def test_ram_on_the_bottom_edge_starts_in_the_bounced_direction() -> None:
    # On C1 pushed by C2 (NNW): SSE leads off the board, so it starts NNE.
    assert ram({"C1": "R", "C2": "O"}, "C1-D2")["F4"] == "R"


def test_ram_on_the_west_edge_starts_in_the_bounced_direction() -> None:
    # On B3 pushed by B2 (SSE): NNW leads off the board, so it starts NNE: C4, D5, E6.
    assert ram({"B3": "R", "B2": "O"}, "B3-C4")["E6"] == "R"


def test_ram_entering_a_corner_stops() -> None:
    # Pushed SSW by D4: B2, then the corner A1, where it stops with a step left.
    assert ram({"C3": "R", "D4": "O"}, "C3-B2")["A1"] == "R"


def test_top_edge_bounce_moving_nnw_follows_the_rules_text() -> None:
    # The reference's defect 1: running NNW into G8 it does not turn; the rules text says it
    # bounces SSW like any ram running north into the top edge, and here it does.
    assert ram({"G6": "R", "G5": "O"}, "G6-G7")["F7"] == "R"


def test_corner_start_to_an_empty_cell_follows_the_rules_text() -> None:
    # The reference's defect 2: from A1 pushed by B1 it may capture on B2 but not move there.
    # The rules text treats both alike: it moves, and runs on NNE.
    assert ram({"A1": "R", "B1": "O"}, "A1-B2")["D4"] == "R"
    assert ram({"A1": "R", "B1": "O", "B2": "o"}, "A1-B2")["B2"] == "R"


def test_ram_footprint_hand_is_the_first_step_and_the_run_is_automatic() -> None:
    state = position(GAME, {**FLAGS, "C2": "R", "B1": "O", "E4": "o"})
    footprint = state.footprint(state.parse("C2-D3"))
    names = GAME.board.names
    assert sorted(names[c] for c in footprint.hand) == ["C2", "D3"]
    assert sorted(names[c] for c in footprint.result) == ["C2", "E4"]
