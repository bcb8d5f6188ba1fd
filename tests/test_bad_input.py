"""Every user error has a case: bad commands, configs, positions, journals and ports each end
with exit status 2 and one line on stderr, never a traceback, and nothing the user owns is
changed. Each case runs the real command in its own process, from a folder of its own."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import serial

from firmware_bridge.link import catalog
from firmware_bridge.referee.journal import Journal

CONFIG = Path(__file__).resolve().parent.parent / "config"
Setup = Callable[[Path], None]


def _run(tmp: Path, args: list[str]) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("BOARD_REFEREE_")}
    env["XDG_STATE_HOME"] = str(tmp / "state")
    return subprocess.run(
        [sys.executable, "-m", "firmware_bridge.cli", *args], check=False, cwd=tmp, env=env,
        capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
    )  # fmt: skip


def write(name: str, data: str | bytes) -> Setup:
    def setup(tmp: Path) -> None:
        path = tmp / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(data, bytes):
            path.write_bytes(data)
        else:
            path.write_text(data, encoding="utf-8")

    return setup


def config_with(game_file: str, data: str | bytes, *, board: bool = False) -> Setup:
    """A copy of the project's config folder with one file replaced."""

    def setup(tmp: Path) -> None:
        for sub in ("games", "boards"):
            (tmp / "cfg" / sub).mkdir(parents=True, exist_ok=True)
            for path in (CONFIG / sub).glob("*.yaml"):
                (tmp / "cfg" / sub / path.name).write_bytes(path.read_bytes())
        target = tmp / "cfg" / ("boards" if board else "games") / game_file
        if isinstance(data, bytes):
            target.write_bytes(data)
        else:
            target.write_text(data, encoding="utf-8")

    return setup


def journal_with(edit: Callable[[sqlite3.Connection], None] | None = None) -> Setup:
    """A journal holding an unfinished Three Dragons game, then changed by ``edit``."""

    def setup(tmp: Path) -> None:
        game = catalog.load_game("three-dragons")
        journal = Journal(tmp / "j.sqlite3")
        game_id = journal.start_game(game, "three-dragons", None)
        for text in ("c1-c4", "c9-c6"):
            journal.record_move(game_id, text)
        journal.close()
        if edit is not None:
            db = sqlite3.connect(tmp / "j.sqlite3")
            edit(db)
            db.commit()
            db.close()

    return setup


def damaged_pages(tmp: Path) -> None:
    game = catalog.load_game("three-dragons")
    journal = Journal(tmp / "j.sqlite3")
    for _ in range(40):
        game_id = journal.start_game(game, "three-dragons", None)
        for number in range(40):
            journal.record_move(game_id, f"c{number % 9 + 1}-c4")
    journal.close()
    path = tmp / "j.sqlite3"
    data = bytearray(path.read_bytes())
    assert len(data) > 8 * 4096
    data[4096 * 2 :] = bytes((i * 37 + 11) % 256 for i in range(len(data) - 4096 * 2))
    path.write_bytes(bytes(data))


def foreign_db(tmp: Path) -> None:
    db = sqlite3.connect(tmp / "j.sqlite3")
    db.execute("CREATE TABLE recipes (name TEXT, minutes INTEGER)")
    db.execute("INSERT INTO recipes VALUES ('soup', 40)")
    db.commit()
    db.close()


def options_not_json(db: sqlite3.Connection) -> None:
    db.execute("UPDATE games SET options = 'variant: base'")


def takeback_not_a_number(db: sqlite3.Connection) -> None:
    db.execute("INSERT INTO entries VALUES (1, 3, 'takeback', 'two', '2026-01-01')")


def unknown_action(db: sqlite3.Connection) -> None:
    db.execute("INSERT INTO entries VALUES (1, 3, 'teleport', 'c4', '2026-01-01')")


def illegal_entry(db: sqlite3.Connection) -> None:
    db.execute("INSERT INTO entries VALUES (1, 3, 'move', 'a1-i9', '2026-01-01')")


