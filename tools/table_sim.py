"""A simulated table that never stops: self-played games of every game against the real daemon
over the pty, carried out by hands that behave like people.

The hands hesitate (lift a piece and put it back), slide pieces across cells, knock pieces off
and put them back, play a wrong move and then correct it as the LEDs ask, remove captured pieces
in any order, press buttons at wrong moments, take a move back and play it again, pull the
cable and plug it in again, and the daemon is killed (SIGKILL) and restarted, between moves and
in the middle of one. After every move the journal must hold exactly the moves played.

It prints moves attempted, journaled, lost (played but missing from the journal), wrongly
accepted (in the journal but never played), and stuck turns (the players could find no way
forward from the LEDs and the status). Target for a long run: 0 lost, 0 wrong, 0 stuck.
Run: ``python tools/table_sim.py [--moves N] [--seed S] [--game ID] [--board-process firmware]``
(``firmware``: the Pico firmware itself in MicroPython's Unix port plays the board, on the
profile of each game it can read: occupancy and owner boards; ``chip``: the board's UF2 on the
emulated RP2040, the hands' timing and patience scaled by how much slower it runs).
"""

from __future__ import annotations

import argparse
import random
import re
import shutil
import signal
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine import Cell, Game, Move, MoveKind  # noqa: E402
from firmware_bridge import words  # noqa: E402
from firmware_bridge.boards.pieces import piece_from_token, piece_token  # noqa: E402
from firmware_bridge.commands.play import choose_move  # noqa: E402
from firmware_bridge.link import catalog  # noqa: E402
from firmware_bridge.link.leds import HELP  # noqa: E402
from firmware_bridge.link.profile import Token  # noqa: E402
from firmware_bridge.referee.journal import Journal  # noqa: E402
from firmware_bridge.referee.replay import replay  # noqa: E402
from tests.e2e import BOARD_KINDS, DaemonProcess, EmulatorProcess  # noqa: E402

CHOICE = re.compile(r"cannot tell these apart: \[\d+/\d+\] (.+?) — press")
BEHAVIOURS = ("hesitate", "slide", "knock", "wrong", "button", "takeback", "unplug", "kill",
              "kill-mid", "kill-moved")  # fmt: skip
BETWEEN = ("hesitate", "knock", "wrong", "button", "unplug", "kill", "kill-moved")  # before a move
# The firmware reads occupancy and owner boards: the profile each game is played on with it.
FIRMWARE_PROFILES = {"protect-the-goat": "protect-the-goat-reed"}
FIRMWARE_KINDS = ("firmware", "chip")
# How much longer the players wait and pause on each kind of board: the emulated RP2040 runs
# at about a seventh of a Pico's speed here, so its debounce and its answers take that much
# longer in this process's time (the hands' own timing is scaled with it).
SLOWER = {"chip": 6.0}


@dataclass
class Tally:
    attempted: int = 0
    journaled: int = 0
    lost: int = 0
    wrong: int = 0
    stuck: int = 0
    games: int = 0
    replayed: int = 0  # games whose flight recording was replayed (board-referee replay)
    differed: int = 0  # ... in which the replay decided otherwise than the recording
    behaviours: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def line(self) -> str:
        done = ", ".join(f"{k} {v}" for k, v in sorted(self.behaviours.items()))
        return (f"games {self.games}, moves attempted {self.attempted}, journaled "
                f"{self.journaled}, lost {self.lost}, wrongly accepted {self.wrong}, stuck "
                f"{self.stuck}, replays differing {self.differed} of {self.replayed}; hands: "
                f"{done}")  # fmt: skip


