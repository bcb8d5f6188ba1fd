"""Trust at the table, end to end over the pty: a board of another shape in the middle of a
game stops the refereeing, never the game."""

from __future__ import annotations

import json
import os
import re
import signal
import time
import urllib.request
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from firmware_bridge.link.serial_link import PortError
from tests.e2e import DaemonProcess, EmulatorProcess
from tests.mosquitto import free_port
from tests.test_end_to_end import TD_POSITION, Rig, make


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
    scans = daemon.text().count("board scanned")  # the first board's scans are in the log too
    deadline = time.monotonic() + 20
    while daemon.text().count("board scanned") == scans and time.monotonic() < deadline:
        time.sleep(0.05)
    daemon.wait_log("White to move|Black to move")
    right.do("play c9-c6")
    daemon.wait_moves(["c1-c4", "c9-c6"])


FLAG_POSITION: dict[str, object] = {
    "layout": {"B1": {"owner": 1, "piece": "captain"}, "C1": {"owner": 1, "piece": "flag"},
               "G7": {"owner": 1, "piece": "outrider"}, "G8": {"owner": 2, "piece": "flag"},
               "H8": {"owner": 2, "piece": "captain"}},
    "to_move": 1,
}  # fmt: skip


def test_a_restart_after_the_game_ended_keeps_its_result(rigs: list[Rig], tmp_path: Path) -> None:
    rig = make(rigs, tmp_path, "vanguard", "vanguard", position=FLAG_POSITION)
    daemon = rig.daemon
    rig.emu.do("play G7-G8")
    daemon.wait_moves(["G7-G8"])
    daemon.wait_log("game over")
    daemon.stop()
    seen = len(daemon.log)
    daemon.start()
    daemon.wait_log("game 1 is over")
    daemon.wait_log("board scanned")
    time.sleep(0.5)
    after = "\n".join(daemon.log[seen:])
    assert "illegal" not in after and not re.search(r"new game \d", after), after
    assert daemon.outcome() is not None and daemon.moves() == ["G7-G8"]
    # Setting the board up for a new game: guided there, the result still in the words.
    rig.emu.do("move G8 D1")
    daemon.wait_log("game over: Player 1 wins.*setting the board up starts the next game: ")
    assert "illegal" not in "\n".join(daemon.log[seen:])


def test_a_refused_button_is_answered_on_the_board(rigs: list[Rig], tmp_path: Path) -> None:
    rig = make(rigs, tmp_path, "three-dragons", "three-dragons")
    rig.emu.do("press select")  # nothing to select
    rig.daemon.wait_log("SELECT refused: nothing to select")
    deadline = time.monotonic() + 10
    while "refused" not in rig.emu.current_leds().values() and time.monotonic() < deadline:
        time.sleep(0.01)
    flashed = rig.emu.current_leds()
    assert list(flashed.values()).count("refused") > 40, flashed  # the whole board flashes
    rig.emu.do("expect none within=3")  # ... for a moment only
    rig.emu.do("press pass")  # Three Dragons has no pass
    rig.daemon.wait_log("PASS refused: passing is not allowed now")


def test_a_flicker_shorter_than_the_settle_window_is_never_called_illegal(tmp_path: Path) -> None:
    emu = EmulatorProcess(tmp_path, "three-dragons", "three-dragons", settle_ms=1000)
    # Flickers of up to 250 ms against a 1 s window: with 300 ms, and then 500 ms, the time
    # left was less than the emulator's own timer can be late on a machine running the suite
    # in parallel (a 250 ms flicker on c9 was called a disturbed board under four workers).
    daemon = DaemonProcess(tmp_path, "three-dragons", "three-dragons", emu.link, settle_ms=1000)
    try:
        daemon.wait_log("board scanned")
        for cell, millis in (("c9", 100), ("e5", 100), ("c1", 150), ("e5", 250), ("c9", 250)):
            emu.do(f"flicker {cell} {millis}")
            time.sleep(1.2)  # past the window: each flicker is judged on its own
        emu.do("play c1-c4")
        daemon.wait_moves(["c1-c4"])
        assert "illegal" not in daemon.text() and "disturbed" not in daemon.text()
    finally:
        emu.close()
        daemon.stop()