RUN = ["run", "--no-kiosk", "--port", "/dev/ttyNOPE0", "--journal", "j.sqlite3"]
GAME_YAML = (CONFIG / "games" / "vanguard.yaml").read_text(encoding="utf-8")
PROFILE_YAML = (CONFIG / "boards" / "vanguard.yaml").read_text(encoding="utf-8")
POSITION_LION = json.dumps({"layout": {"b2": {"owner": 1, "piece": "lion"},
                                       "f8": {"owner": 2, "piece": "lion"}},
                            "to_move": 1, "stuck": ["c4"]})  # fmt: skip

# (id, setup, arguments, a fragment the one line must hold)
CASES: list[tuple[str, Setup | None, list[str], str]] = [
    # -- commands and options
    ("unknown game", None, ["play", "--game", "chess", "--moves", "e2-e4"], "unknown game"),
    ("bad option value", None,
     ["play", "--game", "three-dragons", "--option", "variant=huge", "--moves", "c1-c4"],
     "variant"),
    ("option without value", None, ["play", "--game", "three-dragons", "--option", "variant"],
     "KEY=VALUE"),
    ("unknown option", None,
     ["play", "--game", "three-dragons", "--option", "colour=red", "--moves", "c1-c4"], "colour"),
    ("illegal move", None, ["play", "--game", "three-dragons", "--moves", "c1-c9"], "move 1"),
    ("not a move", None, ["play", "--game", "three-dragons", "--moves", "zz-top"], "zz-top"),
    ("no cell", None, ["play", "--game", "vanguard", "--moves", "Z9-A1"], "no cell"),
    ("no moves given", None, ["play", "--game", "three-dragons"], "--self-play"),
    ("moves file missing", None,
     ["play", "--game", "three-dragons", "--moves-file", "nope.txt"], "cannot read"),
    ("moves file is a folder", write("d/x", ""),
     ["play", "--game", "three-dragons", "--moves-file", "d"], "folder"),
    ("moves file not UTF-8", write("m.txt", "c1-c4 \xe9".encode("latin-1")),
     ["play", "--game", "three-dragons", "--moves-file", "m.txt"], "UTF-8"),
    ("position missing", None, ["moves", "--game", "vanguard", "--position", "p.json"],
     "cannot read"),
    ("position not JSON", write("p.json", "{layout:"),
     ["moves", "--game", "vanguard", "--position", "p.json"], "not valid JSON"),
    ("position not an object", write("p.json", "[1, 2]"),
     ["moves", "--game", "vanguard", "--position", "p.json"], "position"),
    ("position of another game", write("p.json", json.dumps(
        {"game": "three-dragons", "layout": {}, "to_move": 1})),
     ["moves", "--game", "vanguard", "--position", "p.json"], "three-dragons"),
    ("position UTF-16", write("p.json", '{"layout": {}}'.encode("utf-16")),
     ["moves", "--game", "vanguard", "--position", "p.json"], "UTF-8"),
    ("hidden state that does not fit", write("p.json", POSITION_LION),
     ["moves", "--game", "the-lion-game", "--position", "p.json"], "no elephant on c4"),
    ("illegal move after a position", None,
     ["moves", "--game", "vanguard", "--moves", "B1-B2 pass"], "move 2"),
    ("rhinoceros too far", None, ["play", "--game", "the-lion-game", "--moves", "d3-d5"],
     "may go 1 square"),
    ("demo of an unknown game", None, ["demo", "--game", "chess"], "chess"),
    # -- configs
    ("config folder missing", None, ["--config-dir", "nowhere", "games"], "no game configs"),
    ("game YAML in UTF-16", config_with("vanguard.yaml", GAME_YAML.encode("utf-16")),
     ["--config-dir", "cfg", "play", "--game", "vanguard", "--moves", "B1-B2"], "UTF-8"),
    ("game YAML binary", config_with("vanguard.yaml", bytes(range(256)) * 4),
     ["--config-dir", "cfg", "play", "--game", "vanguard", "--moves", "B1-B2"], "vanguard.yaml"),
    ("game YAML broken", config_with("vanguard.yaml", "rules: [vanguard\nid: x"),
     ["--config-dir", "cfg", "play", "--game", "vanguard", "--moves", "B1-B2"], "not valid YAML"),
    ("game YAML unknown key", config_with("vanguard.yaml", GAME_YAML + "\ncolour: red\n"),
     ["--config-dir", "cfg", "play", "--game", "vanguard", "--moves", "B1-B2"], "colour"),
    ("game YAML id is not its name", config_with(
        "vanguard.yaml", GAME_YAML.replace("id: vanguard", "id: rearguard")),
     ["--config-dir", "cfg", "play", "--game", "vanguard", "--moves", "B1-B2"], "rearguard"),
    ("game YAML unknown rules", config_with(
        "vanguard.yaml", GAME_YAML.replace("rules: vanguard", "rules: chess")),
     ["--config-dir", "cfg", "play", "--game", "vanguard", "--moves", "B1-B2"], "chess"),
    ("profile YAML in UTF-16", config_with("vanguard.yaml", PROFILE_YAML.encode("utf-16"),
                                           board=True),
     ["--config-dir", "cfg", *RUN, "--game", "vanguard"], "UTF-8"),
    ("profile sensing unknown", config_with(
        "vanguard.yaml", PROFILE_YAML.replace("sensing: owner", "sensing: smell"), board=True),
     ["--config-dir", "cfg", *RUN, "--game", "vanguard"], "smell"),
    ("profile of another game", None, [*RUN, "--game", "vanguard", "--board", "three-dragons"],
     "three-dragons"),
    ("profile unknown", None, [*RUN, "--game", "vanguard", "--board", "nope"], "nope"),
    # -- ports and the run command
    ("port is a regular file", write("afile", "x"),
     ["run", "--no-kiosk", "--game", "vanguard", "--port", "afile", "--journal", "j.sqlite3"],
     "regular file"),
    ("port is a folder", None,
     ["run", "--no-kiosk", "--game", "vanguard", "--port", ".", "--journal", "j.sqlite3"],
     "folder"),
    ("port URL scheme unknown", None,
     ["run", "--no-kiosk", "--game", "vanguard", "--port", "foo://bar", "--journal", "j.sqlite3"],
     "foo://bar"),
    ("port URL malformed", None,
     ["run", "--no-kiosk", "--game", "vanguard", "--port", "socket://", "--journal", "j.sqlite3"],
     "socket://"),
    ("settle window out of range", None, [*RUN, "--game", "vanguard", "--settle-ms", "99999"],
     "--settle-ms"),
    ("kiosk address malformed", None,
     ["run", "--game", "vanguard", "--port", "/dev/ttyNOPE0", "--journal", "j.sqlite3",
      "--kiosk", "nowhere"], "nowhere"),
    ("kiosk port out of range", None,
     ["run", "--game", "vanguard", "--port", "/dev/ttyNOPE0", "--journal", "j.sqlite3",
      "--kiosk", "127.0.0.1:99999"], "99999"),
    # -- MQTT and the club view
    ("mqtt URL of another scheme", None, [*RUN, "--game", "vanguard", "--mqtt", "http://x"],
     "mqtt://"),
    ("mqtt port not a number", None, [*RUN, "--game", "vanguard", "--mqtt", "mqtt://h:port"],
     "port"),
    ("mqtt URL without a host", None, [*RUN, "--game", "vanguard", "--mqtt", "mqtt://:1883"],
     "host"),
    ("mqtt password file missing", None,
     [*RUN, "--game", "vanguard", "--mqtt", "mqtt://h", "--mqtt-password-file", "nope"], "nope"),
    ("mqtt board name with a slash", None,
     [*RUN, "--game", "vanguard", "--mqtt", "mqtt://h", "--board-id", "a/b"], "a/b"),
    ("mqtt prefix with a wildcard", None,
     [*RUN, "--game", "vanguard", "--mqtt", "mqtt://h", "--mqtt-prefix", "club/#"], "#"),
    ("club view without a broker", None, ["club"], "--mqtt"),
    ("club view address malformed", None, ["club", "--mqtt", "mqtt://h", "--listen", "x"],
     "--listen"),
    ("club view alert time out of range", None,
     ["club", "--mqtt", "mqtt://h", "--alert-after", "0"], "--alert-after"),
    # -- journals
    ("journal with damaged pages", damaged_pages, [*RUN, "--game", "three-dragons"], "damaged"),
    ("journal is another program's database", foreign_db, [*RUN, "--game", "three-dragons"],
     "another program's SQLite database"),
    ("journal is plain text", write("j.sqlite3", "not a database at all\n" * 200),
     [*RUN, "--game", "three-dragons"], "j.sqlite3"),
    ("journal is a folder", write("j.sqlite3/x", ""), [*RUN, "--game", "three-dragons"],
     "j.sqlite3"),
    ("journal options edited by hand", journal_with(options_not_json),
     [*RUN, "--game", "three-dragons"], "not JSON"),
    ("journal take-back edited by hand", journal_with(takeback_not_a_number),
     [*RUN, "--game", "three-dragons"], "take-back"),
    ("journal entry of unknown kind", journal_with(unknown_action),
     [*RUN, "--game", "three-dragons"], "teleport"),
    ("journal move that is illegal", journal_with(illegal_entry),
     [*RUN, "--game", "three-dragons"], "--new"),
    ("journal holds another unfinished game", journal_with(),
     [*RUN, "--game", "vanguard"], "unfinished game"),
    # -- records
    ("records of a missing journal", None, ["records", "--journal", "nope.sqlite3"], "nope"),
    ("records with no journals at all", None, ["records"], "no journals"),
    ("records of a game not there", journal_with(),
     ["records", "--journal", "j.sqlite3", "--game-id", "9"], "no game 9"),
    ("records of a foreign database", foreign_db, ["records", "--journal", "j.sqlite3"],
     "not a journal"),
    # -- the emulator
    ("emulator link in a missing folder", None,
     ["emulate", "--game", "vanguard", "--link", "no/such/folder/board"], "no/such/folder"),
    ("emulator's settle window out of range", None,
     ["emulate", "--game", "vanguard", "--host-settle-ms", "-5", "--link", "b"],
     "--host-settle-ms"),
    ("emulator profile unknown", None, ["emulate", "--game", "vanguard", "--board", "nope"],
     "nope"),
    ("emulator script missing", None,
     ["emulate", "--game", "vanguard", "--script", "nope.txt", "--link", "b"], "nope.txt"),
    ("emulator position not JSON", write("p.json", "{"),
     ["emulate", "--game", "vanguard", "--position", "p.json", "--link", "b"], "JSON"),
    # -- the Pico firmware, the board check, the template
    ("firmware config of an RFID board", None,
     ["firmware", "config", "--board", "protect-the-goat"], "identity (RFID)"),
    ("firmware config of an unknown profile", None, ["firmware", "config", "--board", "nope"],
     "unknown board profile 'nope'"),
    ("firmware config with a pin used twice", config_with("vanguard.yaml", (
        "id: vanguard\ngame: vanguard\nsensing: owner\nsensors: {order: rows}\n"
        "pico: {leds: {pin: 2}}\n"), board=True),
     ["--config-dir", "cfg", "firmware", "config", "--board", "vanguard"], "GP2 is wired twice"),
    ("firmware config, the LED data on the Pico's own LED pin", config_with("vanguard.yaml", (
        "id: vanguard\ngame: vanguard\nsensing: owner\nsensors: {order: rows}\n"
        "pico: {leds: {pin: 25}}\n"), board=True),
     ["--config-dir", "cfg", "firmware", "config", "--board", "vanguard"],
     "GP25 is not free on a Pico: it lights the on-board LED"),
    ("firmware config, a button on VBUS sense", config_with("vanguard.yaml", (
        "id: vanguard\ngame: vanguard\nsensing: owner\nsensors: {order: rows}\n"
        "buttons: [pass]\npico: {buttons: {pass: 24}}\n"), board=True),
     ["--config-dir", "cfg", "firmware", "config", "--board", "vanguard"],
     "GP24 is not free on a Pico: it senses VBUS"),
    ("firmware config, the LED chain on thin wire", config_with("three-dragons.yaml", (
        "id: three-dragons\ngame: three-dragons\nsensing: owner\nsensors: {order: rows}\n"
        "pico: {power: {supply_ma: 2000, led_wire_awg: 30}}\n"), board=True),
     ["--config-dir", "cfg", "firmware", "config", "--board", "three-dragons"],
     "the LED chain's far end would drop"),
    ("firmware config, linear sensors off the ADC", config_with("vanguard.yaml", (
        "id: vanguard\ngame: vanguard\nsensing: owner\nsensors: {order: rows}\n"
        "pico: {mux: {signal: 15}}\n"), board=True),
     ["--config-dir", "cfg", "firmware", "config", "--board", "vanguard"], "has no ADC"),
    ("firmware config, too little power", config_with("vanguard.yaml", (
        "id: vanguard\ngame: vanguard\nsensing: owner\nsensors: {order: rows}\n"
        "pico: {sensor: ss49e, power: {supply_ma: 300}}\n"), board=True),
     ["--config-dir", "cfg", "firmware", "config", "--board", "vanguard"], "5 V"),
    ("firmware config into a missing folder", None,
     ["firmware", "config", "--board", "vanguard", "-o", "no/such/board.json"], "cannot write"),
    ("firmware bad board id", None,
     ["firmware", "config", "--board", "vanguard", "--board-id", "table 1"], "--board-id"),
    ("firmware flash with no Pico", None, ["firmware", "flash", "--board", "vanguard"],
     "no Raspberry Pi Pico found"),
    ("firmware host of an RFID board", None,
     ["firmware", "host", "--board", "protect-the-goat", "--link", "b"], "identity (RFID)"),
    ("firmware bench here without a board", None, ["firmware", "bench", "--host"], "--board"),
    ("check on a port that is a file", write("notaport", "x"),
     ["check", "--port", "notaport", "--board", "vanguard"], "notaport"),
    ("check of cells without sensors", None,
     ["check", "--port", "/dev/null", "--board", "three-dragons", "--cells", "a1,zz"],
     "no sensor on a1, zz"),
    ("template with a tiny cell", None, ["board-template", "--game", "vanguard", "--cell-mm", "1"],
     "--cell-mm"),
]  # fmt: skip


