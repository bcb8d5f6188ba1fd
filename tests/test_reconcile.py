"""The reconciler's logic with a simulated table: hands move pieces, sensors report tokens,
the clock is explicit. End-to-end runs over a pty are in test_end_to_end.py."""

from __future__ import annotations

from engine import Piece, Player, State
from firmware_bridge.link import catalog
from firmware_bridge.link.profile import BoardProfile
from firmware_bridge.link.protocol import Button
from firmware_bridge.referee.reconcile import Committed, NewGame, Reconciler, Record, TookBack
from tests.helpers import load, position


class Table:
    """A physical board: pieces on cells, read through the profile's sensors."""

    def __init__(self, state: State, profile: BoardProfile, pieces: dict[int, Piece] | None = None):
        self.game = state.game
        self.profile = profile
        self.pieces: dict[int, Piece] = dict(state.layout() if pieces is None else pieces)
        self.rec = Reconciler(state, profile)
        self.now = 0.0
        self.records: list[Record] = []
        self.hand: list[Piece] = []
        self.sense()
        self.settle()

    def cell(self, name: str) -> int:
        return self.game.board.cell(name)

    def sense(self) -> None:
        self.now += 0.01
        self.rec.observe(self.profile.tokens(self.pieces), self.now)
        self.records += self.rec.evaluate(self.now)

    def lift(self, *names: str) -> None:
        for name in names:
            self.hand.append(self.pieces.pop(self.cell(name)))
            self.sense()

    def place(self, name: str, piece: Piece | None = None) -> None:
        self.pieces[self.cell(name)] = piece if piece is not None else self.hand.pop()
        self.sense()

    def move(self, frm: str, to: str) -> None:
        self.lift(frm)
        self.place(to)

    def settle(self) -> list[Record]:
        self.now += self.profile.settle + 0.01
        new = self.rec.evaluate(self.now)
        self.records += new
        return new

    def press(self, button: Button) -> list[Record]:
        new = self.rec.press(button, self.now)
        self.records += new
        return new

    def signals(self) -> dict[str, str]:
        names = self.game.board.names
        return {names[c]: s.value for c, s in sorted(self.rec.signals.items())}

    def committed(self) -> list[str]:
        return [r.text for r in self.records if isinstance(r, Committed)]


TD = load("three-dragons")
TD_OWNER = catalog.load_profile("three-dragons", TD)
TD_REED = catalog.load_profile("three-dragons-reed", TD)
STRENGTH = load("three-dragons", variant="strength")
PTG = load("protect-the-goat")
PTG_ID = catalog.load_profile("protect-the-goat", PTG)
PTG_REED = catalog.load_profile("protect-the-goat-reed", PTG)
SPARE = {"h2": "S", "i3": "S", "h8": "s", "i7": "s"}


def test_a_plain_move_is_committed_once_the_board_settles() -> None:
    table = Table(TD.new_state(), TD_OWNER)
    assert table.rec.synced and table.signals() == {}
    table.move("c1", "c4")
    assert table.committed() == []  # not before the settle window
    table.settle()
    assert table.committed() == ["c1-c4"]
    assert table.rec.state.to_move is Player.TWO and table.signals() == {}


def test_lifting_a_piece_shows_where_it_may_go() -> None:
    table = Table(TD.new_state(), TD_OWNER)
    table.lift("c1")
    assert table.signals() == {"c1": "hint", "c2": "hint", "c3": "hint", "c4": "hint"}
    table.settle()  # holding a piece for a while is not an illegal move
    assert table.committed() == [] and "illegal" not in table.signals().values()


def test_custodial_capture_prompts_removal_and_the_next_turn_waits_for_it() -> None:
    state = position(TD, {"c2": "S", "e4": "S", "d4": "s", **SPARE})
    table = Table(state, TD_OWNER)
    table.move("c2", "c4")
    table.settle()
    assert table.committed() == ["c2-c4"]
    assert table.signals() == {"d4": "remove"}
    table.move("h8", "h6")  # Black moves before removing the captured piece
    table.settle()
    assert table.committed() == ["c2-c4"]
    assert table.signals() == {"d4": "remove", "h6": "illegal", "h8": "put_back"}
    table.move("h6", "h8")
    table.lift("d4")
    table.settle()
    assert table.signals() == {} and table.rec.synced
    table.move("h8", "h6")
    table.settle()
    assert table.committed() == ["c2-c4", "h8-h6"]