def test_led_updates_go_as_deltas_to_a_protocol_2_board(rigs: list[Rig], tmp_path: Path) -> None:
    rig = make(rigs, tmp_path, "three-dragons", "three-dragons", position=TD_POSITION)
    rig.emu.do("play c2-c4")
    rig.emu.do("expect d4=remove within=5")
    vias = {via for via, _ in rig.emu.led_frames}
    assert "LED_DELTA" in vias
    sizes = [size for via, size in rig.emu.led_frames if via == "LED_DELTA"]
    assert max(sizes) < 100  # a whole Three Dragons frame is 316 bytes
    # The board's LEDs go dark without telling the host: the next delta no longer fits, the
    # board refuses it, and a whole frame puts everything right.
    rig.emu.do("blank")
    rig.emu.do("lift h2")  # a hint frame is sent
    rig.daemon.wait_log("board rejected frame .*MISMATCH")
    rig.emu.do("place h2")
    rig.emu.do("expect d4=remove within=5")
    rig.emu.do("follow")
    rig.emu.do("expect none within=5")


def test_a_protocol_1_board_gets_whole_frames_and_plays_the_same(tmp_path: Path) -> None:
    emu = EmulatorProcess(tmp_path, "three-dragons", "three-dragons", "--protocol", "1")
    daemon = DaemonProcess(tmp_path, "three-dragons", "three-dragons", emu.link)
    try:
        daemon.wait_log("board scanned")
        emu.do("play c1-c3")
        daemon.wait_moves(["c1-c3"])
        emu.do("press takeback")
        emu.do("expect c1=move_to c3=move_from within=5")
        assert {via for via, _ in emu.led_frames} == {"LEDS"}
    finally:
        emu.close()
        daemon.stop()


def test_port_auto_finds_the_board_that_answers(tmp_path: Path) -> None:
    silent_master, silent_slave = os.openpty()  # a serial device with nothing behind it
    (tmp_path / "a-silent").symlink_to(os.ttyname(silent_slave))
    emu = EmulatorProcess(tmp_path, "three-dragons", "three-dragons")
    (tmp_path / "b-board").symlink_to(emu.link)
    env = {"BOARD_REFEREE_PROBE": f"{tmp_path}/a-*:{tmp_path}/b-*"}
    daemon = DaemonProcess(tmp_path, "three-dragons", "three-dragons", "auto", env=env)
    try:
        daemon.wait_log(r"--port auto: board 'emulator' .* answers on .*b-board")
        daemon.wait_log("board scanned")
        emu.do("play c1-c4")
        daemon.wait_moves(["c1-c4"])
    finally:
        emu.close()
        daemon.stop()
        os.close(silent_master)
        os.close(silent_slave)


def test_port_auto_with_a_board_id_takes_only_that_board(tmp_path: Path) -> None:
    """Two boards on one Pi: table2's referee never takes table1's board, though it answers
    first, and says which it skipped and why."""
    first = tmp_path / "one"
    second = tmp_path / "two"
    first.mkdir()
    second.mkdir()
    table1 = EmulatorProcess(first, "three-dragons", "three-dragons", "--board-id", "table1")
    table2 = EmulatorProcess(second, "three-dragons", "three-dragons", "--board-id", "table2")
    (tmp_path / "a-board").symlink_to(table1.link)
    (tmp_path / "b-board").symlink_to(table2.link)
    env = {"BOARD_REFEREE_PROBE": f"{tmp_path}/a-*:{tmp_path}/b-*"}
    daemon = DaemonProcess(tmp_path, "three-dragons", "three-dragons", "auto", "--board-id",
                           "table2", env=env)  # fmt: skip
    try:
        daemon.wait_log(r"--port auto: board 'table2' .* answers on .*b-board")
        daemon.wait_log(r"--port auto: .*a-board: board 'table1' is not 'table2'")
        daemon.wait_log("board scanned")
        table2.do("play c1-c4")
        daemon.wait_moves(["c1-c4"])
    finally:
        table1.close()
        table2.close()
        daemon.stop()


def test_port_auto_chooses_by_board_id() -> None:
    """Which board ``--port auto`` takes, from the HELLOs the ports answer with: the named
    board; a board with no id of its own only when it is the only one; never another's."""
    from firmware_bridge.link.probe import find_board
    from firmware_bridge.link.protocol import Button, Hello, LedKind, Sensing

    def board(name: str) -> Hello:
        return Hello(2, 4, 4, Sensing.OWNER, LedKind.RGB, frozenset(Button), "fw", name)

    def ports(answers: Mapping[str, Hello | str]) -> dict[str, Any]:
        return {"ports": list(answers), "asker": lambda port, *_: answers[port]}

    two: dict[str, Hello | str] = {"/dev/ttyACM0": board("table1"),
                                   "/dev/ttyACM1": board("table2")}  # fmt: skip
    assert find_board(**ports(two)).port == "/dev/ttyACM0"  # no id asked: the first
    found = find_board(board_id="table2", **ports(two))
    assert found.port == "/dev/ttyACM1"
    assert found.skipped == ("/dev/ttyACM0: board 'table1' is not 'table2'",)
    fresh: dict[str, Hello | str] = {"/dev/ttyACM0": "no answer",
                                     "/dev/ttyACM1": board("pico-e66038b7")}  # fmt: skip
    found = find_board(board_id="table1", **ports(fresh))  # the only board, and unnamed
    assert found.port == "/dev/ttyACM1" and "only one that answers" in found.skipped[0]
    with pytest.raises(PortError) as refused:  # an unnamed board beside another: not taken
        find_board(board_id="table1",
                   **ports({**fresh, "/dev/ttyACM2": board("table2")}))  # fmt: skip
    words = str(refused.value)
    assert "no board 'table1'" in words and "/dev/ttyACM0: no answer" in words
    assert "'pico-e66038b7' has no id of its own, and other boards answer too" in words
    assert "'table2' is not 'table1'" in words and "--board-id table1" in words
    with pytest.raises(PortError):  # another's board alone is never taken
        find_board(board_id="table1", **ports({"/dev/ttyACM0": board("table2")}))


