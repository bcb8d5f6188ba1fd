"""End to end: emulator process -> pty -> bridge -> reconciler -> engine -> LED frames back.

Each test starts the board emulator and the daemon as separate processes. Games played here
come from the engine's own self-play, carried out by the emulator's "hands"; the daemon's
journal must end up holding exactly those moves.
"""

from __future__ import annotations

import json
import random
import re
import signal
import time
from pathlib import Path
from typing import Any

from engine import Game, State
from firmware_bridge.commands.play import choose_move
from firmware_bridge.link import catalog
from tests.e2e import DaemonProcess, EmulatorProcess, play_out, wait_until
from tests.mosquitto import free_port


def self_play(game: Game, seed: int, state: State | None = None) -> list[str]:
    state = state or game.new_state()
    rng = random.Random(seed)
    moves = []
    while state.outcome() is None:
        move = choose_move(state, rng, "greedy")
        moves.append(state.notation(move))
        state.apply(move)
    return moves


class Rig:
    def __init__(
        self,
        tmp: Path,
        game_id: str,
        board: str,
        *,
        options: dict[str, str] | None = None,
        position: dict[str, object] | None = None,
        kind: str = "emulator",
        board_args: tuple[str, ...] = (),
        daemon_args: tuple[str, ...] = (),
    ) -> None:
        self.options = options or {}
        self.game = catalog.load_game(game_id, self.options)
        extra: list[str] = []
        emu_extra: list[str] = []
        for key, value in self.options.items():
            extra += ["--option", f"{key}={value}"]
            emu_extra += ["--option", f"{key}={value}"]
        if position is not None:
            path = tmp / "position.json"
            path.write_text(json.dumps(position))
            extra += ["--position", str(path)]
            emu_extra += ["--position", str(path)]
        self.emu = EmulatorProcess(tmp, game_id, board, *emu_extra, *board_args, kind=kind)
        self.daemon = DaemonProcess(tmp, game_id, board, self.emu.link, *extra, *daemon_args)
        self.daemon.wait_log("board scanned")

    def start_state(self, position: dict[str, object] | None = None) -> State:
        return self.game.state_from_json(position) if position else self.game.new_state()

    def close(self) -> None:
        self.emu.close()
        code = self.daemon.stop()
        assert "Traceback" not in self.daemon.text(), self.daemon.text()
        assert code == 0, self.daemon.text()[-2000:]
        assert not self.emu.errors, self.emu.errors  # e.g. the firmware stopped, or overspent


def make(rigs: list[Rig], tmp: Path, game_id: str, board: str, **kwargs: Any) -> Rig:
    """A rig kept in ``rigs`` (the fixture in conftest.py closes it)."""
    rig = Rig(tmp, game_id, board, **kwargs)
    rigs.append(rig)
    return rig


TD_POSITION = {
    "layout": {
        "c2": {"owner": 1, "piece": "stone"}, "e4": {"owner": 1, "piece": "stone"},
        "h2": {"owner": 1, "piece": "stone"}, "i3": {"owner": 1, "piece": "stone"},
        "d4": {"owner": 2, "piece": "stone"}, "h8": {"owner": 2, "piece": "stone"},
        "i7": {"owner": 2, "piece": "stone"},
    },
    "to_move": 1,
}  # fmt: skip


# -- full games ------------------------------------------------------------------------------


def test_full_game_of_three_dragons_with_dice(rigs: list[Rig], tmp_path: Path) -> None:
    rig = make(rigs, tmp_path, "three-dragons", "three-dragons",
               options={"variant": "strength"})  # fmt: skip
    moves = self_play(rig.game, 4)
    play_out(rig.emu, rig.daemon, rig.game, rig.game.new_state(), moves)
    outcome = rig.daemon.outcome()
    expected = rig.game.new_state()
    for text in moves:
        expected.apply(expected.parse(text))
    assert outcome == expected.outcome().to_json()  # type: ignore[union-attr]
    rig.daemon.wait_log("game over")


def test_full_game_of_protect_the_goat(rigs: list[Rig], tmp_path: Path) -> None:
    rig = make(rigs, tmp_path, "protect-the-goat", "protect-the-goat")
    moves = self_play(rig.game, 1)
    play_out(rig.emu, rig.daemon, rig.game, rig.game.new_state(), moves)
    assert rig.daemon.outcome() is not None
    assert "captured the goat" in rig.daemon.outcome()["reason"]  # type: ignore[index]


def test_full_game_on_an_occupancy_only_board(rigs: list[Rig], tmp_path: Path) -> None:
    rig = make(rigs, tmp_path, "three-dragons", "three-dragons-reed",
               options={"variant": "strength"})  # fmt: skip
    moves = self_play(rig.game, 6)
    play_out(rig.emu, rig.daemon, rig.game, rig.game.new_state(), moves)
    assert rig.daemon.outcome() is not None


