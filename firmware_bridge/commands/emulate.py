"""``board-referee emulate`` and ``board-referee firmware host``: a table of pieces on a board
(the Python firmware, or the Pico firmware in MicroPython) behind a pty, driven at a terminal,
by a script, as JSON lines or from a web page."""

from __future__ import annotations

import argparse
import json
import os
import signal as signals_
import sys
import threading
from collections.abc import Callable
from pathlib import Path

from engine import Game, Piece
from firmware_bridge.boards.board import Board, BoardStartError
from firmware_bridge.boards.emulated import EmulatedBoard
from firmware_bridge.boards.pieces import CommandError, layout_from_text, layout_text
from firmware_bridge.boards.table import REFEREE_MARGIN, Table
from firmware_bridge.boards.table_script import prompt, run_commands
from firmware_bridge.commands.common import Subparsers, parse_options, settle_seconds
from firmware_bridge.faces.hosts import add_allow_host_argument, write_whole
from firmware_bridge.link import catalog
from firmware_bridge.link.profile import BoardProfile

BoardFactory = Callable[[Game, BoardProfile, Path], Board]


def add_parser(sub: Subparsers, common: argparse.ArgumentParser) -> None:
    emulate = sub.add_parser(
        "emulate", parents=[common], help="the board emulator (a pty playing the firmware side)",
        description="Board emulator. Commands: lift, place, move, play, press, follow, expect, "
        "wait, flicker, slide, knock, garbage, corrupt, drop, unplug, replug, fault, show, "
        "say, quit (details: docs/emulator.md).",
    )  # fmt: skip
    add_arguments(emulate)
    emulate.add_argument("--board-id", metavar="NAME",
                         help="the id its HELLO says (default: emulator; a real board's is set "
                         "by firmware flash --board-id)")  # fmt: skip
    emulate.set_defaults(handler=lambda args: run(args, parse_options(args.option)))


def add_arguments(parser: argparse.ArgumentParser, *, firmware: bool = False) -> None:
    if firmware:  # the board's profile says which game; the firmware is a board, not a game
        parser.add_argument("--board", required=True, help="the board's hardware profile")
        parser.add_argument("--game", help="the profile's game (default: the one it names)")
    else:
        parser.add_argument("--game", required=True, help="the game whose board to emulate")
        parser.add_argument("--board", help="hardware profile (default: the game's own)")
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument(
        "--link",
        default=None,
        help="stable symlink to the current pty (default: $XDG_RUNTIME_DIR or /tmp, "
        "board-referee-<game>)",
    )
    parser.add_argument("--script", help="run the commands in this file, then exit")
    parser.add_argument(
        "--linger", action="store_true",
        help="with --script: after it, say 'script finished: ok' (or 'failed') and stay "
        "connected until stopped, so the host can stop first (the demo does)",
    )  # fmt: skip
    parser.add_argument(
        "--referee-says", action="store_true",
        help="with --script: read 'moves N D' lines on stdin (the referee's count of its game's "
        "moves, and 1 when it asks for a choice) and play each scripted move once the referee "
        "has taken the one before (the demo, which runs the referee, says them)",
    )  # fmt: skip
    parser.add_argument(
        "--wait-host",
        type=float,
        default=30.0,
        metavar="SECONDS",
        help="with --script: first wait this long for a host to connect (0: do not wait)",
    )
    parser.add_argument(
        "--setup",
        choices=("start", "empty"),
        default="start",
        help="the pieces on the board at power-on: the game's start position, or none",
    )
    parser.add_argument("--position", help="put the pieces of this JSON position on the board")
    parser.add_argument(
        "--keep", metavar="FILE",
        help="keep the pieces in this file as they are moved, and start with them when it holds "
        "this board's (a physical board keeps its pieces when its referee restarts; `run` "
        "keeps its emulated board's beside the journal)",
    )  # fmt: skip
    parser.add_argument("--json", action="store_true", help="events as JSON lines on stdout")
    parser.add_argument("--pace", type=float,
                        help="seconds between hand actions (default 0.15; on the emulated "
                        "RP2040, of the chip's own time, default 0.05)")  # fmt: skip
    parser.add_argument("--pauses", type=float, default=1.0, metavar="FACTOR",
                        help="a script's wait pauses times this (the demo at a quicker "
                        "pace shortens them with it)")  # fmt: skip
    parser.add_argument(
        "--host-settle-ms", type=int, metavar="MS",
        help="the referee's settle window, when it runs with another than the profile's "
        "(run --settle-ms): the hands give the referee this long to take in what they did",
    )  # fmt: skip
    parser.add_argument("--no-draw", action="store_true", help="do not draw the board")
    parser.add_argument("--seed", type=int, default=1, help="seed for injected noise")
    parser.add_argument(
        "--protocol", type=int, choices=(1, 2), default=2,
        help="the newest protocol the board speaks: 2 (LED_DELTA, when the host asks) or 1 "
        "(whole-board LED frames only, like v1 firmware)",
    )  # fmt: skip
    parser.add_argument(
        "--web",
        metavar="HOST:PORT",
        help="also serve the board as a web page here, played by clicking (e.g. 127.0.0.1:8081)",
    )
    parser.add_argument("--web-moved-by", help=argparse.SUPPRESS)  # run's own words for --web
    parser.add_argument(
        "--follow",
        metavar="URL",
        help="with --web: swap to the board the referee's kiosk at URL asks for",
    )
    parser.add_argument(
        "--token-file", metavar="FILE",
        help="with --web beyond loopback: the page's access token is kept here (default: "
        "emulator-token in $XDG_STATE_HOME/board-referee/; `run` passes the kiosk's)",
    )  # fmt: skip
    parser.add_argument(
        "--with-parent", action="store_true",
        help="end when standard input closes: `run` starts its emulator with a pipe it never "
        "writes to, so the emulator ends with its referee however the referee ends (a kill -9 "
        "too) and never keeps holding its web port",
    )  # fmt: skip
    add_allow_host_argument(parser)


