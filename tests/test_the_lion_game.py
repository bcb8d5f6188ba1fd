"""The Lion Game: every piece rule and every interpretation (docs/rules/the-lion-game.md).

Field b2-f8 (files b-f, ranks 2-8); burrow squares b1 d1 f1, g3 g5 g7, f9 d9 b9, a7 a5 a3.
L lion, T tiger, S spider, C cobra, R rhinoceros, E elephant, F frog, B butterfly; upper case
White (player 1, moving north), lower case Black.
"""

from __future__ import annotations

from typing import cast

import pytest

from engine import IllegalMoveError, NoteKind, Player
from engine.games.the_lion_game import TheLionGame
from tests.helpers import load, mover, play, position, texts, tokens

GAME = cast(TheLionGame, load("the-lion-game"))
KINGS = {"b2": "L", "f8": "l"}  # out of the way unless a test needs them


def moves_from(state, cell: str) -> set[str]:
    return {m for m in texts(state) if m.startswith(cell + "-")}


def dests(state, cell: str) -> set[str]:
    return {m.split("-")[1] for m in moves_from(state, cell)}


def notes(state) -> dict[str, tuple[NoteKind, str]]:
    names = GAME.board.names
    return {names[c]: (n.kind, n.text) for c, n in state.notes().items()}


def pass_turn(state, text: str) -> None:
    """Black (or White) makes a harmless move elsewhere."""
    play(state, text)


# -- the board and the start ----------------------------------------------------------------


def test_board_has_47_squares_and_the_burrow_is_a_ring() -> None:
    board = GAME.board
    assert board.size == 47
    assert sorted(board.names[c] for c in GAME.burrow) == sorted(
        ["b1", "d1", "f1", "g3", "g5", "g7", "f9", "d9", "b9", "a7", "a5", "a3"]
    )
    ring = {board.names[c]: {board.names[n] for n in GAME.ring_steps[c]} for c in GAME.burrow}
    assert ring["b1"] == {"d1", "a3"} and ring["g7"] == {"g5", "f9"}
    # A burrow square touches its field neighbours as on a square grid, and no other burrow.
    assert {board.names[c] for c in GAME.king[board.cell("a5")]} == {"b4", "b5", "b6"}
    assert {board.names[c] for c in GAME.king[board.cell("d1")]} == {"c2", "d2", "e2"}


def test_start_position_is_twelve_a_side_mirrored() -> None:
    state = GAME.new_state()
    layout = tokens(state)
    assert len(layout) == 24
    assert layout["d2"] == "L" and layout["d8"] == "l"
    assert layout["a3"] == "C" and layout["g7"] == "c"
    assert state.to_move is Player.ONE
    assert "d2-d3" not in texts(state)  # the lion is boxed in by its own pieces


# -- lion -----------------------------------------------------------------------------------


def test_lion_takes_one_or_two_king_steps_but_never_back_to_its_start() -> None:
    state = position(GAME, {"d5": "L", "f8": "l"})
    assert dests(state, "d5") == {f"{f}{r}" for f in "bcdef" for r in "34567"} - {"d5"}


def test_lion_does_not_jump_and_a_capture_ends_its_move() -> None:
    own = {c: "F" for c in ("c4", "c5", "c6", "d4", "e4", "e5", "e6")}
    state = position(GAME, {"d5": "L", "d6": "f", "f8": "l", **own})
    assert dests(state, "d5") == {"d6"}  # through d6 would need it empty
    play(state, "d5-d6")
    assert tokens(state)["d6"] == "L" and "d5" not in tokens(state)


def test_lion_stays_in_the_field_and_capturing_it_wins() -> None:
    state = position(GAME, {"b3": "L", "c5": "l"})
    assert "a3" not in dests(state, "b3")
    play(state, "b3-c4")
    play(state, "c5-c4")
    outcome = state.outcome()
    assert outcome is not None and outcome.winner is Player.TWO


# -- tiger ----------------------------------------------------------------------------------


def test_tiger_moves_one_two_or_three_in_a_line_and_never_into_the_burrow() -> None:
    state = position(GAME, {"d5": "T", **KINGS})
    assert {"d6", "d7", "d8", "d4", "d3", "d2", "b5", "f5", "b3", "f7"} <= dests(state, "d5")
    state = position(GAME, {"b5": "T", **KINGS})
    assert "a5" not in dests(state, "b5")


