"""A live web face served beside a main loop: the common part of the kiosk and the emulated
board's page.

Built on aiohttp, a well-kept asyncio HTTP server whose streaming responses carry Server-Sent
Events without another package. The server runs its own event loop in its own thread. The
owner of the state hands it finished JSON text (``publish``, callable from any thread, never
blocking); every open page gets the latest text at once and then each new one. Pages reconnect
by themselves (``retry:``), so a restart or a network drop heals without a reload.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import threading
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from aiohttp import web

WEB = Path(__file__).resolve().parent / "web"
HEARTBEAT = 15.0  # seconds between SSE comments that keep a quiet stream open
TOKEN_HEADER = "X-Board-Referee-Token"


class WebError(Exception):
    """The server cannot start (address in use, bad address); the message says why."""


class BadRequest(Exception):  # noqa: N818 (named for its HTTP meaning)
    """A request answered with ``status`` and the message; nothing was changed."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def parse_address(text: str, option: str = "--kiosk") -> tuple[str, int]:
    """``HOST:PORT`` (``[::1]:8080`` for IPv6)."""
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit() or not 0 <= int(port) < 65536:
        raise WebError(f"{option} {text!r}: expected HOST:PORT, like 127.0.0.1:8080")
    return host.strip("[]") or "127.0.0.1", int(port)


