"""The kiosk: a live web page beside the board, served by ``board-referee run``.

A listener of the daemon (``publish`` is handed each immutable snapshot; the JSON is made in the
server's own thread, never in the main loop). Its controls become ``Command``s on the daemon's
one queue, the same path as the board's buttons, and are journaled the same way.

Viewing is open. When the server listens beyond loopback, every control needs the access token
(header ``X-Board-Referee-Token``, or ``?token=`` in the page's URL, which the page keeps and
drops from the address bar). What every request must be besides is in webserver.py.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from aiohttp import web

from engine import ConfigError
from firmware_bridge.faces.controls import (
    ControlError,
    button_command,
    clock_command,
    new_game_command,
)
from firmware_bridge.faces.record_page import record_page
from firmware_bridge.faces.review_page import Shown, problem_page, review_page, review_view
from firmware_bridge.faces.webserver import BadRequest, LiveServer
from firmware_bridge.link import catalog
from firmware_bridge.link.protocol import Button
from firmware_bridge.referee.daemon import Command, CommandResult
from firmware_bridge.referee.journal import JournalError, read_records
from firmware_bridge.referee.records import (
    CSV_HEADERS,
    played,
    record_row,
    record_text,
    results_csv,
)
from firmware_bridge.referee.review import Analyst, ReviewError
from firmware_bridge.referee.snapshot import Snapshot
from firmware_bridge.referee.timeline import timeline_of

T = TypeVar("T")
COMMAND_TIMEOUT = 5.0
RECORDS_PER_SECOND = 5.0  # record reads served a second (a person reads one now and then)
RECORDS_BURST = 10


def games_catalog(directory: Path) -> list[dict[str, Any]]:
    """Every game with its options, for the page's new-game form."""
    games = []
    for game_id in catalog.game_ids(directory):
        try:
            game = catalog.load_game(game_id, {}, directory)
        except ConfigError:
            continue  # a broken config is reported when someone asks for that game
        games.append(
            {
                "id": game.id,
                "title": game.title,
                "players": list(game.player_names),
                "options": [
                    {
                        "name": s.name,
                        "label": s.title,
                        "labels": {c: s.choice_label(c) for c in s.choices},
                        "type": s.type,
                        "default": s.default,
                        "doc": s.doc,
                        "choices": list(s.choices),
                        "min": s.minimum,
                        "max": s.maximum,
                    }
                    for s in game.option_specs.values()
                ],
            }
        )
    return games


