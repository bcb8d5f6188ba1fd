"""The flight recorder (issue 29): every frame with the board and every decision kept in the
journal, and ``board-referee replay`` running this referee again over them."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.e2e import PYTHON
from tests.test_end_to_end import Rig, make, play_out, self_play


def replay_of(journal: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*PYTHON, "replay", str(journal), "--quiet", *args],
                          capture_output=True, text=True, timeout=300, check=False)  # fmt: skip


def test_a_recorded_game_replays_identically(rigs: list[Rig], tmp_path: Path) -> None:
    rig = make(rigs, tmp_path, "three-dragons", "three-dragons")
    moves = self_play(rig.game, 4)[:6]
    play_out(rig.emu, rig.daemon, rig.game, rig.game.new_state(), moves)
    assert rig.daemon.stop() == 0
    result = replay_of(rig.daemon.journal)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "decided identically" in result.stdout, result.stdout
