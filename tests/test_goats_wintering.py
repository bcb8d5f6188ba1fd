"""Goats Wintering: every special rule, from positions built for it
(docs/rules/goats-wintering.md). Default board, the 2-4 hexagon (18 cells):

    5       D5  E5
    4     C4  D4  E4
    3   B3  C3  D3  E3
    2 A2  B2  C2  D2  E2
    1   A1  B1  C1  D1

G is a white goat (player 1), g a black one (player 2).
"""

from __future__ import annotations

from typing import Any

import pytest

from engine import IllegalMoveError, Player, State
from engine.games.goats_wintering import GoatsWintering
from tests.helpers import load, mover, play, position, texts, tokens

GAME = load("goats-wintering")


def goats(pieces: dict[str, str], to_move: int = 1, game: Any = GAME, **extra: Any) -> State:
    return position(game, pieces, to_move=to_move, **extra)


def placements(state: State) -> set[str]:
    return {m.split("@")[1] for m in texts(state) if "@" in m}


def steps(state: State) -> set[str]:
    return {m for m in texts(state) if "-" in m}


# -- the board options -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("board", "cells", "neighbours_of_centre"),
    [
        ("2-4-hex", 18, 6),
        ("2-limp", 12, 6),
        ("3-limp", 27, 6),
        ("10-limp", 300, 6),
        ("4x4", 16, 8),
        ("9x9", 81, 8),
        ("6-tri", 21, 6),
        ("11-tri", 66, 6),
    ],
)
def test_every_reference_board(board: str, cells: int, neighbours_of_centre: int) -> None:
    game = load("goats-wintering", board=board)
    assert game.board.size == cells
    assert max(len(n) for n in game.board.adjacent) == neighbours_of_centre
    assert len(texts(game.new_state())) == cells + 1  # any cell, or pass


@pytest.mark.parametrize("board", GAME.option_specs["board"].choices)
def test_lines_of_sight_run_both_ways_on_every_board(board: str) -> None:
    # The move generator marks the cells each goat sees rather than looking out from every
    # empty cell: that is only right if a cell that sees a goat is seen by it, through the
    # same cells.
    game = load("goats-wintering", board=board)
    assert isinstance(game, GoatsWintering)
    for cell, rays in enumerate(game.sight):
        for ray in rays:
            for i, target in enumerate(ray):
                back = (*reversed(ray[:i]), cell)
                assert any(other[: i + 1] == back for other in game.sight[target]), (
                    f"{game.board.names[cell]} sees {game.board.names[target]}, not back"
                )


def test_diamond_board_labels_follow_the_reference() -> None:
    game = load("goats-wintering", board="5x5")
    board = game.board
    c3 = board.cell("C3")
    assert {board.names[n] for n in board.adjacent[c3]} == {
        "B2", "C2", "D2", "B3", "D3", "B4", "C4", "D4",
    }  # fmt: skip
    assert board.names[board.step["N"][c3]] == "D4"  # the diamond's north is up-right


# -- placement -------------------------------------------------------------------------------


def test_placement_out_of_sight_of_friends_within_the_gap() -> None:
    state = goats({"A2": "G"})
    # Along the line A2 B2 C2 D2 E2, a white goat on A2 is 1..3 cells from B2, C2 and D2.
    assert {"B2", "C2", "D2"}.isdisjoint(placements(state))
    assert "E2" in placements(state)  # four cells away: out of the gap
    assert "A1" not in placements(state) and "B3" not in placements(state)  # adjacent lines


def test_an_enemy_goat_blocks_the_line_of_sight() -> None:
    state = goats({"A2": "G", "B2": "g"})
    assert {"C2", "D2"} <= placements(state)


def test_gap_two_option() -> None:
    game = load("goats-wintering", gap="2")
    state = goats({"A2": "G"}, game=game)
    assert "D2" in placements(state) and "C2" not in placements(state)


def test_placement_needs_an_empty_neighbour() -> None:
    # A1's neighbours are B1, B2 and A2: all taken, so A1 cannot be filled.
    state = goats({"B1": "g", "B2": "g", "A2": "g"})
    assert "A1" not in placements(state)


# -- group and stray -------------------------------------------------------------------------


def test_group_step_must_gain_friendly_contact() -> None:
    # C3 and E4 do not touch; each may step to D3 or D4, where it would touch the other.
    state = goats({"C3": "G", "E4": "G"})
    assert {m for m in steps(state) if m.startswith("C3-")} == {"C3-D3", "C3-D4"}
    assert {m for m in steps(state) if m.startswith("E4-")} == {"E4-D3", "E4-D4"}
    # Already touching, a step that keeps the same contact is no group move.
    state = goats({"C3": "G", "D4": "G"})
    assert not any(m.startswith("C3-") for m in steps(state))


def test_isolated_goats_cannot_move() -> None:
    state = goats({"A1": "G", "E5": "g"}, last="placement")
    assert steps(state) == set()