def test_the_table_has_at_least_forty_cases() -> None:
    assert len(CASES) >= 40
    assert len({case[0] for case in CASES}) == len(CASES)


@pytest.mark.parametrize(("setup", "args", "fragment"), [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])  # fmt: skip
def test_bad_input_is_one_line_and_exit_2(
    tmp_path: Path, setup: Setup | None, args: list[str], fragment: str
) -> None:
    if setup is not None:
        setup(tmp_path)
    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    result = _run(tmp_path, args)
    lines = result.stderr.splitlines()
    assert result.returncode == 2, result.stderr
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("board-referee: error: "), lines[0]
    assert fragment in lines[0], lines[0]
    for path, data in before.items():  # nothing the user had is changed (the lock file is
        if path.suffix != ".lock":  # the referee's own: it names who holds the journal)
            assert path.read_bytes() == data, f"{path} was changed"


@pytest.fixture
def held_journal(tmp_path: Path) -> Iterator[Path]:
    journal = Journal(tmp_path / "j.sqlite3")
    yield tmp_path / "j.sqlite3"
    journal.close()


def test_a_second_referee_on_the_same_journal_is_told_who_has_it(held_journal: Path) -> None:
    result = _run(held_journal.parent, [*RUN, "--game", "three-dragons"])
    assert result.returncode == 2
    (line,) = result.stderr.splitlines()
    assert "in use by another referee" in line and f"pid {os.getpid()}" in line


def test_a_second_referee_on_the_same_port_is_told_who_has_it(tmp_path: Path) -> None:
    master, slave = os.openpty()
    device = os.ttyname(slave)
    held = serial.serial_for_url(device, exclusive=True)
    try:
        result = _run(tmp_path, ["run", "--no-kiosk", "--game", "vanguard", "--port", device,
                                 "--journal", "j.sqlite3"])  # fmt: skip
    finally:
        held.close()
        os.close(master)
        os.close(slave)
    assert result.returncode == 2, result.stderr
    (line,) = result.stderr.splitlines()
    assert "in use by" in line and f"pid {os.getpid()}" in line and "one referee" in line
    # Nothing was played: no unfinished game is left to block the next start.
    db = sqlite3.connect(tmp_path / "j.sqlite3")
    assert db.execute("SELECT COUNT(*) FROM games WHERE status = 'playing'").fetchone() == (0,)
    db.close()
