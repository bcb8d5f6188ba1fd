"""The flight recorder (issue 29): every frame with the board and every decision kept in the
journal, and ``board-referee replay`` running this referee again over them."""

from __future__ import annotations

import gzip
import json
import os
import re
import signal
import sqlite3
import subprocess
import time
import zlib
from pathlib import Path
from typing import Any

import pytest

from firmware_bridge.referee.journal import read_recording
from tests.e2e import PYTHON, DaemonProcess, EmulatorProcess, wait_until
from tests.helpers import GOAT_IN_REACH
from tests.test_end_to_end import TD_POSITION, Rig, make


def replay_of(journal: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*PYTHON, "replay", str(journal), "--quiet", *args],
                          capture_output=True, text=True, timeout=300, check=False)  # fmt: skip


def played_with_faults(rigs: list[Rig], tmp_path: Path) -> Rig:
    """A capture, an illegal move put right, the cable out mid-move, a take-back, a power cut
    and the restart that resumes the game: every path the refereeing has."""
    rig = make(rigs, tmp_path, "three-dragons", "three-dragons", position=TD_POSITION)
    emu, daemon = rig.emu, rig.daemon
    emu.do("play c2-c4")
    emu.do("expect d4=remove")
    emu.do("lift d4")
    emu.do("expect none")
    emu.do("move h8 g6")  # Black: not a rook's move
    emu.do("expect g6=illegal h8=put_back")
    emu.do("move g6 h8")
    emu.do("expect none")
    emu.do("lift h8")
    emu.do("unplug")
    emu.do("place h6")  # finished while the cable was out
    daemon.wait_log("board disconnected")
    emu.do("replug")
    daemon.wait_moves(["c2-c4", "h8-h6"])
    emu.do("press takeback")
    daemon.wait_log("took back h8-h6")
    emu.do("move h6 h8")
    daemon.wait_log("Black to move")
    emu.do("play h8-h7")
    daemon.wait_moves(["c2-c4", "h8-h7"])
    # The power cut comes once the move's turn is in the recording too (written just after the
    # move itself: a cut between the two loses that turn's recording, not the move).
    wait_until(lambda: ("m", "h8-h7") in read_recording(daemon.journal, 1).entries, 30,
               daemon.text)  # fmt: skip
    ready = daemon.text().count("White to move")
    daemon.kill(signal.SIGKILL)  # a power cut: what was not yet written is lost
    daemon.start()
    daemon.wait_log("resuming game 1 .* after 2 moves")
    deadline = time.monotonic() + 30  # the board checked against the journal: play on
    while daemon.text().count("White to move") <= ready and time.monotonic() < deadline:
        time.sleep(0.05)
    emu.do("play h2-h3")
    daemon.wait_moves(["c2-c4", "h8-h7", "h2-h3"])
    assert daemon.stop() == 0
    return rig