STRAY = {"C2": "G", "B2": "g", "C3": "g"}  # white C2 touches two black goats and no friend


def test_stray_to_fewer_enemies_after_a_placement_or_a_group_move() -> None:
    for last in ("placement", "group"):
        state = goats(STRAY, last=last)
        assert {m for m in steps(state) if m.startswith("C2-")} == {
            "C2-D2", "C2-D3", "C2-B1", "C2-C1",
        }  # fmt: skip


@pytest.mark.parametrize("last", ["none", "stray"])
def test_no_stray_at_the_start_after_a_pass_or_after_a_stray(last: str) -> None:
    assert not any(m.startswith("C2-") for m in steps(goats(STRAY, last=last)))


def test_no_stray_for_a_goat_that_can_group() -> None:
    state = goats({"C2": "G", "B2": "g", "C3": "g", "E3": "G"}, last="placement")
    # C2 can group to D2 or D3 (next to E3), so it may not stray to B1 or C1.
    assert {m for m in steps(state) if m.startswith("C2-")} == {"C2-D2", "C2-D3"}


BAN = {"C2": "G", "B1": "G", "C1": "G", "C3": "g", "B2": "g"}


def test_reversal_ban_right_after_a_pass() -> None:
    # White strays C2-D3 (C2 had no group move); after Black passes, stepping back to C2
    # would be a group move, but it would undo White's own last move: banned.
    state = goats(BAN, last="placement")
    play(state, "C2-D3", "pass")
    assert "D3-C2" not in texts(state)
    with pytest.raises(IllegalMoveError):
        play(state, "D3-C2")


def test_without_a_pass_the_same_step_back_is_allowed() -> None:
    state = goats(BAN, last="placement")
    play(state, "C2-D3")
    play(state, "g@" + sorted(placements(state))[0])  # Black places instead
    assert "D3-C2" in texts(state)


# -- capture, score, end ---------------------------------------------------------------------


def test_surrounded_enemy_goats_leave_all_at_once_after_a_move() -> None:
    # White steps C3-B2: black A1 and B1 have no empty neighbour left, and both go, even
    # though each was the other's neighbour.
    state = goats({"A1": "g", "B1": "g", "A2": "G", "C1": "G", "C2": "G", "C3": "G"})
    effect = state.apply(state.parse("C3-B2"))
    assert "A1" not in tokens(state) and "B1" not in tokens(state)
    assert effect.captured == 2


def test_the_movers_own_goats_are_never_removed() -> None:
    pieces = {"A1": "G", "B1": "g", "A2": "g", "C1": "G", "C2": "G", "B3": "G", "C3": "G"}
    state = goats(pieces)
    play(state, "C3-B2")
    assert tokens(state)["A1"] == "G"  # white's own A1 has no empty neighbour, and stays
    assert "B1" not in tokens(state) and "A2" not in tokens(state)


def test_no_capture_on_a_pass() -> None:
    state = goats({"A1": "g", "B1": "G", "B2": "G", "A2": "G"})
    play(state, "pass")
    assert tokens(state)["A1"] == "g"


def test_score_counts_adjacent_pairs_of_own_goats() -> None:
    state = goats({"B2": "G", "C2": "G", "C3": "G", "E5": "g"})
    assert state.scores() == {Player.ONE: 3, Player.TWO: 0}  # a triangle: three pairs
    assert state.to_json()["scores"] == {"1": 3, "2": 0}


def test_two_passes_end_the_game_and_the_higher_score_wins() -> None:
    state = goats({"B2": "G", "C2": "G", "E5": "g"})
    play(state, "pass", "pass")  # black passes second with the lower score
    outcome = state.outcome()
    assert outcome is not None and outcome.winner is Player.ONE


def test_last_to_pass_wins_only_with_a_strictly_higher_score() -> None:
    state = goats({"B2": "G", "C2": "G", "D4": "g", "D5": "g"})
    play(state, "pass", "pass")  # 1-1: a tie loses for black, who passed last
    outcome = state.outcome()
    assert outcome is not None and outcome.winner is Player.ONE and "tie" in outcome.reason
    state = goats({"B2": "G", "D4": "g", "D5": "g"})
    play(state, "pass", "pass")
    outcome = state.outcome()
    assert outcome is not None and outcome.winner is Player.TWO


def test_pass_is_always_legal_and_a_move_after_a_pass_resets_the_count() -> None:
    state = goats({"C3": "G", "D4": "G"})
    play(state, "pass", "g@A1", "pass")
    assert state.outcome() is None and mover(state) is Player.TWO


def test_position_json_keeps_the_pass_and_ban_state() -> None:
    state = goats(BAN, last="placement")
    play(state, "C2-D3", "pass")
    data = state.to_json()
    assert data["passes"] == 1 and data["reversal_ban"] == "D3-C2" and data["last"] == "none"
    again = GAME.state_from_json(data)
    assert set(texts(again)) == set(texts(state))
