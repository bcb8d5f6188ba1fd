"""One conformance suite over every registered game and variant (OpenSpiel-style).

Random playouts with fixed seeds check, at every ply: generated moves are legal and unique;
apply/undo and copy round-trip exactly; move notation round-trips; the footprint of every
move agrees with layout() before and after; the JSON position form round-trips; games end and
their outcomes are consistent. CI runs a bounded number of playouts; ``-m slow`` runs many.
"""

from __future__ import annotations

import random

import pytest

from engine import Game, IllegalMoveError, Move, MoveKind, State
from engine.effects import apply_changes
from firmware_bridge.link import catalog

MAX_PLIES = 5000
DEEP_PLIES = 150  # every check at every ply this far into a playout; then it only plays on


def _variants() -> list[tuple[str, dict[str, str]]]:
    cases: list[tuple[str, dict[str, str]]] = []
    for game_id in catalog.game_ids():
        game = catalog.load_game(game_id)
        cases.append((game_id, {}))
        for spec in game.option_specs.values():
            values = ("true", "false") if spec.type == "bool" else spec.choices
            for choice in values:
                if str(choice).lower() != str(spec.default).lower():
                    cases.append((game_id, {spec.name: choice}))
    return cases


VARIANTS = _variants()
IDS = [f"{g}-{'-'.join(f'{k}={v}' for k, v in o.items()) or 'default'}" for g, o in VARIANTS]


def test_every_game_config_is_covered() -> None:
    assert {
        "three-dragons",
        "protect-the-goat",
        "vanguard",
        "goats-wintering",
        "the-lion-game",
    } <= {g for g, _ in VARIANTS}
    assert ("the-lion-game", {"butterfly_must_leave": "false"}) in VARIANTS


def test_every_rules_id_names_its_own_class() -> None:
    """The registry imports a game's module only when a game of it is built: each id it
    lists is the ``rules`` of the class it names."""
    from engine.registry import RULES, rules_class

    for rules_id in RULES:
        cls = rules_class(rules_id)
        assert cls is not None and cls.rules == rules_id
    assert rules_class("chess") is None


def check_position(state: State, rng: random.Random) -> list[Move]:
    game = state.game
    moves = list(state.legal_moves())
    assert len(moves) == len(set(moves)), "duplicate legal moves"
    outcome = state.outcome()
    if outcome is not None:
        assert moves == []
        return moves
    assert moves, "no legal moves but no outcome"
    before_json = state.to_json()
    before_layout = state.layout()
    for move in moves:
        text = game.move_text(move)
        assert game.parse_move(text) == move, text
        assert state.is_legal(move)
        if state.deciding:
            assert move.is_decision or move.kind is MoveKind.PASS
    for footprint in state.footprints():
        assert state.to_json() == before_json, "footprint changed the state"
        hand_cells = set(footprint.hand)
        for c, piece in footprint.hand.items():
            assert before_layout.get(c) != piece
        assert all(before_layout.get(c) != p for c, p in footprint.result.items())
        assert (
            hand_cells
            or footprint.move.kind in (MoveKind.PASS, MoveKind.REMOVE)
            or (footprint.result)
            or (footprint.move.kind is MoveKind.MOVE and footprint.move.frm == footprint.move.to)
        ), "a move that changes nothing physical must be a pass or a null move"
    # JSON form round-trips, to the same position and the same legal moves.
    reloaded = game.state_from_json(before_json)
    assert reloaded.to_json() == before_json
    assert set(reloaded.legal_moves()) == set(moves)
    # A copy is equal and independent.
    clone = state.copy()
    assert clone.same_position(state)
    clone.apply(rng.choice(moves))
    assert state.to_json() == before_json
    # Games that list a position's moves once keep the list: applying and undoing every
    # footprint, and a copy's move, must leave this position's list as it was, and give the
    # copy its own position's moves.
    assert list(state.legal_moves()) == moves
    if clone.outcome() is None:
        fresh = game.state_from_json(clone.to_json())
        assert set(clone.legal_moves()) == set(fresh.legal_moves())
    return moves


def playout(game: Game, seed: int, *, deep: bool, deep_plies: int = DEEP_PLIES) -> State:
    rng = random.Random(seed)
    state = game.new_state()
    start = state.to_json()
    for ply in range(MAX_PLIES):
        deep = deep and ply < deep_plies
        moves = check_position(state, rng) if deep else list(state.legal_moves())
        if state.outcome() is not None:
            break
        move = rng.choice(moves)
        before = state.layout()
        before_json = state.to_json()
        expected = state.footprint(move)
        effect = state.apply(move)
        assert effect.footprint() == expected
        assert apply_changes(before, expected.result) == state.layout()
        assert apply_changes(before, expected.hand) == apply_changes(
            before, {c.cell: c.after for c in effect.hand}
        )
        assert state.to_move is expected.to_move and state.phase == expected.phase
        if deep:
            after_json = state.to_json()
            assert state.undo() == move
            assert state.to_json() == before_json
            assert state.layout() == before
            state.apply(move)
            assert state.to_json() == after_json
    else:
        pytest.fail(f"{game.id} seed {seed}: no outcome after {MAX_PLIES} plies")
    outcome = state.outcome()
    assert outcome is not None
    assert outcome.winner is None or outcome.winner in (1, 2)
    with pytest.raises(IllegalMoveError):
        state.apply(Move(MoveKind.PASS))
    # Undo everything: back to the start position exactly.
    while state.plies:
        state.undo()
    assert state.to_json() == start
    return state