def test_a_session_with_faults_and_a_restart_replays_identically(
    rigs: list[Rig], tmp_path: Path
) -> None:
    rig = played_with_faults(rigs, tmp_path)
    result = replay_of(rig.daemon.journal)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "game 1: 2 sessions" in result.stdout and "decided identically" in result.stdout
    short = subprocess.run([*PYTHON, "replay", str(rig.daemon.journal)], capture_output=True,
                           text=True, timeout=300, check=True).stdout  # fmt: skip
    assert short.splitlines() == [  # the verdict and a short summary, no frames
        "game 1: 3 moves (stone c2 to c4, stone h8 to h7, stone h2 to h3)",
        next(line for line in short.splitlines() if line.startswith("game 1: 2 sessions")),
    ], short
    verbose = [*PYTHON, "replay", str(rig.daemon.journal), "--verbose"]
    loud = subprocess.run(verbose, capture_output=True, text=True, timeout=300,
                          check=True).stdout  # fmt: skip
    for decided in ("move c2-c4", "showed: illegal move", "move h8-h6", "took back 1",
                    "move h2-h3", "sent a change of lights: LED"):  # fmt: skip
        assert decided in loud, decided

    # Item 3: the timeline an arbiter opens; the disputed move and what lay under it.
    from firmware_bridge.referee.timeline import timeline_of

    timeline = timeline_of(rig.daemon.journal, 1)
    steps = timeline["steps"]
    assert isinstance(steps, list)
    assert [(s["move"], s["taken_back"]) for s in steps] == [
        ("c2-c4", False), ("h8-h6", True), ("h8-h7", False), ("h2-h3", False)]  # fmt: skip
    assert steps[0]["player"] == "White" and steps[1]["player"] == "Black"
    capture = [(e["kind"], e["text"]) for e in steps[0]["events"]]
    assert ("sensor", "c4: White's piece") in capture  # the move's own sensors ...
    assert ("leds", "take off the captured piece on d4") in capture and (
        "sensor",
        "d4: empty",
    ) in capture  # ... and
    disputed = steps[1]  # its aftermath, the capture taken off
    assert {"illegal", "board off", "taken back"} <= set(disputed["marks"])
    said = [(e["kind"], e.get("cell", ""), e["text"]) for e in disputed["events"]]
    at = said.index(("sensor", "g6", "g6: Black's piece"))
    assert ("leds", "", "take away the piece on g6; put a piece back on h8") in said[at:]
    assert any(k == "shown" and t.startswith("illegal move (pieces move in a straight line")
               for k, _, t in said[at:])  # fmt: skip
    assert any(t.startswith("The board disconnected") for _, _, t in said)
    assert ("takeback", "", "took back 1 move") in [(e["kind"], "", e["text"])
                                                     for e in steps[2]["events"]]  # fmt: skip
    assert all(e["at"].startswith("20") for s in steps for e in s["events"])  # wall clock kept
    restart = [e["text"] for e in steps[3]["events"]]
    assert "the referee started and resumed the game" in restart

    # Another referee decides otherwise: here, the recording says the first move was another.
    db = sqlite3.connect(rig.daemon.journal)
    chunks = db.execute("SELECT rowid, data FROM recordings ORDER BY rowid").fetchall()
    rowid, text = next((r, zlib.decompress(d).decode()) for r, d in chunks
                       if b'["m","c2-c4"]' in zlib.decompress(d))  # fmt: skip
    db.execute(
        "UPDATE recordings SET data = ? WHERE rowid = ?",
        (zlib.compress(text.replace('["m","c2-c4"]', '["m","c2-c3"]').encode()), rowid),
    )
    db.commit()
    db.close()
    changed = replay_of(rig.daemon.journal)
    assert changed.returncode == 1
    assert "recorded: move c2-c3" in changed.stdout and "now:      move c2-c4" in changed.stdout
    assert "1 difference" in changed.stdout