def test_full_game_of_vanguard(rigs: list[Rig], tmp_path: Path) -> None:
    rig = make(rigs, tmp_path, "vanguard", "vanguard")
    moves = self_play(rig.game, 6)
    play_out(rig.emu, rig.daemon, rig.game, rig.game.new_state(), moves)
    assert "captured the flag" in rig.daemon.outcome()["reason"]  # type: ignore[index]
    log = rig.daemon.text()
    assert "the flag follows" in log and "the ram runs on" in log


def test_full_game_of_goats_wintering_with_the_pass_button(rigs: list[Rig], tmp_path: Path) -> None:
    rig = make(rigs, tmp_path, "goats-wintering", "goats-wintering")
    moves = self_play(rig.game, 3)
    assert moves[-2:] == ["pass", "pass"]
    play_out(rig.emu, rig.daemon, rig.game, rig.game.new_state(), moves)
    assert "two passes" in rig.daemon.outcome()["reason"]  # type: ignore[index]
    assert "score: White" in rig.daemon.text()


# -- prompts, decisions, illegal moves -------------------------------------------------------


def test_custodial_capture_prompt_and_next_turn_waits(rigs: list[Rig], tmp_path: Path) -> None:
    rig = make(rigs, tmp_path, "three-dragons", "three-dragons", position=TD_POSITION)
    rig.emu.do("play c2-c4")
    rig.emu.do("expect d4=remove")
    rig.daemon.wait_moves(["c2-c4"])
    rig.emu.do("move h8 h6")  # Black moves before the capture is cleared: not accepted yet
    rig.emu.do("expect d4=remove h6=illegal h8=put_back")
    rig.emu.do("wait 0.5")
    assert rig.daemon.moves() == ["c2-c4"]
    rig.emu.do("lift d4")  # once the capture is cleared, Black's move stands
    rig.daemon.wait_moves(["c2-c4", "h8-h6"])
    rig.emu.do("expect none")


def test_combo_with_choices_made_by_the_hands(rigs: list[Rig], tmp_path: Path) -> None:
    position = {
        "layout": {
            "a1": {"owner": 1, "piece": "goat"}, "i6": {"owner": 2, "piece": "goat"},
            "c4": {"owner": 1, "piece": "phant"}, "b6": {"owner": 2, "piece": "yafbeest"},
            "c6": {"owner": 2, "piece": "lyon"}, "d6": {"owner": 2, "piece": "yafbeest"},
            "e6": {"owner": 2, "piece": "lyon"}, "g3": {"owner": 1, "piece": "lyon"},
        },
        "to_move": 1, "phase": "movement", "south": 1,
    }  # fmt: skip
    rig = make(rigs, tmp_path, "protect-the-goat", "protect-the-goat", position=position)
    rig.emu.do("play c4-c5")
    rig.emu.do("expect b6=choose c5=choose c6=choose")
    rig.emu.do("play c5xc6")
    rig.emu.do("expect b6=choose c6=choose d6=choose")
    rig.emu.do("play c6xd6")
    # On d6 the phant must take the lyon on e6 too: the LEDs ask the hands to do it.
    rig.emu.do("expect d6=move_from e6=remove", timeout=40)
    rig.emu.do("follow")
    rig.emu.do("expect none")
    rig.daemon.wait_moves(["c4-c5", "c5xc6", "c6xd6"])
    assert "lyon on e6 captured" in rig.daemon.text()


def test_strength_choice_dragon_and_adjust_prompts(rigs: list[Rig], tmp_path: Path) -> None:
    position = {
        "layout": {
            "d5": {"owner": 1, "piece": "die", "state": 2},
            "f5": {"owner": 1, "piece": "die", "state": 2},
            "e4": {"owner": 1, "piece": "die", "state": 2},
            "e8": {"owner": 1, "piece": "die", "state": 5},
            "d7": {"owner": 2, "piece": "die", "state": 1},
            "f7": {"owner": 2, "piece": "die", "state": 3},
            "h8": {"owner": 2, "piece": "die", "state": 1},
            "i7": {"owner": 2, "piece": "die", "state": 1},
        },
        "to_move": 1, "tamed": [],
    }  # fmt: skip
    rig = make(rigs, tmp_path, "three-dragons", "three-dragons", options={"variant": "dragons"},
               position=position)  # fmt: skip
    # e8-e7 lands between d7 (1) and f7 (3): two weaker dice, one strength capture: a choice.
    rig.emu.do("play e8-e7")
    rig.emu.do("expect d7=choose f7=choose")
    rig.emu.do("lift f7")
    rig.emu.do("expect e7=adjust")  # the die must be turned from 5 to 4: sensors cannot see it
    rig.daemon.wait_moves(["e8-e7", "xf7"])
    rig.emu.do("play h8-h7")
    # e7-e6 completes the ring round the centre cave: its dragon must be placed.
    rig.emu.do("play e7-e6")
    rig.emu.do("expect e5=move_to")
    rig.emu.do("place e5 R5")
    rig.emu.do("expect none")
    rig.daemon.wait_moves(["e8-e7", "xf7", "h8-h7", "e7-e6"])
    assert "comes out of the cave e5" in rig.daemon.text()


