"""The arena: two engines play a match through the engine protocol, sides alternating, and it
prints wins, draws and losses with a 95% interval, plies and thinking time.

Each side is an engine process (docs/engine.md): ``search`` (this project's engine, at
``search:3`` a level), ``random``, ``greedy`` or ``flat`` (the opponents it is measured
against), ``ludii:UCT`` or ``ludii:Alpha-Beta`` (Ludii's own AIs, through tools/ludii_engine.py;
give ``--ludii DIR``), or ``cmd:COMMAND`` for any program that speaks the protocol. The arena
keeps the game itself (the project's engine): every move an engine sends is checked, an illegal
move loses that game, a late one (past the time asked plus 100 ms) is counted and printed, and
a game still going after ``--max-plies`` is a draw.

Run: ``python tools/arena.py --game vanguard --a search --b flat --movetime 1000 --games 40``
(``--compiled``: the engines run on this checkout's compiled engine, tools/compiled_engine.py).
"""

from __future__ import annotations

import argparse
import math
import os
import shlex
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from firmware_bridge.link import catalog
from firmware_bridge.opponent.client import EngineError, EngineProcess, engine_command

ROOT = Path(__file__).resolve().parent.parent
LATE_S = 0.1  # the protocol's promise: bestmove within the time asked plus 100 ms


@dataclass
class Side:
    spec: str
    movetime_ms: int | None
    nodes: int | None
    thinking: list[float] = field(default_factory=list)
    late: int = 0

    def command(self, args: argparse.Namespace) -> list[str]:
        kind, _, rest = self.spec.partition(":")
        if kind == "cmd":
            return shlex.split(rest)
        if kind == "ludii":
            if args.ludii is None:
                raise SystemExit("arena: ludii sides need --ludii DIR (Ludii's build)")
            extra = ["--vanguard-lud", str(args.vanguard_lud)] if args.vanguard_lud else []
            return [sys.executable, str(ROOT / "tools" / "ludii_engine.py"),
                    "--ludii", str(args.ludii), "--ai", rest or "UCT", *extra]  # fmt: skip
        player = {"search": "search", "random": "random", "greedy": "greedy", "flat": "flat"}
        if kind not in player:
            raise SystemExit(f"arena: unknown engine {self.spec!r}")
        seed = ["--seed", str(args.seed)] if args.seed is not None else []
        return engine_command("--player", player[kind], *seed)


