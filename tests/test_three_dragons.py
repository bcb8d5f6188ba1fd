"""Three Dragons: rule scenarios from positions built for each rule.

The rules as implemented: docs/rules/three-dragons.md.
"""

from __future__ import annotations

import pytest

from engine import IllegalMoveError, Piece, Player, PositionError
from tests.helpers import at, load, mover, play, position, texts, tokens

BASE = load("three-dragons")
STRENGTH = load("three-dragons", variant="strength")
DRAGONS = load("three-dragons", variant="dragons")

# Two spare pieces each, far from the action, so one capture does not end the game.
SPARE = {"h2": "S", "i3": "S", "h8": "s", "i7": "s"}
SPARE_DICE = {"h2": "D1", "i3": "D1", "h8": "d1", "i7": "d1"}


def test_start_position() -> None:
    state = BASE.new_state()
    layout = tokens(state)
    assert sum(1 for t in layout.values() if t == "S") == 11
    assert sum(1 for t in layout.values() if t == "s") == 11
    assert mover(state) is Player.ONE
    # c1, e1, g1 have three squares each below a cave; b2, d2, f2, h2 have seven each.
    assert len(texts(state)) == 37
    assert "c1-c4" in texts(state) and "c1-c5" not in texts(state)


def test_start_strengths_in_dice_variants() -> None:
    state = STRENGTH.new_state()
    assert at(state, "e1") == Piece("die", Player.ONE, 6)
    assert at(state, "e9") == Piece("die", Player.TWO, 6)
    assert at(state, "b2") == Piece("die", Player.ONE, 1)


def test_rook_moves_stop_at_pieces_mountains_and_caves() -> None:
    state = position(BASE, {"c3": "S", "c7": "s", "b1": "S", **SPARE})
    moves = texts(state)
    assert {"c3-c4", "c3-c2", "c3-c1", "c3-a3", "c3-g3"} <= set(moves)
    assert "c3-c5" not in moves and "c3-c6" not in moves  # the cave c5 blocks the file
    assert not any(m.startswith("b1-a") for m in moves)  # a1 is a mountain
    assert "c3-h3" in moves and "c3-i3" not in moves  # i3 is occupied


def test_custodial_capture_against_a_friendly_piece() -> None:
    state = position(BASE, {"c2": "S", "e4": "S", "d4": "s", **SPARE})
    effect = state.apply(state.parse("c2-c4"))
    assert at(state, "d4") is None
    assert effect.captured == 1
    assert {c.cell for c in effect.hand} == {BASE.board.cell("c2"), BASE.board.cell("c4")}
    assert [c.cell for c in effect.consequences] == [BASE.board.cell("d4")]


def test_custodial_capture_against_a_mountain() -> None:
    state = position(BASE, {"h3": "S", "a2": "s", **SPARE})
    play(state, "h3-a3")
    assert at(state, "a2") is None


def test_custodial_capture_against_an_empty_cave() -> None:
    state = position(BASE, {"a7": "S", "b5": "s", **SPARE})
    play(state, "a7-a5")
    assert at(state, "b5") is None


def test_board_edge_is_not_an_anvil() -> None:
    state = position(BASE, {"b7": "S", "a4": "s", **SPARE})
    play(state, "b7-b4")
    assert at(state, "a4") is not None


def test_moving_between_two_enemies_is_safe() -> None:
    state = position(BASE, {"d2": "S", "c4": "s", "e4": "s", **SPARE})
    effect = state.apply(state.parse("d2-d4"))
    assert effect.captured == 0
    assert tokens(state)["d4"] == "S"


def test_several_captures_at_once() -> None:
    # d1 moves up to d3: c3, e3 and d4 are each sandwiched against a white piece.
    pieces = {"d1": "S", "b3": "S", "f3": "S", "d5": "S", "c3": "s", "e3": "s", "d4": "s"}
    state = position(BASE, {**pieces, **SPARE})
    effect = state.apply(state.parse("d1-d3"))
    assert sorted(BASE.board.names[c.cell] for c in effect.consequences) == ["c3", "d4", "e3"]
    assert effect.captured == 3


def test_capture_only_by_the_moving_piece() -> None:
    state = position(BASE, {"c4": "S", "e4": "S", "d4": "s", **SPARE})  # d4 sits safely
    play(state, "h2-h3")
    assert at(state, "d4") is not None


