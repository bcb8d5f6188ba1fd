"""``board-referee run``: the referee (the daemon) on a board, with its faces.

The board comes first: after a crash or a power cut the players wait on the board, not on the
web server's imports. The loop starts on the board at once; the kiosk page, MQTT and (with no
``--port``) the built-in emulator start beside it and join as listeners through the loop's own
queue (``Daemon.attach``), so the loop stays the one owner of the game.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import functools
import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine import ConfigError, Game, State
from engine.clock import TimeControl
from firmware_bridge.commands import logs
from firmware_bridge.commands.common import (
    DEFAULT_GAME,
    DEFAULT_KIOSK,
    Subparsers,
    UserError,
    board_name,
    board_slug,
    broker_of,
    game_arguments,
    journal_path,
    mqtt_arguments,
    parse_options,
    settle_seconds,
    start_state,
    token_path,
)
from firmware_bridge.faces.controls import ControlError, computer_players, control_command
from firmware_bridge.faces.hosts import (
    add_allow_host_argument,
    is_loopback,
    load_token,
    page_urls,
    parse_address,
    raise_descriptor_limit,
    say_urls,
)
from firmware_bridge.link import catalog
from firmware_bridge.link.probe import ProbingLink, find_board
from firmware_bridge.link.serial_link import (
    Link,
    LinkError,
    LinkEvent,
    PortError,
    SerialLink,
    check_port,
)
from firmware_bridge.opponent import REVIEW_MS
from firmware_bridge.referee.daemon import Command, Daemon
from firmware_bridge.referee.journal import DamagedGameError, Journal
from firmware_bridge.referee.recorder import Recorder, software_version

if TYPE_CHECKING:  # the pages and MQTT are imported only by the runs that use them
    from firmware_bridge.faces.kiosk import KioskServer
    from firmware_bridge.faces.mqtt import MqttPublisher
    from firmware_bridge.referee.review import Analyst

RECORD_CAP_MB = 200  # flight recordings kept, by default: months of club evenings on an SD card
PROBE_EVERY = 2.0  # seconds between probes of the serial ports, with --port auto and no board
DEFAULT_EMULATOR_WEB = "127.0.0.1:8081"
# run --emulate: the simulated boards, and the command that starts each
EMULATED_BOARDS = {"python": ("emulate",), "firmware": ("firmware", "host"),
                   "chip": ("firmware", "chip")}  # fmt: skip
# What the club view may ask of a board (the clock: its arbiter's pause, resume, add time).
MQTT_ACTIONS = frozenset({"takeback", "new-game", "clock"})
# The faces start once the board has its first LED frame, or after this many seconds without
# one (no board yet: the kiosk then says to plug it in). Started together, the web server's
# imports held the interpreter while the board waited: 850 ms to the first LED frame, 370 ms
# without the page.
FACES_AFTER = 2.0


def add_parser(sub: Subparsers, common: argparse.ArgumentParser) -> None:
    run = sub.add_parser(
        "run", parents=[common], help="referee a game on a board (the daemon), with the kiosk"
    )
    game_arguments(run, required=False)
    run.add_argument(
        "--port", default=os.environ.get("BOARD_REFEREE_PORT"),
        help="the board's serial port: a device (/dev/ttyACM0), socket://HOST:PORT, "
        "rfc2217://HOST:PORT, spy://DEVICE, the emulator's link path, or auto (probe the "
        "serial ports, /dev/serial/by-id first, for a board that answers) "
        "(default: $BOARD_REFEREE_PORT; with neither, the built-in board emulator is started "
        "with its web page)",
    )  # fmt: skip
    run.add_argument(
        "--kiosk", default=os.environ.get("BOARD_REFEREE_KIOSK", DEFAULT_KIOSK),
        metavar="HOST:PORT",
        help=f"serve the kiosk page here (default: $BOARD_REFEREE_KIOSK, else {DEFAULT_KIOSK}; "
        "beyond loopback, controls need the access token kept beside the journal)",
    )  # fmt: skip
    run.add_argument("--no-kiosk", action="store_true", help="do not serve the kiosk page")
    add_allow_host_argument(run)
    run.add_argument(
        "--emulate", choices=list(EMULATED_BOARDS), default="python",
        help="without --port: the simulated board to play on: python (the firmware played in "
        "Python, the fastest), firmware (the Pico firmware in MicroPython's Unix port) or "
        "chip (the board's UF2 on an emulated RP2040, at a fraction of a Pico's speed)",
    )  # fmt: skip
    run.add_argument(
        "--emulator-web", default=os.environ.get("BOARD_REFEREE_EMULATOR_WEB",
                                                 DEFAULT_EMULATOR_WEB), metavar="HOST:PORT",
        help=f"without --port: where the emulated board's page is served (default: "
        f"$BOARD_REFEREE_EMULATOR_WEB, else {DEFAULT_EMULATOR_WEB})",
    )  # fmt: skip
    run.add_argument("--board", help="hardware profile in config/boards/ (default: the game's)")
    run.add_argument(
        "--board-id", default=os.environ.get("BOARD_REFEREE_BOARD_ID"), metavar="NAME",
        help="this board's name at the club (table1): names its journal, its systemd unit "
        "and its MQTT topics (default: $BOARD_REFEREE_BOARD_ID)",
    )  # fmt: skip
    run.add_argument(
        "--journal", default=os.environ.get("BOARD_REFEREE_JOURNAL"),
        help="game journal file (default: $BOARD_REFEREE_JOURNAL, else "
        "$XDG_STATE_HOME/board-referee/journal-BOARD.sqlite3, BOARD named by --board-id, else "
        "by the port: journal-emulator.sqlite3 with none)",
    )  # fmt: skip
    mqtt_arguments(run)
    run.add_argument(
        "--mqtt-commands", action="store_true",
        default=os.environ.get("BOARD_REFEREE_MQTT_COMMANDS", "") in ("1", "yes", "true"),
        help="accept new game and take back from the club view over MQTT (the broker's "
        "credentials and ACLs decide who may send them; docs/mqtt.md)",
    )  # fmt: skip
    run.add_argument(
        "--record-cap", type=int, metavar="MB",
        default=int(os.environ.get("BOARD_REFEREE_RECORD_CAP", RECORD_CAP_MB) or 0),
        help="megabytes of flight recordings the journal keeps: past it the oldest finished "
        f"games' recordings go, never their moves; 0 records nothing (default "
        f"$BOARD_REFEREE_RECORD_CAP, else {RECORD_CAP_MB}; docs/recorder.md)",
    )  # fmt: skip
    run.add_argument("--settle-ms", type=int, help="override the profile's settle window")
    run.add_argument("--position", help="start the new game from this JSON position")
    run.add_argument("--new", action="store_true", help="abandon an unfinished game")
    run.add_argument(
        "--computer", choices=["1", "2"], action="append", default=[],
        help="the computer plays this side in a new game (repeat for both; docs/engine.md)",
    )  # fmt: skip
    run.add_argument(
        "--level", type=int, default=3, choices=range(1, 6), metavar="1-5",
        help="the computer's level: 1 a beginner to 5 full strength (default 3)",
    )  # fmt: skip
    run.add_argument("--movetime", type=int, default=None, metavar="MS",
                     help="the computer's time a move, in milliseconds (default 2000)")  # fmt: skip
    run.add_argument("--review-ms", type=int, default=REVIEW_MS, metavar="MS",
                     help="a finished game's review: the engine's time a position, at the "
                     f"lowest priority (default {REVIEW_MS}; 0: no reviews)")  # fmt: skip
    run.add_argument("--review-playouts", type=int, default=None, metavar="N",
                     help="a fixed amount of analysis a position instead of --review-ms "
                     "(the same review whatever else the machine does)")  # fmt: skip
    run.add_argument(
        "--time-control", default=os.environ.get("BOARD_REFEREE_TIME_CONTROL"), metavar="TC",
        help="play new games under this clock (PGN's TimeControl, seconds: 600, 300+3, "
        "40/5400+30:1800+30; delays 300d5 simple, 300b5 Bronstein; a handicap 300+3,240+3; "
        "docs/clocks.md; default: $BOARD_REFEREE_TIME_CONTROL, else no clock)",
    )  # fmt: skip
    run.add_argument("--verbose", action="store_true", help="log every frame")
    run.set_defaults(handler=_cmd_run)


def _cmd_run(args: argparse.Namespace) -> int:
    log = logs.configure(args.verbose)
    directory = catalog.config_dir(args.config_dir)
    probing = False
    if args.board_id is not None:
        board_name(args.board_id)
    if args.port == "auto":  # find the board: with --board-id, the one of that id
        try:
            found = find_board(board_id=args.board_id)
        except PortError as exc:  # not plugged in yet (a Pi booting): wait for it, and say so
            probing = True
            log.warning("%s; waiting for a board, looking again every %.0f s", exc,
                        PROBE_EVERY)  # fmt: skip
        else:
            args.port = found.port
            log.info("--port auto: board %r (firmware %s) answers on %s", found.hello.board_id,
                     found.hello.firmware, found.port)  # fmt: skip
            for why in found.skipped:
                log.info("--port auto: %s", why)
    if args.port and not probing:
        try:
            check_port(args.port)
        except PortError as exc:
            raise UserError(str(exc)) from exc
    journal_file = journal_path(args.journal, args.board_id or args.port)
    kiosk = None if args.no_kiosk else parse_address(args.kiosk)
    raise_descriptor_limit()  # room for the board, the journal and the pages under their caps
    mqtt = broker_of(args) if args.mqtt else None
    if args.review_playouts is not None and not 1 <= args.review_playouts <= 10_000_000:
        raise UserError(f"--review-playouts is 1 to 10000000, not {args.review_playouts}")
    if not 0 <= args.review_ms <= 60_000:
        raise UserError(f"--review-ms is milliseconds, 0 to 60000, not {args.review_ms}")
    if not 0 <= args.record_cap <= 100_000:
        raise UserError(f"--record-cap is megabytes, 0 to 100000, not {args.record_cap}")
    try:
        control = TimeControl.parse(args.time_control) if args.time_control else None
    except ConfigError as exc:
        raise UserError(f"--time-control: {exc}") from exc
    journal = Journal(journal_file, record_cap=args.record_cap * 1_000_000 or None)
    recorder = Recorder(journal.record_chunk, software_version()) if args.record_cap else None
    faces = Faces(args, directory=directory, journal_path=journal_file, log=log)
    folder: Path | None = None
    try:
        game, profile = _run_game(args, journal, directory)
        settle = settle_seconds(args.settle_ms, "--settle-ms")
        if settle is not None:
            profile = dataclasses.replace(profile, settle=settle)
        start = start_state(game, args.position) if args.position else None
        port = args.port
        stop = threading.Event()
        # SIGHUP too: a closed terminal stops the referee cleanly, and it ends its emulator.
        for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(signum, lambda *_: stop.set())
        opened = None
        link_factory: Callable[[queue.Queue[LinkEvent]], Link] | None = None
        if probing:
            link_factory = functools.partial(ProbingLink, profile.baudrate, every=PROBE_EVERY,
                                             board_id=args.board_id)  # fmt: skip
        elif port:  # open it now, so a port that can never work is one line before any other
            link = SerialLink(port, profile.baudrate, queue.Queue())
            try:
                link.open()
                opened = link
            except PortError as exc:
                raise UserError(str(exc)) from exc
            except LinkError:
                pass  # not there yet: the daemon waits for it, and says so
        else:  # no hardware: the built-in board emulator, on a pty
            folder = Path(tempfile.mkdtemp(prefix="board-referee-"))
            port = str(folder / "board")
        try:
            daemon = Daemon(game, profile, journal, port, log=log, start=start,
                            new_game=args.new, opened=opened, link_factory=link_factory,
                            recorder=recorder, time_control=control)  # fmt: skip
        except BaseException:
            if opened is not None:
                opened.close()
            raise
        daemon.thinks = True
        _seat_computer(daemon, args, game, profile, log)
        if kiosk is not None and not is_loopback(kiosk[0]):
            load_token(journal_file.parent)  # a token file that cannot be made: said first
        if folder is not None:  # the built-in emulator is a face: the board comes with them
            faces.start(daemon, kiosk, mqtt, Path(port), stop)
            if faces.error is not None:
                raise faces.error
            daemon.run(stop)
        else:  # a board: its loop first, the faces beside it
            starting = threading.Thread(target=faces.start, name="faces",
                                        args=(daemon, kiosk, mqtt, None, stop),
                                        daemon=True)  # fmt: skip
            starting.start()
            daemon.run(stop)
            starting.join(30)
            if faces.error is not None:
                raise faces.error
    finally:
        faces.stop()
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)
        journal.close()
    log.info("stopped")
    return 0


class Faces:
    """The kiosk page, the MQTT publisher and (no --port) the built-in emulator, started on
    a thread of their own beside the referee's loop; stopped when it ends. A face that cannot
    start (its address in use) stops the referee with its reason, as it did before any board
    was opened."""

    def __init__(self, args: argparse.Namespace, *, directory: Path, journal_path: Path,
                 log: Any) -> None:  # fmt: skip
        self.args = args
        self.directory = directory
        self.journal_path = journal_path
        self.log = log
        self.lock = threading.Lock()
        self.server: KioskServer | None = None
        self.analyst: Analyst | None = None
        self.publisher: MqttPublisher | None = None
        self.emulator: subprocess.Popen[str] | None = None
        self.error: Exception | None = None
        self.stopped = False

    def start(self, daemon: Daemon, kiosk: tuple[str, int] | None, mqtt: Any,
              emulated: Path | None, stop: threading.Event) -> None:  # fmt: skip
        args, log = self.args, self.log
        if emulated is None:  # a board: lit first (or given up on: it may not be plugged in)
            daemon.lit.wait(FACES_AFTER)
        try:
            kiosk_url = ""
            if kiosk is not None:
                from firmware_bridge.faces.kiosk import KioskServer

                token = None if is_loopback(kiosk[0]) else load_token(self.journal_path.parent)
                analyst = None
                if getattr(args, "review_ms", REVIEW_MS):  # the reviews' engine, fed like a face
                    from firmware_bridge.referee.review import Analyst

                    analyst = Analyst(self.journal_path, self.directory, log,
                                      ms=getattr(args, "review_ms", REVIEW_MS),
                                      playouts=getattr(args, "review_playouts", None))  # fmt: skip
                    if not self._kept("analyst", analyst):
                        return
                    daemon.attach(analyst.publish)
                server = KioskServer(kiosk[0], kiosk[1], submit=daemon.submit,
                                     config_dir=self.directory, token=token, log=log,
                                     journal=self.journal_path,
                                     allow_hosts=tuple(args.allow_host),
                                     board_name=args.board_id or "",
                                     analyst=analyst)  # fmt: skip
                kiosk_url = server.start()
                if not self._kept("server", server):
                    return
                daemon.attach(server.publish)
                # (the port it listens on: --kiosk HOST:0 takes whatever port is free)
                log.info("kiosk page: %s", say_urls(page_urls(kiosk[0], server.port)))
                if token is not None:  # where it is, never what it is: logs are kept and shared
                    log.info("kiosk controls from another machine need the access token kept "
                             "in %s: open the page there once with ?token= and its contents "
                             "(the Pi's own screen, on 127.0.0.1, needs none)",
                             token_path(self.journal_path))  # fmt: skip
            if mqtt is not None:
                publisher = _publisher(args, mqtt, daemon, self.directory, log)
                if not self._kept("publisher", publisher):
                    return
                if self.analyst is not None:  # its finished reviews, to the club view
                    self.analyst.listeners.append(publisher.reviewed)
            if emulated is not None:
                emulator, board_url = _start_emulator(
                    args, game=daemon.game, profile=daemon.profile, directory=self.directory,
                    link=emulated, kiosk_url=kiosk_url, token_file=token_path(self.journal_path),
                    position=daemon.state if args.position else None,
                    keep=emulated_board_file(self.journal_path),
                )  # fmt: skip
                if not self._kept("emulator", emulator):
                    return
                log.info("no --port given: playing on the built-in board emulator; "
                         "the emulated board's page: %s", board_url)  # fmt: skip
        except Exception as exc:  # a face that cannot start: the referee stops with its words
            self.error = exc
            stop.set()

    def _kept(self, name: str, face: Any) -> bool:
        """Keep a face just started, unless the referee stopped meanwhile (its loop ended
        while this thread was starting it): then it is stopped here, not left running."""
        with self.lock:
            if not self.stopped:
                setattr(self, name, face)
                return True
        _stop_face(face)
        return False

    def stop(self) -> None:
        """Stop the faces started so far; one still starting stops itself (``_kept``)."""
        with self.lock:
            self.stopped = True
            faces = (self.server, self.publisher, self.emulator, self.analyst)
        for face in faces:
            if face is not None:
                _stop_face(face)


def _stop_face(face: Any) -> None:
    """A kiosk server or an MQTT publisher stopped; the emulator's process ended."""
    if isinstance(face, subprocess.Popen):
        face.terminate()
        try:
            face.wait(5)
        except subprocess.TimeoutExpired:
            face.kill()
    else:
        face.stop()