def test_tiger_leaps_frogs_spiders_and_cobras_but_not_tigers_butterflies_or_big_pieces() -> None:
    for blocker, leaps in (("F", True), ("s", True), ("C", True), ("t", False), ("b", False),
                           ("E", False), ("r", False), ("l", False)):  # fmt: skip
        pieces = {"d4": "T", "d5": blocker, "b2": "L"}
        if blocker != "l":
            pieces["f8"] = "l"
        state = position(GAME, pieces)
        assert ("d6" in dests(state, "d4")) is leaps, blocker


def test_tiger_three_is_a_step_then_a_leap_or_a_leap_then_a_step() -> None:
    state = position(GAME, {"d4": "T", "d6": "F", **KINGS})  # step d5, leap the frog
    assert "d7" in dests(state, "d4")
    state = position(GAME, {"d4": "T", "d5": "F", **KINGS})  # leap the frog, step d7
    assert "d7" in dests(state, "d4")
    state = position(GAME, {"d4": "T", "d5": "E", **KINGS})  # an elephant blocks both ways
    assert dests(state, "d4") & {"d6", "d7"} == set()
    state = position(GAME, {"d4": "T", "d5": "f", **KINGS})  # a capture ends the move
    assert "d5" in dests(state, "d4")


# -- spider ---------------------------------------------------------------------------------


def test_spider_steps_or_leaps_over_anything_but_takes_only_small_pieces() -> None:
    state = position(GAME, {"d4": "S", "d5": "t", "e5": "f", "c5": "R", **KINGS})
    options = dests(state, "d4")
    assert {"d6", "f6", "b6", "e5"} <= options  # leaps over an enemy, a friend; takes a frog
    assert "d5" not in options  # cannot take a tiger


def test_spider_immobilises_what_it_leapt_over_while_it_stays_adjacent() -> None:
    state = position(GAME, {"d4": "S", "d5": "t", **KINGS})
    play(state, "d4-d6")
    assert notes(state)["d5"][0] is NoteKind.HELD
    assert moves_from(state, "d5") == set()
    with pytest.raises(IllegalMoveError, match="immobilised by the spider on d6"):
        play(state, "d5-d4")


def test_immobilisation_lifts_when_the_spider_leaves_and_returns_with_it() -> None:
    state = position(GAME, {"d4": "S", "d5": "t", **KINGS})
    play(state, "d4-d6", "f8-f7", "d6-d8")  # the spider leaps away: no longer adjacent
    assert "d5" not in notes(state) and moves_from(state, "d5")
    play(state, "f7-f8", "d8-d6")  # back next to it: held again, with no new leap
    assert moves_from(state, "d5") == set()
    play(state, "f8-f7", "d6-d8", "d5-c5", "d8-d6")  # it moved away meanwhile: free for good
    assert moves_from(state, "c5")


def test_spider_enters_and_moves_through_the_burrow_one_square_a_turn() -> None:
    state = position(GAME, {"b5": "S", **KINGS})
    assert "a5" in dests(state, "b5")
    play(state, "b5-a5", "f8-f7")
    assert {"a3", "a7"} <= dests(state, "a5") and "b1" not in dests(state, "a5")


# -- cobra ----------------------------------------------------------------------------------


def test_cobra_never_stands_more_than_one_square_from_the_burrow() -> None:
    state = position(GAME, {"b5": "C", **KINGS})
    assert dests(state, "b5") <= {n for n in GAME.board.names
                                   if GAME.board.cell(n) in GAME.cobra_ground}  # fmt: skip
    assert "c5" not in dests(state, "b5") and "a5" in dests(state, "b5")
    state = position(GAME, {"a3": "C", **KINGS})
    assert {"a5", "a7", "b1", "d1"} <= dests(state, "a3")  # two burrow squares in a turn


def test_cobra_null_move_changes_nothing_and_its_strike_takes_where_it_may_not_stand() -> None:
    state = position(GAME, {"b4": "C", "c5": "f", **KINGS})
    assert "b4-b4" in texts(state)
    footprint = state.footprint(state.parse("b4-b4"))
    assert not footprint.hand and not footprint.result
    assert "c5" not in dests(state, "b4")  # c5 is two squares from the burrow
    effect = state.apply(state.parse("b4-b4xc5"))
    assert tokens(state) == {"b4": "C", **KINGS}
    assert [GAME.board.names[c.cell] for c in effect.hand] == ["c5"]  # taking it is the move