def test_illegal_move_is_corrected_and_play_goes_on(rigs: list[Rig], tmp_path: Path) -> None:
    rig = make(rigs, tmp_path, "three-dragons", "three-dragons")
    rig.emu.do("move c1 d3")
    rig.emu.do("expect c1=put_back d3=illegal")
    rig.emu.do("move d3 c1")
    rig.emu.do("expect none")
    rig.emu.do("play c1-c3")
    rig.daemon.wait_moves(["c1-c3"])


def test_take_back_button(rigs: list[Rig], tmp_path: Path) -> None:
    rig = make(rigs, tmp_path, "three-dragons", "three-dragons")
    rig.emu.do("play c1-c3")
    rig.daemon.wait_moves(["c1-c3"])
    rig.emu.do("press takeback")
    rig.emu.do("expect c1=move_to c3=move_from")  # a take-back, shown as the move going back
    rig.daemon.wait_moves([])
    rig.daemon.wait_log("take back: move White's stone from c3 to c1")
    assert "illegal" not in rig.daemon.text()
    rig.emu.do("follow")
    rig.emu.do("expect none")
    rig.emu.do("play c1-c4")
    rig.daemon.wait_moves(["c1-c4"])


def test_placement_kind_chosen_with_buttons_on_an_occupancy_board(
    rigs: list[Rig], tmp_path: Path
) -> None:
    rig = make(rigs, tmp_path, "protect-the-goat", "protect-the-goat-reed")
    rig.emu.do("place e1 P")
    rig.emu.do("expect e1=choose")
    rig.daemon.wait_log(r"\[1/5\] goat on e1")
    rig.emu.do("press select")
    rig.daemon.wait_log(r"\[2/5\] phant on e1")
    rig.emu.do("press confirm")
    rig.daemon.wait_moves(["P@e1"])


# -- faults ----------------------------------------------------------------------------------


def test_flicker_garbage_and_damaged_frames_lose_nothing(rigs: list[Rig], tmp_path: Path) -> None:
    rig = make(rigs, tmp_path, "three-dragons", "three-dragons")
    rig.emu.do("flicker e5 20")  # shorter than the firmware debounce: never reported
    rig.emu.do("flicker d5 200")  # reported, but gone before the settle window ends
    rig.emu.do("wait 0.4")
    rig.emu.do("garbage 60")
    rig.emu.do("corrupt")  # the CHANGE of the lift is damaged on the wire
    rig.emu.do("play c1-c3")
    rig.daemon.wait_moves(["c1-c3"])
    rig.emu.do("drop")  # the CHANGE of this lift is lost: the next event shows a gap
    rig.emu.do("play c9-c7")
    rig.daemon.wait_moves(["c1-c3", "c9-c7"])
    rig.emu.do("slide d2 d3")  # a piece slid: both squares read occupied for a moment
    rig.daemon.wait_moves(["c1-c3", "c9-c7", "d2-d3"])
    rig.emu.do("expect none")
    rig.daemon.wait_log(r"\bmove 3:")  # the journal has it first; the log line follows
    log = rig.daemon.text()
    assert "bad frame" in log and "full scan" in log
    moves = [line for line in log.splitlines() if re.search(r"\bmove \d+:", line)]
    assert len(moves) == 3 and "d5" not in "".join(moves)


def test_unplug_and_replug_in_the_middle_of_a_move(rigs: list[Rig], tmp_path: Path) -> None:
    rig = make(rigs, tmp_path, "three-dragons", "three-dragons")
    rig.emu.do("lift c1")
    rig.emu.do("unplug")
    rig.emu.do("place c4")  # finished while the cable was out
    rig.daemon.wait_log("board disconnected")
    rig.emu.do("replug")
    rig.daemon.wait_moves(["c1-c4"])
    rig.emu.do("play c9-c6")
    rig.daemon.wait_moves(["c1-c4", "c9-c6"])