class Table:
    """One game on one emulated board, with its referee, and the rules' own record of it."""

    def __init__(self, folder: Path, game: Game, rng: random.Random, tally: Tally,
                 kind: str = "emulator") -> None:  # fmt: skip
        self.folder = folder
        self.game = game
        self.rng = rng
        self.tally = tally
        self.state = game.new_state()
        board = FIRMWARE_PROFILES.get(game.id, game.id) if kind in FIRMWARE_KINDS else game.id
        self.slow = SLOWER.get(kind, 1.0)
        self.profile = catalog.load_profile(board, game)
        self.played: list[str] = []
        self.emu = EmulatorProcess(folder, game.id, board, pace=0.01, kind=kind)
        self.daemon = DaemonProcess(folder, game.id, board, self.emu.link,
                                    settle_ms=round(80 * self.slow))  # fmt: skip
        self.daemon.wait_log("board scanned")
        # The game played here: once it ends, players who follow the LEDs set up the next one,
        # which becomes the journal's newest game.
        self.game_id = self.daemon.game_id()

    def close(self) -> None:
        self.emu.close()
        self.daemon.stop()

    def pause(self, seconds: float) -> None:
        """The hands wait ``seconds`` (on a slow board, as much longer as it is slower)."""
        time.sleep(seconds * self.slow)

    # -- what the players see and do -----------------------------------------------------------
    def journal(self) -> list[str]:
        return self.daemon.moves(self.game_id)

    def settle(self, timeout: float = 8.0, offered: int | None = None) -> bool:
        """Wait until the journal holds exactly the moves played; choose with SELECT/CONFIRM
        when the status says the board cannot tell moves apart (``offered``: how many choices
        the log held before the move, which may have been offered already)."""
        deadline = time.monotonic() + timeout * self.slow
        if offered is None:
            offered = len(CHOICE.findall(self.daemon.text()))
        while time.monotonic() < deadline:
            journal = self.journal()
            if journal == self.played:
                return True
            if len(journal) > len(self.played) or journal != self.played[: len(journal)]:
                return False  # something was accepted that nobody played
            choices = CHOICE.findall(self.daemon.text())
            if len(choices) > offered:
                offered = len(choices)
                # Each choice offered is the referee answering: the wait runs from the
                # newest (five pieces to step through on a loaded machine outlast one wait).
                deadline = max(deadline, time.monotonic() + timeout * self.slow / 2)
                wanted = self._offered_as(len(journal))
                self.emu.do("press confirm" if choices[-1] == wanted else "press select")
            time.sleep(0.03)
        return self.journal() == self.played

    def _offered_as(self, index: int) -> str:
        """Played move ``index`` as the status line offers it, in words ("goat on h1")."""
        state = self.game.new_state()
        for text in self.played[:index]:
            state.apply(state.parse(text))
        return words.said(state, state.parse(self.played[index]))

    def finish_turn(self, timeout: float = 10.0) -> None:
        """Do what the LEDs ask (captured pieces off in a random order, moves from -> to)
        until the board shows the position, then put right what the LEDs leave to the
        players' knowledge (a dragon to bring in, a held piece to put back where it was)."""
        deadline = time.monotonic() + timeout * self.slow
        while time.monotonic() < deadline and not self.matches():
            leds = self.emu.current_leds()
            physical = self.emu.pieces()
            removals = [c for c, s in leds.items() if s in ("remove", "illegal") and c in physical]
            if removals:
                self.rng.shuffle(removals)
                for name in removals:
                    self.emu.do(f"lift {name}")
            elif any(s in ("move_from", "move_to", "put_back") for s in leds.values()):
                self.follow(5)
            else:
                self.pause(0.1)
                if not set(self.emu.current_leds().values()) - {s.value for s in HELP}:
                    break  # nothing asked of the hands (a held piece's hints at most): tidy
        self.tidy()

    def follow(self, seconds: float) -> None:
        """Do what the LEDs ask for a while; when they still ask for something a player's
        hands cannot do (a piece not in the box), the players go on by what they know."""
        seconds *= self.slow
        try:
            self.emu.do(f"follow {seconds:g}", timeout=seconds + 20)
        except AssertionError as exc:
            self.tally.notes.append(f"{self.game.id}: follow gave up ({exc}); tidied by hand")
            self.tidy()

    def tidy(self) -> None:
        """Pieces the players know belong somewhere: put the held ones back, bring in new ones,
        take off strays."""
        physical = self.emu.pieces()
        names = self.game.board.names
        layout = self.state.layout()
        sensed = self.sensed(physical)
        wanted_tokens = self.profile.tokens(layout)
        for cell, piece in layout.items():
            name = names[cell]
            if self.state.deciding:
                break
            if name in physical and sensed.get(cell) != wanted_tokens.get(cell):
                self.emu.do(f"lift {name}")  # a piece the sensors tell from the right one
                del physical[name]
            if name not in physical:
                self.emu.do(f"place {name} {piece_token(self.game, piece)}")
        wanted = {names[c] for c in layout}
        for name in physical:
            if name not in wanted and not self.state.deciding:
                self.emu.do(f"lift {name}")
        self.pause(0.1)

    # -- human behaviour ------------------------------------------------------------------------
    def stuck_note(self, what: str) -> None:
        log = self.daemon.text().splitlines()[-8:]
        self.tally.notes.append(f"{self.game.id}: stuck after {what}: journal ends "
                                f"{self.journal()[-3:]}, played ends {self.played[-3:]}; LEDs "
                                f"{self.emu.current_leds()}; log: " + " | ".join(log))  # fmt: skip

    def matches(self) -> bool:
        """The board shows the rules' position as its sensors tell it (kinds may differ where
        they cannot, as after a promotion on an owner board)."""
        return self.sensed(self.emu.pieces()) == self.profile.tokens(self.state.layout())

    def sensed(self, physical: dict[str, str]) -> dict[Cell, Token]:
        """What the board's sensors read from the emulator's pieces (``c4`` -> ``S``)."""
        index = self.game.board.index
        pieces = {index[name]: piece_from_token(self.game, t) for name, t in physical.items()}
        return dict(self.profile.tokens(pieces))

    def misbehave(self, what: str) -> bool:
        """Something between moves; False if the players are then stuck."""
        self.behave(what)
        self.finish_turn()  # the players put the board right as the LEDs ask
        if self.settle() and self.matches():
            return True
        self.stuck_note(what)
        return False

    def behave(self, what: str) -> None:
        self.tally.behaviours[what] = self.tally.behaviours.get(what, 0) + 1
        emu, names, state = self.emu, self.game.board.names, self.state
        mine = [c for c, p in state.layout().items() if p.owner is state.to_move]
        if what == "hesitate" and mine:
            cell = names[self.rng.choice(mine)]
            emu.do(f"lift {cell}")
            self.pause(self.rng.uniform(0.05, 0.4))
            emu.do(f"place {cell}")
        elif what == "knock" and state.layout():
            cell = names[self.rng.choice(list(state.layout()))]
            emu.do(f"lift {cell}")
            self.pause(self.rng.uniform(0.2, 0.5))
            emu.do(f"place {cell}")
        elif what == "wrong" and mine:
            empty = [c for c in range(self.game.board.size)
                     if c not in state.layout() and c not in self.game.board.blocked
                     and c not in self.game.board.zone_of]  # fmt: skip
            legal_to = {m.to for m in state.legal_moves() if m.kind is MoveKind.MOVE}
            wrong = [c for c in empty if c not in legal_to]
            if wrong:
                emu.do(f"move {names[self.rng.choice(mine)]} {names[self.rng.choice(wrong)]}")
                self.pause(0.4)  # long enough to be called illegal
                self.follow(10)
        elif what == "button":
            seen = len(self.daemon.log)
            emu.do(f"press {self.rng.choice(('select', 'select', 'takeback'))}")
            # The player sees what the press did before going on: refused, or a move taken back.
            deadline = time.monotonic() + 3 * self.slow
            while time.monotonic() < deadline and self.journal() == self.played and not any(
                    "refused" in line for line in self.daemon.log[seen:]):  # fmt: skip
                time.sleep(0.02)
            if self.journal() != self.played:  # a take-back: the move goes back on the board
                self.played = self.journal()
                self._rebuild()
                self.follow(10)
        elif what == "unplug":
            seen = len(self.daemon.log)
            emu.do("unplug")
            self.pause(self.rng.uniform(0.1, 0.6))
            emu.do("replug")
            self.wait_scanned(seen)  # the players wait for the board to come back to life
        elif what == "kill":
            self.restart_referee()
        elif what == "kill-moved":
            # The referee is down and the board is disturbed meanwhile; after the restart the
            # players put it right one cell at a time, in any order, pausing between: a partial
            # fix that looks like a legal move must never be journaled as one.
            seen = len(self.daemon.log)
            self.daemon.kill(signal.SIGKILL)
            self.disturb(self.rng.randint(1, 3))
            self.daemon.start()
            self.wait_scanned(seen)
            self.fix_cell_by_cell()

    def disturb(self, changes: int) -> None:
        """Pieces moved to empty cells, or lifted off, by hands no referee sees."""
        names = self.game.board.names
        for _ in range(changes):
            physical = self.emu.pieces()
            if not physical:
                return
            name = self.rng.choice(sorted(physical))
            empty = [names[c] for c in range(self.game.board.size)
                     if names[c] not in physical and c not in self.game.board.blocked
                     and c not in self.game.board.zone_of]  # fmt: skip
            if empty and self.rng.random() < 0.6:
                self.emu.do(f"move {name} {self.rng.choice(empty)}")
            else:
                self.emu.do(f"lift {name}")

    def fix_cell_by_cell(self) -> None:
        """Put the board back to the position a cell at a time, in a random order, waiting
        longer than the settle window after each."""
        names = self.game.board.names
        wanted = {names[c]: piece_token(self.game, p) for c, p in self.state.layout().items()}
        physical = self.emu.pieces()
        wrong = sorted(n for n in set(wanted) | set(physical) if wanted.get(n) != physical.get(n))
        self.rng.shuffle(wrong)
        for name in wrong:
            if name in physical:
                self.emu.do(f"lift {name}")
            if name in wanted:
                self.emu.do(f"place {name} {wanted[name]}")
            self.pause(self.profile.settle + 0.15)

    def restart_referee(self) -> None:
        """SIGKILL the referee and start it again; the players wait for the board to come
        back to life before they go on."""
        seen = len(self.daemon.log)
        self.daemon.kill(signal.SIGKILL)
        self.daemon.start()
        self.wait_scanned(seen)

    def wait_scanned(self, seen: int, timeout: float = 15.0) -> None:
        deadline = time.monotonic() + timeout * self.slow
        while time.monotonic() < deadline:
            if any("board scanned" in line for line in self.daemon.log[seen:]):
                return
            time.sleep(0.05)

    def _rebuild(self) -> None:
        self.state = self.game.new_state()
        for text in self.played:
            self.state.apply(self.state.parse(text))

    def play(self, move: Move, what: str | None) -> bool:
        """One move by the hands (with ``what`` misbehaviour); False if the turn got stuck."""
        state = self.state
        text = state.notation(move)
        simple = move.kind is MoveKind.MOVE and not move.cells and move.frm != move.to
        offered = len(CHOICE.findall(self.daemon.text()))
        if what == "slide" and simple and state.cells[move.to] is None:
            self.tally.behaviours["slide"] = self.tally.behaviours.get("slide", 0) + 1
            names = self.game.board.names
            self.emu.do(f"slide {names[move.frm]} {names[move.to]}")
        else:
            self.emu.do(f"play {text}")
        self.tally.attempted += 1
        effect = state.apply(move)
        self.played.append(text)
        if what == "kill-mid":
            self.tally.behaviours["kill-mid"] = self.tally.behaviours.get("kill-mid", 0) + 1
            self.restart_referee()
            if move.kind is MoveKind.PASS:
                # A press while the referee was down may be gone (a piece moved is still on
                # the board): once the board says it is still their turn, they press again.
                self.pause(0.3)
                if self.journal() != self.played:
                    self.emu.do("press pass")
            elif not self.settle(timeout=2.0) and self.journal() == self.played[:-1]:
                # The referee came back after the hands had moved: that is nobody's move
                # ("resuming: set the board to the position"). The players put the board
                # back as the LEDs ask, then make their move again.
                self.played.pop()
                self._rebuild()
                self.finish_turn()
                what = "kill-mid, replayed"  # choices offered from now on are for the replay
                offered = len(CHOICE.findall(self.daemon.text()))
                self.emu.do(f"play {text}")
                state = self.state
                effect = state.apply(state.parse(text))
                self.played.append(text)
        if not self.settle(offered=None if what == "kill-mid" else offered):
            self.stuck_note(f"{text} ({what or 'plain'})")
            return False
        if effect.footprint().result != effect.footprint().hand or state.deciding:
            self.finish_turn()
        if what == "takeback" and not state.deciding and state.outcome() is None:
            self.tally.behaviours["takeback"] = self.tally.behaviours.get("takeback", 0) + 1
            standing = len(self.played)
            self.emu.do("press takeback")
            deadline = time.monotonic() + 5 * self.slow
            while len(self.journal()) >= standing and time.monotonic() < deadline:
                time.sleep(0.02)
            self.played = list(self.journal())
            self._rebuild()
            self.follow(10)  # the LEDs guide the move back
            if not self.settle():
                return False
        return True