def test_cobra_captures_on_its_first_step_and_goes_on() -> None:
    state = position(GAME, {"b4": "C", "b5": "f", **KINGS})
    assert {"b4-b6xb5", "b4-b5", "b4-a5xb5"} <= set(texts(state))
    effect = state.apply(state.parse("b4-b6xb5"))
    names = GAME.board.names
    assert {names[c.cell] for c in effect.hand} == {"b4", "b6"}
    assert [names[c.cell] for c in effect.consequences] == ["b5"]  # prompted as a removal
    assert tokens(state) == {"b6": "C", **KINGS}
    assert GAME.parse_move("b4-b6xb5") == state.history[-1]


# -- rhinoceros ------------------------------------------------------------------------------


def test_rhinoceros_steps_one_orthogonally_and_charges_two_then_three() -> None:
    state = position(GAME, {"d2": "R", "b3": "L", "f8": "l"})
    assert dests(state, "d2") == {"c2", "e2", "d3"}  # not into the burrow on d1
    play(state, "d2-d3", "f8-f7")  # length 1
    assert dests(state, "d3") == {"d4", "d5", "c3", "e3", "d2"}
    assert notes(state)["d3"][0] is NoteKind.CHARGED
    play(state, "d3-d5", "f7-f8")  # length 2, the full distance
    assert {"d6", "d7", "d8"} <= dests(state, "d5")
    play(state, "d5-d8")  # length 3
    assert tokens(state)["d8"] == "R"


def test_a_charge_tramples_friends_and_foes_on_its_way() -> None:
    state = position(GAME, {"d3": "R", "d4": "F", "d5": "e", "b3": "L", "f8": "l"},
                     charges={"1": {"rhinoceros": "d3", "direction": "N", "level": 3}})  # fmt: skip
    effect = state.apply(state.parse("d3-d6"))
    names = GAME.board.names
    assert {names[c.cell] for c in effect.hand} == {"d3", "d6"}
    assert {names[c.cell] for c in effect.consequences} == {"d4", "d5"}  # both prompted
    assert tokens(state) == {"d6": "R", "b3": "L", "f8": "l"}


def test_a_charge_needs_the_full_distance_and_the_very_next_turn() -> None:
    state = position(GAME, {"d3": "R", "b3": "L", "f8": "l"},
                     charges={"1": {"rhinoceros": "d3", "direction": "N", "level": 2}})  # fmt: skip
    play(state, "d3-d5", "f8-f7")  # the full distance: 3 next turn
    assert dests(state, "d5") == {"d6", "d7", "d8", "c5", "e5", "d4"}
    play(state, "d5-d6", "f7-f8", "b3-b4", "f8-f7")  # another piece moved: the charge is over
    assert dests(state, "d6") == {"d7", "c6", "e6", "d5"}
    play(state, "d6-e6", "f7-f8")  # a step in a new direction starts a new charge there
    assert dests(state, "e6") == {"f6", "e7", "e5", "d6"}  # f6 then the edge: g6 is burrow


def test_a_shorter_charge_straight_on_counts_as_a_fresh_step() -> None:
    """The extra square is withheld, the charge is not lost: level 2 next turn, as a
    rhinoceros at rest stepping the same square would get."""
    charge = {"1": {"rhinoceros": "d3", "direction": "N", "level": 3}}
    charged = position(GAME, {"d3": "R", "b3": "L", "f8": "l"}, charges=charge)
    play(charged, "d3-d4", "f8-f7")  # 1 of 3, straight on
    assert charged.to_json()["charges"]["1"] == {"rhinoceros": "d4", "direction": "N",
                                                 "level": 2}  # fmt: skip
    assert dests(charged, "d4") == {"d5", "d6", "c4", "e4", "d3"}
    at_rest = position(GAME, {"d3": "R", "b3": "L", "f8": "l"})
    play(at_rest, "d3-d4", "f8-f7")
    assert dests(at_rest, "d4") == dests(charged, "d4")
    play(charged, "d4-d5", "f7-f8")  # 1 of 2: still fresh, level 2 again
    assert dests(charged, "d5") == {"d6", "d7", "c5", "e5", "d4"}


def test_rhinoceros_captures_friends_only_in_a_charge_and_never_its_own_lion() -> None:
    state = position(GAME, {"d3": "R", "d4": "F", "b3": "L", "f8": "l"})
    assert "d4" not in dests(state, "d3")
    state = position(GAME, {"d3": "R", "d5": "L", "f8": "l"},
                     charges={"1": {"rhinoceros": "d3", "direction": "N", "level": 3}})  # fmt: skip
    assert dests(state, "d3") & {"d4", "d5", "d6"} == {"d4"}


# -- elephant --------------------------------------------------------------------------------


