"""Screenshots of the kiosk for every game at 800x480, into docs/screenshots/ (shown in README).

For each game it runs the real main command (``board-referee run`` with no port: the daemon,
the kiosk and the built-in emulator), plays the game's opening moves on the emulated board
through its web API, as a person clicking would, and photographs the kiosk in Debian's chromium.
One more shows a removal prompt, one the emulated board's page.

Run: ``make screenshots`` (or ``.venv/bin/python tools/screenshots.py [--size 800x480]
[--game ID]``).
"""

from __future__ import annotations

import argparse
import json
import re
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from playwright.sync_api import sync_playwright

from engine import MoveKind, Player
from firmware_bridge.link import catalog

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "screenshots"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]  # fmt: skip
OPENINGS = {  # a few plies each, so the pictures show a move list and a last move
    "three-dragons": ["c1-c4", "c9-c6"],
    "protect-the-goat": ["G@e1", "g@e6", "P@c1"],
    "vanguard": ["D1-F2", "H8-I8"],
    "goats-wintering": ["G@D1", "G@B1"],
    "the-lion-game": ["d3-d4", "e8-e6"],  # the rhinoceros's charge, marked on its square
}
CAPTURE = {
    "layout": {
        "c2": {"owner": 1, "piece": "stone"}, "e4": {"owner": 1, "piece": "stone"},
        "h2": {"owner": 1, "piece": "stone"}, "d4": {"owner": 2, "piece": "stone"},
        "h8": {"owner": 2, "piece": "stone"}, "i7": {"owner": 2, "piece": "stone"},
    },
    "to_move": 1,
}  # fmt: skip
PTG_BATTLE = {  # Player 1's lyon walks next to Player 2's phant, which takes it
    "game": "protect-the-goat", "to_move": 1, "phase": "movement", "south": 1,
    "layout": {"a1": {"owner": 1, "piece": "goat"}, "i6": {"owner": 2, "piece": "goat"},
               "c4": {"owner": 1, "piece": "lyon"}, "c6": {"owner": 2, "piece": "phant"},
               "g1": {"owner": 1, "piece": "sugarmouse"}, "e6": {"owner": 2, "piece": "yafbeest"}},
    "reserve": {"1": {}, "2": {}},
}  # fmt: skip
PTG_WIN = {  # Player 1's lyon one step from Player 2's goat
    "game": "protect-the-goat", "to_move": 1, "phase": "movement", "south": 1,
    "layout": {"a1": {"owner": 1, "piece": "goat"}, "b6": {"owner": 2, "piece": "goat"},
               "a5": {"owner": 1, "piece": "lyon"}, "i1": {"owner": 2, "piece": "lyon"},
               "e1": {"owner": 1, "piece": "phant"}, "e6": {"owner": 2, "piece": "phant"}},
    "reserve": {"1": {}, "2": {}},
}  # fmt: skip
TD_DISPUTE = {"game": "three-dragons", **CAPTURE}  # a capture, then an illegal move put right
# Pictures of moments (issue 19): (file, position, board actions, what to do on the kiosk).
MOMENTS: list[tuple[str, dict[str, Any], list[dict[str, Any]], str]] = [
    ("kiosk-protect-the-goat-battle", PTG_BATTLE,
     [{"do": "lift", "cell": "c4"}, {"do": "place", "cell": "c5"}], ""),
    ("kiosk-game-over", PTG_WIN,
     [{"do": "lift", "cell": "a5"}, {"do": "place", "cell": "a6"},
      {"do": "lift", "cell": "b6"}, {"do": "lift", "cell": "a6"},  # the goat into the box
      {"do": "place", "cell": "b6"}], ""),
    ("kiosk-new-game", PTG_WIN, [{"do": "lift", "cell": "a5"}, {"do": "place", "cell": "a4"}],
     "newgame"),
    # The arbiter's two touches (issue 29): Timeline, then the disputed move.
    ("kiosk-timeline", TD_DISPUTE,
     [{"do": "lift", "cell": "c2"}, {"do": "place", "cell": "c4"}, {"do": "lift", "cell": "d4"},
      {"do": "lift", "cell": "h8"}, {"do": "place", "cell": "g6"},
      {"do": "lift", "cell": "g6"}, {"do": "place", "cell": "h8"},
      {"do": "lift", "cell": "h8"}, {"do": "place", "cell": "h6"}], "timeline"),
    ("kiosk-menu", TD_DISPUTE, [{"do": "lift", "cell": "c2"}, {"do": "place", "cell": "c4"}],
     "menu"),
    ("kiosk-board-check", TD_DISPUTE, [], "check"),
    # An illegal move left on the board: it stays the headline (issue 38).
    ("kiosk-illegal-move", TD_DISPUTE,
     [{"do": "lift", "cell": "c2"}, {"do": "place", "cell": "d3"}], ""),
    # ... and still there 40 s on: still the headline, and no sensor suspected (issue 51).
    ("kiosk-illegal-move-40s", TD_DISPUTE,
     [{"do": "lift", "cell": "c2"}, {"do": "place", "cell": "d3"}], "wait40"),
]  # fmt: skip


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def post(url: str, path: str, body: dict[str, Any]) -> None:
    """POST ``body`` as JSON to a page's API (the kiosk's, the emulated board's)."""
    request = urllib.request.Request(url + path, json.dumps(body).encode(),
                                     {"Content-Type": "application/json"})  # fmt: skip
    urllib.request.urlopen(request, timeout=10).read()