class LiveServer:
    """Serves ``page`` at ``/``, the shared assets at ``/static``, the latest state at
    ``/api/state`` and its stream at ``/api/events``; subclasses add their controls."""

    page = "index.html"
    name = "web page"
    token_hint = "printed at start"  # where a person finds the access token

    def __init__(self, host: str, port: int, token: str | None = None) -> None:
        self.host, self.port = host, port
        self.token = token  # None: controls are open (the server listens on loopback)
        self.loop: asyncio.AbstractEventLoop | None = None
        self.latest = ""
        self.serial = 0
        self.changed: asyncio.Condition | None = None
        self.stopping: asyncio.Event | None = None
        self.thread: threading.Thread | None = None
        self.ready = threading.Event()
        self.error: BaseException | None = None
        self.url = ""
        self._tasks: set[asyncio.Future[None]] = set()

    # -- life cycle -------------------------------------------------------------------------
    def start(self) -> str:
        """Start serving in a thread; returns the page's URL. Raises WebError."""
        self.thread = threading.Thread(target=self._thread, name=self.name, daemon=True)
        self.thread.start()
        if not self.ready.wait(10):
            raise WebError(f"the {self.name} did not start")
        if self.error is not None:
            why = getattr(self.error, "strerror", None) or self.error
            raise WebError(f"the {self.name} cannot listen on {self.host}:{self.port}: {why}")
        host = f"[{self.host}]" if ":" in self.host else self.host
        self.url = f"http://{host}:{self.port}/"
        return self.url

    def stop(self) -> None:
        loop, stopping = self.loop, self.stopping
        if loop is not None and stopping is not None:
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(stopping.set)
        if self.thread is not None:
            self.thread.join(5)

    def _thread(self) -> None:
        loop = asyncio.new_event_loop()
        self.loop = loop
        try:
            loop.run_until_complete(self._main())
        except BaseException as exc:  # reported to start(); the thread just ends
            self.error = exc
            self.ready.set()
        finally:
            loop.close()

    async def _main(self) -> None:
        self.changed = asyncio.Condition()
        self.stopping = asyncio.Event()
        runner = web.AppRunner(self.app(), handle_signals=False, access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, self.host, self.port, shutdown_timeout=1.0)
        try:
            await site.start()
        except BaseException:
            await runner.cleanup()
            raise
        if self.port == 0:  # an ephemeral port (tests)
            sockets = getattr(site._server, "sockets", None) or []
            self.port = sockets[0].getsockname()[1]
        self.ready.set()
        await self.stopping.wait()
        async with self.changed:
            self.changed.notify_all()
        await runner.cleanup()

    # -- state ------------------------------------------------------------------------------
    def publish_text(self, text: str) -> None:
        """New state as JSON text, from any thread; returns at once."""
        loop = self.loop
        if loop is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(self._take_text, text)

    def _take_text(self, text: str) -> None:
        self.latest = text
        self.serial += 1
        task = asyncio.ensure_future(self._notify())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _notify(self) -> None:
        if self.changed is not None:
            async with self.changed:
                self.changed.notify_all()

    # -- the app ----------------------------------------------------------------------------
    def app(self) -> web.Application:
        app = web.Application(client_max_size=64 * 1024, middlewares=[self._errors])
        app.router.add_get("/", self._page)
        app.router.add_get("/api/state", self._state)
        app.router.add_get("/api/events", self._events)
        app.router.add_static("/static", WEB, show_index=False)
        self.routes(app)
        return app

    def routes(self, app: web.Application) -> None:
        """Subclasses add their routes here."""

    @web.middleware
    async def _errors(
        self, request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
    ) -> web.StreamResponse:
        try:
            return await handler(request)
        except BadRequest as exc:
            return web.json_response({"ok": False, "error": str(exc)}, status=exc.status)
        except web.HTTPException as exc:
            if exc.status >= 400:
                return web.json_response({"ok": False, "error": exc.reason}, status=exc.status)
            raise

    async def _page(self, request: web.Request) -> web.StreamResponse:
        return web.FileResponse(WEB / self.page, headers={"Cache-Control": "no-cache"})

    async def _state(self, request: web.Request) -> web.Response:
        if not self.latest:
            raise BadRequest(503, "no state has been published yet")
        return web.Response(text=self.latest, content_type="application/json")

    async def _events(self, request: web.Request) -> web.StreamResponse:
        """Server-Sent Events: the latest state at once, then each new one."""
        assert self.stopping is not None
        response = await self.stream(request)
        sent = -1
        while not self.stopping.is_set():
            if self.serial != sent and self.latest:
                sent = self.serial
                await response.write(f"event: state\ndata: {self.latest}\n\n".encode())
                continue
            await self.wait_change(response)
        return response

    @staticmethod
    async def stream(request: web.Request) -> web.StreamResponse:
        """An open Server-Sent Events response; pages reconnect by themselves (``retry:``)."""
        response = web.StreamResponse(
            headers={
                "Content-Type": "text/event-stream",
                "Cache-Control": "no-cache",
                "X-Accel-Buffering": "no",
            }
        )
        await response.prepare(request)
        await response.write(b"retry: 1000\n\n")
        return response

    async def wait_change(self, response: web.StreamResponse) -> None:
        """Until the state changes, keeping a quiet stream open with a comment."""
        assert self.changed is not None
        async with self.changed:
            try:
                await asyncio.wait_for(self.changed.wait(), HEARTBEAT)
            except TimeoutError:
                await response.write(b": still here\n\n")

    def authorise(self, request: web.Request) -> None:
        """A control's access token (header ``X-Board-Referee-Token`` or ``?token=``), needed
        when the server listens beyond loopback (401 without it, 403 with a wrong one)."""
        if self.token is None:
            return
        given = request.headers.get(TOKEN_HEADER) or request.query.get("token")
        if not given:
            raise BadRequest(
                401,
                f"this control needs the {self.name}'s access token ({self.token_hint}; open "
                "the page with ?token=...)",
            )
        if not hmac.compare_digest(given.encode(), self.token.encode()):
            raise BadRequest(403, "wrong access token")

    @staticmethod
    async def body(request: web.Request) -> dict[str, Any]:
        """The request's JSON object body (400 otherwise)."""
        try:
            body = await request.json()
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise BadRequest(400, "the request body is not JSON") from exc
        if not isinstance(body, dict):
            raise BadRequest(400, "the request body must be a JSON object")
        return body


__all__ = ["TOKEN_HEADER", "WEB", "BadRequest", "LiveServer", "WebError", "parse_address"]