def test_elephant_moves_one_diagonally_or_one_or_two_forward() -> None:
    state = position(GAME, {"d4": "E", **KINGS})
    assert dests(state, "d4") == {"c5", "e5", "c3", "e3", "d5", "d6"}
    state = position(GAME, {"d6": "e", "b3": "L", "f7": "l"}, to_move=2)
    assert dests(state, "d6") == {"c7", "e7", "c5", "e5", "d5", "d4"}  # Black's forward: south


def test_elephant_squashes_into_the_burrow_stopping_before_it_and_sticks() -> None:
    state = position(GAME, {"b7": "E", "b9": "f", "b3": "L", "f8": "l"})
    assert {"b7-b8", "b7-b8xb9"} <= set(texts(state))
    effect = state.apply(state.parse("b7-b8xb9"))
    names = GAME.board.names
    assert [names[c.cell] for c in effect.consequences] == ["b9"]
    assert tokens(state) == {"b8": "E", "b3": "L", "f8": "l"}
    assert notes(state)["b8"][0] is NoteKind.HELD
    play(state, "f8-f7")
    assert moves_from(state, "b8") == set()


def test_elephant_beside_the_burrow_squashes_where_it_stands() -> None:
    state = position(GAME, {"b8": "E", "b9": "f", "a7": "c", "b3": "L", "f8": "l"})
    assert {"b8-b8xb9", "b8-b8xa7"} <= set(texts(state))
    effect = state.apply(state.parse("b8-b8xb9"))
    assert [GAME.board.names[c.cell] for c in effect.hand] == ["b9"]
    state = position(GAME, {"b8": "E", "b9": "F", "b3": "L", "f8": "l"})
    assert not any("x" in m for m in moves_from(state, "b8"))  # never a friend


def test_only_its_own_lion_ending_a_move_beside_it_frees_a_stuck_elephant() -> None:
    state = position(GAME, {"c7": "E", "d5": "L", "c5": "l"}, stuck=["c7"], to_move=2)
    play(state, "c5-c6")  # Black's lion next to it frees nothing
    assert "c7" in notes(state)
    play(state, "d5-d6", "c6-c5")  # White's lion ends its move beside it
    assert "c7" not in notes(state)
    assert moves_from(state, "c7")
    state.undo()
    state.undo()
    assert "c7" in notes(state)  # a take-back sticks it again


# -- frog -----------------------------------------------------------------------------------


def test_frog_moves_forward_or_sideways_and_captures_diagonally_forward() -> None:
    state = position(GAME, {"d4": "F", "c5": "f", "e5": "e", "d3": "f", **KINGS})
    # Not back; c5 by its diagonal capture, b6 and f6 by leapfrog; the elephant on e5 only so.
    assert dests(state, "d4") == {"d5", "c4", "e4", "c5", "b6", "f6"}


def test_leapfrog_over_any_piece_onto_an_empty_square_or_any_enemy() -> None:
    state = position(GAME, {"d4": "F", "e5": "F", "f6": "e", "c5": "r", "b6": "r", **KINGS})
    effect = state.apply(state.parse("d4-f6"))  # over its own frog onto an elephant
    assert tokens(state)["f6"] == "F" and effect.footprint().result
    state = position(GAME, {"d4": "F", "c5": "r", "b6": "r", **KINGS})
    assert "c5" not in dests(state, "d4") and "b6" in dests(state, "d4")


def test_frog_promotes_on_the_far_green_squares() -> None:
    state = position(GAME, {"b8": "F", "b3": "L", "f7": "l"})
    effect = state.apply(state.parse("b8-b9"))
    assert tokens(state)["b9"] == "B"
    names = GAME.board.names
    assert [names[c.cell] for c in effect.consequences] == ["b9"]
    state = position(GAME, {"b2": "f", "d5": "L", "f8": "l"}, to_move=2)
    play(state, "b2-b1")
    assert tokens(state)["b1"] == "b"


def test_frog_moves_through_the_burrow_one_square_a_turn() -> None:
    state = position(GAME, {"a3": "F", **KINGS})
    assert dests(state, "a3") == {"b3", "a5", "b1"}  # sideways, or one burrow step
    play(state, "a3-a5", "f8-f7", "a5-a7", "f7-f8", "a7-b9")
    assert tokens(state)["b9"] == "B"  # a ring step onto a green square promotes too


# -- butterfly ------------------------------------------------------------------------------