def declare(kiosk_url: str, body: dict[str, Any], wait: float = 20.0) -> None:
    """A result, once the board shows the game's position (the referee scores none before:
    a move just made may still be settling, or its consequences being carried out)."""
    deadline = time.monotonic() + wait
    while True:
        try:
            post(kiosk_url, "api/result", body)
            return
        except urllib.error.HTTPError as refused:
            if refused.code != 409 or time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def action(board_url: str, body: dict[str, Any]) -> None:
    """A hand's action on the emulated board."""
    post(board_url, "api/action", body)


def hand(board_url: str, text: str, player: Player, game_id: str) -> None:
    """Do a move's hand action on the emulated board."""
    game = catalog.load_game(game_id)
    move = game.parse_move(text)
    names = game.board.names
    if move.kind is MoveKind.PLACE:
        symbol = game.pieces[move.piece].symbol
        token = symbol if player is Player.ONE else symbol.lower()
        action(board_url, {"do": "place", "cell": names[move.to], "piece": token})
    elif move.kind is MoveKind.MOVE:
        action(board_url, {"do": "lift", "cell": names[move.frm]})
        time.sleep(0.2)
        action(board_url, {"do": "place", "cell": names[move.to]})
    time.sleep(0.8)


class Run:
    def __init__(self, tmp: Path, *args: str) -> None:
        self.kiosk = f"http://127.0.0.1:{free_port()}/"
        board_port = free_port()
        self.board = f"http://127.0.0.1:{board_port}/"
        command = [sys.executable, "-m", "firmware_bridge.cli", "run", "--new",
                   "--journal", str(tmp / "journal.sqlite3"), "--settle-ms", "150",
                   "--kiosk", self.kiosk[7:-1], "--emulator-web", f"127.0.0.1:{board_port}",
                   *args]  # fmt: skip
        self.log = tmp / "log.txt"
        self.proc = subprocess.Popen(command, stdout=subprocess.DEVNULL,
                                     stderr=self.log.open("w"))  # fmt: skip
        deadline = time.monotonic() + 30
        while "board scanned" not in self.log.read_text() and time.monotonic() < deadline:
            time.sleep(0.1)

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(15)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--size", default="800x480", help="viewport WIDTHxHEIGHT")
    parser.add_argument(
        "--game",
        action="append",
        help="only this game's pictures (repeatable; club: the club view's)",
    )
    args = parser.parse_args()
    match = re.fullmatch(r"(\d+)x(\d+)", args.size)
    if not match:
        parser.error("--size is WIDTHxHEIGHT")
    width, height = int(match.group(1)), int(match.group(2))
    OUT.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright, tempfile.TemporaryDirectory() as folder:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
        page = browser.new_page(viewport={"width": width, "height": height})
        shots: list[tuple[str, list[str], tuple[str, ...]]] = [
            (game_id, moves, ()) for game_id, moves in OPENINGS.items()
        ]
        position = Path(folder) / "capture.json"
        position.write_text(json.dumps(CAPTURE))
        shots.append(("three-dragons", ["c2-c4"], ("--position", str(position))))
        shots = [shot for shot in shots if not args.game or shot[0] in args.game]
        for index, (game_id, moves, extra) in enumerate(shots):
            tmp = Path(folder) / str(index)
            tmp.mkdir()
            run = Run(tmp, "--game", game_id, *extra)
            try:
                player = Player.ONE
                for text in moves:
                    hand(run.board, text, player, game_id)
                    player = player.other
                page.goto(run.kiosk)
                page.wait_for_timeout(1200)
                name = f"kiosk-{game_id}" + ("-capture" if extra else "")
                page.screenshot(path=str(OUT / f"{name}.png"))
                print(f"docs/screenshots/{name}.png", flush=True)
                if extra:
                    page.goto(run.board)
                    page.wait_for_timeout(1200)
                    page.screenshot(path=str(OUT / "emulated-board.png"))
                    print("docs/screenshots/emulated-board.png", flush=True)
            finally:
                run.stop()
        for index, (name, start, actions, then) in enumerate(MOMENTS):
            if args.game and start["game"] not in args.game:
                continue
            tmp = Path(folder) / f"moment{index}"
            tmp.mkdir()
            position = tmp / "position.json"
            position.write_text(json.dumps(start))
            run = Run(tmp, "--game", start["game"], "--position", str(position))
            try:
                for body in actions:
                    action(run.board, body)
                    time.sleep(0.4)
                page.goto(run.kiosk)
                page.wait_for_timeout(1500)
                if then == "wait40":
                    page.wait_for_timeout(40_000)
                elif then:
                    page.locator("#btn-menu").click()
                if then == "newgame":
                    page.locator("#btn-newgame").click()
                    page.locator('#ng-players input[name="player-1"]').fill("Ann")
                    page.wait_for_timeout(300)
                elif then == "timeline":
                    page.locator("#btn-timeline").click()
                    page.locator("#tl-steps button", has_text="stone h8 to h6").click()
                    page.wait_for_timeout(400)
                elif then == "check":
                    page.locator("#btn-check").click()
                    page.locator("#check-cells").fill("c3 d3")
                    page.locator("#check-start").click()
                    page.wait_for_timeout(800)
                elif then == "menu":
                    page.wait_for_timeout(300)
                page.screenshot(path=str(OUT / f"{name}.png"))
                print(f"docs/screenshots/{name}.png", flush=True)
            finally:
                run.stop()
        if not args.game or "vanguard" in args.game:
            computer_shots(page, Path(folder))
        if not args.game or "club" in args.game:
            club_shots(browser, Path(folder))
        browser.close()
    return 0