def replay_journal(path: Path) -> list[str]:
    """Each game of the journal's flight recording replayed (what ``board-referee replay``
    does): the first words of every difference or problem, none when it decided the same."""
    journal = Journal(path, lock=False)
    try:
        found: list[str] = []
        for game_id in journal.recorded_games():
            result = replay(journal.recording_for(game_id))
            found += [d.text().replace("\n", " ") for d in result.differences]
            found += result.problems
        return found
    finally:
        journal.close()


def run(
    games: list[str],
    moves: int,
    seed: int,
    tally: Tally,
    *,
    per_game: int = 120,
    verbose: bool = False,
    kind: str = "emulator",
) -> Tally:
    """Play games in turn until ``moves`` moves were attempted; a game is left after
    ``per_game`` plies (or its end), so every game gets its share."""
    rng = random.Random(seed)
    folder = Path(tempfile.mkdtemp(prefix="board-referee-table-"))
    shown = len(tally.notes)  # notes are printed as they come when verbose
    try:
        while tally.attempted < moves:
            game_id = games[tally.games % len(games)]
            game = catalog.load_game(game_id)
            tmp = folder / f"game-{tally.games}"
            tmp.mkdir()
            table = Table(tmp, game, rng, tally, kind)
            tally.games += 1
            try:
                while table.state.outcome() is None and tally.attempted < moves:
                    what = rng.choice(BEHAVIOURS) if rng.random() < 0.5 else None
                    if what in BETWEEN and not table.misbehave(what):
                        tally.stuck += 1
                        break
                    if table.state.outcome() is not None:
                        break
                    move = choose_move(table.state, rng, rng.choice(("random", "greedy")))
                    if not table.play(move, what):
                        tally.stuck += 1
                        break
                    if len(table.state.history) >= per_game:
                        break  # long enough: on to the next game
            except AssertionError as exc:  # the harness: the board emulator stopped answering
                tally.notes.append(f"{game_id}: the board emulator failed: {exc}")
                tally.stuck += 1
            finally:
                journal = table.journal()
                played = table.played
                common = 0
                while common < min(len(journal), len(played)) and journal[common] == (
                    played[common]):  # fmt: skip
                    common += 1
                tally.journaled += len(journal)
                tally.lost += len(played) - common
                tally.wrong += len(journal) - common
                if "Traceback" in table.daemon.text():
                    tally.notes.append(f"{game_id}: the daemon printed a traceback")
                    tally.wrong += 1
                table.close()
                differences = replay_journal(table.daemon.journal)
                tally.replayed += 1
                if differences:
                    tally.differed += 1
                    tally.notes.append(f"{game_id}: the replay differs: {differences[0]}")
            if verbose:
                print(f"{game_id}: {tally.line()}", flush=True)
                for note in tally.notes[shown:]:
                    print(f"  {note}", flush=True)
                shown = len(tally.notes)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return tally


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=2000, help="moves to attempt in all")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--game", action="append", help="only these games (default: all)")
    parser.add_argument("--board-process", choices=(*BOARD_KINDS, "chip"), default="emulator",
                        help="what plays the board: the Python emulator, the Pico firmware in "
                        "MicroPython, or the board's UF2 on the emulated RP2040")  # fmt: skip
    args = parser.parse_args()
    tally = run(args.game or catalog.game_ids(), args.moves, args.seed, Tally(), verbose=True,
                kind=args.board_process)  # fmt: skip
    print(tally.line())  # the whole run (each note was printed after its game)
    return 0 if tally.lost == tally.wrong == tally.stuck == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
