"""Ludii's own AIs behind the engine protocol, so the arena can play the project's engine
against them (docs/engine.md, "Against Ludii").

This speaks the protocol on standard input and output like ``board-referee engine``, and
drives ``tools/ludii/LudiiBridge.java`` (a small program of ours over Ludii's classes): every
move the arena sends is found among Ludii's legal moves by the board it produces (owner and
piece on every cell, and who moves next), and Ludii's choice is turned back into the project's
notation the same way. Ludii's JIT is warmed with ten seconds of random playouts at the first
``game``: cold, Ludii runs several times slower.

Ludii is not part of the project: build it from its public sources (docs/engine.md says how)
and point ``--ludii`` at the build (its ``classes``, ``Common/lib`` and ``Common/res``).
Run: ``python tools/ludii_engine.py --ludii DIR --ai UCT [--vanguard-lud FILE]``.
``--bench GAME`` instead prints Ludii's random playouts a second on that game.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from engine import Game, Move, State
from firmware_bridge.link import catalog
from firmware_bridge.opponent.protocol import ProtocolError, Verb, parse_request

HERE = Path(__file__).resolve().parent
# Ludii's piece names, without the player number, as the project's kinds.
KINDS = {
    "goats-wintering": {"disc": "goat", "goat": "goat"},
    "vanguard": {"knight": "outrider", "goat": "ram", "prince": "captain", "flag": "flag"},
}
GOATS_LUD = "Common/res/lud/board/space/territory/Goats Wintering.lud"
WARM_MS = 10_000


def goats_options(game: Game) -> str:
    """The project's Goats Wintering options in Ludii's words."""
    board = str(game.options["board"])
    if board == "2-4-hex":
        item = "2-4 Hex"
    elif board.endswith("-limp"):
        size = board.split("-", maxsplit=1)[0]
        item = f"{size} {'limp' if size == '10' else 'Limp'}"
    elif board.endswith("-tri"):
        item = f"{board.split('-', maxsplit=1)[0]} Tri"
    else:
        item = board
    return f"Board Size/{item};Placements/Gap {game.options['gap']}"


def same_board(ours: str, ludii: str) -> bool:
    """Whether the project's board (``mover=0`` once the game is over) is Ludii's. A player
    left with no move has lost here at once, where Ludii still names them to move (it makes
    them pass first, docs/rules/vanguard.md): the cells decide then."""
    if ours == ludii:
        return True
    mover, _, cells = ours.partition(" ")
    return mover == "mover=0" and cells == ludii.partition(" ")[2]


class Bridge:
    """The Java side: one process, one line at a time."""

    def __init__(self, ludii: Path, ai: str) -> None:
        build = Path(tempfile.mkdtemp(prefix="ludii-bridge-"))
        classpath = f"{ludii / 'classes'}:{ludii / 'Common/lib'}/*"
        subprocess.run(["javac", "-nowarn", "-cp", classpath, "-d", str(build),
                        str(HERE / "ludii" / "LudiiBridge.java")], check=True)  # fmt: skip
        self.process = subprocess.Popen(
            ["java", "-Xmx2g", "-cp", f"{build}:{classpath}:{ludii / 'Common/res'}",
             "LudiiBridge"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1,
        )  # fmt: skip
        self.ask(f"ai {ai}")

    def ask(self, line: str) -> list[str]:
        """Send a line; its answer's lines (a listing up to its ``end``)."""
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()
        lines: list[str] = []
        while True:
            answer = self.process.stdout.readline()
            if not answer:
                raise ProtocolError("Ludii stopped")
            answer = answer.rstrip("\n")
            if answer.startswith("error"):
                raise ProtocolError(f"Ludii: {answer[6:]}")
            lines.append(answer)
            if not answer.startswith("move "):
                return lines