def computer_shots(page: Any, folder: Path) -> None:
    """The computer opponent (docs/engine.md): its move shown after the person's, and the
    New game form with a side played by the computer."""
    tmp = folder / "computer"
    tmp.mkdir()
    run = Run(tmp, "--game", "vanguard", "--computer", "2", "--level", "3",
              "--movetime", "1000")  # fmt: skip
    try:
        page.goto(run.kiosk)
        page.wait_for_function(
            "() => document.querySelector('#status').textContent.includes('to move')"
        )
        hand(run.board, "C2-C3", Player.ONE, "vanguard")
        page.wait_for_function(
            "() => document.querySelector('#status').textContent.includes('computer plays')",
            timeout=20000,
        )
        page.wait_for_timeout(500)
        page.screenshot(path=str(OUT / "kiosk-computer-move.png"))
        print("docs/screenshots/kiosk-computer-move.png", flush=True)
        page.locator("#btn-menu").click()
        page.locator("#btn-newgame").click()
        page.locator('#ng-players input[name="player-1"]').fill("Ann")
        page.wait_for_timeout(300)
        page.screenshot(path=str(OUT / "kiosk-computer-new-game.png"))
        print("docs/screenshots/kiosk-computer-new-game.png", flush=True)
    finally:
        run.stop()
    # Protect the Goat's computer placing a piece: a placement, lit as one (issue 51).
    tmp = folder / "computer-placement"
    tmp.mkdir()
    run = Run(tmp, "--game", "protect-the-goat", "--computer", "1", "--level", "3",
              "--movetime", "1000")  # fmt: skip
    try:
        page.goto(run.kiosk)
        page.wait_for_function(
            "() => document.querySelector('#status').textContent.includes('computer plays')",
            timeout=30000,
        )
        page.wait_for_timeout(500)
        page.screenshot(path=str(OUT / "kiosk-computer-placement.png"))
        print("docs/screenshots/kiosk-computer-placement.png", flush=True)
    finally:
        run.stop()


