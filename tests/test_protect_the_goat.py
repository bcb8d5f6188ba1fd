"""Protect the Goat: placement, movement and battle scenarios (docs/rules/protect-the-goat.md).

Upper-case tokens are player 1's pieces (sitting south), lower case player 2's:
G goat, P phant, S sugarmouse, L lyon, Y yafbeest. The light hexes form five lanes
(files a, c, e, g, i) between the two all-light home rows 1 and 6.
"""

from __future__ import annotations

from typing import Any

import pytest

from engine import Effect, IllegalMoveError, Player, PositionError, State
from engine.games.protect_the_goat import ProtectTheGoat
from tests.helpers import at, load, mover, play, position, texts, tokens

_LOADED = load("protect-the-goat")
assert isinstance(_LOADED, ProtectTheGoat)
GAME: ProtectTheGoat = _LOADED
GOATS = {"a1": "G", "i6": "g"}  # far from every scenario below


def goat_position(pieces: dict[str, str], to_move: int = 1, **extra: Any) -> State:
    return position(
        GAME, {**GOATS, **pieces}, to_move=to_move, phase=extra.pop("phase", "movement"),
        south=1, **extra,
    )  # fmt: skip


def captured_cells(effect: Effect) -> list[str]:
    names = GAME.board.names
    return [names[e.cells[0]] for e in effect.events if e.kind.value == "capture"]


# -- the two examples of the rules text ------------------------------------------------------


def test_seed_example_1_sugarmouse_captures_phant_and_takes_its_hex() -> None:
    state = goat_position({"c3": "S", "c5": "p"})
    effect = state.apply(state.parse("c3-c4"))
    assert tokens(state) == {**GOATS, "c5": "S"}
    assert captured_cells(effect) == ["c5"]
    # The hand moved the sugarmouse to c4; the battle then carried it on to c5.
    footprint = effect.footprint()
    assert {GAME.board.names[c] for c in footprint.hand} == {"c3", "c4"}
    assert {GAME.board.names[c] for c in footprint.result} == {"c3", "c5"}
    assert mover(state) is Player.TWO and state.phase == "movement"


def test_seed_example_2_phant_next_to_lyon_becomes_a_four_capture_combo() -> None:
    state = goat_position({"c4": "P", "c6": "l", "d6": "y", "e6": "y", "f6": "l"})
    effect = state.apply(state.parse("c4-c5"))
    assert captured_cells(effect) == ["c6", "d6", "e6", "f6"]
    assert tokens(state) == {**GOATS, "f6": "P"}
    assert not effect.decision and mover(state) is Player.TWO


# -- further battle situations -------------------------------------------------------------


def test_defensive_capture_lyon_walks_into_a_phant() -> None:
    state = goat_position({"e3": "L", "e5": "p"})
    effect = state.apply(state.parse("e3-e4"))
    assert captured_cells(effect) == ["e4"]
    assert tokens(state) == {**GOATS, "e4": "p"}
    assert mover(state) is Player.TWO


def test_opposing_yafbeests_destroy_each_other() -> None:
    state = goat_position({"g3": "Y", "g5": "y"})
    effect = state.apply(state.parse("g3-g4"))
    assert sorted(captured_cells(effect)) == ["g4", "g5"]
    assert tokens(state) == GOATS


@pytest.mark.parametrize(("mover", "other"), [("P", "p"), ("L", "l"), ("S", "s"), ("L", "y")])
def test_pieces_that_ignore_each_other(mover: str, other: str) -> None:
    state = goat_position({"c3": mover, "c5": other})
    effect = state.apply(state.parse("c3-c4"))
    assert effect.captured == 0
    assert tokens(state) == {**GOATS, "c4": mover, "c5": other}


def test_sugarmouse_walking_into_a_lyon_is_taken() -> None:
    state = goat_position({"g3": "S", "g5": "l"})
    play(state, "g3-g4")
    assert tokens(state) == {**GOATS, "g4": "l"}


def test_mover_chooses_between_two_capturable_pieces() -> None:
    state = goat_position({"c4": "P", "b6": "y", "c6": "l"})
    effect = state.apply(state.parse("c4-c5"))
    assert effect.decision and state.phase == "battle" and mover(state) is Player.ONE
    assert sorted(texts(state)) == ["c5xb6", "c5xc6"]
    # Each choice is a different physical action, so the player's hands make the choice.
    first, second = (state.footprint(state.parse(t)) for t in ("c5xb6", "c5xc6"))
    assert first.hand != second.hand
    # Either way the phant goes on to take the other piece too, ending on a different hex.
    play(state, "c5xb6")
    assert tokens(state) == {**GOATS, "c6": "P"}
    state.undo()
    play(state, "c5xc6")
    assert tokens(state) == {**GOATS, "b6": "P"}
    assert mover(state) is Player.TWO and state.phase == "movement"