def test_doing_the_move_and_its_consequences_at_once() -> None:
    state = position(TD, {"c2": "S", "e4": "S", "d4": "s", **SPARE})
    table = Table(state, TD_OWNER)
    table.move("c2", "c4")
    table.lift("d4")
    table.settle()
    assert table.committed() == ["c2-c4"] and table.rec.synced


def test_illegal_move_is_signalled_and_play_continues_after_correction() -> None:
    table = Table(TD.new_state(), TD_OWNER)
    table.move("c1", "d3")  # not a rook move
    table.settle()
    assert table.committed() == []
    assert table.signals() == {"c1": "put_back", "d3": "illegal"}
    table.move("d3", "c1")
    table.settle()
    assert table.signals() == {}
    table.move("c1", "c3")
    table.settle()
    assert table.committed() == ["c1-c3"]


def test_flicker_inside_the_settle_window_changes_nothing() -> None:
    table = Table(TD.new_state(), TD_OWNER)
    table.pieces[table.cell("e5")] = Piece("stone", Player.TWO)  # a stray reading on a cave
    table.sense()
    del table.pieces[table.cell("e5")]
    table.sense()
    table.settle()
    assert table.committed() == [] and table.signals() == {}


def test_knocked_piece_is_guided_back() -> None:
    table = Table(TD.new_state(), TD_OWNER)
    table.move("b1", "a2")  # knocked diagonally onto the next square: no legal move does that
    table.settle()
    assert table.signals() == {"b1": "put_back", "a2": "illegal"}
    table.move("a2", "b1")
    table.lift("d1")  # knocked off the board altogether
    table.settle()
    assert table.signals() == {"d1": "put_back"}
    table.place("d1")
    table.settle()
    assert table.signals() == {} and table.committed() == []


def test_occupancy_board_recognises_moves_from_changed_cells() -> None:
    state = position(TD, {"c2": "S", "e4": "S", "d4": "s", **SPARE})
    table = Table(state, TD_REED)
    table.move("c2", "c4")
    table.settle()
    assert table.committed() == ["c2-c4"] and table.signals() == {"d4": "remove"}


LION = load("the-lion-game")
LION_REED = catalog.load_profile("the-lion-game-reed", LION)
LION_MIDGAME = {
    "b2": "E", "c2": "T", "d2": "L", "f2": "E", "c3": "F", "d3": "R", "e3": "F", "f3": "F",
    "b4": "F", "e4": "S", "e6": "s", "b7": "f", "c7": "f", "d7": "r", "e7": "f", "f7": "f",
    "b8": "e", "c8": "t", "d8": "l", "f8": "e", "d1": "C", "g7": "c", "d9": "c", "a3": "C",
}  # fmt: skip


def test_a_piece_knocked_off_beside_its_prey_is_not_taken_for_the_capture() -> None:
    # On an occupancy board, White's spider e4 taking Black's spider on e6 reads as e4 going
    # empty, and nothing else: e6 reads occupied before and after. So the spider knocked off
    # e4 looks just like that capture, but no hand went near e6: it is never the capture.
    table = Table(position(LION, LION_MIDGAME), LION_REED)
    table.lift("e4")
    table.settle()
    table.now += 5.0
    table.settle()
    assert table.committed() == []
    assert table.signals()["e4"] == "hint"  # a piece in hand: it may go back where it was
    table.place("e4")
    table.settle()
    assert table.signals() == {} and table.committed() == []
    table.lift("e4")  # the capture played: the spider goes onto e6, the victim comes off
    table.lift("e6")
    table.place("e6", table.hand[0])
    table.settle()
    assert table.committed() == ["e4-e6"]