def club_shots(browser: Any, folder: Path) -> None:
    """The club view (docs/mqtt.md) fed by three referees through a Mosquitto of its own: a
    game resigned and an agreed draw for the standings, a game in progress, an illegal move
    left on a board (the alert a director sees first)."""
    tmp = folder / "club"
    tmp.mkdir()
    broker_port = free_port()
    (tmp / "mosquitto.conf").write_text(
        f"listener {broker_port} 127.0.0.1\nallow_anonymous true\npersistence false\n"
    )
    broker = subprocess.Popen(["mosquitto", "-c", str(tmp / "mosquitto.conf")],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    url = f"mqtt://127.0.0.1:{broker_port}"
    tables = [("table1", "three-dragons", ["Ann", "Bob"]), ("table2", "vanguard", ["Carol", "Dan"]),
              ("table3", "the-lion-game", ["Eve", "Frank"])]  # fmt: skip
    runs: list[Run] = []
    club: subprocess.Popen[bytes] | None = None
    try:
        for board_id, game_id, people in tables:
            board_tmp = tmp / board_id
            board_tmp.mkdir()
            run = Run(board_tmp, "--game", game_id, "--mqtt", url, "--board-id", board_id)
            runs.append(run)
            post(run.kiosk, "api/new-game", {"game": game_id, "players": people})
            time.sleep(1.5)
            player = Player.ONE
            for text in OPENINGS[game_id]:
                hand(run.board, text, player, game_id)
                player = player.other
        for run in runs[:2]:  # what the moves made happen carried out: the game's position
            action(run.board, {"do": "layout"})
        declare(runs[0].kiosk, {"result": "resign", "player": 2})
        declare(runs[1].kiosk, {"result": "draw"})
        for run, (_, game_id, _) in zip(runs[:2], tables, strict=False):  # the next game
            post(
                run.kiosk,
                "api/new-game",
                {
                    "game": game_id,
                    "players": ["Bob", "Ann"] if run is runs[0] else ["Dan", "Carol"],
                },
            )
        action(runs[2].board, {"do": "lift", "cell": "b3"})  # a frog where it cannot go
        action(runs[2].board, {"do": "place", "cell": "b5"})
        log = tmp / "club.txt"
        club = subprocess.Popen([sys.executable, "-m", "firmware_bridge.cli", "club", "--mqtt", url,
                                 "--listen", "127.0.0.1:0", "--results",
                                 str(tmp / "results.jsonl")],
                                stdout=subprocess.DEVNULL, stderr=log.open("w"))  # fmt: skip
        found = None
        deadline = time.monotonic() + 20
        while found is None and time.monotonic() < deadline:
            found = re.search(r"club view: \S+?:(\d+)/", log.read_text())
            time.sleep(0.1)
        if found is None:
            raise RuntimeError("the club view did not start:\n" + log.read_text())
        club_url = f"http://127.0.0.1:{found.group(1)}/"
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.goto(club_url)
        page.wait_for_timeout(3000)
        page.screenshot(path=str(OUT / "club.png"))
        print("docs/screenshots/club.png", flush=True)
        page.close()
        page = browser.new_page(viewport={"width": 800, "height": 480})
        page.goto(club_url)
        page.wait_for_timeout(3000)
        page.evaluate(
            "scrollTo(0, document.querySelector('#standings').closest('section')"
            ".getBoundingClientRect().top + scrollY)"
        )
        page.wait_for_timeout(300)
        page.screenshot(path=str(OUT / "club-results.png"))
        print("docs/screenshots/club-results.png", flush=True)
        page.close()
    finally:
        if club is not None:
            club.terminate()
            club.wait(15)
        for run in runs:
            run.stop()
        broker.terminate()
        broker.wait(15)


if __name__ == "__main__":
    raise SystemExit(main())