def test_daemon_killed_and_restarted_resumes_from_the_journal(
    rigs: list[Rig], tmp_path: Path
) -> None:
    rig = make(rigs, tmp_path, "three-dragons", "three-dragons", position=TD_POSITION)
    rig.emu.do("play c2-c4")
    rig.daemon.wait_moves(["c2-c4"])
    rig.emu.do("expect d4=remove")
    rig.daemon.kill(signal.SIGKILL)  # power cut before the capture is cleared
    rig.emu.do("lift d4")  # the player carries on meanwhile
    rig.emu.do("move h8 h6")
    rig.daemon.start()
    rig.daemon.wait_log("resuming game 1 .* after 1 move;")
    # What changed while no referee looked is nobody's move: the board is set to the
    # position first, then play goes on from what hands do.
    rig.daemon.wait_log("resuming: set the board to the position: .*h6.*h8")
    time.sleep(0.5)
    assert rig.daemon.moves() == ["c2-c4"]
    rig.emu.do("move h6 h8")
    rig.daemon.wait_log("Black to move")
    rig.emu.do("play h8-h6")
    rig.daemon.wait_moves(["c2-c4", "h8-h6"])
    assert "illegal" not in rig.daemon.text()


def test_a_partial_fix_after_a_restart_is_never_taken_for_a_move(
    rigs: list[Rig], tmp_path: Path
) -> None:
    """The board came back in another layout; doing only part of the correction leaves a board
    that a legal move would explain (White c4-c1): it must not be recorded."""
    rig = make(rigs, tmp_path, "three-dragons", "three-dragons")
    rig.emu.do("play c1-c4")
    rig.daemon.wait_moves(["c1-c4"])  # Black moves once the referee has taken White's move
    rig.emu.do("play c9-c6")
    rig.daemon.wait_moves(["c1-c4", "c9-c6"])
    rig.daemon.kill(signal.SIGKILL)
    rig.emu.do("move c6 c9")  # the board is put back the way it was, while no referee looks
    rig.emu.do("move c4 c1")
    rig.daemon.start()
    rig.daemon.wait_log("resuming: set the board to the position")
    rig.emu.do("move c9 c6")  # only the first part of the correction
    rig.daemon.wait_log("resuming: set the board to the position: .*c1.*c4")
    time.sleep(1.0)  # more than the settle window: a phantom c4-c1 would be journaled by now
    assert rig.daemon.moves() == ["c1-c4", "c9-c6"]
    rig.emu.do("move c1 c4")  # the rest of it: the position, and play goes on
    rig.daemon.wait_log("White to move")
    rig.emu.do("play c4-e4")
    rig.daemon.wait_moves(["c1-c4", "c9-c6", "c4-e4"])
    assert "illegal" not in rig.daemon.text()


def test_wrong_board_for_the_profile_is_a_clear_error(tmp_path: Path) -> None:
    emu = EmulatorProcess(tmp_path, "three-dragons", "three-dragons-reed")
    try:
        daemon = DaemonProcess(tmp_path, "three-dragons", "three-dragons", emu.link)
        wait_until(lambda: daemon.proc.poll() is not None, 20, daemon.text)
        assert daemon.proc.returncode == 2
        assert "does not fit profile 'three-dragons'" in daemon.text()
        assert "Traceback" not in daemon.text()
    finally:
        emu.close()


def test_any_pyserial_url_works_spy_traces_the_traffic(tmp_path: Path) -> None:
    emu = EmulatorProcess(tmp_path, "three-dragons", "three-dragons")
    trace = tmp_path / "trace.txt"
    daemon = DaemonProcess(tmp_path, "three-dragons", "three-dragons",
                           f"spy://{emu.link}?file={trace}")  # fmt: skip
    try:
        daemon.wait_log("board scanned")
        emu.do("play c1-c3")
        daemon.wait_moves(["c1-c3"])
        text = trace.read_text(errors="replace")
        assert "TX" in text and "RX" in text
    finally:
        emu.close()
        assert daemon.stop() == 0


def test_a_run_loads_the_page_and_mqtt_only_when_it_serves_them(tmp_path: Path) -> None:
    """A referee without its page and MQTT never imports the web server or the MQTT client
    (they doubled its memory); with the page it does. Python's import log tells."""
    emu = EmulatorProcess(tmp_path, "three-dragons", "three-dragons")

    def imported(*args: str) -> set[str]:
        folder = tmp_path / str(len(args))
        folder.mkdir()
        daemon = DaemonProcess(folder, "three-dragons", "three-dragons", emu.link, *args,
                               env={"PYTHONPROFILEIMPORTTIME": "1"})  # fmt: skip
        try:
            daemon.wait_log("board scanned")
        finally:
            assert daemon.stop() == 0
        return {line.split("|")[-1].strip() for line in daemon.log if "import time:" in line}

    try:
        bare = imported()
        assert "firmware_bridge.referee.daemon" in bare  # the import log is there
        assert not {m for m in bare if m.split(".")[0] in ("aiohttp", "paho", "ssl")}
        page = imported("--kiosk", f"127.0.0.1:{free_port()}")
        assert "aiohttp" in page and "firmware_bridge.faces.kiosk" in page
    finally:
        emu.close()