def test_owner_of_two_attackers_chooses_which_one_captures() -> None:
    state = goat_position({"c4": "L", "b6": "p", "c6": "p"})
    play(state, "c4-c5")
    assert state.phase == "battle" and mover(state) is Player.TWO
    assert sorted(texts(state)) == ["b6xc5", "c6xc5"]
    with pytest.raises(IllegalMoveError, match="choices"):
        play(state, "c5-c4")
    play(state, "c6xc5")
    assert tokens(state) == {**GOATS, "b6": "p", "c5": "p"}
    assert mover(state) is Player.TWO and state.phase == "movement"


def test_offence_first_then_defence() -> None:
    # The phant takes the lyon, landing next to a sugarmouse, which then takes the phant.
    state = goat_position({"c4": "P", "b6": "l", "c6": "s"})
    effect = state.apply(state.parse("c4-c5"))
    assert captured_cells(effect) == ["b6", "b6"]
    assert tokens(state) == {**GOATS, "b6": "s"}


def test_chain_offence_defence_offence() -> None:
    state = goat_position({"c4": "P", "b6": "l", "c6": "s", "a6": "L"})
    effect = state.apply(state.parse("c4-c5"))
    # phant x lyon (b6), sugarmouse x phant (b6), lyon x sugarmouse (b6)
    assert captured_cells(effect) == ["b6", "b6", "b6"]
    assert tokens(state) == {**GOATS, "b6": "L"}


def test_goat_capture_ends_the_game_at_once() -> None:
    state = position(GAME, {"a1": "G", "c4": "P", "c6": "g", "d6": "l"}, phase="movement", south=1)
    effect = state.apply(state.parse("c4-c5"))
    assert effect.outcome is not None and effect.outcome.winner is Player.ONE
    assert at(state, "d6") is not None  # the lyon next door is never fought
    assert list(state.legal_moves()) == []


def test_defensive_goat_capture_loses_the_game_for_the_mover() -> None:
    state = position(GAME, {"e3": "G", "e5": "y", "i6": "g"}, phase="movement", south=1)
    effect = state.apply(state.parse("e3-e4"))
    assert effect.outcome is not None and effect.outcome.winner is Player.TWO


def test_choice_between_mutual_destruction_and_the_goat() -> None:
    state = position(GAME, {"a1": "G", "c4": "Y", "b6": "y", "c6": "g"}, phase="movement", south=1)
    play(state, "c4-c5")
    assert sorted(texts(state)) == ["c5xb6", "c5xc6"]
    mutual = state.footprint(state.parse("c5xb6"))
    assert mutual.outcome is None and len(mutual.result) == 2  # both yafbeests gone
    goat = state.footprint(state.parse("c5xc6"))
    assert goat.outcome is not None and goat.outcome.winner is Player.ONE


def test_sugarmouse_takes_a_yafbeest() -> None:
    state = goat_position({"a3": "S", "a5": "y"})
    play(state, "a3-a4")
    assert tokens(state) == {**GOATS, "a5": "S"}


def test_battle_decision_position_round_trips() -> None:
    state = goat_position({"c4": "L", "b6": "p", "c6": "p"})
    play(state, "c4-c5")
    data = state.to_json()
    assert data["phase"] == "battle" and data["initiative"] == 1 and data["to_move"] == 2
    again = GAME.state_from_json(data)
    assert sorted(texts(again)) == ["b6xc5", "c6xc5"]


# -- placement -----------------------------------------------------------------------------


def test_placement_alternates_on_each_players_own_first_row() -> None:
    state = GAME.new_state()
    assert state.phase == "placement" and mover(state) is Player.ONE
    moves = texts(state)
    assert len(moves) == 9 * 5 and all(m.endswith("1") for m in moves)
    with pytest.raises(IllegalMoveError, match="own first row"):
        play(state, "G@a6")
    play(state, "G@e1")
    assert mover(state) is Player.TWO and all(m.endswith("6") for m in texts(state))


def test_after_eighteen_placements_the_toss_winner_moves_first() -> None:
    state = GAME.new_state()
    south = ["G@e1", "P@c1", "P@g1", "S@a1", "S@i1", "L@b1", "L@h1", "Y@d1", "Y@f1"]
    north = [m.replace("1", "6") for m in south]
    for mine, theirs in zip(south, north, strict=True):
        play(state, mine, theirs)
    assert state.phase == "movement" and mover(state) is Player.ONE
    assert state.to_json()["reserve"] == {
        "1": dict.fromkeys(GAME.kinds, 0),
        "2": dict.fromkeys(GAME.kinds, 0),
    }
    with pytest.raises(IllegalMoveError, match="all pieces have been placed"):
        play(state, "G@a2")


def test_no_piece_can_be_placed_twice_beyond_its_count() -> None:
    state = GAME.new_state()
    play(state, "G@e1", "g@e6")
    assert not any(m.startswith("G@") for m in texts(state))