def wilson(score: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% interval of a score (draws counting a half) over ``n`` games."""
    if n == 0:
        return 0.0, 1.0
    p = score / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def play_game(
    game_id: str, options: dict[str, str], engines: dict[int, EngineProcess],
    sides: dict[int, Side], max_plies: int, *, moves: list[str],
) -> tuple[float | None, int, str]:  # fmt: skip
    """One game: (player 1's result, or None for no result: a game still going at the ply
    limit, or one an engine could not follow; plies; why). ``moves`` hears the game's moves."""
    game = catalog.load_game(game_id, options)
    state = game.new_state()
    while state.outcome() is None:
        if len(moves) >= max_plies:
            return None, len(moves), f"draw: still going after {max_plies} plies"
        player = int(state.to_move)
        side, engine = sides[player], engines[player]
        try:
            engine.position(moves)
        except EngineError as exc:  # it cannot follow the game (Ludii's rules differ): no result
            return None, len(moves), f"void: player {player}'s engine cannot follow: {exc}"
        try:
            answer = engine.go(side.movetime_ms, side.nodes)
        except EngineError as exc:
            return (0.0 if player == 1 else 1.0), len(moves), f"player {player}'s engine: {exc}"
        side.thinking.append(answer.seconds)
        if side.movetime_ms is not None and answer.seconds > side.movetime_ms / 1000 + LATE_S:
            side.late += 1
        try:
            move = state.parse(answer.move)
            if not state.is_legal(move):
                raise ValueError("illegal")
        except Exception:
            return (0.0 if player == 1 else 1.0), len(moves), f"illegal {answer.move}"
        moves.append(state.notation(move))
        state.apply(move)
    outcome = state.outcome()
    assert outcome is not None
    if outcome.winner is None:
        return 0.5, len(moves), outcome.reason
    return (1.0 if outcome.winner.value == 1 else 0.0), len(moves), outcome.reason


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", required=True)
    parser.add_argument("--option", action="append", default=[], help="KEY=VALUE, repeatable")
    parser.add_argument("--a", default="search", help="the engine measured")
    parser.add_argument("--b", default="random", help="its opponent")
    parser.add_argument("--movetime", type=int, default=1000, help="ms a move, both sides")
    parser.add_argument("--movetime-b", type=int, help="ms a move for B, if not the same")
    parser.add_argument("--nodes", type=int, help="a fixed search instead of a time (A and B)")
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--max-plies", type=int, default=600)
    parser.add_argument("--seed", type=int, help="seeds the project's engines")
    parser.add_argument("--compiled", action="store_true",
                        help="run the project's engines on the compiled engine")  # fmt: skip
    parser.add_argument("--ludii", type=Path, help="Ludii's build folder (ludii sides)")
    parser.add_argument("--vanguard-lud", type=Path, help="Vanguard's .lud for Ludii")
    parser.add_argument("--quiet", action="store_true", help="no line per game")
    parser.add_argument("--moves", action="store_true",
                        help="print each game's moves after its line (to replay it)")  # fmt: skip
    args = parser.parse_args()
    options = dict(pair.split("=", 1) for pair in args.option)
    env: dict[str, str] = {}
    cwd = None
    if args.compiled:  # its folder first, and run from it: the checkout's sources come after
        sys.path.insert(0, str(ROOT / "tools"))
        from compiled_engine import compiled_engine

        cwd = str(compiled_engine())
        env["PYTHONPATH"] = os.pathsep.join([cwd, str(ROOT)])
    nodes = args.nodes
    a = Side(args.a, None if nodes else args.movetime, nodes)
    b = Side(args.b, None if nodes else (args.movetime_b or args.movetime), nodes)
    wins = draws = losses = void = 0
    plies: list[int] = []
    started = time.monotonic()
    engine_a = EngineProcess(a.command(args), env=env, name=f"A ({a.spec})", cwd=cwd)
    engine_b = EngineProcess(b.command(args), env=env, name=f"B ({b.spec})", cwd=cwd)
    with engine_a, engine_b:
        for engine in (engine_a, engine_b):
            engine.new_game(args.game, options, timeout=120)  # Ludii warms up first
        for number in range(args.games):
            a_is = 1 if number % 2 == 0 else 2  # sides alternate
            engines = {a_is: engine_a, 3 - a_is: engine_b}
            sides = {a_is: a, 3 - a_is: b}
            moves: list[str] = []
            result, length, why = play_game(args.game, options, engines, sides, args.max_plies,
                                            moves=moves)  # fmt: skip
            if why.startswith("void"):
                void += 1
                print(f"game {number + 1}: {why}", flush=True)
                continue
            plies.append(length)
            a_result = 0.5 if result is None else (result if a_is == 1 else 1.0 - result)
            if a_result == 1.0:
                wins += 1
            elif a_result == 0.0:
                losses += 1
            else:
                draws += 1
            if not args.quiet:
                print(f"game {number + 1}: A plays {a_is}, A scores {a_result} in {length} "
                      f"plies ({why})", flush=True)  # fmt: skip
            if args.moves:
                print("  moves: " + " ".join(moves), flush=True)
    n = wins + draws + losses
    score = wins + draws / 2
    low, high = wilson(score, n)
    where = " ".join([args.game, *args.option])
    print(f"{where}: A={a.spec} against B={b.spec}, "
          f"{'nodes ' + str(nodes) if nodes else str(args.movetime) + ' ms a move'}")  # fmt: skip
    print(f"A: {wins} wins, {draws} draws, {losses} losses of {n}: score {score / n:.1%} "
          f"(95% interval {low:.1%} to {high:.1%})")  # fmt: skip
    if void:
        print(f"{void} games void: an engine could not follow the game (not counted)")
    print(f"plies a game: mean {statistics.mean(plies):.0f}, max {max(plies)}; "
          f"{(time.monotonic() - started) / 60:.1f} min")  # fmt: skip
    for name, side in (("A", a), ("B", b)):
        if side.thinking:
            print(f"{name} thinking: mean {statistics.mean(side.thinking) * 1000:.0f} ms, "
                  f"max {max(side.thinking) * 1000:.0f} ms, late {side.late}")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
