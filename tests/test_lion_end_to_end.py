"""The Lion Game end to end: emulator process -> pty -> bridge -> reconciler -> engine -> LED
frames back, on an owner-sensing board and on an occupancy-only one, with the hidden state
(a charge, a stuck elephant) marked on the LEDs and surviving a daemon restart."""

from __future__ import annotations

import re
import signal
import time
from pathlib import Path

from engine import Game, Player, State
from firmware_bridge import words
from tests.e2e import wait_until
from tests.test_end_to_end import Rig, make, self_play

CHOICE = re.compile(r"cannot tell these apart: \[\d+/\d+\] (.+?) — press")


def _choices(rig: Rig) -> list[str]:
    return CHOICE.findall(rig.daemon.text())


def play_lion(rig: Rig, state: State, moves: list[str]) -> None:
    """Play ``moves`` physically as players who know the rules: each hand action, then what
    the LEDs ask for; where the board cannot tell two moves apart, SELECT until the move
    played is offered, then CONFIRM (as the status line tells the players to)."""
    game: Game = rig.game
    done = list(rig.daemon.moves())
    for text in moves:
        offered = len(_choices(rig))
        offer = words.said(state, state.parse(text))  # as the status line offers it
        rig.emu.do(f"play {text}")
        effect = state.apply(state.parse(text))
        done.append(text)
        deadline = time.monotonic() + 30
        while rig.daemon.moves() != done and time.monotonic() < deadline:
            choices = _choices(rig)
            if len(choices) > offered:
                offered = len(choices)
                rig.emu.do("press confirm" if choices[-1] == offer else "press select")
            time.sleep(0.05)
        rig.daemon.wait_moves(done)
        if effect.footprint().result != effect.footprint().hand:
            rig.emu.do("follow 20", timeout=60)
            physical = rig.emu.pieces()
            for cell, piece in state.layout().items():
                name = game.board.names[cell]
                if name not in physical:
                    symbol = game.pieces[piece.kind].symbol
                    symbol = symbol if piece.owner is Player.ONE else symbol.lower()
                    rig.emu.do(f"place {name} {symbol}")


def test_full_game_of_the_lion_game(rigs: list[Rig], tmp_path: Path) -> None:
    rig = make(rigs, tmp_path, "the-lion-game", "the-lion-game")
    moves = self_play(rig.game, 28)  # a charge that tramples, and a squash where it stands
    play_lion(rig, rig.game.new_state(), moves)
    assert "captured the lion" in rig.daemon.outcome()["reason"]  # type: ignore[index]
    log = rig.daemon.text()
    assert "by the elephant's squash" in log and "the rhinoceros charges" in log


def test_full_game_of_the_lion_game_on_an_occupancy_only_board(
    rigs: list[Rig], tmp_path: Path
) -> None:
    rig = make(rigs, tmp_path, "the-lion-game", "the-lion-game-reed")
    moves = self_play(rig.game, 23)
    play_lion(rig, rig.game.new_state(), moves)
    assert "captured the lion" in rig.daemon.outcome()["reason"]  # type: ignore[index]


def _piece(owner: int, kind: str) -> dict[str, object]:
    return {"owner": owner, "piece": kind}


POSITION: dict[str, object] = {
    "layout": {
        "d3": _piece(1, "lion"), "b5": _piece(1, "cobra"), "b8": _piece(1, "frog"),
        "f7": _piece(1, "elephant"), "c3": _piece(1, "rhinoceros"), "c5": _piece(1, "frog"),
        "e5": _piece(2, "lion"), "c4": _piece(2, "frog"), "f9": _piece(2, "frog"),
    },
    "to_move": 1,
    "charges": {"1": {"rhinoceros": "c3", "direction": "N", "level": 3}},
}  # fmt: skip


def test_null_move_charge_promotion_squash_and_marks_survive_a_restart(
    rigs: list[Rig], tmp_path: Path
) -> None:
    rig = make(rigs, tmp_path, "the-lion-game", "the-lion-game", position=POSITION)
    emu, daemon = rig.emu, rig.daemon
    emu.do("expect c3=charged within=5")  # the charge from the position, on its LED
    # The charge tramples a foe and a friend: both prompted, removed in any order.
    emu.do("play c3-c6")
    daemon.wait_moves(["c3-c6"])
    emu.do("expect c4=remove c5=remove c6=charged within=5")
    emu.do("lift c5")
    emu.do("expect c4=remove c6=charged within=5")
    emu.do("lift c4")
    emu.do("expect c6=charged within=5")
    emu.do("play e5-e6")
    daemon.wait_moves(["c3-c6", "e5-e6"])  # taken (a loaded machine's referee is late)
    # A null move is never inferred: CONFIRM needs a piece lifted and put back first.
    emu.do("press confirm")
    daemon.wait_log("lift its piece, put it back, then press CONFIRM")
    # Held until the referee has seen it lifted: a piece put back within the board's debounce
    # is never reported (on a busy machine the next command came that soon).
    lifted = daemon.text().count("White is moving")
    emu.do("lift b5")
    wait_until(lambda: daemon.text().count("White is moving") > lifted, 10, daemon.text)
    emu.do("place b5")
    time.sleep(0.6)
    assert daemon.moves() == ["c3-c6", "e5-e6"]
    emu.do("press confirm")
    daemon.wait_moves(["c3-c6", "e5-e6", "b5-b5"])
    emu.do("expect none within=5")  # moving another piece ended the charge
    emu.do("play e6-e5")
    # Each player moves once the referee has taken the last move (two moves inside one settle
    # window, on a busy machine, read as one disturbed board).
    daemon.wait_moves(["c3-c6", "e5-e6", "b5-b5", "e6-e5"])
    # Promotion on an owner board: the sensors cannot see the swap, so the cell says ADJUST.
    emu.do("play b8-b9")
    emu.do("expect b9=adjust within=5")
    emu.do("play e5-e6")
    daemon.wait_moves(["c3-c6", "e5-e6", "b5-b5", "e6-e5", "b8-b9", "e5-e6"])
    # A squash: the elephant stops before the burrow and is stuck, which its LED shows.
    emu.do("play f7-f8xf9")
    daemon.wait_moves(["c3-c6", "e5-e6", "b5-b5", "e6-e5", "b8-b9", "e5-e6", "f7-f8xf9"])
    emu.do("expect f8=held within=5")
    daemon.kill(signal.SIGKILL)
    daemon.start()
    daemon.wait_log("resuming game")
    wait_until(lambda: emu.current_leds() == {"f8": "held"}, 10,
               lambda: f"after the restart the LEDs show {emu.current_leds()}")  # fmt: skip
