"""End to end against the Pico firmware itself: ``board-referee firmware host`` runs the
firmware unmodified in MicroPython's Unix port, with a 64 KB heap, behind a pty; the daemon
referees it exactly as it would a Pico on /dev/ttyACM0.

    MicroPython (firmware/*.py, simulated pins) -> pty -> bridge -> reconciler -> engine
                                                <- LED frames (LEDS, LED_DELTA) <-
"""

from __future__ import annotations

import re
import time
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from engine import State
from firmware_bridge import words
from tests.e2e import DaemonProcess, EmulatorProcess, hand_text, wait_until
from tests.test_end_to_end import TD_POSITION, Rig, make, self_play

CHOICE = re.compile(r"cannot tell these apart: \[\d+/\d+\] (.+?) — press")
# "White to move", "Player 1 to move: place a piece on your first row"
TURN = re.compile(r"^<6>[^:\n]+ to move(:.*)?$", re.MULTILINE)

# The board each game is played on: the Pico firmware reads occupancy and owner boards.
GAMES = [
    ("three-dragons", "three-dragons", 38, {"variant": "dragons"}),
    ("protect-the-goat", "protect-the-goat-reed", 1, {}),
    ("vanguard", "vanguard", 9, {}),
    ("goats-wintering", "goats-wintering", 1, {}),
    ("the-lion-game", "the-lion-game", 2, {}),
]


def firmware_rig(
    rigs: list[Rig], tmp: Path, game_id: str, board: str, kind: str = "firmware", **kwargs: Any
) -> Rig:
    """The daemon refereeing the firmware: in MicroPython's Unix port, or (``kind="chip"``) its
    UF2 on the emulated RP2040."""
    return make(rigs, tmp, game_id, board, kind=kind, **kwargs)


def play_choosing(rig: Rig, state: State, moves: list[str]) -> None:
    """Play ``moves`` by hand; where the board cannot tell moves apart (a kind placed on an
    occupancy board), choose with SELECT and CONFIRM, as the status line asks."""
    emu, daemon, game = rig.emu, rig.daemon, rig.game
    done = list(daemon.moves())
    for text in moves:
        offered = len(CHOICE.findall(daemon.text()))
        turns = len(TURN.findall(daemon.text()))
        offer = words.said(state, state.parse(text))  # as the status line offers it
        emu.do(f"play {hand_text(state, text)}")
        effect = state.apply(state.parse(text))
        done.append(text)
        # 30 s from the newest choice offered: five to step through with SELECT on a loaded
        # machine take longer than one wait for all of them.
        deadline = time.monotonic() + 30
        while daemon.moves() != done and time.monotonic() < deadline:
            choices = CHOICE.findall(daemon.text())
            if len(choices) > offered:
                offered = len(choices)
                deadline = time.monotonic() + 30
                emu.do("press confirm" if choices[-1] == offer else "press select")
            time.sleep(0.03)
        daemon.wait_moves(done)
        footprint = effect.footprint()
        if footprint.result != footprint.hand and state.outcome() is None:
            # (After the last move the LEDs go on to setting up the next game: not followed.)
            emu.do("follow 20", timeout=60)
            # The referee has taken in what the hands did once it says whose turn it is (a
            # slow board, as the emulated chip, reports well after the hands are still).
            wait_until(partial(_turned, daemon, turns), 60, daemon.text)
            physical = emu.pieces()
            for cell, piece in state.layout().items():
                name = game.board.names[cell]
                if name not in physical and not state.deciding:
                    symbol = game.pieces[piece.kind].symbol
                    symbol = symbol if piece.owner.value == 1 else symbol.lower()
                    emu.do(f"place {name} {symbol}{'' if piece.state is None else piece.state}")


def _turned(daemon: DaemonProcess, turns: int) -> bool:
    """Has the referee said whose turn it is more than ``turns`` times?"""
    return len(TURN.findall(daemon.text())) > turns