def test_reduced_to_one_piece_loses() -> None:
    state = position(BASE, {"c2": "S", "e4": "S", "h2": "S", "d4": "s", "h8": "s"})
    effect = state.apply(state.parse("c2-c4"))
    assert effect.outcome is not None and effect.outcome.winner is Player.ONE
    assert "reduced to one piece" in effect.outcome.reason
    assert list(state.legal_moves()) == []
    with pytest.raises(IllegalMoveError, match="game is over"):
        play(state, "h8-h7")


def test_player_with_no_legal_move_loses() -> None:
    state = position(BASE, {"a2": "S", "b1": "S", "a3": "s", "b2": "s", "c1": "s"})
    outcome = state.outcome()
    assert outcome is not None and outcome.winner is Player.TWO
    assert list(state.legal_moves()) == []


# -- variant 1: capture by strength --------------------------------------------------------


def test_strength_capture_of_a_weaker_neighbour_costs_a_pip() -> None:
    state = position(STRENGTH, {"d2": "D5", "e3": "d3", **SPARE_DICE})
    effect = state.apply(state.parse("d2-d3"))
    assert at(state, "e3") is None
    assert at(state, "d3") == Piece("die", Player.ONE, 4)
    assert effect.footprint().result[STRENGTH.board.cell("d3")] == Piece("die", Player.ONE, 4)


def test_equal_or_stronger_neighbours_are_not_captured_and_do_not_capture() -> None:
    state = position(STRENGTH, {"d2": "D3", "e3": "d3", "c3": "d6", **SPARE_DICE})
    effect = state.apply(state.parse("d2-d3"))
    assert effect.captured == 0
    assert tokens(state)["d3"] == "D3"


def test_strength_one_captures_nothing() -> None:
    state = position(STRENGTH, {"d2": "D1", "e3": "d1", **SPARE_DICE})
    assert state.apply(state.parse("d2-d3")).captured == 0


def test_strength_captures_one_piece_and_the_player_chooses() -> None:
    state = position(STRENGTH, {"e2": "D5", "d3": "d2", "f3": "d3", **SPARE_DICE})
    effect = state.apply(state.parse("e2-e3"))
    assert effect.decision and state.deciding and mover(state) is Player.ONE
    assert sorted(texts(state)) == ["xd3", "xf3"]
    play(state, "xf3")
    assert at(state, "f3") is None and at(state, "d3") is not None
    assert tokens(state)["e3"] == "D4"
    assert mover(state) is Player.TWO and not state.deciding


def test_choice_between_custodial_and_strength_capture_of_different_pieces() -> None:
    pieces = {"e2": "D2", "c3": "D4", "d3": "d3", "f3": "d1", **SPARE_DICE}
    state = position(STRENGTH, pieces)
    play(state, "e2-e3")
    assert sorted(texts(state)) == ["xd3", "xf3"]  # d3 custodial, f3 by strength
    custodial = state.footprint(state.parse("xd3"))
    strength = state.footprint(state.parse("xf3"))
    assert custodial.result != strength.result  # the physical action tells them apart
    play(state, "xd3")
    assert tokens(state)["e3"] == "D2" and "f3" in tokens(state)

    state = position(STRENGTH, pieces)
    play(state, "e2-e3", "xf3")
    assert tokens(state)["e3"] == "D1" and "d3" in tokens(state)


def test_strength_target_also_captured_custodially_gives_no_choice() -> None:
    state = position(STRENGTH, {"e2": "D5", "c3": "D4", "d3": "d3", **SPARE_DICE})
    effect = state.apply(state.parse("e2-e3"))
    assert not effect.decision
    assert at(state, "d3") is None
    assert tokens(state)["e3"] == "D5"  # custodial: no pip lost


def test_moved_piece_is_never_captured_by_strength() -> None:
    state = position(STRENGTH, {"e2": "D1", "d3": "d6", "f3": "d6", **SPARE_DICE})
    play(state, "e2-e3")
    assert tokens(state)["e3"] == "D1"


def test_decision_position_round_trips_through_json() -> None:
    state = position(STRENGTH, {"e2": "D5", "d3": "d2", "f3": "d3", **SPARE_DICE})
    play(state, "e2-e3")
    data = state.to_json()
    assert data["phase"] == "capture" and data["capture_at"] == "e3"
    again = STRENGTH.state_from_json(data)
    assert sorted(texts(again)) == ["xd3", "xf3"]


