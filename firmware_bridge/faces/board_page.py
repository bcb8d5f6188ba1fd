"""The emulated board's web face: the board in a browser, played by clicking (or tapping).

Click a piece to lift it into the hand, click an empty cell to put the hand's piece down (the
one picked in the hand or the supply, else the last lifted), press the board's buttons, and see
the LEDs the referee sends. Every click is a physical action of the emulator, which goes on
speaking the protocol over its pty exactly as a real board would: the page never talks to the
referee.

``Follower`` keeps the emulated board the one the referee wants: when the kiosk starts a game
that needs another board, it swaps the board, as a club member would put the right one out.
"""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from aiohttp import web

from engine import ConfigError
from firmware_bridge.boards.pieces import CommandError
from firmware_bridge.boards.table import Table
from firmware_bridge.faces.webserver import BadRequest, LiveServer
from firmware_bridge.link import catalog
from firmware_bridge.referee.snapshot import board_picture


class EmulatorWeb(LiveServer):
    page = "emulator.html"
    name = "emulated board's page"
    token_hint = "kept in the file its start names"

    def __init__(
        self,
        host: str,
        port: int,
        emulator: Table,
        *,
        token: str | None = None,
        allow_hosts: tuple[str, ...] = (),
    ) -> None:
        super().__init__(host, port, token, allow_hosts=allow_hosts)
        self.emulator = emulator
        emulator.on_change = self.refresh

    def refresh(self) -> None:
        """The board changed (pieces, hand, LEDs, cable): push the new view."""
        view = self.emulator.view()
        text = json.dumps(view, separators=(",", ":"))
        picture = board_picture(self.emulator.game).text
        self.publish_text('{"board":' + picture + "," + text[1:])

    def routes(self, app: web.Application) -> None:
        app.router.add_post("/api/action", self._action)

    async def _action(self, request: web.Request) -> web.Response:
        self.authorise(request)  # a click is a hand on the board: the kiosk's rules
        body = await self.body(request)
        action = body.get("do")
        emulator = self.emulator
        cell = body.get("cell")
        if action in ("lift", "place") and not isinstance(cell, str):
            raise BadRequest(400, f"{action} needs a cell")
        try:
            if action == "lift":
                emulator.lift(str(cell))
            elif action == "place":
                hand, piece = body.get("hand"), body.get("piece")
                if isinstance(hand, int) and not isinstance(hand, bool):
                    emulator.place_from_hand(str(cell), hand)
                elif isinstance(piece, str) and piece:
                    emulator.place(str(cell), piece)
                else:
                    emulator.place(str(cell))
            elif action == "press":
                emulator.press(str(body.get("button", "")))
            elif action == "setup":
                emulator.set_up(emulator.game.new_state().layout())
            elif action == "clear":
                emulator.set_up({})
            elif action == "unplug":
                emulator.board.unplug()
            elif action == "replug":
                if not emulator.board.plugged:
                    emulator.board.replug()
            else:
                raise BadRequest(400, f"unknown action {action!r} (lift, place, press, setup, "
                                      "clear, unplug, replug)")  # fmt: skip
        except (CommandError, ValueError) as exc:
            raise BadRequest(409, str(exc)) from exc
        return web.json_response({"ok": True})


class Follower:
    """Watches the kiosk's live state and swaps the emulated board when the referee's game
    needs another one. Only for the built-in emulator of the main command."""

    def __init__(self, emulator: Table, url: str, config_dir: Path) -> None:
        self.emulator = emulator
        self.url = url.rstrip("/") + "/api/events"
        self.config_dir = config_dir
        self.running = True

    def start(self) -> None:
        threading.Thread(target=self._run, name="follower", daemon=True).start()

    def _run(self) -> None:
        while self.running:
            try:
                with urllib.request.urlopen(self.url, timeout=40) as stream:
                    for raw in stream:
                        line = raw.decode("utf-8", "replace").rstrip("\r\n")
                        if line.startswith("data: "):
                            self._state(json.loads(line[6:]))
            except (OSError, urllib.error.URLError, json.JSONDecodeError, ValueError):
                pass  # the referee is not up yet, or restarting: try again
            time.sleep(0.5)

    def _state(self, state: dict[str, Any]) -> None:
        game_info = state.get("game") or {}
        wanted = (game_info.get("id"), game_info.get("options"), game_info.get("profile"))
        emulator = self.emulator
        have = (
            emulator.game.id,
            {k: str(v) for k, v in emulator.game.options.items()},
            emulator.profile.id,
        )
        if wanted == have or not isinstance(wanted[0], str):
            return
        try:
            game = catalog.load_game(wanted[0], wanted[1] or {}, self.config_dir)
            profile = catalog.load_profile(str(wanted[2]), game, self.config_dir)
        except ConfigError:
            return
        if profile == emulator.profile and game.board.names == emulator.game.board.names:
            with emulator.lock:
                emulator.game = game  # same board, other options: nothing to swap
            return
        emulator.swap(game, profile)


__all__ = ["EmulatorWeb", "Follower"]