class KioskServer(LiveServer):
    page = "kiosk.html"
    name = "kiosk"
    token_hint = "kept in kiosk-token beside the journal"
    moved_by = "--kiosk HOST:PORT (or $BOARD_REFEREE_KIOSK), or turn it off with --no-kiosk"

    def __init__(
        self,
        host: str,
        port: int,
        *,
        submit: Callable[[Command], concurrent.futures.Future[CommandResult]],
        config_dir: Path,
        token: str | None,
        log: logging.Logger,
        journal: Path | None = None,
        allow_hosts: tuple[str, ...] = (),
        board_name: str = "",
        analyst: Analyst | None = None,
    ) -> None:
        super().__init__(host, port, token, allow_hosts=allow_hosts)
        self.readers = asyncio.Semaphore(1)  # bound to the server's loop on first use
        self.record_tokens, self.record_at = float(RECORDS_BURST), time.monotonic()
        self.journal = journal  # read-only, for the game records
        self.board_name = board_name  # the board's name in results (--board-id)
        self.submit = submit
        self.config_dir = config_dir
        self.log = log
        self.analyst = analyst  # the reviews' engine (referee/review.py)
        self.current = ("", "")  # (game id, profile id) of the game being refereed
        self.games: list[dict[str, Any]] = []

    def start(self) -> str:
        self.games = games_catalog(self.config_dir)
        return super().start()

    # -- the listener -----------------------------------------------------------------------
    def publish(self, snapshot: Snapshot) -> None:
        """Called from the daemon's main loop: hand the snapshot over, nothing more."""
        self.on_loop(self._take, snapshot)

    def _take(self, snapshot: Snapshot) -> None:
        self.current = (snapshot.game_id, snapshot.profile)
        self._take_text(snapshot.to_text())

    # -- controls ---------------------------------------------------------------------------
    def routes(self, app: web.Application) -> None:
        app.router.add_get("/api/games", self._games)
        app.router.add_post("/api/new-game", self._new_game)
        app.router.add_post("/api/button", self._button)
        app.router.add_post("/api/takeback", self._takeback)
        app.router.add_post("/api/hint", self._hint)
        app.router.add_post("/api/computer-restart", self._computer_restart)
        app.router.add_post("/api/check", self._check)
        app.router.add_post("/api/result", self._result)
        app.router.add_post("/api/clock", self._clock)
        app.router.add_get("/api/record/{number}", self._record)
        app.router.add_get("/record/{number}", self._record_page)
        app.router.add_get("/api/timeline/{number}", self._timeline)
        app.router.add_get("/review/{number}", self._review_page)
        app.router.add_post("/api/review/show", self._review_show)
        app.router.add_get("/api/results.csv", self._results_csv)

    async def _games(self, request: web.Request) -> web.Response:
        return web.json_response({"games": self.games, "token_required": self.needs_token(request)})

    async def _record(self, request: web.Request) -> web.Response:
        """A game's record as text (``board-referee records --game-id N``)."""
        text = await self._record_text(_game_number(request, "/api/record/3"))
        return web.Response(text=text, content_type="text/plain", charset="utf-8")

    async def _record_text(self, number: int) -> str:
        """Game ``number``'s record, from the journal, read without locking it."""
        path = self.journal
        if path is None:
            raise BadRequest(404, "this referee keeps no journal")

        def read() -> str:
            try:
                found = read_records(path, number)  # that one game, not the whole journal
            except JournalError as exc:
                raise BadRequest(500, str(exc)) from exc
            if not found:
                raise BadRequest(404, f"no game {number} in the journal")
            return record_text(found[0], str(self.config_dir))

        return await self._read_limited(read)

    async def _record_page(self, request: web.Request) -> web.Response:
        """The record as a page on the kiosk's screen (the menu's Record), in the same tab,
        with the way back to the board."""
        number = _game_number(request, "/record/3")
        text = await self._record_text(number)
        links = [("/", "Back to the board"), (f"/review/{number}", "Review"),
                 (f"/api/record/{number}", "Plain text")]  # fmt: skip
        page = record_page(f"Game {number}", text, links)
        return web.Response(text=page, content_type="text/html", charset="utf-8")

    async def _review_page(self, request: web.Request) -> web.Response:
        """A finished game's review (faces/review_page.py): a page in this tab, with the way
        back. A game that cannot be reviewed is a page with the sentence that says why."""
        number = _game_number(request, "/review/3")
        at_text = request.query.get("at", "")
        if at_text and (not at_text.isdigit() or len(at_text) > 6):
            raise BadRequest(404, "a move number, like /review/3?at=14")
        at = int(at_text) if at_text else None
        path = self.journal
        if path is None:
            raise BadRequest(404, "this referee keeps no journal")

        def read() -> str:
            try:
                view = review_view(path, number, self.config_dir, self.analyst, at,
                                   retry=request.query.get("retry") == "1")  # fmt: skip
            except ReviewError as exc:
                return problem_page(number, str(exc))
            return review_page(view)

        page = await self._read_limited(read)
        return web.Response(text=page, content_type="text/html", charset="utf-8")

    async def _review_show(self, request: web.Request) -> web.Response:
        """Light a turning point's better move on the board (``{"game": 3, "move": 14}``), or
        take it off (``{"clear": true}``). It never moves the game."""
        self.authorise(request)
        body = await self.body(request)
        if body.get("clear") is True:
            return await self._command(Command("review", source="kiosk"))
        game, move, path = body.get("game"), body.get("move"), self.journal
        if not all(isinstance(v, int) and not isinstance(v, bool) and 0 < v < 10**9
                   for v in (game, move)):  # fmt: skip
            raise BadRequest(400, 'review: {"game": 3, "move": 14}, or {"clear": true}')
        if path is None:
            raise BadRequest(404, "this referee keeps no journal")
        assert isinstance(game, int) and isinstance(move, int)

        def read() -> Shown:
            try:
                view = review_view(path, game, self.config_dir, self.analyst, move)
            except ReviewError as exc:
                raise BadRequest(409, str(exc)) from exc
            assert view.shown is not None
            return view.shown

        shown = await self._read_limited(read)
        said = shown.text  # "Move 14: …", said after the game's number
        what = f"Review of game {game}, {said[:1].lower()}{said[1:]}"
        cells = tuple(f"{cell}={signal}" for cell, signal in shown.signals.items())
        return await self._command(Command("review", what=what, source="kiosk", cells=cells))

    async def _timeline(self, request: web.Request) -> web.Response:
        """A game's timeline (referee/timeline.py) from the journal's flight recording, read
        without locking it: the moves, and under each what the sensors said, the LEDs lit, the
        words shown."""
        path = self.journal
        number = _game_number(request, "/api/timeline/3")
        if path is None:
            raise BadRequest(404, "this referee keeps no journal")

        def read() -> str:
            try:
                found = timeline_of(path, number, self.config_dir)
            except LookupError as exc:
                raise BadRequest(404, str(exc)) from exc
            except (JournalError, ConfigError) as exc:
                raise BadRequest(500, str(exc)) from exc
            return json.dumps(found, separators=(",", ":"))

        text = await self._read_limited(read)
        return web.Response(text=text, content_type="application/json", charset="utf-8")

    async def _results_csv(self, request: web.Request) -> web.Response:
        """Every game of this board's journal as CSV: who played, the result, when."""
        path = self.journal
        if path is None:
            raise BadRequest(404, "this referee keeps no journal")
        board = self.board_name

        def read() -> str:
            try:
                records = read_records(path)
            except JournalError as exc:
                raise BadRequest(500, str(exc)) from exc
            return results_csv(record_row(r, str(self.config_dir), board)
                               for r in played(records))  # fmt: skip

        text = await self._read_limited(read)
        return web.Response(text=text, content_type="text/csv", charset="utf-8",
                            headers=CSV_HEADERS)  # fmt: skip

    async def _read_limited(self, read: Callable[[], T]) -> T:
        """Run a journal read: one reader at a time, and a few a second at most, so a page
        looping on records queues here instead of taking every core from the referee."""
        now = time.monotonic()  # a token bucket: RECORDS_PER_SECOND, bursts of RECORDS_BURST
        self.record_tokens = min(RECORDS_BURST, self.record_tokens + (now - self.record_at)
                                 * RECORDS_PER_SECOND)  # fmt: skip
        self.record_at = now
        if self.record_tokens < 1:
            self._flood("record reads refused: more than the referee serves a second")
            raise BadRequest(429, "too many record requests: try again in a second")
        self.record_tokens -= 1
        async with self.readers:
            return await asyncio.get_running_loop().run_in_executor(None, read)

    async def _command(self, command: Command) -> web.Response:
        future = self.submit(command)
        try:
            result = await asyncio.wait_for(asyncio.wrap_future(future), COMMAND_TIMEOUT)
        except TimeoutError as exc:
            raise BadRequest(503, "the referee did not answer in time") from exc
        status = 200 if result.ok else 409
        return web.json_response({"ok": result.ok, "message": result.message,
                                  "serial": result.serial}, status=status)  # fmt: skip

    async def _button(self, request: web.Request) -> web.Response:
        self.authorise(request)
        name = (await self.body(request)).get("button")
        try:
            command = button_command(name, "kiosk")
        except ControlError as exc:
            raise BadRequest(400, str(exc)) from exc
        return await self._command(command)

    async def _takeback(self, request: web.Request) -> web.Response:
        self.authorise(request)
        return await self._command(Command("press", button=Button.TAKEBACK))

    async def _hint(self, request: web.Request) -> web.Response:
        """The engine's suggestion for the player to move, shown on the board (docs/engine.md)."""
        self.authorise(request)
        await self.body(request)
        return await self._command(Command("hint"))

    async def _computer_restart(self, request: web.Request) -> web.Response:
        """Start the computer's engine again after it stopped."""
        self.authorise(request)
        await self.body(request)
        return await self._command(Command("computer-restart"))

    async def _result(self, request: web.Request) -> web.Response:
        """A result the players declare: ``{"result": "resign", "player": 1}`` or
        ``{"result": "draw"}`` (the page asks for a confirmation first)."""
        self.authorise(request)
        body = await self.body(request)
        result, player = body.get("result"), body.get("player")
        if result == "draw" and player is None:
            what = "draw"
        elif result == "resign" and player in (1, 2) and not isinstance(player, bool):
            what = f"resign:{player}"
        else:
            raise BadRequest(400, 'result: {"result": "resign", "player": 1 or 2}, or '
                             '{"result": "draw"}')  # fmt: skip
        return await self._command(Command("declare", what=what, source="kiosk"))

    async def _clock(self, request: web.Request) -> web.Response:
        """The arbiter's clock control (controls.clock_command): pause, resume, add time."""
        self.authorise(request)
        body = await self.body(request)
        try:
            command = clock_command(body, "kiosk")
        except ControlError as exc:
            raise BadRequest(400, str(exc)) from exc
        return await self._command(command)

    async def _check(self, request: web.Request) -> web.Response:
        """The board check: start it (all cells, or those named), answer its step, or stop it."""
        self.authorise(request)
        body = await self.body(request)
        what = body.get("what")
        if what not in CHECK_STEPS:
            raise BadRequest(400, f"what: one of {', '.join(CHECK_STEPS)}")
        cells = body.get("cells") or None
        if cells is not None and (
            not isinstance(cells, list)
            or len(cells) > 1000
            or not all(isinstance(c, str) and 0 < len(c) <= 8 for c in cells)
        ):
            raise BadRequest(400, 'cells: a list of cell names, like ["c4", "d4"]')
        return await self._command(
            Command(
                "check",
                what=str(what),
                source="kiosk",
                cells=None if cells is None else tuple(cells),
            )
        )

    async def _new_game(self, request: web.Request) -> web.Response:
        self.authorise(request)
        body = await self.body(request)
        loop = asyncio.get_running_loop()
        known = {g["id"] for g in self.games}

        def load() -> Command:
            try:
                return new_game_command(
                    body.get("game"),
                    body.get("options", {}),
                    config_dir=self.config_dir,
                    known=known,
                    current=self.current,
                    source="kiosk",
                    players=body.get("players"),
                    computer=body.get("computer"),
                    movetime=body.get("movetime"),
                    hints=body.get("hints", True),
                    clock=body.get("clock"),
                )
            except ControlError as exc:
                raise BadRequest(400, str(exc)) from exc

        return await self._command(await loop.run_in_executor(None, load))


CHECK_STEPS = ("start", "confirm", "dark", "skip", "stop")


def _game_number(request: web.Request, example: str) -> int:
    text = request.match_info["number"]
    if not text.isdigit() or len(text) > 12:
        raise BadRequest(404, f"a game number, like {example}")
    return int(text)