def test_strength_choice_is_made_by_which_piece_is_removed() -> None:
    state = position(STRENGTH, {"e2": "D5", "d3": "d2", "f3": "d3",
                                "h2": "D1", "i3": "D1", "h8": "d1", "i7": "d1"})  # fmt: skip
    table = Table(state, TD_OWNER)
    table.move("e2", "e3")
    table.settle()
    assert table.committed() == ["e2-e3"]
    assert table.rec.state.deciding
    assert table.signals() == {"d3": "choose", "f3": "choose"}
    table.lift("f3")
    table.settle()
    assert table.committed() == ["e2-e3", "xf3"]
    # The die on e3 must be turned from 5 to 4: the sensors cannot see that.
    assert table.signals() == {"e3": "adjust"}
    table.press(Button.CONFIRM)
    assert table.signals() == {}


def test_protect_the_goat_combo_prompts_every_capture_and_the_final_hex() -> None:
    state = position(PTG, {"a1": "G", "i6": "g", "c4": "P", "c6": "l", "d6": "y",
                           "e6": "y", "f6": "l"}, phase="movement", south=1)  # fmt: skip
    table = Table(state, PTG_ID)
    table.move("c4", "c5")
    table.settle()
    assert table.committed() == ["c4-c5"]
    assert table.signals() == {
        "c5": "move_from", "c6": "remove", "d6": "remove", "e6": "remove", "f6": "remove",
    }  # fmt: skip
    table.lift("c6", "d6", "e6", "f6")  # captured pieces off, in any order
    assert table.signals() == {"c5": "move_from", "f6": "move_to"}
    table.hand.clear()
    table.move("c5", "f6")
    table.settle()
    assert table.signals() == {} and table.rec.synced


def test_battle_choice_by_the_mover_and_forced_follow_up() -> None:
    state = position(PTG, {"a1": "G", "i6": "g", "c4": "P", "b6": "y", "c6": "l"},
                     phase="movement", south=1)  # fmt: skip
    table = Table(state, PTG_ID)
    table.move("c4", "c5")
    table.settle()
    assert table.committed() == ["c4-c5"]
    assert table.signals() == {"b6": "choose", "c5": "choose", "c6": "choose"}
    table.lift("b6")  # the phant takes the yafbeest first
    table.hand.clear()
    table.move("c5", "b6")
    table.settle()
    assert table.committed() == ["c4-c5", "c5xb6"]
    # The phant then must take the lyon on c6 too.
    assert table.signals() == {"b6": "move_from", "c6": "remove"}
    table.lift("c6")
    table.hand.clear()
    table.move("b6", "c6")
    table.settle()
    assert table.rec.synced and table.rec.state.to_move is Player.TWO


def test_mutual_destruction_is_chosen_by_taking_both_off_or_by_moving_in() -> None:
    # Opposing yafbeests destroy each other: a player may take both off at once, or move
    # theirs into the victim's hex as in every capture and then take it off as the LEDs ask.
    for moving_in in (False, True):
        state = position(PTG, {"a1": "G", "i6": "g", "c4": "Y", "b6": "y", "c6": "y"},
                         phase="movement", south=1)  # fmt: skip
        table = Table(state, PTG_ID)
        table.move("c4", "c5")
        table.settle()
        assert table.signals() == {"b6": "choose", "c5": "choose", "c6": "choose"}
        if moving_in:
            table.lift("c6")
            table.move("c5", "c6")
            table.settle()
            assert table.signals() == {"c6": "remove"}
            assert table.rec.status == "Player 1: take your yafbeest off c6"
            table.lift("c6")
        else:
            table.lift("c6", "c5")
        table.settle()
        assert table.committed() == ["c4-c5", "c5xc6"], moving_in
        assert table.rec.synced and table.signals() == {}
        assert table.rec.state.to_move is Player.TWO


def test_defender_chooses_which_attacker_captures() -> None:
    state = position(PTG, {"a1": "G", "i6": "g", "c4": "L", "b6": "p", "c6": "p"},
                     phase="movement", south=1)  # fmt: skip
    table = Table(state, PTG_ID)
    table.move("c4", "c5")
    table.settle()
    assert table.rec.state.deciding and table.rec.state.to_move is Player.TWO
    table.lift("c5")
    table.hand.clear()
    table.move("c6", "c5")
    table.settle()
    assert table.committed() == ["c4-c5", "c6xc5"] and table.rec.synced


