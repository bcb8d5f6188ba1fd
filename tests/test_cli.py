"""The board-referee command: the `moves` JSON contract, `play`, `demo`, and clean errors."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from firmware_bridge.cli import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def moves_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    code, out, err = run(capsys, "moves", *argv)
    assert code == 0, err
    data: dict[str, Any] = json.loads(out)
    return data


def test_moves_contract_at_the_start(capsys: pytest.CaptureFixture[str]) -> None:
    data = moves_json(capsys, "--game", "three-dragons")
    assert list(data) == [
        "game", "options", "to_move", "phase", "outcome", "layout", "quiet_moves", "moves",
    ]  # fmt: skip
    assert data["to_move"] == 1 and data["phase"] == "move" and data["outcome"] is None
    assert data["layout"]["e1"] == {"owner": 1, "piece": "stone"}
    assert len(data["moves"]) == 37
    entry = next(m for m in data["moves"] if m["move"] == "c1-c4")
    assert entry["hand"] == {"c1": None, "c4": {"owner": 1, "piece": "stone"}}
    assert "c1" not in entry["layout"] and entry["layout"]["c4"]["owner"] == 1
    assert entry["to_move"] == 2 and entry["phase"] == "move" and entry["outcome"] is None


def test_moves_show_states_and_consequences(capsys: pytest.CaptureFixture[str]) -> None:
    data = moves_json(
        capsys, "--game", "three-dragons", "--option", "variant=strength",
        "--moves", "d2-d7",
    )  # fmt: skip
    # d2 (strength 5) went up next to d8 (5) and c7/e7 are empty: nothing was taken.
    assert data["layout"]["d7"] == {"owner": 1, "piece": "die", "state": 5}
    assert data["to_move"] == 2


def test_moves_layout_after_battle_differs_from_hand(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    position = {
        "layout": {
            "a1": {"owner": 1, "piece": "goat"},
            "i6": {"owner": 2, "piece": "goat"},
            "c3": {"owner": 1, "piece": "sugarmouse"},
            "c5": {"owner": 2, "piece": "phant"},
        },
        "to_move": 1,
        "phase": "movement",
        "south": 1,
    }
    path = tmp_path / "position.json"
    path.write_text(json.dumps(position))
    data = moves_json(capsys, "--game", "protect-the-goat", "--position", str(path))
    entry = next(m for m in data["moves"] if m["move"] == "c3-c4")
    assert entry["hand"] == {"c3": None, "c4": {"owner": 1, "piece": "sugarmouse"}}
    assert entry["layout"]["c5"] == {"owner": 1, "piece": "sugarmouse"}
    assert "c4" not in entry["layout"]


def test_position_output_is_valid_position_input(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    first = moves_json(capsys, "--game", "protect-the-goat", "--moves", "G@e1 g@e6 P@c1")
    saved = {k: v for k, v in first.items() if k != "moves"}
    path = tmp_path / "p.json"
    path.write_text(json.dumps(saved))
    second = moves_json(capsys, "--game", "protect-the-goat", "--position", str(path))
    assert second == first


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["moves", "--game", "chess"], "unknown game 'chess'"),
        (["moves", "--game", "three-dragons", "--option", "variant"], "expected KEY=VALUE"),
        (["moves", "--game", "three-dragons", "--option", "size=3"], "size: unknown option"),
        (["moves", "--game", "three-dragons", "--moves", "c1-c9"], r"move 1 \(c1-c9\)"),
        (["moves", "--game", "three-dragons", "--moves", "c1-c4 zz-a1"], "has no cell 'zz'"),
        (["moves", "--game", "three-dragons", "--moves", "c1c4"], "is not a move"),
        (["moves", "--game", "three-dragons", "--position", "/nonexistent.json"], "cannot read"),
        (["play", "--game", "three-dragons"], "give the moves"),
    ],
)
def test_user_errors_are_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("board-referee: error: ")
    assert re.search(message, err), err


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "not valid JSON: line 1, column 2"),
        ('{"layout": {"q9": {"owner": 1, "piece": "stone"}}, "to_move": 1}', "no cell 'q9'"),
        ('{"layout": {}, "to_move": 3}', "to_move: expected player 1 or 2"),
        ('{"layout": {"c3": {"owner": 1, "piece": "goat"}}, "to_move": 1}', "unknown piece kind"),
        ('{"layout": [], "to_move": 1}', "layout: expected a mapping"),
        ('{"to_move": 1}', "missing key 'layout'"),
        ('{"layout": {}, "to_move": 1, "game": "protect-the-goat"}', "not three-dragons"),
        ('{"layout": {}, "to_move": 1, "options": {"variant": "dragons"}}', "variant=dragons"),
    ],
)
def test_malformed_positions_are_one_line_errors(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, content: str, message: str
) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content)
    code, _, err = run(capsys, "moves", "--game", "three-dragons", "--position", str(path))
    assert code == 2 and err.count("\n") == 1 and message in err, err


def test_play_adjudicates_a_move_list(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "play", "--game", "three-dragons", "--moves", "c1-c4 c9-c6 d2-d3")
    assert code == 0
    assert "1. White: c1-c4" in out and "3. White: d2-d3" in out
    assert "no result yet after 3 moves" in out


def test_play_stops_at_an_illegal_move(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "play", "--game", "three-dragons", "--moves", "c1-c4 c9-c6 c4-c7")
    assert code == 2
    assert "2. Black: c9-c6" in out
    assert "move 3 (c4-c7)" in err and "blocked at c5" in err


def test_play_refuses_a_negative_move_limit(capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 29, item 6: ``--max-moves -1`` exited 0 and printed nothing."""
    code, out, err = run(capsys, "play", "--game", "three-dragons", "--self-play",
                         "--max-moves", "-1")  # fmt: skip
    assert (code, out) == (2, "") and err.count("\n") == 1 and "--max-moves" in err, err
    code, out, _ = run(capsys, "play", "--game", "three-dragons", "--self-play",
                       "--max-moves", "0")  # fmt: skip
    assert code == 0 and "no result yet after 0 moves" in out, out