@pytest.mark.parametrize(("game_id", "options"), VARIANTS, ids=IDS)
def test_random_playouts_conform(game_id: str, options: dict[str, str]) -> None:
    game = catalog.load_game(game_id, options)
    # Two deep playouts a variant; on the biggest boards (the 10-limp's 300 cells and some
    # hundred moves a position, each checked by its footprint) one, its first 60 plies deep:
    # the same rules code as the smaller boards'.
    if game.board.size > 200:
        playout(game, 0, deep=True, deep_plies=60)
        return
    for seed in range(2):
        playout(game, seed, deep=True)


@pytest.mark.parametrize(("game_id", "options"), VARIANTS, ids=IDS)
def test_many_games_terminate(game_id: str, options: dict[str, str]) -> None:
    game = catalog.load_game(game_id, options)
    for seed in range(100, 120):
        playout(game, seed, deep=False)


@pytest.mark.parametrize(("game_id", "options"), VARIANTS, ids=IDS)
def test_arbitrary_moves_are_rejected_cleanly(game_id: str, options: dict[str, str]) -> None:
    """Random well-formed moves are either legal or raise IllegalMoveError, changing nothing."""
    game = catalog.load_game(game_id, options)
    rng = random.Random(5)
    state = game.new_state()
    size = game.board.size
    kinds = list(game.pieces)
    for _ in range(400):
        if state.outcome() is not None:
            state = game.new_state()
        legal = set(state.legal_moves())
        candidate = rng.choice(
            [
                Move.step(rng.randrange(size), rng.randrange(size)),
                Move.step(rng.randrange(size), rng.randrange(size), [rng.randrange(size)]),
                Move.place(rng.choice(kinds), rng.randrange(size)),
                Move.capture(rng.randrange(size), rng.randrange(size)),
                Move.remove([rng.randrange(size)]),
                Move.pass_(),
            ]
        )
        before = state.to_json()
        if candidate in legal:
            state.apply(candidate)
        else:
            with pytest.raises(IllegalMoveError):
                state.apply(candidate)
            assert state.to_json() == before
            state.apply(rng.choice(sorted(legal, key=game.move_text)))


@pytest.mark.parametrize(("game_id", "options"), VARIANTS, ids=IDS)
def test_declared_results_end_the_game_and_a_take_back_withdraws_them(
    game_id: str, options: dict[str, str]
) -> None:
    """A resignation (either player's, whoever is to move), an agreed draw and a flag fall
    (either player's), declared at a
    random ply of a playout: the game is over with that result, nothing moves, its text round-
    trips, and undo gives back exactly the position before (its moves too)."""
    game = catalog.load_game(game_id, options)
    rng = random.Random(11)
    state = game.new_state()
    for _ in range(rng.randrange(1, 25)):
        moves = list(state.legal_moves())
        if not moves:
            break
        state.apply(rng.choice(sorted(moves, key=game.move_text)))
    if state.outcome() is not None:
        return
    before, legal = state.to_json(), sorted(state.legal_moves(), key=game.move_text)
    names = game.player_names
    results = (("resign:1", 2), ("resign:2", 1), ("draw", None), ("time:1", 2), ("time:2", 1))
    for declared, winner in results:
        move = state.parse(declared)
        assert game.move_text(move) == declared and move.is_declared
        assert move not in legal
        effect = state.apply(move)
        outcome = state.outcome()
        assert outcome is not None and effect.outcome == outcome
        assert (None if outcome.winner is None else int(outcome.winner)) == winner
        assert list(state.legal_moves()) == [] and effect.footprint().result == {}
        assert state.to_json()["layout"] == before["layout"]
        if winner is not None:
            how = "lost on time" if declared.startswith("time:") else "resigned"
            assert outcome.reason == f"{names[2 - winner]} {how}"
        with pytest.raises(IllegalMoveError):
            state.apply(state.parse("draw"))  # over: nothing more to declare
        assert state.undo() == move
        assert state.to_json() == before
        assert sorted(state.legal_moves(), key=game.move_text) == legal


@pytest.mark.slow
@pytest.mark.parametrize(("game_id", "options"), VARIANTS, ids=IDS)
def test_soak_random_playouts(game_id: str, options: dict[str, str]) -> None:
    game = catalog.load_game(game_id, options)
    for seed in range(1000, 1040):
        playout(game, seed, deep=True)


@pytest.mark.parametrize(("game_id", "options"), VARIANTS, ids=IDS)
def test_the_playout_state_agrees_with_the_rules_move_for_move(
    game_id: str, options: dict[str, str]
) -> None:
    """The search's playouts ``push`` their moves on a throwaway copy (nothing recorded, no
    words): over random games, a state played that way and a state played by ``apply`` list
    the same moves and reach the same position (layout, player, phase, game state, draw count,
    outcome) at every ply, and a copy cut from the recorded one at any point follows it too.
    300 positions or more a variant: over the 29 variants of the five games, some 9,000."""
    game = catalog.load_game(game_id, options)
    rng = random.Random(17)
    compared = games = 0
    while games < 3 or compared < 300:
        games += 1
        recorded = game.new_state()
        pushed = game.new_state()
        cut: State | None = None
        for ply in range(200):
            outcome = recorded.outcome()
            assert pushed.outcome() == outcome
            if cut is not None:
                assert cut.outcome() == outcome
            if outcome is not None:
                break
            moves = list(recorded.legal_moves())
            assert list(pushed.legal_moves()) == moves
            for other in (pushed, cut):
                if other is not None:
                    assert other.cells == recorded.cells
                    assert other._snapshot() == recorded._snapshot()
                    assert other._seen == recorded._seen
            compared += 1
            move = rng.choice(moves)
            recorded.apply(move)
            pushed.push(move)
            if cut is not None:
                cut.push(move)
            elif ply == 10:
                cut = recorded.copy(stack=False)
        assert pushed.plies == 0  # nothing kept to undo