def _publisher(
    args: argparse.Namespace, mqtt: Any, daemon: Daemon, directory: Path, log: Any
) -> MqttPublisher:
    """The board's MQTT face, named by --board-id (else its port), with commands if asked."""
    from firmware_bridge.faces.mqtt import MqttPublisher

    known = set(catalog.game_ids(directory))

    def command(body: dict[str, Any], current: tuple[str, str]) -> Any:
        # A bad control raises ControlError, a ValueError: the publisher answers it.
        return control_command(body, config_dir=directory, known=known, current=current,
                               source="club (MQTT)", allowed=MQTT_ACTIONS)  # fmt: skip

    name = args.board_id or board_slug(args.port)
    publisher = MqttPublisher(mqtt, name, log=log,
                              submit=daemon.submit if args.mqtt_commands else None,
                              commands=command if args.mqtt_commands else None,
                              journal=daemon.journal.path, config_dir=directory)  # fmt: skip
    publisher.start()
    daemon.attach(publisher.publish)
    return publisher


def _run_game(args: argparse.Namespace, journal: Journal, directory: Path) -> tuple[Game, Any]:
    """The game to referee: as asked, else the journal's unfinished game (which may have been
    started from the kiosk), else the default game."""
    if args.game:
        game = catalog.load_game(args.game, parse_options(args.option), directory)
        return game, catalog.load_profile(args.board, game, directory)
    try:
        row = journal.unfinished()
    except DamagedGameError:
        if not args.new:
            raise
        row = None  # the daemon marks it abandoned
    if row is None and not args.new:
        with contextlib.suppress(DamagedGameError):
            row = journal.last_finished()  # its result is shown until the board is set up
    if row is not None and not args.new:
        try:
            game = catalog.load_game(row.game, row.options, directory)
            return game, catalog.load_profile(args.board or row.profile, game, directory)
        except ConfigError:
            pass  # the journal's game no longer loads: the daemon says so below
    game = catalog.load_game(DEFAULT_GAME, parse_options(args.option), directory)
    return game, catalog.load_profile(args.board, game, directory)


