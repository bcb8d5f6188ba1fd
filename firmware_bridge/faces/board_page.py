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
from collections.abc import Callable
from pathlib import Path
from typing import Any

from aiohttp import web

from engine import ConfigError, Piece, Player
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
        self.follower: Follower | None = None  # the referee's kiosk this board follows
        emulator.on_change = self.refresh

    def refresh(self) -> None:
        """The board changed (pieces, hand, LEDs, cable), or its referee came or went: push
        the new view."""
        view = self.emulator.view()
        follower = self.follower
        # Whether the referee is there: its page answers (a board that follows one), or it
        # has scanned the board since the cable went in.
        view["referee"] = (
            "none" if follower is None else "up" if follower.connected else "gone"
        )  # fmt: skip
        view["recorded"] = follower is not None and follower.position() is not None
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
                emulator.take_off(str(cell))
            elif action == "place":
                hand, piece = body.get("hand"), body.get("piece")
                if isinstance(hand, int) and not isinstance(hand, bool):
                    emulator.put_down(str(cell), index=hand)
                elif isinstance(piece, str) and piece:
                    emulator.put_down(str(cell), token=piece)
                else:
                    emulator.put_down(str(cell))
            elif action == "press":
                emulator.press(str(body.get("button", "")))
            elif action == "setup":
                emulator.set_up(emulator.game.new_state().layout())
            elif action == "layout":  # the referee's position, as it recorded it
                layout = None if self.follower is None else self.follower.position()
                if layout is None:
                    raise BadRequest(409, "no position from the referee to lay out (it is "
                                     "not running, or plays another game)")  # fmt: skip
                emulator.set_up(layout)
            elif action == "clear":
                emulator.set_up({})
            elif action == "unplug":
                emulator.board.unplug()
            elif action == "replug":
                if not emulator.board.plugged:
                    emulator.board.replug()
            else:
                raise BadRequest(400, f"unknown action {action!r} (lift, place, press, setup, "
                                      "layout, clear, unplug, replug)")  # fmt: skip
        except (CommandError, ValueError) as exc:
            raise BadRequest(409, str(exc)) from exc
        return web.json_response({"ok": True})


class Follower:
    """Watches the kiosk's live state and swaps the emulated board when the referee's game
    needs another one. Only for the built-in emulator of the main command."""

    def __init__(self, emulator: Table, url: str, config_dir: Path,
                 on_change: Callable[[], None] | None = None) -> None:  # fmt: skip
        self.emulator = emulator
        self.url = url.rstrip("/") + "/api/events"
        self.config_dir = config_dir
        self.running = True
        self.connected = False  # the referee's page answers now
        self.latest: dict[str, Any] | None = None  # the referee's latest state
        self.on_change = on_change  # the page: the referee came or went

    def start(self) -> None:
        threading.Thread(target=self._run, name="follower", daemon=True).start()

    def _run(self) -> None:
        while self.running:
            try:
                # Its stream says "still here" every 15 s: a read timeout past that is a
                # referee gone (a kill -9 leaves no one to close the connection).
                with urllib.request.urlopen(self.url, timeout=20) as stream:
                    self._connected(True)
                    for raw in stream:
                        line = raw.decode("utf-8", "replace").rstrip("\r\n")
                        if line.startswith("data: "):
                            self._state(json.loads(line[6:]))
            except (OSError, urllib.error.URLError, json.JSONDecodeError, ValueError):
                pass  # the referee is not up yet, or restarting: try again
            self._connected(False)
            self.latest = None  # a referee back may play another game
            time.sleep(0.5)

    def _connected(self, up: bool) -> None:
        if up != self.connected:
            self.connected = up
            if self.on_change is not None:
                self.on_change()

    def position(self) -> dict[int, Piece] | None:
        """The referee's position for this board's game, as its page last showed it (None:
        no referee, or one that plays another game)."""
        state = self.latest
        if not self.connected or state is None:
            return None
        game = self.emulator.game
        if (state.get("game") or {}).get("id") != game.id:
            return None
        layout: dict[int, Piece] = {}
        try:
            for item in state.get("pieces") or []:
                cell = game.board.index[item["cell"]]
                layout[cell] = Piece(str(item["kind"]), Player.parse(item["owner"]),
                                     item.get("state"))  # fmt: skip
        except (KeyError, TypeError, ValueError):
            return None
        return layout

    def _state(self, state: dict[str, Any]) -> None:
        first = self.latest is None
        self.latest = state
        if first and self.on_change is not None:
            self.on_change()  # the page may offer to lay out the referee's position now
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
