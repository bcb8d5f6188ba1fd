"""The club view: one page for a tournament director, fed by every board's MQTT topics.

``board-referee club --mqtt URL`` subscribes to ``PREFIX/+/state``, ``/status`` and ``/events``
(docs/mqtt.md) and serves a page with every board as a small live picture, alerts, a results
table, and each board's full live page (the kiosk page, fed from its retained state). New game,
take back and the arbiter's clock controls on a board's page are published to that board's
``command`` topic; the broker's credentials and ACLs decide whether the board hears them.

paho-mqtt's network thread only hands messages to the web server's event loop, which owns all
the club's state; a message that is not what the contract says is ignored with a log line.
"""

from __future__ import annotations

import asyncio
import datetime
import html
import json
import logging
import secrets
import statistics
import threading
import time
from collections import deque
from pathlib import Path
from typing import Any

import paho.mqtt.client as paho
from aiohttp import web

from engine import moves_played
from firmware_bridge.faces.broker import BOARD_NAME, MAX_BOARDS, Broker
from firmware_bridge.faces.broker_log import KEPT as REFUSALS_KEPT
from firmware_bridge.faces.broker_log import BrokerLog, Refusal
from firmware_bridge.faces.club_board import BoardEntry, game_of
from firmware_bridge.faces.club_review import ClubReviews
from firmware_bridge.faces.contract import (
    event_problem,
    result_problem,
    results_problem,
    reviews_problem,
    state_problem,
    status_problem,
    timeline_problem,
)
from firmware_bridge.faces.hosts import write_whole
from firmware_bridge.faces.kiosk import games_catalog
from firmware_bridge.faces.mqtt import Complaints, new_client, unreachable_words
from firmware_bridge.faces.record_page import record_page
from firmware_bridge.faces.safejson import JsonLimitError, loads_limited
from firmware_bridge.faces.standings import standings, standings_csv
from firmware_bridge.faces.webserver import WEB, BadRequest, LiveServer
from firmware_bridge.referee.journal import GameRecord, people_of
from firmware_bridge.referee.records import CSV_HEADERS, record_text, result_row, results_csv

COMMAND_TIMEOUT = 5.0
DELAYS_KEPT = 20000  # delivery delays kept for /api/stats
MAX_PAYLOAD = 512 * 1024  # bytes of one message (a long game's state is some 100 KB)
MAX_DEPTH = 12  # nesting of one message (a state nests 5 deep)
TIMELINES_KEPT = 10  # games' timelines kept per board (the latest each board published)
TIMELINE_BYTES_KEPT = 48 * 1024 * 1024  # all boards' together: past it the largest board's
# oldest go first (a board publishing many large timelines cannot crowd the others out)
RESULTS_KEPT = 10000  # results kept in memory (the file keeps them all)
# Each board's topics read.
SUBSCRIBED = ("state", "status", "events", "timeline", "results", "reviews")


