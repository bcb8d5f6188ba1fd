"""Clocks through the real path (issue 66): the built-in emulator's board, its serial line, the
referee pressing the clock as it accepts moves, the kiosk in Chromium at 800x480, and the
results. Times are short so a flag falls within the test; every wait is on an event."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import time
import urllib.request
from pathlib import Path

from playwright.sync_api import Browser, expect

from tests.e2e import PYTHON, DaemonProcess, EmulatorProcess
from tests.mosquitto import free_port
from tests.test_integrity import board_action, results, wait_for
from tests.test_kiosk import Referee, referees

__all__ = ["referees"]
SHOTS = os.environ.get("BOARD_REFEREE_SHOTS")


def test_a_flag_falls_on_the_emulated_board_and_the_kiosk_says_lost_on_time(
    referees: list[Referee], tmp_path: Path, browser: Browser
) -> None:
    """Goats Wintering under ``--time-control 60+2,6+2`` (a handicap: the second player has 6 s):
    the first player's clock starts once the board shows the game; a move (a goat put down)
    presses it: the increment is added and the second player's clock runs; they never move,
    and their flag falls. The kiosk at 800x480
    shows both clocks, then "lost on time"; the results count it."""
    referee = Referee(tmp_path, "--game", "goats-wintering", "--new", "--time-control", "60+2,6+2")
    referees.append(referee)
    wait_for(lambda: (referee.state()["clocks"] or {}).get("running") == 1)
    state = referee.state()
    assert state["clocks"]["control"] == "60+2,6+2" and state["clocks"]["started"]
    page = browser.new_page(viewport={"width": 800, "height": 480})
    page.goto(referee.kiosk_url)
    clock1 = page.locator('#clocks .clock[data-player="1"]')
    expect(clock1).to_have_class(re.compile(r"\brunning\b"))
    size = page.evaluate(
        "() => parseFloat(getComputedStyle(document.querySelector('#clocks .time')).fontSize)"
    )
    assert size >= 32, size
    # The first player puts a goat down (their own move, on their turn): the clock switches.
    legal = [m["text"] for m in referee.state()["moves"]]
    assert legal == []
    assert board_action(referee, do="place", cell="A1", piece="G")[0] == 200
    moved = referee.wait_state("to_move", 2)
    clocks = moved["clocks"]
    assert clocks["running"] == 2
    # 60 s, less what the move took, plus the 2 s increment: never more than 62 s.
    assert 0 < clocks["left_ms"][0] <= 62_000, clocks
    assert clocks["left_ms"][1] <= 6000
    expect(page.locator('#clocks .clock[data-player="2"]')).to_have_class(
        re.compile(r"\brunning\b")
    )
    # Nobody moves for the second player: their flag falls at once when their time is out.
    final = referee.wait_state("winner", 1, timeout=20)
    assert "lost on time" in final["outcome"], final["outcome"]
    assert final["clocks"]["flagged"] == 2 and final["clocks"]["left_ms"][1] == 0
    assert final["moves"][-1]["text"] == "time:2"
    expect(page.locator("#status")).to_contain_text("lost on time")
    expect(page.locator('#clocks .clock[data-player="2"]')).to_have_class(
        re.compile(r"\bflagged\b")
    )
    if SHOTS:
        page.screenshot(path=str(Path(SHOTS) / "flag-fall-800x480.png"))
    page.screenshot(path=str(tmp_path / "flag-fall.png"))
    rows = results(referee)
    assert "lost on time" in rows[-1]["result"], rows
    page.close()
    text = subprocess.run(
        [*PYTHON, "records", "--journal", str(tmp_path / "journal.sqlite3"), "--game-id", "1"],
        capture_output=True, text=True, timeout=60, check=False,
    ).stdout  # fmt: skip
    played = [line for line in text.splitlines() if not line.startswith("#")]
    assert len(played) == 2 and all(re.search(r"\[%clk \d:\d\d:\d\d\]$", m) for m in played), text
    assert "# time control: 60+2,6+2" in text, text
    referee.stop()  # its recording written as it stops; replayed with the clocks, the flag
    replayed = subprocess.run(  # falls at the same turn
        [*PYTHON, "replay", str(tmp_path / "journal.sqlite3")],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert replayed.returncode == 0 and "decided identically" in replayed.stdout, (
        replayed.stdout + replayed.stderr)  # fmt: skip


def test_a_take_back_puts_both_clocks_back(referees: list[Referee], tmp_path: Path) -> None:
    """A move and its take-back: the mover's clock shows again what it showed before the
    move (less nothing: the time between is charged to no one), and it runs again."""
    referee = Referee(tmp_path, "--game", "goats-wintering", "--new", "--time-control", "600+5")
    referees.append(referee)
    wait_for(lambda: (referee.state()["clocks"] or {}).get("running") == 1)
    assert board_action(referee, do="place", cell="A1", piece="G")[0] == 200
    after = referee.wait_state("to_move", 2)["clocks"]
    assert after["left_ms"][0] > 600_000  # the 5 s increment, the move well under 5 s
    code, answer = referee.post("/api/button", {"button": "takeback"})
    assert code == 200, answer
    back = referee.wait_state("to_move", 1)["clocks"]
    assert back["running"] == 1
    assert back["left_ms"][0] <= 600_000 < after["left_ms"][0]
    assert back["left_ms"][1] == 600_000


def test_a_power_cut_costs_no_one_time(tmp_path: Path) -> None:
    """``run --new --time-control 14+0``: the referee SIGKILLed 6 s into the game and started
    again 6 s later. The clocks go on from what they showed (about 8 s left for the first
    player), the 6 s it was down charged to no one: the flag falls about 8 s after the
    restart, and ``records`` says the game was lost on time."""
    emu = EmulatorProcess(tmp_path, "goats-wintering", "goats-wintering")
    daemon = DaemonProcess(tmp_path, "goats-wintering", "goats-wintering", emu.link, "--new",
                           "--time-control", "14+0")  # fmt: skip
    try:
        daemon.wait_log(r"clock started: White to move, 0:14 left")
        time.sleep(6)  # the scenario: six seconds into the game, the power goes
        daemon.kill(signal.SIGKILL)
        time.sleep(6)  # ... and comes back six seconds later
        daemon.command.remove("--new")  # the same game goes on
        daemon.start()
        line = daemon.wait_log(r"clock restored: White to move, (\S+) left")
        restarted = time.monotonic()
        shown = line.rpartition(", ")[2].removesuffix(" left")  # 8.6 (tenths under 10 s)
        seconds = float(shown.replace("0:", "", 1)) if ":" in shown else float(shown)
        assert 7.0 <= seconds <= 9.0, line  # 14 s less the 6 s played, within the last save
        daemon.wait_log("White's flag fell", timeout=30)
        after = time.monotonic() - restarted
        assert 6.0 <= after <= 10.5, after
        outcome = daemon.outcome()
        assert outcome is not None and outcome["reason"] == "White lost on time"
    finally:
        daemon.stop()
        emu.close()
    records = subprocess.run(
        [*PYTHON, "records", "--journal", str(daemon.journal)],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert records.returncode == 0, records.stderr
    assert "lost on time" in records.stdout, records.stdout
    text = subprocess.run(
        [*PYTHON, "records", "--journal", str(daemon.journal), "--game-id", "1"],
        capture_output=True, text=True, timeout=60, check=False,
    ).stdout  # fmt: skip
    assert "# time control: 14+0" in text, text
    # The flight recording, run again through this referee, with its clocks: the flag falls
    # in the replay at the same turn. (The killed session had no move: the recorder had not
    # written it yet; the session after the restart starts from the restored figures.)
    replayed = subprocess.run([*PYTHON, "replay", str(daemon.journal)], capture_output=True,
                              text=True, timeout=300, check=False)  # fmt: skip
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    assert "result: Black wins: White lost on time" in replayed.stdout, replayed.stdout
    assert "decided identically" in replayed.stdout, replayed.stdout
    assert re.search(r"time:1 +# White lost on time \S+ \[%clk 0:00:00\]", text), text


def test_the_new_game_dialog_sets_the_clock_and_refuses_a_bad_one(
    referees: list[Referee], tmp_path: Path
) -> None:
    """The New game control names the clock (kiosk and club view take the same body): a bad
    one is refused with what is wrong, a good one starts the new game under it, blank is none."""
    referee = Referee(tmp_path, "--game", "goats-wintering", "--new")
    referees.append(referee)
    assert referee.state()["clocks"] is None  # no clock by default
    for bad in ("300+", "abc", 300, "9" * 70):
        code, answer = referee.post("/api/new-game", {"game": "goats-wintering", "clock": bad})
        assert code == 400 and ("time control" in answer["error"] or "clock" in
                                answer["error"]), answer  # fmt: skip
    code, answer = referee.post("/api/new-game", {"game": "goats-wintering", "clock": "300+3"})
    assert code == 200, answer
    wait_for(lambda: (referee.state()["clocks"] or {}).get("control") == "300+3")
    code, answer = referee.post("/api/new-game", {"game": "goats-wintering", "clock": ""})
    assert code == 200, answer
    wait_for(lambda: referee.state()["clocks"] is None)


def test_the_arbiter_pauses_resumes_and_adds_time(referees: list[Referee], tmp_path: Path) -> None:
    """Pause and resume (a dispute), add or take time (a penalty): from the kiosk, with its
    token beyond loopback; refused without it and for a bad body; each one logged with where
    it came from and shown in the game's timeline."""
    port = free_port()
    referee = Referee(tmp_path, "--game", "goats-wintering", "--new", "--time-control", "600",
                      kiosk=f"0.0.0.0:{port}")  # fmt: skip
    referees.append(referee)
    referee.kiosk_url = f"http://127.0.0.1:{port}/"
    token = (tmp_path / "kiosk-token").read_text().strip()
    wait_for(lambda: (referee.state()["clocks"] or {}).get("running") == 1)
    code, answer = referee.post("/api/clock", {"clock": "pause"}, forwarded=True)
    assert code == 401, answer  # a proxy on this machine: the token is needed
    code, answer = referee.post("/api/clock", {"clock": "pause"}, token=token, forwarded=True)
    assert code == 200 and answer["message"] == "Clocks paused.", answer
    wait_for(lambda: referee.state()["clocks"]["paused"])  # its state comes after its answer
    paused = referee.state()["clocks"]
    assert paused["paused"] and paused["running"] == 1
    for bad in ({"clock": "stop"}, {"clock": "add", "player": 3, "seconds": 5},
                {"clock": "add", "player": 1, "seconds": 0}, {"clock": "add", "player": True,
                                                              "seconds": 5}):  # fmt: skip
        code, answer = referee.post("/api/clock", bad, token=token)
        assert code == 400, (bad, answer)
    code, answer = referee.post("/api/clock", {"clock": "add", "player": 2, "seconds": 60},
                                token=token)  # fmt: skip
    assert code == 200 and answer["message"] == "1 min added to Black's clock.", answer
    wait_for(lambda: referee.state()["clocks"]["left_ms"][1] == 660_000)
    # Paused all along: the first player's time has not moved since the pause.
    assert referee.state()["clocks"]["left_ms"][0] == paused["left_ms"][0]
    code, answer = referee.post("/api/clock", {"clock": "resume"}, token=token)
    assert code == 200, answer
    wait_for(lambda: referee.state()["clocks"]["left_ms"][0] < paused["left_ms"][0])
    referee.wait_log(r"Clocks paused\. \(kiosk\)")
    referee.wait_log(r"1 min added to Black's clock\. \(kiosk\)")
    assert board_action(referee, do="place", cell="A1", piece="G")[0] == 200
    referee.wait_state("to_move", 2)  # a move: the flight recording is written with it
    with urllib.request.urlopen(referee.kiosk_url + "api/timeline/1", timeout=10) as got:
        timeline = got.read().decode()
    assert "Clocks paused at the kiosk" in timeline, timeline[:2000]
    assert "1 min added to player 2's clock at the kiosk" in timeline, timeline[:2000]