class Keeper:
    """The emulated board's pieces in a file, written as they are moved (whole, by a rename:
    a kill never leaves half a file), read back at the next start when they are this board's."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.lock = threading.Lock()
        self.written = ""

    def load(self, game: Game, profile: str) -> dict[int, Piece] | None:
        try:
            saved = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None  # none yet, or unreadable: the board starts as it would without
        whose = _whose(game, profile)
        if not isinstance(saved, dict) or {k: saved.get(k) for k in whose} != whose:
            return None
        try:
            return layout_from_text(game, saved.get("pieces"))
        except CommandError:
            return None

    def watch(self, table: Table) -> None:
        before = table.on_change

        def changed() -> None:
            self.save(table)
            if before is not None:
                before()

        table.on_change = changed
        self.save(table)

    def save(self, table: Table) -> None:
        with table.lock:
            data = {**_whose(table.game, table.profile.id),
                    "pieces": layout_text(table.game, table.pieces)}  # fmt: skip
        text = json.dumps(data, sort_keys=True)
        with self.lock:
            if text == self.written:
                return
            try:
                write_whole(self.path, text)
                self.written = text
            except OSError as exc:  # a full disk: the board goes on, said once
                if self.written != "!":
                    print(f"[emulator] cannot keep the pieces in {self.path}: {exc.strerror}",
                          file=sys.stderr, flush=True)  # fmt: skip
                    self.written = "!"


def _whose(game: Game, profile: str) -> dict[str, object]:
    """What kept pieces belong to: a board of this game, these options and this profile."""
    return {"game": game.id, "options": {k: str(v) for k, v in game.options.items()},
            "profile": profile}  # fmt: skip


def _terminate(signum: int, frame: object) -> None:
    raise KeyboardInterrupt  # SIGTERM: unplug cleanly, as after Ctrl-C


def default_link(game_id: str) -> Path:
    base = os.environ.get("XDG_RUNTIME_DIR") or "/tmp"
    return Path(base) / f"board-referee-{game_id}"


def python_board(args: argparse.Namespace) -> BoardFactory:
    def make(game: Game, profile: BoardProfile, link: Path) -> Board:
        return EmulatedBoard(profile, link_path=link, seed=args.seed, protocol=args.protocol,
                             board_id=args.board_id or "emulator")  # fmt: skip

    return make


def _referee_says(emulator: Table) -> None:
    """Lines ``moves N D`` on stdin: the referee's game has N moves, and asks for a choice if D
    is 1 (the demo runs the referee and says them)."""
    for line in sys.stdin:
        words = line.split()
        if len(words) == 3 and words[0] == "moves" and all(w.isdigit() for w in words[1:]):
            emulator.referee_told((int(words[1]), words[2] == "1"))


def _pace(given: float | None, board: Board) -> float:
    """The hands' pace: as given, else 0.15 s, or 50 ms of the chip's own time on the emulated
    RP2040 (its hands count its time: enough for a reed board's 40 ms debounce)."""
    if given is not None:
        return given
    return 0.05 if board.name == "chip" else 0.15


def run(
    args: argparse.Namespace, options: dict[str, str], make_board: BoardFactory | None = None
) -> int:
    host_settle = settle_seconds(args.host_settle_ms, "--host-settle-ms")
    directory = catalog.config_dir(args.config_dir)
    game_id = args.game or catalog.profile_game(args.board, directory)
    game = catalog.load_game(game_id, options, directory)
    profile = catalog.load_profile(args.board, game, directory)
    kept = Keeper(Path(args.keep)) if args.keep else None
    if args.position:
        pieces = game.state_from_json(catalog.read_json(args.position)).layout()
    elif kept is not None and (found := kept.load(game, profile.id)) is not None:
        pieces = found  # the board as it was left, as a real board stays
    elif args.setup == "empty":
        pieces = {}
    else:
        pieces = game.new_state().layout()
    link = Path(args.link) if args.link else default_link(game.id)
    if not link.parent.is_dir():
        print(f"board-referee: error: --link {link}: the folder {link.parent} does not exist",
              file=sys.stderr)  # fmt: skip
        return 2
    try:  # a board whose interpreter or image is missing says so, as one that cannot start
        board = (make_board or python_board(args))(game, profile, link)
    except BoardStartError as exc:
        print(f"board-referee: error: {exc}", file=sys.stderr)
        return 2
    emulator = Table(game, profile, pieces, board, link_path=link, out=sys.stdout,
                     json_mode=args.json, pace=_pace(args.pace, board),
                     host_settle=host_settle,
                     draw=not args.no_draw)  # fmt: skip
    if args.pauses < 0:
        print("board-referee: error: --pauses must be 0 or more", file=sys.stderr)
        return 2
    emulator.pauses = args.pauses
    web = None
    if args.web:
        from firmware_bridge.faces.board_page import EmulatorWeb, Follower
        from firmware_bridge.faces.hosts import (
            WebError,
            is_loopback,
            load_token,
            page_urls,
            parse_address,
            state_dir,
        )

        try:
            host, port = parse_address(args.web, "--web")
            token = None
            if not is_loopback(host):  # the same rule as the kiosk: controls need the token
                token_file = Path(args.token_file) if args.token_file else (
                    state_dir() / "emulator-token")  # fmt: skip
                token = load_token(token_file.parent, token_file.name)
            web = EmulatorWeb(host, port, emulator, token=token,
                              allow_hosts=tuple(args.allow_host))  # fmt: skip
            web.moved_by = args.web_moved_by or "--web HOST:PORT"
            url = web.start()
            if token is not None:
                print(f"the emulated board's page needs its access token for a click: open it "
                      f"with ?token= and the token kept in {token_file}", flush=True)  # fmt: skip
        except WebError as exc:
            print(f"board-referee: error: {exc}", file=sys.stderr)
            return 2
        if args.json:
            emulator.emit("web", url=url)
        else:
            urls = page_urls(host, port)
            print(f"the emulated board's page: {urls[0]}", flush=True)
            if len(urls) > 1:
                print(f"  also at {', '.join(urls[1:])}", flush=True)
        if args.follow:
            follower = Follower(emulator, args.follow, directory, on_change=web.refresh)
            web.follower = follower
            follower.start()
    if kept is not None:  # after the page, which watches the table too
        kept.watch(emulator)
    signals_.signal(signals_.SIGTERM, _terminate)
    try:
        board.start()
    except BoardStartError as exc:
        print(f"board-referee: error: {exc}", file=sys.stderr)
        return 2
    emulator.emit("ready", device=board.device, link=str(link), board=board.name,
                  sensors=len(profile.sensor_cells), profile=profile.id)  # fmt: skip
    if not args.json:
        what = "emulating" if board.name == "emulator" else "running the firmware for"
        print(f"{what} {game.title} board ({profile.id}) on {board.device}, "
              f"stable path {link}", flush=True)  # fmt: skip
        emulator.show()
    ok = True
    try:
        if args.script:
            try:
                lines = Path(args.script).read_text(encoding="utf-8").splitlines()
            except OSError as exc:
                print(f"board-referee: error: {args.script}: {exc.strerror}", file=sys.stderr)
                return 2
            if args.wait_host and not emulator.host_seen.wait(args.wait_host):
                emulator.emit("error", message=f"no host connected in {args.wait_host:.0f} s")
                print(f"board-referee: error: no host connected to {link} in "
                      f"{args.wait_host:.0f} s", file=sys.stderr)  # fmt: skip
                return 1
            emulator.move_gap = REFEREE_MARGIN  # a script plays alone: it waits for the referee
            if args.referee_says:  # ... or for its word that it took the move (the demo)
                threading.Thread(target=_referee_says, args=(emulator,), daemon=True).start()
            ok = run_commands(emulator, lines, stop_on_error=True)
            if args.linger:
                print(f"script finished: {'ok' if ok else 'failed'}", flush=True)
                threading.Event().wait()  # until SIGTERM
        else:
            interactive = sys.stdin.isatty() and not args.json
            if interactive:
                print("type help for the commands, quit to stop", file=sys.stdout)
                prompt(emulator)
            ok = run_commands(emulator, sys.stdin, stop_on_error=False, interactive=interactive)
            if web is not None and not args.with_parent:  # the page is the board's face
                threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        if web is not None:
            web.stop()
        report = board.latency_report()
        if report:
            emulator.emit("latency", **report)
        emulator.emit("exit", ok=ok)
        board.close()
    return 0 if ok else 1