@pytest.mark.parametrize("game", GAMES, ids=[g[0] for g in GAMES])
def test_a_whole_game_on_the_firmware(
    rigs: list[Rig], tmp_path: Path, game: tuple[str, str, int, dict[str, str]]
) -> None:
    game_id, board, seed, options = game
    rig = firmware_rig(rigs, tmp_path, game_id, board, options=options)
    play_a_whole_game(rig, seed)
    assert "board 'firmware-host', firmware board-referee-pico" in rig.daemon.text()


def play_a_whole_game(rig: Rig, seed: int) -> None:
    """The self-played game of ``seed``, played by hand to its end; the referee agrees."""
    moves = self_play(rig.game, seed)
    play_choosing(rig, rig.game.new_state(), moves)
    expected = rig.game.new_state()
    for text in moves:
        expected.apply(expected.parse(text))
    outcome = expected.outcome()
    assert outcome is not None
    wait_until(lambda: rig.daemon.outcome() == outcome.to_json(), 30, rig.daemon.text)
    rig.daemon.wait_log("game over")


def test_capture_removal_illegal_move_correction_and_take_back(
    rigs: list[Rig], tmp_path: Path
) -> None:
    rig = firmware_rig(rigs, tmp_path, "three-dragons", "three-dragons", position=TD_POSITION)
    emu, daemon = rig.emu, rig.daemon
    emu.do("play c2-c4")
    emu.do("expect d4=remove")  # the custodial capture: the firmware lights d4 red
    daemon.wait_moves(["c2-c4"])
    emu.do("lift d4")
    emu.do("expect none")
    emu.do("move h8 g6")  # Black: not a rook's move
    emu.do("expect g6=illegal h8=put_back")
    emu.do("move g6 h8")
    emu.do("expect none")
    emu.do("play h8-h6")
    daemon.wait_moves(["c2-c4", "h8-h6"])
    emu.do("press takeback")  # a real button press, debounced by the firmware
    emu.do("expect h6=move_from h8=move_to")
    daemon.wait_moves(["c2-c4"])
    emu.do("follow")
    emu.do("expect none")
    emu.do("play h8-h7")
    daemon.wait_moves(["c2-c4", "h8-h7"])


def test_led_deltas_and_a_forced_mismatch(rigs: list[Rig], tmp_path: Path) -> None:
    rig = firmware_rig(rigs, tmp_path, "three-dragons", "three-dragons", position=TD_POSITION)
    emu, daemon = rig.emu, rig.daemon
    emu.do("play c2-c4")
    emu.do("expect d4=remove")
    with emu.lock:
        assert emu.led_frames[-1][0] == "LED_DELTA"  # protocol 2: only the LEDs that change
    emu.do("blank")  # the firmware's LEDs are wiped behind the host's back
    emu.do("expect none")
    emu.do("lift h2")  # a delta lights h2 and leaves d4 as it was, lit: it no longer fits
    daemon.wait_log(r"board rejected frame \d+: MISMATCH")
    emu.do("place h2")
    emu.do("expect d4=remove")  # the firmware kept its frame; a whole one put it right
    assert any(via == "LEDS" for via, _ in emu.led_frames)
    emu.do("lift d4")
    emu.do("expect none")
    emu.do("move h8 g6")  # and from there on, deltas again
    emu.do("expect g6=illegal h8=put_back")
    with emu.lock:
        assert emu.led_frames[-1][0] == "LED_DELTA"


def test_unplugged_in_the_middle_of_a_move(rigs: list[Rig], tmp_path: Path) -> None:
    rig = firmware_rig(rigs, tmp_path, "three-dragons", "three-dragons")
    emu, daemon = rig.emu, rig.daemon
    emu.do("lift c1")
    emu.do("unplug")  # the pty closes and the Pico loses its power with it
    emu.do("place c4")
    daemon.wait_log("board disconnected")
    emu.do("replug")  # powered on again: a new firmware process on a new pty
    daemon.wait_moves(["c1-c4"])
    emu.do("play c9-c6")
    daemon.wait_moves(["c1-c4", "c9-c6"])