def test_occupancy_placement_is_chosen_with_select_and_confirm() -> None:
    table = Table(PTG.new_state(), PTG_REED)
    table.place("e1", Piece("phant", Player.ONE))
    table.settle()
    table.settle()
    assert table.committed() == []
    status = table.rec.status
    assert "SELECT" in status and "goat on e1" in status  # in words, never G@e1
    assert table.signals() == {"e1": "choose"}
    table.press(Button.SELECT)
    assert "phant on e1" in table.rec.status
    table.press(Button.CONFIRM)
    assert table.committed() == ["P@e1"]
    assert table.rec.state.to_json()["layout"]["e1"] == {"owner": 1, "piece": "phant"}


def test_identity_board_sees_which_kind_was_placed() -> None:
    table = Table(PTG.new_state(), PTG_ID)
    table.place("e1", Piece("lyon", Player.ONE))
    table.settle()
    assert table.committed() == ["L@e1"]


def test_take_back_undoes_the_last_turn_and_guides_the_board_back() -> None:
    state = position(TD, {"c2": "S", "e4": "S", "d4": "s", **SPARE})
    table = Table(state, TD_OWNER)
    table.move("c2", "c4")
    table.lift("d4")
    table.settle()
    records = table.press(Button.TAKEBACK)
    assert records == [TookBack(("c2-c4",))]
    assert table.rec.state.plies == 0
    # Shown as what it is: the piece goes back from -> to, the capture is put back.
    assert table.signals() == {"c4": "move_from", "c2": "move_to", "d4": "put_back"}
    assert table.rec.status == (
        "take back: move White's stone from c4 to c2; put back Black's stone on d4"
    )
    table.move("c4", "c2")
    table.place("d4")
    table.settle()
    assert table.signals() == {} and table.rec.synced


def test_pass_button_when_no_move_is_possible() -> None:
    blocked = {"a1": "G", "a2": "P", "b1": "P", "a3": "p", "c1": "p", "i6": "g"}
    state = position(PTG, blocked, phase="movement", south=1)
    table = Table(state, PTG_ID)
    table.press(Button.PASS)
    assert table.committed() == ["pass"]
    assert table.press(Button.PASS) == []  # player 2 can move: no pass
    assert "not allowed" in table.rec.notice


def test_a_new_game_starts_when_the_board_is_set_up_again() -> None:
    state = position(PTG, {"a1": "G", "c4": "P", "c6": "g", "d6": "l"},
                     phase="movement", south=1)  # fmt: skip
    table = Table(state, PTG_ID)
    table.move("c4", "c5")
    table.settle()
    assert table.rec.state.outcome() is not None
    assert table.signals() == {"c5": "move_from", "c6": "remove"}
    for name in ("a1", "c5", "c6", "d6"):
        table.lift(name)
    table.settle()
    assert isinstance(table.records[-1], NewGame)
    assert table.rec.state.outcome() is None and table.rec.state.plies == 0


def test_start_position_must_be_set_up_first() -> None:
    table = Table(TD.new_state(), TD_OWNER, pieces={})
    assert set(table.signals().values()) == {"put_back"}
    assert len(table.signals()) == 22
    table.pieces = dict(TD.new_state().layout())
    table.sense()
    table.settle()
    assert table.signals() == {} and table.rec.synced


def test_a_different_piece_arriving_is_no_adjust_prompt() -> None:
    # The Vanguard captain steps B1-A1 and its flag follows onto B1: on an owner board both
    # look alike, but the flag is a different piece, moved by hand: no "adjust".
    game = load("vanguard")
    profile = catalog.load_profile("vanguard", game)
    table = Table(game.new_state(), profile)
    table.move("B1", "A1")
    table.settle()
    assert table.committed() == ["B1-A1"]
    assert table.signals() == {"B1": "move_to", "C1": "move_from"}
    table.move("C1", "B1")
    table.settle()
    assert table.signals() == {} and table.rec.synced


LION = load("the-lion-game")
LION_OWNER = catalog.load_profile("the-lion-game", LION)