def test_a_damaged_or_newer_recording_says_where_and_replays_what_it_can(
    rigs: list[Rig], tmp_path: Path
) -> None:
    rig = make(rigs, tmp_path, "three-dragons", "three-dragons", position=TD_POSITION)
    rig.emu.do("play c2-c4")
    rig.daemon.wait_moves(["c2-c4"])
    assert rig.daemon.stop() == 0
    journal = rig.daemon.journal
    db = sqlite3.connect(journal)
    chunks = db.execute("SELECT rowid, chunk, data FROM recordings ORDER BY rowid").fetchall()
    rowid, number, data = chunks[-1]
    db.execute("UPDATE recordings SET data = ? WHERE rowid = ?", (data[: len(data) // 2], rowid))
    db.commit()
    damaged = replay_of(journal)
    assert damaged.returncode == 1 and "Traceback" not in damaged.stderr
    assert f"game 1's recording, chunk {number} is cut short" in damaged.stderr, damaged.stderr
    assert re.search(r"game 1: 1 session, [1-9]\d* turns", damaged.stdout)  # the rest
    # A recording from a newer version of the format: named, not guessed at.
    first = db.execute("SELECT rowid, data FROM recordings ORDER BY rowid").fetchone()
    text = zlib.decompress(first[1]).decode().replace('"format":1', '"format":9', 1)
    db.execute(
        "UPDATE recordings SET data = ? WHERE rowid = ?", (zlib.compress(text.encode()), first[0])
    )
    db.commit()
    db.close()
    newer = replay_of(journal)
    assert newer.returncode == 1 and "Traceback" not in newer.stderr
    assert "in recording format 9; this version reads format 1" in newer.stderr, newer.stderr


def test_the_cap_drops_the_oldest_finished_games_recordings_never_their_moves(
    tmp_path: Path,
) -> None:
    from engine import Outcome, Player
    from firmware_bridge.link import catalog
    from firmware_bridge.referee.journal import Journal
    from firmware_bridge.referee.recorder import pack

    game = catalog.load_game("three-dragons")
    noise = [("i", float(n), float(n), os.urandom(40).hex()) for n in range(400)]
    size = len(pack(noise))  # random frames: a chunk packs to about 18 KB
    journal = Journal(tmp_path / "j.sqlite3", record_cap=int(3.5 * size))
    first = journal.start_game(game, "three-dragons", None)
    journal.record_move(first, "c1-c4")
    journal.record_chunk(first, [("S", 0.0, {"format": 1}), *noise])
    journal.finish(first, Outcome(Player.ONE, "a test"))
    second = journal.start_game(game, "three-dragons", None)
    journal.record_move(second, "c1-c4")
    for _ in range(2):
        journal.record_chunk(second, noise)
    assert journal.recorded_games() == [first, second]  # 3 chunks: under the cap
    third_chunk = [(kind, t + 1000, at, data) for kind, t, at, data in noise]
    journal.record_chunk(second, third_chunk)  # over it: the finished game's recording goes
    assert journal.recorded_games() == [second]
    assert journal.moves(first) == ["c1-c4"]  # its moves stay
    assert len(journal.recording_for(second)) == 3 * len(noise)  # the game played: whole
    journal.close()


def test_a_report_replays_on_its_own_board_files_and_withholds_names_unless_asked(
    rigs: list[Rig], tmp_path: Path
) -> None:
    """Item 4: ``board-referee report`` packs one game's record, board profile, versions and
    options in one file; ``replay`` takes it, with the board files it carries."""
    from engine import Player
    from firmware_bridge.link import catalog
    from firmware_bridge.referee.journal import Journal

    start = GOAT_IN_REACH
    game = catalog.load_game("protect-the-goat")
    journal = Journal(tmp_path / "journal.sqlite3")  # Ann and Annika play it, named
    journal.start_game(game, "protect-the-goat", game.state_from_json(start).to_json(),
                       ("Ann", "Annika"))  # fmt: skip
    journal.close()
    rig = make(rigs, tmp_path, "protect-the-goat", "protect-the-goat", position=start)
    rig.emu.do("play a5-a6")  # the lyon steps next to the goat: the battle takes it
    rig.daemon.wait_log("Ann \\(Player 1\\) wins")
    assert rig.daemon.stop() == 0
    assert rig.game.player_names[Player.ONE.index] == "Player 1"

    def report(*args: str) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
        out = tmp_path / "game.report"
        made = subprocess.run([*PYTHON, "report", "--journal", str(rig.daemon.journal), "-o",
                               str(out), *args], capture_output=True, text=True, timeout=120,
                              check=False)  # fmt: skip
        assert made.returncode == 0, made.stdout + made.stderr
        return made, json.loads(gzip.decompress(out.read_bytes()))

    made, packed = report()
    assert "game 1 (Protect the Goat on board protect-the-goat, 1 move, finished)" in made.stdout
    text = json.dumps(packed)
    assert "Ann" not in text and "Annika" not in text, "a name left in the report"
    session = packed["recording"][0]
    assert session[2]["people"] == ["Person 1", "Person 2"] and packed["names_withheld"] is True
    assert packed["game"]["moves"] == ["a5-a6"]
    assert set(packed["configs"]) == {"games/protect-the-goat.yaml", "boards/protect-the-goat.yaml"}
    assert packed["firmware"] and packed["recorded_by"] == [packed["software"]]
    out = tmp_path / "game.report"
    result = replay_of(out)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "game 1: 1 session," in result.stdout and "decided identically" in result.stdout

    # The board files replayed are the report's own: its board wired otherwise decides otherwise.
    configs = packed["configs"]
    assert isinstance(configs, dict)
    board = configs["boards/protect-the-goat.yaml"]
    configs["boards/protect-the-goat.yaml"] = board.replace(
        "start: south-west", "start: north-west"
    )
    other = tmp_path / "other.report"
    other.write_bytes(gzip.compress(json.dumps(packed).encode()))
    assert replay_of(other).returncode == 1
    # ... and a report that is not one is named, never a traceback.
    for damage in (b"\x1f\x8b not gzip", gzip.compress(b"{}"), gzip.compress(b"[1")):
        other.write_bytes(damage)
        refused = replay_of(other)
        assert refused.returncode == 2 and "Traceback" not in refused.stderr, refused.stderr
        assert "other.report" in refused.stderr

    made, named = report("--with-names")
    assert named["recording"][0][2]["people"] == ["Ann", "Annika"]
    assert named["game"]["players"] == ["Ann", "Annika"]
    assert replay_of(out).returncode == 0


def test_names_are_withheld_as_whole_words_wherever_the_recording_holds_them() -> None:
    from firmware_bridge.referee.report import withhold_names

    entries = [
        ("S", 1.0, {"format": 1, "people": ["Ann", " Annika "]}),
        ("s", "Ann (Player 1) to move; Annika waits; Annex b4"),
        ("k", 2.0, {"action": "new_game", "players": ["Bo", "Ann"]}),
        ("r", "Bo (Player 1) wins"),
        ("m", "Ann"),  # a move is never a name, even one spelt like it
    ]
    assert withhold_names(entries) == (
        ("S", 1.0, {"format": 1, "people": ["Person 1", "Person 2"]}),
        ("s", "Person 1 (Player 1) to move; Person 2 waits; Annex b4"),
        ("k", 2.0, {"action": "new_game", "players": ["Person 3", "Person 1"]}),
        ("r", "Person 3 (Player 1) wins"),
        ("m", "Ann"),
    )


def test_a_quiet_board_is_written_every_ten_minutes_and_a_busy_one_every_minute() -> None:
    """Each chunk is a commit that an SD card takes several pages of: a board left alone
    (timers and pings) is written every QUIET_CHUNK_SECONDS, one where something happens
    within CHUNK_SECONDS, as before."""
    from firmware_bridge.referee.recorder import (
        CHUNK_SECONDS,
        QUIET_CHUNK_SECONDS,
        RECEIVED,
        SHOWN,
        TURN,
        Recorder,
    )

    written: list[float] = []
    recorder = Recorder(lambda game, entries: written.append(entries[-1][1]), "test")
    recorder.session(1, 0.0, {})
    for second in range(1, int(QUIET_CHUNK_SECONDS) * 3 + 1):
        kind = RECEIVED if second % 5 == 0 else TURN
        recorder.turn((kind, float(second), float(second), "00") if kind == RECEIVED
                      else (kind, float(second)), float(second))  # fmt: skip
        if second == 700:
            recorder.add((SHOWN, "White is moving"))
    # The session's first chunk after a minute, then quiet until ten minutes after it; the
    # words shown at 700 s go out a minute after that chunk (660 s), then quiet again.
    first, quiet = CHUNK_SECONDS, CHUNK_SECONDS + QUIET_CHUNK_SECONDS
    assert written[:4] == [first, quiet, quiet + CHUNK_SECONDS,
                           quiet + CHUNK_SECONDS + QUIET_CHUNK_SECONDS]  # fmt: skip


def test_every_game_of_an_evenings_journal_replays_and_reports_as_itself(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 51, item 1: four games in one journal and one run (a resignation on the other
    side's turn, a take-back and an agreed draw, a game replaced before its first move, the
    computer). Each
    game's replay and report summarise that game only (its moves, players, the computer's
    side, its result: a resignation or a draw is no move) and decide identically; records
    lists every game's number, and the record names who resigned."""
    from firmware_bridge import cli
    from tests.mosquitto import free_port
    from tests.test_computer import post

    emu = EmulatorProcess(tmp_path, "vanguard", "vanguard")
    daemon = DaemonProcess(tmp_path, "vanguard", "vanguard", emu.link, "--kiosk",
                           f"127.0.0.1:{free_port()}")  # fmt: skip

    def new_game(number: int, body: dict[str, Any], back: list[str]) -> None:
        assert post(url, "api/new-game", body)["ok"]
        wait_until(lambda: daemon.game_id() == number, 30, daemon.text)
        for line in back:
            emu.do(line)
        daemon.wait_log(f"new game {number}")

    try:
        found = re.search(r"kiosk page: (\S+)", daemon.wait_log(r"kiosk page: "))
        assert found is not None
        url = found.group(1)
        daemon.wait_log("to move")
        emu.do("play C2-C3")
        daemon.wait_moves(["C2-C3"])  # Player 2 to move; Player 1 resigns
        assert post(url, "api/result", {"result": "resign", "player": 1})["ok"]
        daemon.wait_log("resigned")
        new_game(2, {"game": "vanguard", "players": ["Ann", "Bob"]}, ["move C3 C2"])
        daemon.wait_log("Ann to move")
        emu.do("play C2-C3")
        daemon.wait_moves(["C2-C3"])
        emu.do("play F7-E6")
        daemon.wait_moves(["C2-C3", "F7-E6"])
        assert post(url, "api/takeback", {})["ok"]
        emu.do("move E6 F7")
        daemon.wait_moves(["C2-C3"])
        emu.do("play G7-H7")
        daemon.wait_moves(["C2-C3", "G7-H7"])
        assert post(url, "api/result", {"result": "draw"})["ok"]
        daemon.wait_log("draw")
        new_game(3, {"game": "vanguard", "players": ["Cy", "Di"]}, ["move C3 C2", "move H7 G7"])
        # Replaced before its first move, Cy and Di's game leaves nothing: Eve's takes its number.
        new_game(3, {"game": "vanguard", "players": ["Eve", ""], "computer": {"2": 1}}, [])
        daemon.wait_log("set aside game 3: nothing was played in it")
        daemon.wait_log("Eve to move")
        emu.do("play C2-C3")
        chosen = re.search(r"the computer chose (\S+)", daemon.wait_log(r"the computer chose"))
        assert chosen is not None
        emu.do(f"play {chosen.group(1)}")
        wait_until(lambda: len(daemon.moves(3)) == 2, 30, daemon.text)
        emu.do("follow 20", timeout=60)  # what the move makes happen (a flag that follows):
        assert post(url, "api/result", {"result": "resign", "player": 1})["ok"]  # then resign
        daemon.wait_log("resigned")
    finally:
        daemon.stop()
        emu.close()
    journal = str(daemon.journal)
    computer = chosen.group(1)

    def said(*args: str) -> tuple[int, str]:
        code = cli.main(list(args))
        return code, capsys.readouterr().out

    from firmware_bridge.commands.replay import in_words

    def worded(*moves: str) -> str:  # the moves as a hand made them, as replay says them
        return ", ".join(in_words("vanguard", {}, None, moves, ("", ""), config_dir=None) or [])

    expected = {
        1: ["game 1: 1 move (outrider C2 to C3)", "result: Player 2 wins: Player 1 resigned"],
        2: [f"game 2: 2 moves ({worded('C2-C3', 'G7-H7')})",
            "players: Ann (Player 1) against Bob (Player 2)",
            "result: Draw (agreed by the players)"],
        3: [f"game 3: 2 moves ({worded('C2-C3', computer)})",
            "players: Eve (Player 1) against Computer, level 1 (Player 2)",
            "result: Computer, level 1 (Player 2) wins: Eve (Player 1) resigned"],
    }  # fmt: skip
    for game, lines in expected.items():
        code, out = said("replay", journal, "--game", str(game))
        assert code == 0 and out.splitlines()[: len(lines)] == lines, out
        assert "decided identically" in out.splitlines()[len(lines)]
        report = tmp_path / f"game{game}.report"
        assert said("report", "--journal", journal, "--game", str(game), "-o", str(report))[0] == 0
        code, out = said("replay", str(report))
        withheld = [line.replace("Ann", "Person 1").replace("Bob", "Person 2")
                    .replace("Cy", "Person 1").replace("Di", "Person 2")
                    .replace("Eve", "Person 1") for line in lines]  # fmt: skip
        assert code == 0 and out.splitlines()[1 : len(lines) + 1] == withheld, out
        assert "decided identically" in out
        code, out = said("replay", str(report), "--quiet")  # the verdict alone, no frames
        assert code == 0 and out.splitlines() == [out.splitlines()[-1]], out
    code, out = said("records", "--journal", journal)
    listed = [line.split(": ", 1)[0].split()[-1] for line in out.splitlines()]
    assert listed == ["1", "2", "3"], out
    assert "Ann (Player 1) against Bob (Player 2)" in out and "Cy" not in out, out
    assert ", 1 move: " in out.splitlines()[0], out
    code, text = said("records", "--journal", journal, "--game", "3")
    assert re.search(r"^1\. C2-C3 +# Player 1", text, re.M), text
    assert re.search(r"^   resign:1 +# Player 1 resigned", text, re.M), text
