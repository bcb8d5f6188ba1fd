"""LED update sizes and wire times: whole-board LEDS frames (protocol 1) against LED_DELTA
frames (protocol 2), for self-played games of every game.

Each move is carried out on a simulated board through the real reconciler: the piece is lifted
(hints light), put down (the move is committed, consequences light), and the consequences done
(the lights go out). Every LED frame the referee would send is encoded with the real codec,
once whole and once as a delta against the frame before, and its time on the wire is computed
at 115200 baud and at 9600 baud (common Bluetooth serial modules), 10 bits a byte.
Run: ``python tools/bench_leds.py [--games N] [--game ID]``.
"""

from __future__ import annotations

import argparse
import itertools
import random
import statistics

from engine import Cell, Piece, State
from firmware_bridge.commands.play import choose_move
from firmware_bridge.link import catalog
from firmware_bridge.link.leds import led_frame
from firmware_bridge.link.profile import BoardProfile
from firmware_bridge.link.protocol import Leds, encode_frame, led_delta
from firmware_bridge.referee.reconcile import Reconciler

RATES = (115200, 9600)


class Board:
    """A simulated board read by the real reconciler; keeps every LED frame sent."""

    def __init__(self, state: State, profile: BoardProfile, frames: list[Leds]) -> None:
        self.rec = Reconciler(state, profile)
        self.profile = profile
        self.frames = frames
        self.now = 0.0
        self.last = led_frame({}, profile)

    def show(self, layout: dict[Cell, Piece], *, settle: bool) -> None:
        self.now += 0.01
        self.rec.observe(self.profile.tokens(layout), self.now)
        if settle:
            self.now += self.profile.settle + 0.01
        self.rec.evaluate(self.now)
        frame = led_frame(self.rec.signals, self.profile)
        if frame != self.last:
            self.frames.append(frame)
            self.last = frame


def frames_of_games(game_id: str, games: int, seed: int) -> tuple[BoardProfile, list[Leds]]:
    """Every LED frame the referee sends while ``games`` self-played games are carried out."""
    game = catalog.load_game(game_id)
    profile = catalog.load_profile(None, game)
    frames: list[Leds] = []
    for number in range(games):
        rng = random.Random(seed + number)
        state = game.new_state()
        board = Board(state.copy(), profile, frames)
        plies = 0
        while state.outcome() is None and plies < 300:
            move = choose_move(state, rng, "random")
            before = state.layout()
            footprint = state.footprint(move)
            lifted = {c: p for c, p in before.items() if c not in footprint.hand}
            board.show(lifted, settle=False)  # the hand lifts what it moves: hints
            board.show(footprint.hand_layout(before), settle=True)  # put down: committed
            state.apply(move)
            if board.rec.state.plies != state.plies:  # the board could not tell: stop here
                break
            board.show(state.layout(), settle=True)  # consequences done
            plies += 1
    return profile, frames


def wire(size: int, baud: int) -> float:
    return size * 10 / baud * 1000.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=5, help="self-played games per game")
    parser.add_argument("--game", action="append", help="only these game ids")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(f"{'game':<18} {'LEDs':>5} {'updates':>8} {'whole B':>8} {'delta B':>8} "
          f"{'whole ms @115200':>17} {'delta ms @115200':>17} {'whole ms @9600':>15} "
          f"{'delta ms @9600':>15}")  # fmt: skip
    for game_id in args.game or catalog.game_ids():
        profile, frames = frames_of_games(game_id, args.games, args.seed)
        whole = [len(encode_frame(frame, 0)) for frame in frames]
        deltas = []
        for before, after in itertools.pairwise(frames):
            delta = led_delta(after.leds, [before.leds])
            deltas.append(len(encode_frame(delta if delta is not None else after, 0)))
        if not deltas:
            continue
        w, d = statistics.median(whole), statistics.median(deltas)
        print(f"{game_id:<18} {len(profile.led_cells):>5} {len(frames):>8} {w:>8.0f} {d:>8.0f} "
              f"{wire(int(w), 115200):>17.2f} {wire(int(d), 115200):>17.2f} "
              f"{wire(int(w), 9600):>15.1f} {wire(int(d), 9600):>15.1f}")  # fmt: skip
    print("(medians over every LED update; a delta is sent instead of a whole frame only when "
          "it is shorter)")  # fmt: skip


if __name__ == "__main__":
    main()