def test_a_null_move_needs_its_piece_lifted_put_back_and_confirmed() -> None:
    state = position(LION, {"a3": "C", "g5": "C", "b3": "L", "f8": "l"})
    table = Table(state, LION_OWNER)
    table.settle()
    table.press(Button.CONFIRM)  # nothing lifted: refused, with what to do
    assert table.rec.refused and "lift its piece" in table.rec.notice
    table.lift("g5")
    table.place("g5")
    table.settle()
    assert table.committed() == []  # a lift and a put-back alone are never a move
    table.lift("a3")
    table.place("a3")
    table.settle()
    table.press(Button.CONFIRM)  # the piece lifted last is the one that made the null move
    assert table.committed() == ["a3-a3"]


def test_a_promotion_the_sensors_cannot_see_is_an_adjust_prompt() -> None:
    state = position(LION, {"b8": "F", "b3": "L", "f7": "l"})
    table = Table(state, LION_OWNER)
    table.move("b8", "b9")
    table.settle()
    assert table.committed() == ["b8-b9"]
    assert table.signals() == {"b9": "adjust"}
    table.press(Button.CONFIRM)
    assert table.signals() == {}


VG = load("vanguard")
VG_OWNER = catalog.load_profile("vanguard", VG)


def test_after_the_game_ends_the_leds_guide_the_set_up_for_a_new_game() -> None:
    state = position(VG, {"B1": "C", "C1": "F", "G7": "O", "G8": "f", "H8": "c"})
    table = Table(state, VG_OWNER)
    table.lift("G8")  # the flag is captured by replacement
    table.move("G7", "G8")
    table.settle()
    assert table.committed() == ["G7-G8"] and table.rec.state.outcome() is not None
    assert table.signals() == {}
    assert "game over" in table.rec.status and "wins" in table.rec.status
    # Setting up again: the captain goes back towards its start, pieces come from the box.
    table.move("G8", "D1")
    table.settle()
    signals = table.signals()
    assert "illegal" not in signals.values() and "put_back" in signals.values()
    assert table.rec.status.startswith("game over: Player 1 wins")
    assert "setting the board up starts the next game: " in table.rec.status
    assert "illegal" not in table.rec.status and "Player 2's pieces on E7" in table.rec.status
    # Once the board shows the start, a new game begins.
    start = VG.new_state().layout()
    table.pieces = dict(start)
    table.sense()
    table.settle()
    assert any(type(r).__name__ == "NewGame" for r in table.records)
    assert table.rec.state.outcome() is None and table.signals() == {}


def test_the_last_captures_are_still_prompted_after_the_winning_move() -> None:
    # The Lion Game: a charge tramples d7 and takes the lion on d8; d7 must still come off.
    state = position(LION, {"d6": "R", "d7": "r", "d8": "l", "b3": "L"},
                     charges={"1": {"rhinoceros": "d6", "direction": "N", "level": 3}})  # fmt: skip
    table = Table(state, LION_OWNER)
    table.lift("d8")
    table.move("d6", "d8")
    table.settle()
    assert table.committed() == ["d6-d8"] and table.rec.state.outcome() is not None
    assert table.signals() == {"d7": "remove"}
    table.lift("d7")
    table.settle()
    assert table.signals() == {} and "game over" in table.rec.status


def test_a_knocked_piece_a_capture_could_explain_is_put_back_or_the_capture_finished() -> None:
    state = position(TD, {"c2": "S", "e4": "S", "d4": "s", **SPARE})
    table = Table(state, TD_OWNER)
    table.lift("d4")  # knocked off: c2-c4 would capture it, but nobody moved c2
    table.settle()
    assert table.committed() == []
    assert table.signals() == {"d4": "put_back"}
    assert table.rec.status == (
        "White: put back a stone on d4 (knocked off?), or finish the capture that takes it: "
        "stone c2 to c4"
    )
    table.move("c2", "c4")  # finishing the capture is fine too
    table.settle()
    assert table.committed() == ["c2-c4"] and table.signals() == {}


def test_a_defensive_capture_names_the_defender_as_the_one_to_act() -> None:
    state = position(PTG, {"a1": "G", "i6": "g", "c4": "L", "c6": "p"}, phase="movement",
                     south=1)  # fmt: skip
    table = Table(state, PTG_ID)
    table.move("c4", "c5")  # White's lyon walks next to Black's phant, which takes it
    table.settle()
    assert table.committed() == ["c4-c5"]
    assert table.signals() == {"c6": "move_from", "c5": "remove"}
    assert table.rec.status.startswith("Player 2: ")  # the defender moves its phant