def test_a_stalled_firmware_is_restarted_by_its_watchdog_mid_game(
    rigs: list[Rig], tmp_path: Path
) -> None:
    rig = firmware_rig(rigs, tmp_path, "vanguard", "vanguard")
    emu, daemon = rig.emu, rig.daemon
    moves = self_play(rig.game, 6)[:3]
    state = rig.game.new_state()
    play_choosing(rig, state, moves[:2])
    emu.do("hang")  # the firmware stops feeding its watchdog
    emu.next_event("fault", timeout=15)  # ... which restarts the chip, and its USB port
    daemon.wait_log("board fault 3: restarted by its watchdog")
    play_choosing(rig, state, moves[2:])
    assert daemon.moves() == moves


def test_noise_on_the_line_and_flickering_sensors_lose_nothing(
    rigs: list[Rig], tmp_path: Path
) -> None:
    rig = firmware_rig(rigs, tmp_path, "three-dragons", "three-dragons")
    emu, daemon = rig.emu, rig.daemon
    emu.do("flicker e4 10")  # shorter than the firmware's debounce: never reported
    emu.do("flicker d5 200")  # reported, and gone before the referee's settle window ends
    emu.do("wait 0.4")
    emu.do("garbage 80")
    emu.do("corrupt")  # the CHANGE of the lift is damaged on the wire
    emu.do("play c1-c3")
    daemon.wait_moves(["c1-c3"])
    emu.do("drop")  # the CHANGE of this lift is lost: the next event shows a gap
    emu.do("play c9-c7")
    daemon.wait_moves(["c1-c3", "c9-c7"])
    emu.do("slide d2 d3")
    daemon.wait_moves(["c1-c3", "c9-c7", "d2-d3"])
    emu.do("expect none")
    log = daemon.text()
    assert "bad frame" in log and "full scan" in log
    assert "e4" not in "".join(line for line in log.splitlines() if "move" in line)


def test_a_broken_sensor_wire_or_ground_is_one_fault_and_no_supply_is_one_too(
    rigs: list[Rig], tmp_path: Path
) -> None:
    rig = firmware_rig(rigs, tmp_path, "three-dragons", "three-dragons")
    emu, daemon = rig.emu, rig.daemon
    profile = rig.game.board.index
    emu.do("wire dead e3")  # its wire breaks: the SIG pull-down reads near 0 V, in no band
    line = daemon.wait_log("board fault 1: sensor")
    sensor = int(re.search(r"sensor (\d+)", line).group(1))  # type: ignore[union-attr]
    from firmware_bridge.link import catalog

    assert catalog.load_profile("three-dragons", rig.game).sensor_cells[sensor] == profile["e3"]
    emu.do("wait 1.5")
    assert len(re.findall(r"board fault 1: sensor", daemon.text())) == 1  # once, not a flood
    emu.do("play c1-c4")  # play goes on
    daemon.wait_moves(["c1-c4"])
    emu.do("wire ok e3")
    daemon.wait_log(f"board fault 2: sensor {sensor}: reads normally again")
    # Issue 50: a sensor whose ground wire breaks floats near 2.5 V, above a DRV5053's whole
    # 0.2-1.8 V output: a fault (fault_high from the part's range), never a player's piece.
    emu.do("wire ground e4")
    line = daemon.wait_log(f"board fault 1: sensor {sensor_of(rig, 'e4')}: reads ")
    floated = int(re.search(r"reads (\d+) of 65535, outside every band", line).group(1))  # type: ignore[union-attr]
    assert floated > 37732  # over the DRV5053's 1.8 V and 0.1 V: its fault_high
    emu.do("wire ok e4")
    daemon.wait_log(f"board fault 2: sensor {sensor_of(rig, 'e4')}: reads normally again")
    assert daemon.moves() == ["c1-c4"]  # no phantom piece was taken for a move
    # The board's 5 V supply off, its USB still in: one fault that says so, not 77.
    before = len(re.findall(r"board fault 1:", daemon.text()))
    emu.do("supply off")
    daemon.wait_log("board fault 7: the sensors have no power")
    emu.do("wait 1.5")
    assert len(re.findall(r"board fault 1:", daemon.text())) == before
    emu.do("supply on")
    daemon.wait_log("board fault 8: the sensors have power again")
    emu.do("wait 1.0")
    assert "board fault 2:" not in daemon.text().split("board fault 8:")[1]
    emu.do("play c9-c7")  # play goes on
    daemon.wait_moves(["c1-c4", "c9-c7"])