def test_play_moves_file_with_numbers_and_comments(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    record = tmp_path / "game.txt"
    record.write_text("# a short game\n1. c1-c4 c9-c6\n2. d2-d3  # quiet\n")
    code, out, _ = run(capsys, "play", "--game", "three-dragons", "--moves-file", str(record))
    assert code == 0 and "3. White: d2-d3" in out


def test_self_play_reaches_a_result(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "play", "--game", "protect-the-goat", "--self-play", "--seed", "3", "--quiet"
    )
    assert code == 0 and "result:" in out


def test_games_lists_every_game_and_option(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "games")
    assert code == 0
    assert "three-dragons: Three Dragons" in out and "protect-the-goat" in out
    assert "variant=base|strength|dragons" in out


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGHUP], ids=["ctrl-c", "hangup"])
def test_ctrl_c_on_the_main_command_stops_the_referee_before_the_board(
    tmp_path: Path, signum: signal.Signals
) -> None:
    """A terminal's Ctrl-C (or its closing) reaches every process of the foreground group:
    the built-in emulator must not go first and leave the referee logging a disconnected
    board, nor be left running after it."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "firmware_bridge.cli", "run",
         "--journal", str(tmp_path / "journal.sqlite3"),
         "--kiosk", "127.0.0.1:0", "--emulator-web", "127.0.0.1:0"],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        start_new_session=True,  # its own group, as a terminal's job is
    )  # fmt: skip
    lines: list[str] = []
    assert proc.stderr is not None
    reader = threading.Thread(target=lambda: lines.extend(proc.stderr or ()), daemon=True)
    reader.start()
    try:
        deadline = time.monotonic() + 60
        while not any("board scanned" in x for x in lines) and time.monotonic() < deadline:
            assert proc.poll() is None, "".join(lines)
            time.sleep(0.05)
        os.killpg(proc.pid, signum)  # the whole group, as the terminal sends it
        assert proc.wait(30) == 0, "".join(lines)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    reader.join(10)
    log = "".join(lines)
    assert "board scanned" in log and "stopped" in log, log
    assert "board disconnected" not in log, log
    assert "Traceback" not in log, log
    kiosk = re.search(r"kiosk page: (\S+)", log)
    assert kiosk is not None, log
    left = []  # the emulator follows the kiosk: its command line names the kiosk's URL
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if kiosk.group(1).encode() in cmdline.read_bytes():
                left.append(cmdline.parent.name)
        except OSError:
            continue  # a process that ended while we looked
    assert not left, f"still running after the referee stopped: {left}"


def test_demo_runs_every_scripted_game_over_the_emulator() -> None:
    """README's demo: the emulator in its own process, the daemon, every game. The games run
    as one ``demo --game`` each, side by side: each waits on its board's settle windows, not
    on the processor."""
    expected = {
        "three-dragons": (
            ["journal of Three Dragons: d2-d4 d8-d5 b2-b6 h8-h7 b6-d6 h7-h5"],
            ["Black stone on d5 captured by custodial capture"],
        ),
        "protect-the-goat": (["result: Player 1 wins: Player 1 captured the goat"], []),
        "vanguard": (["journal of Vanguard: B1-A1 E7-D6"], ["the ram runs on: D6-C5-C4"]),
        "goats-wintering": (
            ["result: Black wins: two passes, White 1, Black 3"],
            ["score: White 1, Black 2"],
        ),
        "the-lion-game": (
            [
                "journal of The Lion Game: g3-g3 f7-f6 d3-d4 e8-e6 d4-d6 c7-c6 d6-d8",
                "result: White wins: White captured the lion",
            ],
            ["the rhinoceros charges d6-d8, trampling 2"],
        ),
    }
    demo = [sys.executable, "-m", "firmware_bridge.cli", "demo", "--pace", "0.05", "--game"]
    pipe = subprocess.PIPE
    runs = {game: subprocess.Popen([*demo, game], stdout=pipe, stderr=pipe, text=True)
            for game in expected}  # fmt: skip
    for game, run in runs.items():
        stdout, stderr = run.communicate(timeout=300)
        assert run.returncode == 0, f"{game}: {stdout[-3000:]}{stderr[-3000:]}"
        assert "Traceback" not in stderr
        assert "board disconnected" not in stderr  # the referee stops before the board
        out_lines, err_lines = expected[game]
        for line in out_lines:
            assert line in stdout, game
        for line in err_lines:
            assert line in stderr, game


def test_help_says_what_the_options_do() -> None:
    """run's journal default is the per-board file it really is; the club view follows a
    broker, it does not publish to one."""

    def usage(*command: str) -> str:
        result = subprocess.run([sys.executable, "-m", "firmware_bridge.cli", *command, "--help"],
                                capture_output=True, text=True, check=True,
                                env={**os.environ, "COLUMNS": "1000"})  # fmt: skip
        return " ".join(result.stdout.split())

    assert "journal-BOARD.sqlite3" in usage("run")
    club = usage("club")
    assert "follow the boards on this MQTT broker" in club and "publish" not in club


@pytest.mark.parametrize("command", ["run", "kiosk-screen", "records", "replay", "install-service",
                                     "firmware", "demo"])  # fmt: skip
def test_every_commands_help_says_what_it_does(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 51: ``kiosk-screen --help`` gave its usage and options only. Each command's help
    has a description between them: its own, or its line of the command list."""
    with pytest.raises(SystemExit):
        main([command, "--help"])
    text = capsys.readouterr().out
    blocks = text.split("\n\n")
    assert len(blocks) >= 3 and not blocks[1].startswith(("options:", "positional")), text
    assert blocks[1].strip().endswith("."), blocks[1]