def test_toss_winner_north_places_on_the_north_row() -> None:
    game = load("protect-the-goat", toss_winner="north")
    state = game.new_state()
    assert all(m.endswith("6") for m in texts(state))


def test_first_placement_decides_the_seats() -> None:
    game = load("protect-the-goat", toss_winner="first_placement")
    state = game.new_state()
    assert len(texts(state)) == 18 * 5
    play(state, "P@c6")  # player 1 chose the north edge
    assert all(m.endswith("1") for m in texts(state))
    assert state.to_json()["south"] == 2


# -- no move, passes and draws ---------------------------------------------------------------

BLOCKED = {"a1": "G", "a2": "P", "b1": "P", "a3": "p", "c1": "p", "i6": "g"}


def test_a_player_with_no_move_passes() -> None:
    state = position(GAME, BLOCKED, phase="movement", south=1)
    assert texts(state) == ["pass"]
    effect = state.apply(state.parse("pass"))
    assert effect.footprint().result == {} and mover(state) is Player.TWO
    assert state.outcome() is None


def test_pass_is_illegal_while_a_move_exists() -> None:
    state = goat_position({"c3": "S"})
    with pytest.raises(IllegalMoveError, match="only when no move is possible"):
        play(state, "pass")


def test_two_passes_in_a_row_draw() -> None:
    state = position(GAME, BLOCKED, phase="movement", south=1, passes=1)
    effect = state.apply(state.parse("pass"))
    assert effect.outcome is not None and effect.outcome.winner is None
    assert "neither player can move" in effect.outcome.reason


def test_threefold_repetition_draws() -> None:
    state = goat_position({"c3": "P", "g4": "p"})
    cycle = ["c3-c4", "g4-g3", "c4-c3", "g3-g4"]
    play(state, *cycle, *cycle)
    outcome = state.outcome()
    assert outcome is not None and outcome.winner is None and "repeated 3" in outcome.reason


def test_no_capture_limit_draws_and_can_be_turned_off() -> None:
    game = load("protect-the-goat", draw_after=4, repetitions=0)
    state = position(game, {**GOATS, "c3": "P", "g4": "p"}, phase="movement", south=1)
    play(state, "c3-c4", "g4-g3", "c4-c3")
    assert state.outcome() is None
    play(state, "g3-g4")
    outcome = state.outcome()
    assert outcome is not None and "no capture in 4 moves" in outcome.reason
    endless = load("protect-the-goat", draw_after=0, repetitions=0)
    state = position(endless, {**GOATS, "c3": "P", "g4": "p"}, phase="movement", south=1)
    for _ in range(10):
        play(state, "c3-c4", "g4-g3", "c4-c3", "g3-g4")
    assert state.outcome() is None


# -- positions -----------------------------------------------------------------------------


def test_position_with_a_pending_battle_is_rejected() -> None:
    with pytest.raises(PositionError, match="would already have fought"):
        goat_position({"c4": "P", "c5": "l"})


def test_position_on_a_dark_hex_is_rejected() -> None:
    with pytest.raises(PositionError, match="blocked"):
        goat_position({"b2": "P"})


def test_position_with_too_many_pieces_is_rejected() -> None:
    with pytest.raises(PositionError, match="3 phant"):
        goat_position({"c3": "P", "e3": "P", "g3": "P"})


def test_position_without_a_goat_is_already_decided() -> None:
    state = position(GAME, {"a1": "G", "c3": "p"}, phase="movement", south=1)
    outcome = state.outcome()
    assert outcome is not None and outcome.winner is Player.ONE


def test_a_step_next_to_no_enemy_it_fights_skips_the_battle_look_and_changes_nothing() -> None:
    """The quick path (only the arrived piece can start a battle) plays every game exactly as
    the look over the whole board does: random games, in every toss option, position for
    position and event for event."""
    import random

    from engine.games.protect_the_goat import ProtectTheGoatState
    from firmware_bridge.link import catalog

    class LooksEverywhere(ProtectTheGoatState):
        def _starts_no_battle(self, cell: int) -> bool:
            return False

    quiet = 0
    for toss in ("south", "north", "first_placement"):
        game = catalog.load_game("protect-the-goat", {"toss_winner": toss})
        assert isinstance(game, ProtectTheGoat)
        rng = random.Random(toss)
        for _ in range(15):
            quick, full = game.new_state(), LooksEverywhere(game)
            full._setup()
            while quick.outcome() is None:
                moves = list(quick.legal_moves())
                assert moves == list(full.legal_moves())
                move = rng.choice(moves)
                a, b = quick.apply(move), full.apply(move)
                assert quick.cells == full.cells and quick.to_move is full.to_move
                assert [e.text for e in a.events] == [e.text for e in b.events]
                assert quick.phase == full.phase and quick.extra == full.extra
                quiet += not a.captured
            assert quick.outcome() == full.outcome()
    assert quiet > 1000  # the games were long enough to mean something