def test_port_auto_looks_again_at_a_port_another_referee_is_probing() -> None:
    """Two referees on one Pi start together (its boot, a power cut): each found its own
    board's port held by the other's probe at the moment it looked, every two seconds, for
    minutes. A port in use is looked at again, a random moment later; one held all along (the
    other referee's own board) is reported as in use."""
    from firmware_bridge.link.probe import BUSY_RETRIES, IN_USE, find_board
    from firmware_bridge.link.protocol import Button, Hello, LedKind, Sensing

    def board(name: str) -> Hello:
        return Hello(2, 4, 4, Sensing.OWNER, LedKind.RGB, frozenset(Button), "fw", name)

    looked: list[str] = []
    pauses: list[float] = []

    def asker(port: str, *_: object) -> Hello | str:
        looked.append(port)
        if port == "/dev/ttyACM0":  # the other referee's probe lets go after two looks
            return IN_USE if looked.count(port) <= 2 else board("table1")
        return board("table2") if port == "/dev/ttyACM1" else IN_USE  # ACM2: held for good

    ports = ["/dev/ttyACM0", "/dev/ttyACM1", "/dev/ttyACM2"]
    found = find_board(board_id="table1", ports=ports, asker=asker, pause=pauses.append)
    assert found.port == "/dev/ttyACM0" and found.hello.board_id == "table1"
    assert len(pauses) == 2 and all(0.05 <= p <= 0.3 for p in pauses)
    looked.clear()
    pauses.clear()
    with pytest.raises(PortError) as refused:
        find_board(board_id="table3", ports=ports, asker=asker, pause=pauses.append)
    assert looked.count("/dev/ttyACM2") == BUSY_RETRIES + 1 and len(pauses) == BUSY_RETRIES
    assert f"/dev/ttyACM2: {IN_USE}" in str(refused.value)


def test_port_auto_waits_for_a_board_and_the_kiosk_says_plug_it_in(tmp_path: Path) -> None:
    """A Pi booting before its board is plugged in: the referee says what it tried and waits
    (it used to exit, and systemd gave up restarting it), its kiosk page says to plug the board
    in, and the board is refereed as soon as it answers."""
    master, slave = os.openpty()
    (tmp_path / "a-silent").symlink_to(os.ttyname(slave))
    env = {"BOARD_REFEREE_PROBE": f"{tmp_path}/a-*:{tmp_path}/b-*"}
    kiosk = free_port()
    daemon = DaemonProcess(tmp_path, "three-dragons", "three-dragons", "auto", "--kiosk",
                           f"127.0.0.1:{kiosk}", env=env)  # fmt: skip
    emu = None
    try:
        line = daemon.wait_log("found no board that answers")
        assert "a-silent: no answer" in line and "waiting for a board" in line
        state = kiosk_state(kiosk)
        assert state["status"].startswith("plug in the board"), state["status"]
        assert state["connection"]["state"] == "waiting"
        emu = EmulatorProcess(tmp_path, "three-dragons", "three-dragons")
        (tmp_path / "b-board").symlink_to(emu.link)  # plugged in
        daemon.wait_log("board scanned")
        emu.do("play c1-c4")
        daemon.wait_moves(["c1-c4"])
        assert daemon.proc.poll() is None
    finally:
        if emu is not None:
            emu.close()
        daemon.stop()
        os.close(master)
        os.close(slave)
    assert "Traceback" not in daemon.text()


def kiosk_state(port: int) -> dict[str, Any]:
    deadline = time.monotonic() + 15
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/state", timeout=5) as got:
                return json.loads(got.read())  # type: ignore[no-any-return]
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)
