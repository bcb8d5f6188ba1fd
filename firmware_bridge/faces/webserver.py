"""A live web face served beside a main loop: the common part of the kiosk, the club view and
the emulated board's page.

Built on aiohttp, a well-kept asyncio HTTP server whose streaming responses carry Server-Sent
Events without another package. The server runs its own event loop in its own thread. The
owner of the state hands it finished JSON text (``publish``, callable from any thread, never
blocking); every open page gets the latest text at once and then each new one. Pages reconnect
by themselves (``retry:``), so a restart or a network drop heals without a reload.

Every request is treated as hostile (docs/kiosk.md, "What the pages refuse"): the server
answers only to its own names (no DNS rebinding), a control is carried out only for a
same-origin JSON request (no other page, form or link can press one), bodies are bounded in
size, depth and time, connections are capped below the descriptor limit and idle or half-sent
ones are closed, and every answer carries a Content-Security-Policy that allows only the
page's own files.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import hmac
import ipaddress
import json
import logging
import resource
import threading
import time
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from aiohttp import web

from firmware_bridge import words
from firmware_bridge.faces.hosts import (
    WebError,
    host_name,
    is_address,
    own_names,
    page_url,
    port_holder,
)
from firmware_bridge.faces.safejson import JsonLimitError, loads_limited

WEB = Path(__file__).resolve().parent / "web"
HEARTBEAT = 15.0  # seconds between SSE comments that keep a quiet stream open
TOKEN_HEADER = "X-Board-Referee-Token"
IDLE_TIMEOUT = 10.0  # seconds a connection may sit idle or half-send a request's head
BODY_TIMEOUT = 10.0  # seconds to send a request's body
WRITE_TIMEOUT = 30.0  # seconds a page may leave a stream unread before it is dropped
MAX_BODY = 64 * 1024  # bytes of a control's body
MAX_DEPTH = 20  # nesting of a control's JSON body
MAX_CONNECTIONS = 256  # open connections per server, well below the descriptor limit
MAX_STREAMS = 48  # live pages per server (a table has one to three; the club view's own)
# One address other than this machine's own (127.0.0.1, ::1) keeps at most PER_ADDRESS
# connections, and all of them together leave OWN_ROOM of the cap to this machine: a flood from
# one machine on the network cannot take every slot, and the kiosk screen beside the board
# always gets its page.
PER_ADDRESS = 32
OWN_ROOM = 32
OWN_ADDRESSES = frozenset({"127.0.0.1", "::1", "::ffff:127.0.0.1"})
FLOOD_LOG_EVERY = 60.0  # seconds between two log lines about refused connections
SECURITY_HEADERS = {
    "Server": "board-referee",
    "Content-Security-Policy": (
        "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; "
        "form-action 'self'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
}
SSE_HEADERS = {"Content-Type": "text/event-stream", "Cache-Control": "no-cache",
               "X-Accel-Buffering": "no"}  # fmt: skip
quiet = logging.getLogger("board-referee.web")
WORDS_MODULE = "export const WORDS = " + json.dumps(words.PAGE, ensure_ascii=False) + ";\n"


def connection_cap() -> int:
    """Connections one server accepts: MAX_CONNECTIONS, or a quarter of the process's
    descriptor limit when that is lower, so the board, the journal and the other faces always
    find descriptors."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return MAX_CONNECTIONS
    return max(8, min(MAX_CONNECTIONS, soft // 4))


class BadRequest(Exception):  # noqa: N818 (named for its HTTP meaning)
    """A request answered with ``status`` and the message; nothing was changed."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class LiveServer:
    """Serves ``page`` at ``/``, the shared assets at ``/static``, the latest state at
    ``/api/state`` and its stream at ``/api/events``; subclasses add their controls."""

    page = "index.html"
    name = "web page"
    token_hint = "its file is named in the log"  # where a person finds the access token
    moved_by = ""  # the option (and variable) that moves the page to another address

    def __init__(
        self, host: str, port: int, token: str | None = None, *, allow_hosts: Iterable[str] = ()
    ) -> None:
        self.host, self.port = host, port
        self.token = token  # None: controls are open (the server listens on loopback)
        self.names = own_names([*allow_hosts, host])
        self.cap = connection_cap()
        self.open = 0  # connections open now (the server's loop keeps the count)
        self.from_elsewhere: dict[str, int] = {}  # open connections of each other address
        self.streams = 0  # live pages served now
        self.refused: dict[str, int] = {}  # refusals of each kind since its last log line
        self.refused_logged: dict[str, float] = {}
        self.log = quiet
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
            if getattr(self.error, "errno", None) == errno.EADDRINUSE:
                holder = port_holder(self.port)
                why = f"{why}, by {holder}" if holder else why
                if self.moved_by:
                    why = f"{why}; stop it, or serve this page elsewhere with {self.moved_by}"
            raise WebError(f"the {self.name} cannot listen on {self.host}:{self.port}: {why}")
        self.url = page_url(self.host, self.port)
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
        # keepalive_timeout closes a connection idle, or half-way through sending a request's
        # head, for that long (aiohttp counts from the connection and from each answer).
        runner = web.AppRunner(self.app(), handle_signals=False, access_log=None,
                               keepalive_timeout=IDLE_TIMEOUT, shutdown_timeout=1.0)  # fmt: skip
        await runner.setup()
        handler = runner.server
        assert handler is not None
        loop = asyncio.get_running_loop()

        def protocol() -> asyncio.BaseProtocol:
            # Counted here, not by aiohttp's list: a burst of accepts makes many protocols
            # before the first of them is told its connection is made.
            if self.open >= self.cap:
                return self._refuse()
            self.open += 1
            return _Counted(handler(), self)

        try:
            server = await loop.create_server(protocol, self.host, self.port,
                                              reuse_address=True, backlog=128)  # fmt: skip
        except BaseException:
            await runner.cleanup()
            raise
        if self.port == 0:  # an ephemeral port (tests)
            self.port = server.sockets[0].getsockname()[1]
        self.ready.set()
        await self.stopping.wait()
        async with self.changed:
            self.changed.notify_all()
        server.close()
        await runner.cleanup()

    def _refuse(self) -> asyncio.BaseProtocol:
        """A connection over the cap: closed at once, and a log line at most once a minute."""
        self._flood(f"connection(s) refused: {self.cap} are open, the most it keeps")
        return _Refused()

    def admit(self, address: str) -> bool:
        """May a connection from ``address`` (just made, counted in ``open``) stay?"""
        if address in OWN_ADDRESSES:
            return True
        held = self.from_elsewhere.get(address, 0)
        if held >= PER_ADDRESS:
            self._flood(f"connection(s) from one address refused: {address} holds {held}, "
                        "the most one address keeps")  # fmt: skip
            return False
        if sum(self.from_elsewhere.values()) >= self.cap - OWN_ROOM:
            self._flood(f"connection(s) from elsewhere refused: the last {OWN_ROOM} of "
                        f"{self.cap} are kept for this machine's own pages")  # fmt: skip
            return False
        self.from_elsewhere[address] = held + 1
        return True

    def leave(self, address: str) -> None:
        """A connection ``admit`` let in has closed."""
        held = self.from_elsewhere.get(address, 0)
        if held > 1:
            self.from_elsewhere[address] = held - 1
        else:
            self.from_elsewhere.pop(address, None)

    def _flood(self, what: str) -> None:
        """Count a refusal of ``what`` kind; log the count at most once a minute per kind."""
        kind = what.partition(":")[0]
        self.refused[kind] = self.refused.get(kind, 0) + 1
        now = time.monotonic()
        if now - self.refused_logged.get(kind, -FLOOD_LOG_EVERY) >= FLOOD_LOG_EVERY:
            self.log.warning("%s: %d %s (a flood?)", self.name, self.refused[kind], what)
            self.refused[kind], self.refused_logged[kind] = 0, now

    # -- state ------------------------------------------------------------------------------
    def on_loop(self, callback: Callable[..., object], *args: object) -> None:
        """Run ``callback(*args)`` on the server's loop, from any thread; returns at once (and
        does nothing before the loop runs or once it is shutting down)."""
        loop = self.loop
        if loop is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(callback, *args)

    def publish_text(self, text: str) -> None:
        """New state as JSON text, from any thread; returns at once."""
        self.on_loop(self._take_text, text)

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
        app = web.Application(client_max_size=MAX_BODY, middlewares=[self._errors, self._guard])
        app.on_response_prepare.append(self._headers)
        app.router.add_get("/", self._page)
        app.router.add_get("/api/state", self._state)
        app.router.add_get("/api/events", self._events)
        app.router.add_get("/words.js", self._words)
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
            return self._refusal(request, exc.status, str(exc), {})
        except web.HTTPException as exc:
            if exc.status >= 400:
                allow = {"Allow": exc.headers["Allow"]} if "Allow" in exc.headers else {}
                return self._refusal(request, exc.status, exc.reason, allow)
            raise

    @staticmethod
    def _refusal(
        request: web.Request, status: int, why: str, headers: dict[str, str]
    ) -> web.Response:
        """A refusal as JSON: ``{"ok": false, "error": ...}``, or its headers alone to HEAD."""
        if request.method == "HEAD":
            return web.Response(status=status, headers=headers)
        return web.json_response({"ok": False, "error": why}, status=status, headers=headers)

    @web.middleware
    async def _guard(
        self, request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
    ) -> web.StreamResponse:
        """Only the server's own names are served, and controls only to the page's own origin
        with a JSON body: no other site, form or link can press one."""
        name = host_name(request.host)
        if not is_address(name) and name not in self.names:
            raise BadRequest(421, f"this {self.name} answers to its own names only, not "
                             f"{name[:60]!r} (add one with --allow-host)")  # fmt: skip
        unrouted = request.match_info.http_exception  # no such path (404), or method (405)
        if unrouted is not None:
            raise unrouted
        if request.method not in ("GET", "HEAD"):
            site = request.headers.get("Sec-Fetch-Site")
            if site is not None and site not in ("same-origin", "none"):
                raise BadRequest(403, f"controls answer the {self.name}'s own page only")
            origin = request.headers.get("Origin")
            if origin is not None and urlsplit(origin).netloc.lower() != request.host.lower():
                raise BadRequest(403, f"controls answer the {self.name}'s own page only")
            if request.content_type != "application/json":
                raise BadRequest(415, "a control's body must be JSON (Content-Type: "
                                 "application/json)")  # fmt: skip
        return await handler(request)

    @staticmethod
    async def _headers(request: web.Request, response: web.StreamResponse) -> None:
        response.headers.update(SECURITY_HEADERS)

    async def _page(self, request: web.Request) -> web.StreamResponse:
        return web.FileResponse(WEB / self.page, headers={"Cache-Control": "no-cache"})

    async def _words(self, request: web.Request) -> web.Response:
        """The pages' phrases (firmware_bridge/words.py), as a module web/say.js imports."""
        return web.Response(text=WORDS_MODULE, content_type="text/javascript", charset="utf-8",
                            headers={"Cache-Control": "no-cache"})  # fmt: skip

    async def _state(self, request: web.Request) -> web.Response:
        if not self.latest:
            raise BadRequest(503, "no state has been published yet")
        return web.Response(text=self.latest, content_type="application/json")

    async def _events(self, request: web.Request) -> web.StreamResponse:
        """Server-Sent Events: the latest state at once, then each new one."""
        sent = -1

        def produce() -> bytes | None:
            nonlocal sent
            if self.serial == sent or not self.latest:
                return None
            sent = self.serial
            return f"event: state\ndata: {self.latest}\n\n".encode()

        return await self.stream(request, produce)

    async def stream(
        self, request: web.Request, produce: Callable[[], bytes | None]
    ) -> web.StreamResponse:
        """A Server-Sent Events stream: each event ``produce`` has, then a wait for a change
        (a comment keeps a quiet stream open). Pages reconnect by themselves (``retry:``). A
        page that goes away, or stops reading for WRITE_TIMEOUT, just ends its stream."""
        assert self.stopping is not None and self.changed is not None
        if request.method == "HEAD":
            return web.Response(headers=SSE_HEADERS)
        if self.streams >= MAX_STREAMS:  # each change is written to every stream
            self._flood(f"live pages refused: {self.streams} are open, the most it serves")
            raise BadRequest(503, f"the {self.name} already serves {self.streams} live pages; "
                             "close one and this page reconnects by itself")  # fmt: skip
        response = web.StreamResponse(headers=SSE_HEADERS)
        self.streams += 1
        try:
            await response.prepare(request)
            await self._write(response, b"retry: 1000\n\n")
            while not self.stopping.is_set():
                chunk = produce()
                if chunk:
                    await self._write(response, chunk)
                    continue
                async with self.changed:
                    try:
                        await asyncio.wait_for(self.changed.wait(), HEARTBEAT)
                    except TimeoutError:
                        pass
                    else:
                        continue
                await self._write(response, b": still here\n\n")
        except ConnectionError:  # the page closed: normal
            self.log.debug("%s: a page went away", self.name)
        except TimeoutError:  # a page that stopped reading holds no connection
            self.log.debug("%s: dropped a page that stopped reading", self.name)
            if request.transport is not None:
                request.transport.abort()
        finally:
            self.streams -= 1
        return response

    @staticmethod
    async def _write(response: web.StreamResponse, chunk: bytes) -> None:
        await asyncio.wait_for(response.write(chunk), WRITE_TIMEOUT)

    def authorise(self, request: web.Request) -> None:
        """A control's access token (header ``X-Board-Referee-Token`` or ``?token=``), needed
        when the server listens beyond loopback (401 without it, 403 with a wrong one), from
        every machine but this one: the screen beside the board (``kiosk-screen``) opens the
        page on loopback, and nobody can type a token on a touchscreen. A request from this
        machine is trusted as it is when the server listens on loopback only; another site's
        page in this machine's browser is still refused by ``_guard`` (Origin, Sec-Fetch-Site,
        JSON only), and a request a proxy passes on (``Forwarded``) is not this machine's."""
        if self.token is None or from_this_machine(request):
            return
        given = request.headers.get(TOKEN_HEADER) or request.query.get("token")
        if not given:
            raise BadRequest(
                401,
                f"this control needs the {self.name}'s access token ({self.token_hint}; open "
                "the page with ?token=...)",
            )
        # Any bytes may arrive: compared as UTF-8, with what cannot be encoded replaced (the
        # token itself is URL-safe ASCII, so a replaced character never matches).
        if not hmac.compare_digest(given.encode("utf-8", "replace"), self.token.encode()):
            raise BadRequest(403, "wrong access token")

    def needs_token(self, request: web.Request) -> bool:
        """Whether this request's page must send the access token with a control."""
        return self.token is not None and not from_this_machine(request)

    @staticmethod
    async def body(request: web.Request) -> dict[str, Any]:
        """The request's JSON object body, bounded in size, nesting and sending time (400,
        408 or 413 otherwise)."""
        try:
            raw = await asyncio.wait_for(request.read(), BODY_TIMEOUT)
        except TimeoutError:
            raise BadRequest(408, "the request body came too slowly") from None
        try:
            body = loads_limited(raw, max_bytes=MAX_BODY, max_depth=MAX_DEPTH)
        except JsonLimitError as exc:
            raise BadRequest(413 if exc.too_big else 400, str(exc)) from None
        except ValueError:
            raise BadRequest(400, "the request body is not JSON") from None
        if not isinstance(body, dict):
            raise BadRequest(400, "the request body must be a JSON object")
        return body


FORWARDING_HEADERS = ("Forwarded", "X-Forwarded-For", "X-Real-IP", "X-Forwarded-Host")


def from_this_machine(request: web.Request) -> bool:
    """A request whose connection comes from this machine's loopback (127.0.0.0/8, ::1), not
    passed on by a proxy on it (which would make every machine look like this one)."""
    peer = request.transport.get_extra_info("peername") if request.transport else None
    address = str(peer[0]) if isinstance(peer, tuple) and peer else ""
    if address.startswith("::ffff:"):
        address = address[7:]
    try:
        loopback = ipaddress.ip_address(address.split("%")[0]).is_loopback
    except ValueError:
        return False
    return loopback and not any(h in request.headers for h in FORWARDING_HEADERS)


class _Counted(asyncio.Protocol):
    """aiohttp's protocol for one connection, counted in and out of the server's ``open`` and
    its address's share; one its address may not open is closed before aiohttp sees it."""

    __slots__ = ("address", "inner", "server")

    def __init__(self, inner: asyncio.Protocol, server: LiveServer) -> None:
        self.inner, self.server = inner, server
        self.address: str | None = None  # None: refused

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        peer = transport.get_extra_info("peername")
        address = str(peer[0]) if isinstance(peer, tuple) and peer else ""
        if not self.server.admit(address):
            transport.abort()  # type: ignore[attr-defined]
            return
        self.address = address
        self.inner.connection_made(transport)

    def data_received(self, data: bytes) -> None:
        if self.address is not None:
            self.inner.data_received(data)

    def eof_received(self) -> bool | None:
        return self.inner.eof_received() if self.address is not None else None

    def pause_writing(self) -> None:
        if self.address is not None:
            self.inner.pause_writing()

    def resume_writing(self) -> None:
        if self.address is not None:
            self.inner.resume_writing()

    def connection_lost(self, exc: Exception | None) -> None:
        self.server.open -= 1
        if self.address is not None:
            self.server.leave(self.address)
            self.inner.connection_lost(exc)


class _Refused(asyncio.Protocol):
    """A connection over the cap: closed as soon as it is made."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        transport.abort()  # type: ignore[attr-defined]


__all__ = ["TOKEN_HEADER", "WEB", "BadRequest", "LiveServer"]
