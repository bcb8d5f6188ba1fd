"""Trust at the table, end to end over the pty: a board of another shape in the middle of a
game stops the refereeing, never the game."""

from __future__ import annotations

import json
import signal
import time
from pathlib import Path

from tests.e2e import EmulatorProcess
from tests.test_end_to_end import Rig, make, rigs

__all__ = ["rigs"]


def test_a_board_of_another_shape_mid_game_pauses_refereeing_and_keeps_the_game(
    rigs: list[Rig], tmp_path: Path
) -> None:
    rig = make(rigs, tmp_path, "three-dragons", "three-dragons")
    daemon = rig.daemon
    rig.emu.do("play c1-c4")
    daemon.wait_moves(["c1-c4"])
    rig.emu.close()
    # Someone plugs in the occupancy-sensing board instead.
    wrong = EmulatorProcess(tmp_path, "three-dragons", "three-dragons-reed")
    daemon.wait_log("does not fit profile")
    assert daemon.proc.poll() is None, "the daemon stopped"
    # A restart in the middle of the game with the wrong board attached keeps waiting too.
    daemon.kill(signal.SIGKILL)
    daemon.start()
    deadline = time.monotonic() + 15
    while daemon.text().count("does not fit profile") < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert daemon.text().count("does not fit profile") >= 2
    assert daemon.proc.poll() is None, "the restarted daemon stopped"
    wrong.close()
    # The right board comes back, showing the game as it stood: play goes on.
    state = rig.game.new_state()
    state.apply(state.parse("c1-c4"))
    position = tmp_path / "now.json"
    position.write_text(json.dumps(state.to_json()))
    right = EmulatorProcess(tmp_path, "three-dragons", "three-dragons", "--position",
                            str(position))  # fmt: skip
    rig.emu = right
    daemon.wait_log("board scanned")
    right.do("play c9-c6")
    daemon.wait_moves(["c1-c4", "c9-c6"])