def sensor_of(rig: Rig, name: str) -> int:
    from firmware_bridge.link import catalog

    profile = catalog.load_profile("three-dragons", rig.game)
    return profile.sensor_of[rig.game.board.index[name]]


def test_the_boards_own_calibration(tmp_path: Path) -> None:
    flash = tmp_path / "flash"
    emu = EmulatorProcess(
        tmp_path, "vanguard", "vanguard", "--calibrate", "--flash", str(flash), kind="firmware"
    )
    try:
        assert (flash / "calibration.json").exists()
        daemon = DaemonProcess(tmp_path, "vanguard", "vanguard", emu.link)
        daemon.wait_log("board scanned")
        assert "not calibrated" not in daemon.text()
        from firmware_bridge.link import catalog

        first = self_play(catalog.load_game("vanguard"), 6)[0]
        emu.do(f"play {first}")
        daemon.wait_moves([first])
        assert daemon.stop() == 0
    finally:
        emu.close()


def test_a_loose_sensor_during_play_is_named_not_an_endless_disturbed_board(
    rigs: list[Rig], tmp_path: Path
) -> None:
    rig = firmware_rig(rigs, tmp_path, "three-dragons", "three-dragons")
    emu, daemon = rig.emu, rig.daemon
    emu.do("play c1-c3")
    daemon.wait_moves(["c1-c3"])
    emu.do("wire noisy d5")  # a cold joint: the sensor comes and goes on its own
    line = daemon.wait_log("the sensor under d5 keeps changing with nothing moved", timeout=15)
    assert "Check the board" in line
    emu.do("wire ok d5")
    emu.do("play c9-c7")  # play goes on
    daemon.wait_moves(["c1-c3", "c9-c7"])


def test_a_board_whose_firmware_cannot_start_says_why_on_the_kiosk(tmp_path: Path) -> None:
    """Out of memory while the firmware imports (issue 30, item 13): it used to send a text
    traceback and sit at the prompt, and the referee said only "waiting for the board". Now
    the board answers each HOST_HELLO with FAULT 6 and the referee's status names the error."""
    from tests.mosquitto import free_port
    from tests.test_trust import kiosk_state

    emu = EmulatorProcess(tmp_path, "three-dragons", "three-dragons", "--heap", "32K",
                          kind="firmware")  # fmt: skip
    kiosk = free_port()
    daemon = DaemonProcess(tmp_path, "three-dragons", "three-dragons", emu.link, "--kiosk",
                           f"127.0.0.1:{kiosk}")  # fmt: skip
    try:
        try:
            line = daemon.wait_log("board fault 6")
        except AssertionError:
            raise AssertionError("\n".join(emu.stderr[-20:])) from None
        assert "the firmware could not start: MemoryError" in line, line
        state = kiosk_state(kiosk)
        assert state["status"] == (
            "the board's firmware could not start (out of memory): its fault is under Board "
            "connection"
        )
        fault = state["connection"]["faults"][-1]["text"]
        assert "MemoryError" in fault and "a board this size needs more memory" in fault
        time.sleep(3)  # HOST_HELLO every second, answered each time: one fault, not a list
        state = kiosk_state(kiosk)
        assert [f["code"] for f in state["connection"]["faults"]] == [6]
        assert "board disconnected" not in daemon.text()  # the link stays up
    finally:
        daemon.stop()
        emu.close()
    assert "Traceback" not in daemon.text()