def test_look_alike_moves_that_end_differently_are_offered_after_a_wait() -> None:
    # A cobra stepping g5-f6, or striking g7 on the way to f6: the same hands, other results.
    state = LION.new_state()
    for text in ("g3-g5", "b7-b6"):
        state.apply(state.parse(text))
    table = Table(state, LION_OWNER)
    table.move("g5", "f6")
    table.settle()
    assert table.committed() == [] and not table.rec.choosing
    wake = table.rec.wake_at()
    assert wake is not None and wake > table.now  # the daemon evaluates again then
    table.now = wake
    table.records += table.rec.evaluate(table.now)
    assert "cannot tell these apart" in table.rec.status
    table.press(Button.CONFIRM)
    assert table.committed() in (["g5-f6"], ["g5-f6xg7"])


def test_a_knocked_piece_never_passes_for_a_strike_and_return() -> None:
    # Black's cobra on a3 may strike the frog on b3 and return (a3-a3xb3): taking b3 off is
    # the visible part, but a frog knocked off alone is not that move.
    state = position(LION, {"a3": "c", "b3": "F", "b2": "L", "f8": "l"}, to_move=2)
    table = Table(state, LION_OWNER)
    table.lift("b3")
    table.settle()
    assert table.committed() == []
    table.lift("a3")  # the cobra strikes ...
    table.place("a3")  # ... and returns: now it is the move
    table.settle()
    assert table.committed() == ["a3-a3xb3"]


def test_a_squash_held_in_the_air_past_the_settle_window_is_a_move_in_progress() -> None:
    # A player who lifts the squashing elephant and thinks before putting it back is still
    # making the move: the board is never called disturbed, and the return completes it.
    for board in (LION_OWNER, catalog.load_profile("the-lion-game-reed", LION)):
        state = LION.new_state()
        state.apply(state.parse("a3-a7"))  # White's cobra takes a7, beside Black's elephant
        table = Table(state, board)
        table.lift("a7")
        table.lift("b8")  # the elephant squashes where it stands ...
        table.settle()
        assert table.rec.alert == "" and "put back" not in table.rec.status, table.rec.status
        assert table.committed() == []
        table.place("b8")  # ... and is put back: now it is the move
        table.settle()
        assert table.committed() == ["b8-b8xa7"]


# -- what the players are told (issue 19) -------------------------------------------------------
GW = load("goats-wintering", board="5x5")
GW_OWNER = catalog.load_profile("goats-wintering", GW)


def test_a_battle_prompt_names_piece_owner_from_and_to_and_who_acts() -> None:
    state = position(PTG, {"a1": "G", "i6": "g", "c4": "L", "c6": "p"}, phase="movement",
                     south=1)  # fmt: skip
    table = Table(state, PTG_ID)
    table.move("c4", "c5")  # Player 1's lyon walks next to Player 2's phant, which takes it
    table.settle()
    assert table.rec.status == (
        "Player 2: take Player 1's lyon off c5; move your phant from c6 to c5"
    )
    assert table.rec.acting is Player.TWO
    table.lift("c5", "c6")  # the lyon off, the phant in the hand
    table.settle()
    assert table.rec.status == "Player 2: put your phant on c5"
    assert table.rec.acting is Player.TWO  # though Player 1 moves next


def test_the_placement_phase_says_where_pieces_go() -> None:
    table = Table(PTG.new_state(), PTG_ID)
    assert table.rec.status == "Player 1 to move: place a piece on your first row"