def test_a_flag_fall_lights_the_losers_pieces(referees: list[Referee], tmp_path: Path) -> None:
    """Both players have a goat down; the arbiter takes all but 2 s from White (a penalty):
    White's flag falls, and the LEDs say "lost on time" on White's pieces (Signal.FLAG), on
    the board's own lights, until a take-back withdraws the loss."""
    referee = Referee(tmp_path, "--game", "goats-wintering", "--new", "--time-control", "600")
    referees.append(referee)
    wait_for(lambda: (referee.state()["clocks"] or {}).get("running") == 1)
    assert board_action(referee, do="place", cell="A1", piece="G")[0] == 200
    referee.wait_state("to_move", 2)
    assert board_action(referee, do="place", cell="E5", piece="g")[0] == 200
    left = referee.wait_state("to_move", 1)["clocks"]["left_ms"][0]
    code, answer = referee.post("/api/clock", {"clock": "add", "player": 1,
                                               "seconds": -(left // 1000 - 2)})  # fmt: skip
    assert code == 200, answer
    final = referee.wait_state("winner", 2, timeout=20)
    assert final["outcome"] == "Black wins: White lost on time", final["outcome"]
    assert final["signals"] == {"A1": "flag"}, final["signals"]

    # ... as the board shows them: its lights, decoded by the emulated board from the frames
    # the referee sent over the serial line.
    def lit() -> dict[str, str]:
        with urllib.request.urlopen(referee.board_url + "api/state", timeout=10) as got:
            shown: dict[str, str] = json.loads(got.read())["signals"]
            return shown

    wait_for(lambda: lit() == {"A1": "flag"})
    code, answer = referee.post("/api/button", {"button": "takeback"})
    assert code == 200, answer
    wait_for(lambda: referee.state()["outcome"] is None)
    state = referee.state()
    assert state["signals"] == {} and state["clocks"]["paused"], state["clocks"]
    # White's clock at nought waits, paused, for the arbiter: time added, then resumed.
    code, answer = referee.post("/api/clock", {"clock": "add", "player": 1, "seconds": 60})
    assert code == 200, answer
    code, answer = referee.post("/api/clock", {"clock": "resume"})
    assert code == 200, answer
    wait_for(lambda: not referee.state()["clocks"]["paused"])
    assert referee.state()["outcome"] is None


def test_the_computers_clock_runs_while_it_thinks_and_no_one_pays_for_carrying_it_out(
    referees: list[Referee], tmp_path: Path
) -> None:
    """Vanguard against the computer under ``60+0``: the human's move presses the clock; the
    computer's runs while it thinks (its time a move from its clock); when it answers, no
    clock runs until its move is on the board."""
    referee = Referee(tmp_path, "--game", "vanguard", "--new", "--computer", "2", "--level",
                      "1", "--time-control", "60")  # fmt: skip
    referees.append(referee)
    wait_for(lambda: (referee.state()["clocks"] or {}).get("running") == 1)
    code, said = board_action(referee, do="lift", cell="C2")
    assert code == 200, said
    assert board_action(referee, do="place", cell="C3")[0] == 200
    wait_for(lambda: (referee.state()["clocks"] or {}).get("held") is True, timeout=60)
    held = referee.state()["clocks"]
    assert held["running"] is None and not held["paused"], held  # no clock runs
    thought = 60_000 - held["left_ms"][1]
    assert 0 < thought < 60_000 / 10, held  # a small share of its minute: its clock's budget
    referee.wait_log(r"the computer chose")
    # Nobody carries the move out here: nothing runs, so the figures stay as they are.
    again = referee.wait_state("clocks", held)["clocks"]
    assert again["left_ms"] == held["left_ms"]