class ClubServer(LiveServer):
    page = "club.html"
    name = "club view"
    token_hint = "kept in club-token beside the results"
    moved_by = "--listen HOST:PORT (or $BOARD_REFEREE_CLUB)"

    def __init__(
        self,
        host: str,
        port: int,
        *,
        broker: Broker,
        config_dir: Path,
        token: str | None,
        log: logging.Logger,
        results_path: Path | None,
        alert_after: float = 20.0,
        max_boards: int = MAX_BOARDS,
        allow_hosts: tuple[str, ...] = (),
        broker_log: Path | None = None,
    ) -> None:
        super().__init__(host, port, token, allow_hosts=allow_hosts)
        # What the broker refused, from its own log (broker_log.py), the latest last
        self.refusals: deque[Refusal] = deque(maxlen=REFUSALS_KEPT)
        self.broker_log = None if broker_log is None else BrokerLog(
            broker_log, lambda r: self.on_loop(self._refused, r), log)  # fmt: skip
        self.max_boards = max_boards
        self.broker = broker
        self.config_dir = config_dir
        self.log = log
        self.results_path = results_path
        self.alert_after = alert_after
        self.boards: dict[str, BoardEntry] = {}
        self.timelines: dict[str, dict[int, str]] = {}  # board -> game number -> its timeline
        self.timeline_bytes = 0
        self.reviews = ClubReviews()  # what each board published of its games' reviews
        self.results: deque[dict[str, Any]] = deque(maxlen=RESULTS_KEPT)
        self.games: list[dict[str, Any]] = []
        self.waiting: dict[str, asyncio.Future[dict[str, Any]]] = {}  # command id -> answer
        self.delays: deque[float] = deque(maxlen=DELAYS_KEPT)
        self.received = 0
        self.started = time.monotonic()
        self.ignored: dict[str, float] = {}  # reason -> when we last logged it
        self.mqtt_connected = threading.Event()
        self.client = new_client(broker, f"board-referee-club-{secrets.token_hex(3)}")
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_connect_fail = self._on_connect_fail
        self.client.on_message = self._on_message
        self.client.on_subscribe = self._on_subscribe
        self.refused_reads: list[str] = []  # topics the broker does not let the club read
        self.broker_lost_at: float | None = None  # when the club last lost the broker
        self.broker_back_at: float | None = None  # ... and when it had it again
        self.club_serial = 0  # the serial of the last change that is the club's, not a board's
        self.complaints = Complaints(log, "club view: %s")

    # -- life cycle -----------------------------------------------------------------------
    def start(self) -> str:
        self.games = games_catalog(self.config_dir)
        self._load_results()
        url = super().start()
        self.client.connect_async(self.broker.host, self.broker.port, keepalive=30)
        self.client.loop_start()
        if self.broker_log is not None:
            self.broker_log.start()
        return url

    def _refused(self, refusal: Refusal) -> None:
        self.refusals.append(refusal)
        self._changed(None)

    def stop(self) -> None:
        if self.broker_log is not None:
            self.broker_log.stop()
        self.client.disconnect()
        self.client.loop_stop()
        super().stop()

    # -- MQTT (paho's thread: hand over, nothing more) ------------------------------------
    def _on_connect(
        self, client: paho.Client, userdata: Any, flags: Any, reason: Any, properties: Any
    ) -> None:
        if reason.is_failure:
            self.complaints.say(f"the broker {self.broker.describe()} refused us: {reason}")
            return
        prefix = self.broker.prefix
        client.subscribe([(f"{prefix}/+/{kind}", 1) for kind in SUBSCRIBED])
        self.mqtt_connected.set()
        if self.broker_lost_at is not None:
            self.broker_back_at = time.time()
        self.on_loop(self._changed, None)  # the broker back: the pages are told
        self.log.info("club view: connected to %s, following %s/+/", self.broker.describe(),
                      prefix)  # fmt: skip

    def _on_subscribe(self, client: paho.Client, userdata: Any, mid: int, reasons: Any,
                      properties: Any) -> None:  # fmt: skip
        """The broker's answer to our subscriptions: one it refuses (an ACL that does not let
        the club's login read a topic) is said on the page and in the log."""
        refused = [kind for kind, reason in zip(SUBSCRIBED, reasons, strict=False)
                   if reason.is_failure]  # fmt: skip
        self.on_loop(self._refused_reads, refused)
        if refused:
            self.complaints.say(
                f"the broker {self.broker.describe()} refuses to let us read "
                f"{', '.join(refused)}: give the club's login `topic read "
                f"{self.broker.prefix}/#` in its ACL (docs/mqtt.md)"
            )

    def _refused_reads(self, refused: list[str]) -> None:
        self.refused_reads = refused
        self._changed(None)

    def _on_disconnect(
        self, client: paho.Client, userdata: Any, flags: Any, reason: Any, properties: Any
    ) -> None:
        self.mqtt_connected.clear()
        self.broker_lost_at, self.broker_back_at = time.time(), None
        self.on_loop(self._changed, None)  # the broker lost: the pages are told
        if reason.is_failure:
            self.complaints.say(f"lost the broker {self.broker.describe()} ({reason}); retrying")

    def _on_connect_fail(self, client: paho.Client, userdata: Any) -> None:
        self.complaints.say(unreachable_words(self.broker))

    def _on_message(self, client: paho.Client, userdata: Any, message: paho.MQTTMessage) -> None:
        self.on_loop(self._message, message.topic, message.payload, message.retain, time.time())

    # -- the club's state (the event loop's thread) ----------------------------------------
    def _ignore(self, topic: str, why: str, key: str | None = None) -> None:
        """Log a refused message, at most once a minute per reason (``key``, else the topic
        and the reason): a flood of bad messages is one line, not one per message."""
        now = time.monotonic()
        key = key or f"{topic} {why}"
        if len(self.ignored) > 1000:  # many topics: keep the table small
            self.ignored = {k: t for k, t in self.ignored.items() if now - t < 60}
        if now - self.ignored.get(key, -60.0) >= 60:
            self.ignored[key] = now
            self.log.warning("club view: ignored a message on %s: %s", topic[:200], why)

    def _message(
        self, topic: str, payload: bytes | bytearray, retained: bool, received: float
    ) -> None:
        self.received += 1
        prefix = self.broker.prefix + "/"
        rest = topic[len(prefix) :] if topic.startswith(prefix) else ""
        name, _, kind = rest.partition("/")
        if kind not in SUBSCRIBED:
            return
        if not BOARD_NAME.fullmatch(name):
            self._ignore(topic, "a board name is letters, digits, '.', '_' and '-' (as "
                         "--board-id)", "bad board name")  # fmt: skip
            return
        if not payload:  # a retained message cleared by the director: forget the board
            if kind == "state" and name in self.boards:
                del self.boards[name]  # with its state and picture
                gone = self.timelines.pop(name, {})
                self.timeline_bytes -= sum(map(len, gone.values()))
                self.reviews.forget(name)
                self._changed(None)
            return
        entry = self.boards.get(name)
        if entry is None:
            if len(self.boards) >= self.max_boards:
                self._ignore(topic, f"already following {self.max_boards} boards, the most "
                             "it follows (--max-boards)", "too many boards")  # fmt: skip
                return
            entry = BoardEntry(name)
        try:
            body = loads_limited(payload, max_bytes=MAX_PAYLOAD, max_depth=MAX_DEPTH)
        except JsonLimitError as exc:
            self._bad_message(entry, topic, str(exc))
            return
        except ValueError:
            self._bad_message(entry, topic, "not JSON")
            return
        if not isinstance(body, dict) or body.get("schema") != 1:
            self._bad_message(entry, topic, "not a schema 1 JSON object")
            return
        at = body.get("at")
        sent_at = float(at) if isinstance(at, int | float) and not isinstance(at, bool) else None
        if not retained and sent_at is not None:
            self.delays.append(max(0.0, received - sent_at))
        heard = received if sent_at is None else sent_at
        if kind == "state":
            if problem := state_problem(body):
                self._bad_message(entry, topic, problem)
                return
            entry.take_state(body, bytes(payload).decode("utf-8"))
            frame = (body.get("connection") or {}).get("last_frame")
            entry.last_heard = max(heard, float(frame) if isinstance(frame, int | float) else 0)
            picture = body["board"]
            if picture["key"] != entry.picture_key:
                entry.picture_key = picture["key"]
                entry.picture_text = json.dumps(picture, separators=(",", ":"))
            entry.problem = ""
        elif kind == "results":
            if problem := results_problem(body):
                self._ignore(topic, problem)
                return
            self._take_results(name, body)
            return  # the board's card does not change
        elif kind == "timeline":
            if problem := timeline_problem(body):
                self._ignore(topic, problem)
                return
            if name not in self.timelines and len(self.timelines) >= self.max_boards:
                self._ignore(topic, "timelines of too many boards", "too many timelines")
                return
            self._keep_timeline(name, int(body["game"]), bytes(payload).decode("utf-8"))
            return  # the board's card and page do not change
        elif kind == "reviews":
            problem = reviews_problem(body)
            if problem or name not in self.boards:  # a board's card first: it names the board
                self._ignore(topic, problem or "reviews of a board that has not published")
                return
            if problem := self.reviews.take(name, body, len(payload)):
                self._ignore(topic, problem, "too many reviews")
            return  # the board's card and page do not change
        elif kind == "status":
            if problem := status_problem(body):
                self._bad_message(entry, topic, problem)
                return
            entry.take_status(body, retained=retained, received=received, heard=heard)
        else:
            if problem := event_problem(body):
                self._ignore(topic, problem)
                return
            kind_of = body["type"]
            if kind_of == "command":
                waiter = self.waiting.pop(str(body.get("id")), None)
                if waiter is not None and not waiter.done():
                    waiter.set_result(body)
                return
            entry.last_event = kind_of[:40]
            entry.last_heard = max(entry.last_heard or 0.0, heard)
        self.boards[name] = entry
        self._changed(entry)

    def _keep_timeline(self, name: str, number: int, text: str) -> None:
        kept = self.timelines.setdefault(name, {})
        self.timeline_bytes -= len(kept.pop(number, ""))
        kept[number] = text  # the newest last, the oldest first
        self.timeline_bytes += len(text)
        while len(kept) > TIMELINES_KEPT:
            self.timeline_bytes -= len(kept.pop(next(iter(kept))))
        while self.timeline_bytes > TIMELINE_BYTES_KEPT:
            largest = max(self.timelines.values(), key=lambda t: sum(map(len, t.values())))
            self.timeline_bytes -= len(largest.pop(next(iter(largest))))
        for board in [b for b, t in self.timelines.items() if not t]:
            del self.timelines[board]

    def _bad_message(self, entry: BoardEntry, topic: str, problem: str) -> None:
        """A message against the contract: logged (once a minute), and the board is shown
        with the problem beside its last good state."""
        self._ignore(topic, problem)
        entry.problem = problem[:200]
        self.boards[entry.name] = entry
        self._changed(entry)

    def _changed(self, entry: BoardEntry | None) -> None:
        self.serial += 1
        if entry is None:
            self.club_serial = self.serial
        else:
            entry.seq = self.serial
            entry.summary_text = json.dumps(entry.summary(), separators=(",", ":"))
        task = asyncio.ensure_future(self._notify())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # -- results --------------------------------------------------------------------------
    def _take_results(self, name: str, body: dict[str, Any]) -> None:
        """A board's results: from game ``since`` on, the club keeps exactly these (a result
        the board withdrew, a take-back that reopened the game, goes; the game's final result
        replaces it); earlier ones, out of the board's window, stay as they were."""
        since = int(body["since"])
        fresh = {int(r["game_number"]): r for r in body["results"] if r["board"] == name}
        kept = [r for r in self.results if r["board"] != name or r["game_number"] < since]
        now = sorted([*kept, *fresh.values()], key=lambda r: r.get("ended") or "")
        if [json.dumps(r, sort_keys=True) for r in now] == [
            json.dumps(r, sort_keys=True) for r in self.results
        ]:
            return
        self.results = deque(now[-RESULTS_KEPT:], maxlen=RESULTS_KEPT)
        self._save_results()
        self.serial += 1  # the page asks for the results again
        task = asyncio.ensure_future(self._notify())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _save_results(self) -> None:
        """Every result, written whole (by a rename: a crash never leaves half a file)."""
        path = self.results_path
        if path is None:
            return
        try:
            write_whole(path, "".join(json.dumps(r) + "\n" for r in self.results))
        except OSError as exc:
            self.log.warning("club view: cannot keep the results in %s: %s", path,
                             exc.strerror)  # fmt: skip

    def _load_results(self) -> None:
        path = self.results_path
        if path is None or not path.is_file():
            return
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            self.log.warning("club view: cannot read the results in %s: %s", path, exc)
            return
        bad = 0
        for line in lines:
            try:
                result = loads_limited(line, max_bytes=MAX_PAYLOAD, max_depth=MAX_DEPTH)
            except ValueError:
                result = None
            if result_problem(result) is not None:
                bad += line.strip() != ""
                continue
            key = (str(result["board"]), result["game_number"])
            self.results = deque((r for r in self.results
                                  if (r["board"], r["game_number"]) != key),
                                 maxlen=RESULTS_KEPT)  # fmt: skip
            self.results.append(result)  # a later line of the same game replaces an earlier
        if bad:
            self.log.warning("club view: %d line(s) of %s are not results and are left out",
                             bad, path)  # fmt: skip

    def record(self, name: str, number: int) -> str:
        """A game's record as text: a finished one from the results, else the board's
        current game from its state."""
        found = next((r for r in reversed(self.results)
                      if r["board"] == name and r["game_number"] == number), None)  # fmt: skip
        if found is None:
            entry = self.boards.get(name)
            state = entry.state if entry is not None else None
            if state is None or state.get("game_number") != number:
                raise BadRequest(404, f"no game {number} of board {name} is known here")
            found = game_of(name, number, state)
        moves = tuple((str(m), str(at)) for m, at in found["moves"])
        record = GameRecord(
            f"board {name}", number, str(found["game"]), dict(found["options"]),
            str(found["profile"]), None, "finished" if found["outcome"] else "playing", None,
            str(found.get("started") or (moves[0][1] if moves else "")),
            found.get("ended") or None, moves,
            people_of(found.get("people")),
        )  # fmt: skip
        return record_text(record, str(self.config_dir), result=found["outcome"] or "")

    # -- the web side ---------------------------------------------------------------------
    def routes(self, app: web.Application) -> None:
        app.router.add_get("/api/club", self._club)
        app.router.add_get("/api/picture/{name}", self._picture)
        app.router.add_get("/api/results", self._results)
        app.router.add_get("/api/results.csv", self._results_csv)
        app.router.add_get("/api/standings", self._standings)
        app.router.add_get("/api/standings.csv", self._standings_csv)
        app.router.add_get("/api/stats", self._stats)
        app.router.add_get("/records/{name}/{number}", self._record)
        app.router.add_get("/board/{name}/", self._board_page)
        app.router.add_get("/board/{name}/api/state", self._board_state)
        app.router.add_get("/board/{name}/api/events", self._board_events)
        app.router.add_get("/board/{name}/api/games", self._games)
        app.router.add_get("/board/{name}/api/record/{number}", self._record)
        app.router.add_get("/board/{name}/api/timeline/{number}", self._timeline)
        app.router.add_get("/board/{name}/review/{number}", self._review)
        app.router.add_post("/board/{name}/api/takeback", self._takeback)
        app.router.add_post("/board/{name}/api/new-game", self._new_game)
        app.router.add_post("/board/{name}/api/button", self._button)
        app.router.add_post("/board/{name}/api/clock", self._clock)

    def _club_json(self) -> dict[str, Any]:
        return {
            "schema": 1,
            "alert_after": self.alert_after,
            "broker": self.mqtt_connected.is_set(),
            # The club's own link to the broker, lost and back (wall times): the page lays at
            # the broker's door a referee's "offline" that came with it, not at the board's.
            "broker_outage": None
            if self.broker_lost_at is None
            else {"lost": self.broker_lost_at, "back": self.broker_back_at},
            "refused_reads": list(self.refused_reads),
            "broker_refusals": [r.to_json() for r in self.refusals],
            "boards": [json.loads(e.summary_text) for e in self.boards.values() if e.summary_text],
        }

    async def _club(self, request: web.Request) -> web.Response:
        return web.json_response(self._club_json())

    async def _picture(self, request: web.Request) -> web.Response:
        """A board's own picture (``?key=`` names the one the page wants)."""
        entry = self.boards.get(board_name(request))
        if entry is None or not entry.picture_text:
            raise BadRequest(404, "no such board picture")
        if request.query.get("key", entry.picture_key) != entry.picture_key:
            raise BadRequest(404, "that board now shows another picture")
        return web.Response(text=entry.picture_text, content_type="application/json",
                            headers={"Cache-Control": "no-cache"})  # fmt: skip

    async def _results(self, request: web.Request) -> web.Response:
        # A timeline link only where the club holds that game's timeline (a club view
        # restarted holds none of the games before its start: their links led to an error).
        held = self.timelines
        rows = [{k: v for k, v in r.items() if k != "moves"}
                | {"moves": moves_played(str(m[0]) for m in r["moves"]),
                   "timeline": r["game_number"] in held.get(r["board"], {}),
                   "review": self.reviews.has(r["board"], r["game_number"])}
                for r in self.results]  # fmt: skip
        return web.json_response({"results": rows})

    async def _results_csv(self, request: web.Request) -> web.Response:
        """The club's results as CSV, for a tournament's spreadsheet."""
        rows = []
        for r in self.results:
            moves = r["moves"]
            rows.append(result_row(
                board=r["board"], number=r["game_number"], game=r["game"], title=r["title"],
                options=r["options"], sides=r["players"], people=people_of(r.get("people")),
                result=r.get("outcome") or r.get("status") or "", winner=r.get("winner"),
                moves=moves_played(str(m[0]) for m in moves),
                started=r.get("started") or (moves[0][1] if moves else ""),
                ended=r.get("ended") or "",
            ))  # fmt: skip
        return web.Response(text=results_csv(rows), content_type="text/csv", charset="utf-8",
                            headers=CSV_HEADERS)  # fmt: skip

    def _standings_of(self, request: web.Request) -> dict[str, Any]:
        """The standings of ``?from=YYYY-MM-DD&to=YYYY-MM-DD`` (either may be left out)."""
        bounds = []
        for key in ("from", "to"):
            text = request.query.get(key, "")
            try:
                bounds.append(datetime.date.fromisoformat(text) if text else None)
            except ValueError:
                raise BadRequest(400, f"{key}: a date, like 2026-11-26") from None
        return standings(self.results, bounds[0], bounds[1])

    async def _standings(self, request: web.Request) -> web.Response:
        return web.json_response(self._standings_of(request))

    async def _standings_csv(self, request: web.Request) -> web.Response:
        headers = {"Content-Disposition": 'attachment; filename="standings.csv"'}
        return web.Response(text=standings_csv(self._standings_of(request)),
                            content_type="text/csv", charset="utf-8", headers=headers)  # fmt: skip

    async def _stats(self, request: web.Request) -> web.Response:
        delays = sorted(self.delays)

        def q(p: float) -> float | None:
            return (
                None
                if not delays
                else round(delays[min(len(delays) - 1, int(p * len(delays)))] * 1000, 2)
            )

        elapsed = max(1e-9, time.monotonic() - self.started)
        return web.json_response({
            "boards": len(self.boards), "received": self.received,
            "per_second": round(self.received / elapsed, 1), "delays": len(delays),
            "delay_ms": {"median": round(statistics.median(delays) * 1000, 2) if delays else None,
                         "p99": q(0.99), "max": q(1.0)},
        })  # fmt: skip

    async def _record(self, request: web.Request) -> web.Response:
        name = board_name(request)
        try:
            number = int(request.match_info["number"].removesuffix(".txt"))
        except ValueError:
            raise BadRequest(404, "a game number, like /records/table1/3") from None
        text = self.record(name, number)
        if request.match_info["number"].endswith(".txt"):  # what play --moves-file replays
            return web.Response(text=text, content_type="text/plain", charset="utf-8")
        links = [(f"{number}.txt", "Plain text"), ("/", "The club view")]
        if self.reviews.has(name, number):
            links.insert(1, (f"/board/{name}/review/{number}", "Review"))
        page = record_page(f"{name}: game {number}", text, links)
        return web.Response(text=page, content_type="text/html", charset="utf-8")

    async def _review(self, request: web.Request) -> web.Response:
        """A game's review as its board published it (faces/club_review.py); ``?at=M``: turning
        point M's position with the better move."""
        name = board_name(request)
        number_text, at_text = request.match_info["number"], request.query.get("at", "")
        if not number_text.isdigit() or len(number_text) > 12:
            raise BadRequest(404, "a game number, like /board/table1/review/3")
        if at_text and (not at_text.isdigit() or len(at_text) > 6):
            raise BadRequest(404, "a move number, like /board/table1/review/3?at=14")
        status, page = self.reviews.page(name, int(number_text), int(at_text) if at_text else None)
        return web.Response(status=status, text=page, content_type="text/html", charset="utf-8")

    async def _timeline(self, request: web.Request) -> web.Response:
        """A game's timeline as the board last published it (its ``timeline`` topic)."""
        entry = self._entry(request)
        text = request.match_info["number"]
        if not text.isdigit() or len(text) > 12:
            raise BadRequest(404, "a game number, like /board/table1/api/timeline/3")
        found = self.timelines.get(entry.name, {}).get(int(text))
        if found is None:
            raise BadRequest(404, f"no timeline of game {text} of {entry.name}: the club view "
                             "keeps what a board publishes while it runs (the board's kiosk "
                             "has every game's)")  # fmt: skip
        return web.Response(text=found, content_type="application/json", charset="utf-8")

    def _entry(self, request: web.Request) -> BoardEntry:
        name = board_name(request)
        entry = self.boards.get(name)
        if entry is None or not entry.state_text:
            raise BadRequest(404, f"no board {name!r} has published")
        return entry

    async def _board_page(self, request: web.Request) -> web.Response:
        name = html.escape(self._entry(request).name)  # a known board, named by the rule
        page = (WEB / "kiosk.html").read_text(encoding="utf-8")
        attrs = f'<body data-api="/board/{name}/api" data-face="club" data-board="{name}">'
        text = page.replace("<body>", attrs, 1)
        return web.Response(text=text, content_type="text/html",
                            headers={"Cache-Control": "no-cache"})  # fmt: skip

    async def _board_state(self, request: web.Request) -> web.Response:
        return web.Response(text=self._entry(request).state_text, content_type="application/json")

    async def _board_events(self, request: web.Request) -> web.StreamResponse:
        name = board_name(request)
        sent = ""

        def produce() -> bytes | None:
            nonlocal sent
            entry = self.boards.get(name)
            text = entry.state_text if entry is not None else ""
            if not text or text is sent:
                return None
            sent = text
            return f"event: state\ndata: {text}\n\n".encode()

        return await self.stream(request, produce)

    async def _events(self, request: web.Request) -> web.StreamResponse:
        """The club's stream: everything at once (``club``), then the boards that changed
        (``boards``), coalesced so a slow page never falls behind. A change of the club's own
        (the broker lost or back, a board forgotten) sends the whole club again, even when
        boards changed with it: coalesced into theirs, the broker's outage went unsaid."""
        sent: int | None = None

        def produce() -> bytes | None:
            nonlocal sent
            if sent is not None and self.serial == sent:
                return None
            since, sent = sent, self.serial
            if since is not None and self.club_serial <= since:
                changed = [e.summary_text for e in self.boards.values()
                           if e.seq > since and e.summary_text]  # fmt: skip
                if changed:
                    return f"event: boards\ndata: [{','.join(changed)}]\n\n".encode()
            return f"event: club\ndata: {json.dumps(self._club_json())}\n\n".encode()

        return await self.stream(request, produce)

    # -- controls, to a board's command topic -------------------------------------------------
    async def _games(self, request: web.Request) -> web.Response:
        entry = self.boards.get(board_name(request))
        return web.json_response({"games": self.games, "token_required": self.needs_token(request),
                                  "face": "club",
                                  "commands": entry is not None and entry.commands})  # fmt: skip

    async def _button(self, request: web.Request) -> web.Response:
        raise BadRequest(400, "the club view can start a new game or take a move back; the "
                         "other buttons are the players' own")  # fmt: skip

    async def _clock(self, request: web.Request) -> web.Response:  # the arbiter's (controls.py)
        self.authorise(request)
        body = await self.body(request)
        keys = ("clock", "player", "seconds")
        return await self._send(request, {"action": "clock", **{k: body.get(k) for k in keys}})

    async def _takeback(self, request: web.Request) -> web.Response:
        self.authorise(request)
        return await self._send(request, {"action": "takeback"})

    async def _new_game(self, request: web.Request) -> web.Response:
        self.authorise(request)
        body = await self.body(request)
        return await self._send(request, {"action": "new-game", "game": body.get("game"),
                                          "options": body.get("options", {}),
                                          "players": body.get("players"),
                                          "clock": body.get("clock")})  # fmt: skip

    async def _send(self, request: web.Request, control: dict[str, Any]) -> web.Response:
        entry = self._entry(request)
        if not self.mqtt_connected.is_set():
            raise BadRequest(503, "the club view is not connected to the broker")
        ident = secrets.token_hex(8)
        answer: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.waiting[ident] = answer
        topic = f"{self.broker.prefix}/{entry.name}/command"
        self.client.publish(topic, json.dumps({**control, "id": ident}), qos=1)
        try:
            body = await asyncio.wait_for(answer, COMMAND_TIMEOUT)
        except TimeoutError:
            raise BadRequest(504, f"board {entry.name} did not answer: commands may be off on "
                             "that board (--mqtt-commands), or the broker does not let this "
                             "club view send them") from None  # fmt: skip
        finally:
            self.waiting.pop(ident, None)
        ok = bool(body.get("ok"))
        return web.json_response({"ok": ok, "message": str(body.get("message", ""))},
                                 status=200 if ok else 409)  # fmt: skip


def board_name(request: web.Request) -> str:
    """The board named in the path, if it follows the --board-id rule (else 404)."""
    name = request.match_info["name"]
    if not BOARD_NAME.fullmatch(name):
        raise BadRequest(404, "a board name is letters, digits, '.', '_' and '-'")
    return name


__all__ = ["BoardEntry", "ClubServer", "board_name"]