# -- variant 2: dragons --------------------------------------------------------------------


def test_surrounding_the_centre_cave_brings_out_a_strength_5_dragon() -> None:
    state = position(DRAGONS, {"d5": "D2", "f5": "D2", "e4": "D2", "e7": "D2", **SPARE_DICE})
    effect = state.apply(state.parse("e7-e6"))
    assert at(state, "e5") == Piece("dragon", Player.ONE, 5)
    assert [e.text for e in effect.events if e.kind.value == "spawn"]
    assert state.to_json()["tamed"] == ["e5"]


def test_side_cave_dragon_has_strength_3() -> None:
    state = position(DRAGONS, {"b5": "D2", "d5": "D2", "c4": "D2", "c7": "D2", **SPARE_DICE})
    play(state, "c7-c6")
    assert at(state, "c5") == Piece("dragon", Player.ONE, 3)


def test_one_move_can_tame_two_caves() -> None:
    pieces = {"b5": "D2", "c4": "D2", "c6": "D2", "e4": "D2", "e6": "D2", "f5": "D2"}
    state = position(DRAGONS, {**pieces, "d8": "D2", **SPARE_DICE})
    play(state, "d8-d5")
    assert at(state, "c5") == Piece("dragon", Player.ONE, 3)
    assert at(state, "e5") == Piece("dragon", Player.ONE, 5)


def test_only_one_dragon_per_cave_ever() -> None:
    pieces = {"d5": "d2", "f5": "d2", "e4": "d2", "e7": "d2", **SPARE_DICE}
    state = position(DRAGONS, pieces, to_move=2, tamed=["e5"])
    play(state, "e7-e6")
    assert at(state, "e5") is None


def test_dragon_leaves_its_cave_and_never_returns_or_crosses_one() -> None:
    state = position(DRAGONS, {"e5": "R5", "a3": "D2", **SPARE_DICE}, tamed=["e5"])
    moves = texts(state)
    assert {"e5-e4", "e5-e9", "e5-d5"} <= set(moves)
    assert "e5-a5" not in moves  # crossing the cave c5
    play(state, "e5-d5")
    assert not any(m.endswith(("-c5", "-e5", "-g5")) for m in texts(state))
    play(state, "h8-h7")
    assert "d5-b5" not in texts(state)  # crossing c5


def test_dragons_count_as_pieces_and_can_capture() -> None:
    state = position(DRAGONS, {"e5": "R5", "f4": "d4", "h2": "D1", **SPARE_DICE}, tamed=["e5"])
    play(state, "e5-e4")
    assert at(state, "f4") is None
    assert tokens(state)["e4"] == "R4"


def test_enemy_dragon_on_its_cave_is_no_anvil_but_a_friendly_one_is() -> None:
    enemy = position(DRAGONS, {"a7": "D2", "b5": "d2", "c5": "r3", **SPARE_DICE}, tamed=["c5"])
    play(enemy, "a7-a5")
    assert at(enemy, "b5") is not None
    friendly = position(DRAGONS, {"a7": "D2", "b5": "d6", "c5": "R3", **SPARE_DICE}, tamed=["c5"])
    play(friendly, "a7-a5")
    assert at(friendly, "b5") is None


def test_no_dragons_outside_the_dragons_variant() -> None:
    state = position(STRENGTH, {"d5": "D2", "f5": "D2", "e4": "D2", "e7": "D2", **SPARE_DICE})
    play(state, "e7-e6")
    assert at(state, "e5") is None


# -- positions -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pieces", "message"),
    [
        ({"a1": "S"}, "mountain"),
        ({"c5": "S", **SPARE}, "cave"),
        ({"c3": "D3", **SPARE}, "no die pieces"),
        ({"zz": "S"}, "no cell 'zz'"),
    ],
)
def test_bad_positions_are_rejected(pieces: dict[str, str], message: str) -> None:
    with pytest.raises(PositionError, match=message):
        position(BASE, pieces)


def test_bad_strength_is_rejected() -> None:
    with pytest.raises(PositionError, match="strength is 1 to 6"):
        position(STRENGTH, {"c3": "D9", **SPARE_DICE})
