"""``board-referee engine``: the protocol's every line and every error, through a real engine
process, as any driver (the referee, the arena, a GUI) meets it (docs/engine.md)."""

from __future__ import annotations

import os
import random
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.search import random_move
from firmware_bridge.link import catalog
from firmware_bridge.opponent.client import EngineError, EngineProcess, engine_command
from firmware_bridge.opponent.protocol import (
    ProtocolError,
    Request,
    Verb,
    format_request,
    parse_request,
)

GAMES = ["goats-wintering", "protect-the-goat", "the-lion-game", "three-dragons", "vanguard"]


@pytest.fixture(scope="module")
def engine() -> Iterator[EngineProcess]:
    process = EngineProcess(engine_command("--seed", "11"))
    yield process
    process.close()


def test_the_lines_of_the_issue_work_as_written(engine: EngineProcess) -> None:
    assert engine.ask("game goats-wintering board=2-4-hex gap=3") == "ok"
    assert engine.ask("position") == "ok"
    first = engine.go(movetime_ms=300)
    state = catalog.load_game("goats-wintering").new_state()
    assert state.is_legal(state.parse(first.move))
    assert first.infos and first.infos[-1].playouts > 0  # info lines: depth, playouts, score
    assert engine.ask("position moves G@A1 pass") == "ok"
    second = engine.go(nodes=50)
    state.apply(state.parse("G@A1"))
    state.apply(state.parse("pass"))
    assert state.is_legal(state.parse(second.move))
    assert engine.ask("isready") == "readyok"


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ("bogus", "unknown command 'bogus'"),
        ("game", "name the game"),
        ("game chess", "unknown game 'chess'"),
        ("game vanguard colour=red", "colour: unknown option"),
        ("game goats-wintering gap=7", "gap"),
        ("game vanguard colour", "is not NAME=VALUE"),
        ("position moves Z9", "move 1 (Z9)"),
        ("position moves C2-C3 C2-C3", "move 2 (C2-C3)"),
        ("position sideways", "expected 'moves'"),
        ("go movetime abc", "expected a whole number"),
        ("go movetime 0", "out of range"),
        ("go nodes", "needs a number"),
        ("go depth 3", "unknown limit 'depth'"),
        ("setoption name level value 9", "not a level"),
        ("setoption name hash value 64", "unknown option 'hash'"),
        ("setoption level 3", "setoption name NAME value VALUE"),
        ("isready now", "takes nothing after it"),
    ],
)
def test_a_bad_line_is_an_error_naming_it_and_the_engine_goes_on(
    engine: EngineProcess, line: str, says: str
) -> None:
    engine.ask("game vanguard")
    with pytest.raises(EngineError, match=re.escape(says)):
        engine.ask(line)
    assert engine.ask("isready") == "readyok"


def test_go_before_a_game_and_after_its_end_are_errors() -> None:
    with EngineProcess() as fresh:
        with pytest.raises(EngineError, match="no game yet"):
            fresh.go(nodes=10)
        with pytest.raises(EngineError, match="no game yet"):
            fresh.ask("position")
        fresh.ask("game protect-the-goat")
        # A game played out at random, then asked for a move: the game is over.
        state = catalog.load_game("protect-the-goat").new_state()
        rng = random.Random(3)
        while state.outcome() is None:
            move = random_move(state, rng)
            state.apply(move)
        texts = []
        replay = catalog.load_game("protect-the-goat").new_state()
        for move in state.history:
            texts.append(replay.notation(move))
            replay.apply(move)
        fresh.position(texts)
        with pytest.raises(EngineError, match="the game is over"):
            fresh.go(nodes=10)