def test_an_illegal_move_says_why_in_one_clause() -> None:
    state = position(TD, {"c2": "S", "c3": "s", "e4": "S", "h8": "s", "i7": "s"})
    table = Table(state, TD_OWNER)
    table.move("c2", "c4")  # jumps over Black's stone on c3
    table.settle()
    assert table.rec.status == (
        "illegal move (the way is blocked at c3): take White's stone off c4; "
        "put back White's stone on c2"
    )
    table.move("c4", "c2")
    table.move("h8", "h6")  # White moves Black's stone
    table.settle()
    assert table.rec.status.startswith("illegal move (that is Black's piece): ")
    # Goats Wintering: a goat placed in line too near one of its own.
    state = position(GW, {"C3": "G", "A1": "g"})
    table = Table(state, GW_OWNER)
    table.place("C4", Piece("goat", Player.ONE))
    table.settle()
    assert table.rec.status == (
        "illegal move (too close in line to your goat on C3): take White's goat off C4"
    )


def test_the_game_over_status_says_setting_up_starts_the_next_game() -> None:
    state = position(PTG, {"a1": "G", "b6": "g", "a5": "L", "i1": "l"}, phase="movement",
                     south=1)  # fmt: skip
    table = Table(state, PTG_ID)
    table.move("a5", "a6")  # takes nothing: the goat is on b6; a step next to it
    table.settle()
    table.lift("b6")
    table.move("a6", "b6")
    table.settle()
    assert table.rec.state.outcome() is not None, table.rec.status
    assert table.rec.status.startswith("game over: Player 1 wins")
    assert table.rec.next_game == "clearing the board starts the next game"
    assert table.rec.acting is None
    # A game that starts with pieces on the board lists the set-up, grouped by owner.
    state = position(TD, {"c2": "S", "d4": "s", "e4": "S"})
    table = Table(state, TD_OWNER)
    table.move("c2", "c4")
    table.settle()
    table.lift("d4")
    table.settle()
    assert table.rec.state.outcome() is not None
    assert table.rec.next_game.startswith(
        "setting the board up starts the next game: move White's stone from c4 to b1; "
    ), table.rec.next_game
    assert "Black's stones on b8, d8, " in table.rec.next_game


def test_a_pass_that_would_end_the_game_says_so() -> None:
    state = position(GW, {"C3": "G", "A1": "g"})
    table = Table(state, GW_OWNER)
    table.press(Button.PASS)
    assert table.committed() == ["pass"]
    assert table.rec.status == "Black to move: a pass now ends the game"
    effect = next(r for r in table.records if isinstance(r, Committed)).effect
    assert "a second pass in a row ends the game" in effect.events[0].text


def _computer_plans(game_id: str, move: str) -> tuple[Reconciler, State, BoardProfile]:
    """A new game whose first side the computer plays, its ``move`` chosen, on a board set
    up as the game starts."""
    game = catalog.load_game(game_id)
    profile = catalog.load_profile(game_id, game)
    state = game.new_state()
    rec = Reconciler(state, profile)
    rec.computer = frozenset({state.to_move})
    rec.plan(state.parse(move))
    rec.observe(profile.tokens(state.layout()), 0.0)
    rec.evaluate(0.0)
    return rec, state, profile


def _shown(rec: Reconciler, state: State) -> dict[str, str]:
    names = state.game.board.names
    return {names[c]: s.value for c, s in rec.signals.items()}


def test_a_computers_placement_is_shown_as_a_placement_not_a_piece_to_put_back() -> None:
    """Issue 51: Protect the Goat's computer places a phant on a1: the cell is lit *move to*
    (a piece from the hand), never *put back* (a piece that was never there)."""
    rec, state, profile = _computer_plans("protect-the-goat", "P@a1")
    rec.evaluate(profile.settle + 0.1)
    assert _shown(rec, state) == {"a1": "move_to"}
    assert rec.status.endswith("put Player 1's phant on a1")