def test_butterfly_moves_one_or_turns_for_a_second_step() -> None:
    state = position(GAME, {"d5": "B", **KINGS})
    expected = {f"{f}{r}" for f in "cde" for r in "456"} - {"d5"}
    expected |= {"c7", "e7", "c3", "e3", "b4", "b6", "f4", "f6"}
    assert dests(state, "d5") == expected  # never two squares in a straight line


def test_butterfly_captures_everything_but_frogs() -> None:
    state = position(GAME, {"d5": "B", "d6": "f", "e6": "e", "c6": "l", "b3": "L"})
    assert {"e6", "c6"} <= dests(state, "d5") and "d6" not in dests(state, "d5")


def test_butterfly_stops_in_the_burrow_and_must_leave_it_next_turn() -> None:
    state = position(GAME, {"b5": "B", "c3": "F", **KINGS})
    assert "a5" in dests(state, "b5")
    play(state, "b5-a5", "f8-f7")
    assert {m.split("-")[0] for m in texts(state)} == {"a5"}  # only the butterfly may move
    assert {"a3", "a7", "b4", "b6", "c6", "c4"} <= dests(state, "a5")
    with pytest.raises(IllegalMoveError, match="must leave the burrow"):
        play(state, "c3-c4")
    play(state, "a5-c6", "f7-f8")  # out diagonally, then a turn: the other pieces are free again
    assert "c3" in {m.split("-")[0] for m in texts(state)}
    assert "leaving" not in state.to_json()


def test_butterfly_in_the_burrow_is_free_to_stay_when_the_option_says_so() -> None:
    game = load("the-lion-game", butterfly_must_leave=False)
    state = position(game, {"b5": "B", "c3": "F", **KINGS})
    play(state, "b5-a5", "f8-f7", "c3-c4")
    assert tokens(state)["a5"] == "B"
    assert "leaving" not in state.to_json()  # no duty, so nothing hidden in the position


def test_with_no_duty_to_leave_a_butterfly_in_the_burrow_repeats_the_position() -> None:
    """The burrow visit leaves no hidden mark, so coming back to the same squares is the same
    position, and the repetition rule sees it."""
    game = load("the-lion-game", butterfly_must_leave=False, repetitions=2)
    state = position(game, {"b5": "B", **KINGS})
    play(state, "b5-a5", "f8-f7", "b2-c2", "f7-f8")
    assert state.outcome() is None
    play(state, "c2-b2")  # the butterfly still in the burrow, Black to move: seen before
    outcome = state.outcome()
    assert outcome is not None and "repeated" in outcome.reason
    with pytest.raises(ValueError, match="no butterfly must leave"):
        game.state_from_json({**state.to_json(), "leaving": {"1": "a5"}})


# -- interpretations ---------------------------------------------------------------------------


def test_hidden_state_round_trips_through_the_position_json() -> None:
    state = position(GAME, {"d4": "S", "d5": "t", "b8": "E", "b9": "f", "d2": "R", **KINGS})
    play(state, "d4-d6", "f8-f7", "b8-b8xb9", "f7-f8", "d2-d3")
    data = state.to_json()
    assert data["stuck"] == ["b8"] and data["immobilised"] == [["d6", "d5"]]
    assert data["charges"]["1"] == {"rhinoceros": "d3", "direction": "N", "level": 2}
    again = GAME.state_from_json(data)
    assert again.to_json() == data and set(again.legal_moves()) == set(state.legal_moves())


def test_a_player_with_no_legal_move_loses() -> None:
    # White's only piece besides its lion is stuck; the lion is boxed in by the spider's hold.
    state = position(GAME, {"d5": "L", "d6": "s", "b8": "E", "f8": "l"},
                     stuck=["b8"], immobilised=[["d6", "d5"]])  # fmt: skip
    outcome = state.outcome()
    assert outcome is not None and outcome.winner is Player.TWO


def test_positions_repeated_three_times_are_a_draw() -> None:
    state = position(GAME, {"b3": "L", "f7": "l"})
    for _ in range(2):
        play(state, "b3-b4", "f7-f6", "b4-b3", "f6-f7")
    outcome = state.outcome()
    assert outcome is not None and outcome.winner is None
    assert mover(state) is Player.ONE


def test_bad_hidden_state_in_a_position_is_a_clear_error() -> None:
    from engine import PositionError

    with pytest.raises(PositionError, match="no elephant on c4"):
        position(GAME, {**KINGS}, stuck=["c4"])
    with pytest.raises(PositionError, match="may not stand in the burrow"):
        position(GAME, {"a5": "T", **KINGS})