def _cpu_seconds(pid: int) -> float:
    """The processor time a process has used (user and system), from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_bestmove_comes_within_the_time_asked_plus_100_ms(engine: EngineProcess) -> None:
    """The engine stops its search on time: the processor time it spends on a move stays
    within the time asked plus 100 ms. (Its wall time is the machine's to give: on the
    suite's four workers sharing two cores a 50 ms search once took 820 ms of wall time
    with the engine waiting for a core; a hung search still fails the loose wall bound.)"""
    engine.ask("game the-lion-game")
    engine.position()
    for movetime in (50, 200, 400):
        start, used = time.monotonic(), _cpu_seconds(engine.pid)
        answer = engine.go(movetime_ms=movetime)
        spent = _cpu_seconds(engine.pid) - used
        took = time.monotonic() - start
        assert spent <= movetime / 1000 + 0.1, (movetime, spent)
        assert took <= movetime / 1000 + 5.0, (movetime, took)
        assert answer.move


def test_a_first_go_keeps_to_its_time_in_vanguard() -> None:
    """Issue 66: a game's first ``go`` keeps to its time like any other: what the game needs
    once (Vanguard's solved hunt) is made by ``game``, before the referee's clock runs (the
    referee loads the game when the computer is seated, Computer.prepare). The first go's
    processor time stays within the time asked plus 100 ms, measured as the engine's own (a
    loaded machine's wall time is the machine's to give)."""
    fresh = EngineProcess(engine_command("--seed", "3"))
    try:
        fresh.ask("game vanguard")
        fresh.level(5)
        fresh.position()
        used = _cpu_seconds(fresh.pid)
        answer = fresh.go(movetime_ms=200)
        spent = _cpu_seconds(fresh.pid) - used
        assert answer.move and spent <= 0.3, spent
    finally:
        fresh.close()


def test_the_same_seed_position_and_nodes_give_the_same_move() -> None:
    answers = []
    for _ in range(2):
        with EngineProcess(engine_command("--seed", "5")) as process:
            process.new_game("three-dragons", {"variant": "dragons"})
            process.position(["d2-d3", "d8-d7"])
            answers.append(process.go(nodes=300).move)
            process.position(["d2-d3", "d8-d7"])
            answers.append(process.go(nodes=300).move)  # again, in the same process
    assert len(set(answers)) == 1, answers


def test_stop_ends_a_search_at_once(engine: EngineProcess) -> None:
    engine.ask("game vanguard")
    engine.position()
    start = time.monotonic()
    engine.send(Request(Verb.GO, movetime_ms=60_000))
    time.sleep(0.3)
    engine.send("stop")
    line = ""
    while not line.startswith("bestmove"):  # info lines, then the move found so far
        line = engine._next(time.monotonic() + 5)
    assert time.monotonic() - start < 3
    state = catalog.load_game("vanguard").new_state()
    assert state.is_legal(state.parse(line.split()[1]))


@pytest.mark.parametrize("ending", ["quit", "end of input"])
def test_quit_or_the_end_of_the_input_ends_a_search_at_once(ending: str) -> None:
    """A referee that quits, or goes (its pipe closes), leaves no search burning the Pi's
    processor for the rest of a minute's movetime: the engine answers and ends at once."""
    import subprocess

    proc = subprocess.Popen(engine_command(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True)  # fmt: skip
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write("game vanguard\nposition\nisready\n")
    proc.stdin.flush()
    while proc.stdout.readline().strip() != "readyok":
        pass
    proc.stdin.write("go movetime 60000\n")
    proc.stdin.flush()
    time.sleep(0.3)  # the search is under way
    start = time.monotonic()
    if ending == "quit":
        proc.stdin.write("quit\n")
    proc.stdin.close()
    try:
        assert proc.wait(10) == 0
    finally:
        proc.kill()
    assert time.monotonic() - start < 5
    assert any(line.startswith("bestmove") for line in proc.stdout.read().splitlines())


def test_a_long_bad_line_is_quoted_short(engine: EngineProcess) -> None:
    """An error quotes a short piece of a bad line: 100 KB in is not 100 KB out."""
    with pytest.raises(EngineError) as refused:
        engine.ask("x" * 100_000)
    assert "unknown command 'xxxx" in str(refused.value) and len(str(refused.value)) < 200
    assert engine.ask("isready") == "readyok"


@pytest.mark.parametrize("game_id", GAMES)
def test_every_choice_the_rules_leave_is_a_move_of_the_protocol(game_id: str) -> None:
    """Self-play through the protocol, a few plies at a time: placements, passes and
    Protect the Goat's battle choices all come back as legal moves."""
    game = catalog.load_game(game_id)
    state = game.new_state()
    with EngineProcess(engine_command("--seed", "2")) as process:
        process.new_game(game_id)
        process.level(1)  # quick, and with slips: a wider spread of positions
        texts: list[str] = []
        while state.outcome() is None and state.plies < 24:
            process.position(texts)
            move = state.parse(process.go(nodes=20).move)
            assert state.is_legal(move), (texts, move)
            texts.append(state.notation(move))
            state.apply(move)


def test_requests_round_trip_through_their_lines() -> None:
    for line in ("game goats-wintering board=5x5 gap=2", "position", "position moves a b",
                 "go movetime 100", "go nodes 5", "go movetime 100 nodes 5",
                 "setoption name level value 3", "isready", "stop", "quit"):  # fmt: skip
        request = parse_request(line)
        assert request is not None
        assert format_request(request) == line
    assert parse_request("   ") is None
    with pytest.raises(ProtocolError):
        parse_request("go movetime")