def emulated_board_file(journal: Path) -> Path:
    """Where the built-in emulated board keeps its pieces, beside the journal: a restarted
    referee finds the board as it was left, as it finds a physical one."""
    return journal.with_name(journal.stem + "-board.json")


def _start_emulator(
    args: argparse.Namespace,
    *,
    game: Game,
    profile: Any,
    directory: Path,
    link: Path,
    kiosk_url: str,
    token_file: Path,
    position: State | None,
    keep: Path,
) -> tuple[subprocess.Popen[str], str]:
    """No hardware: start the board emulator as its own process on a pty, with its web page,
    following the kiosk's game (so a new game of another game swaps the emulated board).
    Returns the process and its page's URL."""
    command = [
        sys.executable, "-m", "firmware_bridge.cli", "--config-dir", str(directory),
        *EMULATED_BOARDS[args.emulate],
        "--game", game.id, "--board", profile.id, "--link", str(link), "--no-draw",
        "--web", args.emulator_web, "--token-file", str(token_file), "--with-parent",
        "--keep", str(keep),
        "--web-moved-by", "--emulator-web HOST:PORT (or $BOARD_REFEREE_EMULATOR_WEB)",
    ]  # fmt: skip
    for name in args.allow_host:
        command += ["--allow-host", name]
    if args.settle_ms is not None:
        command += ["--host-settle-ms", str(args.settle_ms)]
    for key, value in game.options.items():
        command += ["--option", f"{key}={value}"]
    if kiosk_url:
        command += ["--follow", kiosk_url.replace("//0.0.0.0:", "//127.0.0.1:")]
    if position is not None:
        saved = link.with_name("position.json")
        saved.write_text(json.dumps(position.to_json()), encoding="utf-8")
        command += ["--position", str(saved)]
    # Its own session: a terminal's Ctrl-C goes to the referee alone, which stops first and
    # then ends the emulator (run's finally), so the end is never logged as a lost board. Its
    # stdin is a pipe this process holds and never writes: when the referee ends, however it
    # ends, the pipe closes and the emulator ends too (--with-parent).
    emulator = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                text=True, bufsize=1, start_new_session=True)  # fmt: skip
    url = ""
    assert emulator.stdout is not None
    for line in emulator.stdout:
        sys.stderr.write(line)
        if line.startswith("the emulated board's page: "):
            url = line.split(": ", 1)[1].strip()
        if line.startswith("emulating "):
            break
    if not url or emulator.poll() is not None:
        emulator.kill()
        raise UserError("the board emulator did not start (see its message above)")
    stream = emulator.stdout
    threading.Thread(target=lambda: [sys.stderr.write(x) for x in stream], daemon=True).start()
    return emulator, url


def _seat_computer(daemon: Daemon, args: argparse.Namespace, game: Game, profile: Any,
                   log: Any) -> None:  # fmt: skip
    """``--computer``: a new game with the computer on those sides (a game resumed from the
    journal keeps who played it)."""
    if not args.computer:
        return
    if daemon.resumed or daemon.state.plies:
        sides = zip(game.player_names, daemon.people, strict=True)
        said = "; ".join(f"{side}: {who or 'not named'}" for side, who in sides)
        log.info("--computer: the resumed game keeps its players (%s)", said)
        return
    try:
        people, what = computer_players(None, {side: args.level for side in args.computer},
                                        args.movetime)  # fmt: skip
    except ControlError as exc:
        raise UserError(str(exc)) from exc
    daemon.submit(Command("new_game", game=game, profile=profile, players=people, what=what,
                          source="terminal"))  # fmt: skip