def test_a_computers_move_carried_out_wrongly_is_carried_on_where_that_is_shorter() -> None:
    """Issue 64: the computer plays C2-C3 and its piece is put on B3 instead. The shortest way
    to its move is on, B3 to C3 (FROM on B3, TO on C3), not back to C2 and again. A board
    that is further from the move than from the position (another piece moved) is put right
    as before, and C3, where the move goes, stays lit (issue 51)."""
    rec, state, profile = _computer_plans("vanguard", "C2-C3")
    board = state.game.board
    layout = dict(state.layout())
    layout[board.cell("B3")] = layout.pop(board.cell("C2"))
    rec.observe(profile.tokens(layout), 1.0)
    rec.evaluate(1.0)
    rec.evaluate(1.0 + profile.settle + 0.1)
    assert _shown(rec, state) == {"B3": "move_from", "C3": "move_to"}
    assert rec.status == "Player 1 plays outrider C2 to C3: move Player 1's piece from B3 to C3"
    assert rec.alert == ""
    layout[board.cell("C3")] = layout.pop(board.cell("B3"))  # carried on: the move is made
    rec.observe(profile.tokens(layout), 2.0)
    records = rec.evaluate(2.0 + profile.settle + 0.1)
    assert [r.text for r in records if isinstance(r, Committed)] == ["C2-C3"]

    rec, state, profile = _computer_plans("vanguard", "C2-C3")
    layout = dict(state.layout())
    layout[board.cell("E3")] = layout.pop(board.cell("E2"))  # another piece moved
    rec.observe(profile.tokens(layout), 1.0)
    rec.evaluate(1.0)
    rec.evaluate(1.0 + profile.settle + 0.1)
    assert _shown(rec, state) == {"E3": "illegal", "E2": "put_back", "C3": "hint"}
    assert rec.status.startswith("illegal move (the computer plays outrider C2 to C3)")


def test_a_ram_put_straight_onto_the_cell_it_runs_on_to_is_its_move() -> None:
    """Vanguard's E2-F3 runs on to G5. A player who knows it, or who follows the LEDs (they
    show the move's end), puts the ram straight on G5, or passes F3 within the settle
    window: the move is taken either way, as it is when the ram stops on F3 first."""
    for hands in (["E2", "G5"], ["E2", "F3", "G5"]):
        table = Table(VG.new_state(), VG_OWNER)
        table.lift("E2")
        for cell in hands[1:-1]:
            table.place(cell)
            table.lift(cell)
        table.place(hands[-1])
        table.settle()
        assert table.committed() == ["E2-F3"], hands
        assert table.signals() == {} and table.rec.status == "Player 2 to move"
    table = Table(VG.new_state(), VG_OWNER)  # on its first step: the run-on is asked for
    table.move("E2", "F3")
    table.settle()
    assert table.committed() == ["E2-F3"]
    assert table.signals() == {"F3": "move_from", "G5": "move_to"}


def test_the_computers_ram_carried_to_where_the_leds_show_is_taken() -> None:
    """The LEDs show the computer's E2-F3 as E2 to G5, where the ram ends: hands that do
    just that have made the move."""
    rec, state, profile = _computer_plans("vanguard", "E2-F3")
    rec.evaluate(profile.settle + 0.1)
    assert _shown(rec, state) == {"E2": "move_from", "G5": "move_to"}
    board = state.game.board
    layout = dict(state.layout())
    layout[board.cell("G5")] = layout.pop(board.cell("E2"))
    rec.observe(profile.tokens(layout), 1.0)
    records = rec.evaluate(1.0 + profile.settle + 0.1)
    assert [r.text for r in records if isinstance(r, Committed)] == ["E2-F3"]


def test_a_resumed_computers_move_already_carried_out_is_taken() -> None:
    """Issue 64: the computer chose C2-C3, the referee went down, the players carried it out.
    The restarted referee (its plan from the journal) takes the move on its first look at the
    board, instead of asking for it to be undone; a board that shows something else is set to
    the position as before."""
    game = catalog.load_game("vanguard")
    profile = catalog.load_profile("vanguard", game)
    board = game.board
    done = dict(game.new_state().layout())
    done[board.cell("C3")] = done.pop(board.cell("C2"))
    for layout, expected in (
        (done, ["C2-C3"]),
        ({**done, board.cell("C4"): done[board.cell("C3")]}, []),
    ):
        state = game.new_state()
        rec = Reconciler(state, profile)
        rec.resumed = True
        rec.computer = frozenset({state.to_move})
        rec.plan(state.parse("C2-C3"))
        rec.observe(profile.tokens(layout), 0.0)
        records = rec.evaluate(0.0) + rec.evaluate(profile.settle + 0.1)
        assert [r.text for r in records if isinstance(r, Committed)] == expected
        assert rec.resuming is not bool(expected), rec.status