class LudiiEngine:
    def __init__(self, ludii: Path, ai: str, vanguard_lud: Path | None) -> None:
        self.ludii = ludii
        self.bridge = Bridge(ludii, ai)
        self.vanguard_lud = vanguard_lud
        self.game: Game | None = None
        self.state: State | None = None
        self.played: list[str] = []  # the moves Ludii's trial holds
        self.warm = False

    def load(self, game_id: str, options: dict[str, str]) -> None:
        game = catalog.load_game(game_id, options)
        if game_id == "goats-wintering":
            self.bridge.ask(f"load {self.ludii / GOATS_LUD}|{goats_options(game)}")
        elif game_id == "vanguard":
            if self.vanguard_lud is None:
                raise ProtocolError("vanguard: give --vanguard-lud (Ludii's Vanguard.lud)")
            self.bridge.ask(f"load {self.vanguard_lud}")
        else:
            raise ProtocolError(f"{game_id}: Ludii has no reference for this game")
        if not self.warm:
            self.bridge.ask(f"warm {WARM_MS}")
            self.warm = True
        self.game, self.state, self.played = game, game.new_state(), []

    def board(self, state: State) -> str:
        """A position as the bridge writes it: who moves next, then every occupied cell."""
        assert self.game is not None
        mover = 0 if state.outcome() is not None else int(state.to_move)
        cells = [f"{self.game.board.names[cell]}:{int(piece.owner)}:{piece.kind}"
                 for cell, piece in sorted(state.layout().items())]  # fmt: skip
        return " ".join([f"mover={mover}", *sorted(cells)])

    def ludii_board(self, text: str) -> str:
        assert self.game is not None
        kinds = KINDS[self.game.id]
        words = text.split()
        cells = []
        for word in words[1:]:
            label, owner, name = word.split(":")
            kind = kinds.get(re.sub(r"\d+$", "", name).lower(), name)
            cells.append(f"{label}:{owner}:{kind}")
        return " ".join([words[0], *sorted(cells)])

    def position(self, moves: tuple[str, ...]) -> None:
        assert self.game is not None
        if list(moves[: len(self.played)]) != self.played:
            self.bridge.ask("reset")
            self.played = []
        state = self.game.new_state()
        for text in moves[: len(self.played)]:
            state.apply(state.parse(text))
        for text in moves[len(self.played) :]:
            state.apply(state.parse(text))
            want = self.board(state)
            listing = self.bridge.ask("moves")
            found = [line.split(" ", 2)[1] for line in listing[:-1]
                     if same_board(want, self.ludii_board(line.split(" ", 2)[2]))]  # fmt: skip
            if not found:
                raise ProtocolError(f"Ludii has no move to the board after {text}: {want}")
            self.bridge.ask(f"apply {found[0]}")
            self.played.append(text)
        self.state = state

    def go(self, movetime_ms: int) -> Move:
        state = self.state
        assert state is not None
        chose = self.bridge.ask(f"think {movetime_ms}")[-1]
        want = self.ludii_board(chose.split(" ", 1)[1])
        for move in list(state.legal_moves()):
            state.apply(move, check=False)
            board = self.board(state)
            state.undo()
            if same_board(board, want):
                return move
        raise ProtocolError(f"no project move gives Ludii's board {want}")


def serve(engine: LudiiEngine) -> int:
    for line in sys.stdin:
        try:
            request = parse_request(line)
            if request is None:
                continue
            if request.verb is Verb.QUIT:
                break
            if request.verb is Verb.ISREADY:
                print("readyok", flush=True)
            elif request.verb is Verb.GAME:
                engine.load(request.game, dict(request.options))
                print("ok", flush=True)
            elif request.verb is Verb.POSITION:
                engine.position(request.moves)
                print("ok", flush=True)
            elif request.verb is Verb.GO:
                assert engine.state is not None
                move = engine.go(request.movetime_ms or 1000)
                print(f"bestmove {engine.state.notation(move)}", flush=True)
            elif request.verb is Verb.SETOPTION:
                print("ok", flush=True)
        except ProtocolError as exc:
            print(f"error {exc}", flush=True)
    return 0


def bench(ludii: Path, game_id: str, options: dict[str, str], vanguard_lud: Path | None,
          seconds: float) -> None:  # fmt: skip
    engine = LudiiEngine(ludii, "Random", vanguard_lud)
    engine.load(game_id, options)
    engine.bridge.ask("warm 10000")  # the JIT compiles the playout first: cold, it is slower
    answer = engine.bridge.ask(f"bench {int(seconds * 1000)}")[-1].split()
    playouts, plies, took = int(answer[2]), int(answer[4]), float(answer[6])
    print(f"Ludii {game_id} {options or ''}: {playouts / took:.0f} playouts/s, "
          f"{plies / took:.0f} plies/s")  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ludii", type=Path, required=True, help="Ludii's build folder")
    parser.add_argument("--ai", default="UCT", help="Ludii's AI: UCT, Alpha-Beta, ...")
    parser.add_argument("--vanguard-lud", type=Path, help="Vanguard's .lud (not in Ludii's repo)")
    parser.add_argument("--bench", metavar="GAME", help="print Ludii's random playouts a second")
    parser.add_argument("--option", action="append", default=[], help="KEY=VALUE for --bench")
    parser.add_argument("--seconds", type=float, default=5.0, help="--bench's length")
    args = parser.parse_args()
    if args.bench:
        options = dict(pair.split("=", 1) for pair in args.option)
        bench(args.ludii, args.bench, options, args.vanguard_lud, args.seconds)
        return 0
    return serve(LudiiEngine(args.ludii, args.ai, args.vanguard_lud))


if __name__ == "__main__":
    raise SystemExit(main())
