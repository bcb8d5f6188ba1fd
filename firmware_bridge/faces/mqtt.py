"""Publishing a board to an MQTT broker (Mosquitto), for a club's director: the contract is
docs/mqtt.md.

Built on paho-mqtt (the Eclipse client, well kept, with reconnect back-off and TLS), whose
network thread talks to the broker. The publisher is a listener of the daemon: ``publish`` only
queues the snapshot, and a worker thread of ours turns it into payloads, so a broker that is
down, slow or refusing us never delays refereeing. Per board, under ``PREFIX/BOARD/``:

- ``state``   retained: the same JSON as the kiosk's ``/api/state`` (schema 1);
- ``events``  moves, take-backs, illegal moves, corrections, faults, game ends, new games,
              connection changes and command answers, each a JSON object with ``type``;
- ``status``  retained: ``online``, or ``offline`` (the broker's last will, or a clean stop);
- ``timeline`` retained: the game's timeline (referee/timeline.py) from the journal's flight
              recording, for the club view's Timeline: again after moves, at most every
              TIMELINE_EVERY seconds, and at the game's end;
- ``results`` retained: the board's latest games that ended (finished, or abandoned after a
              move), read from its journal, again whenever a game ends, is taken back into
              play, or a new one starts: the club's results are exactly these, so a result
              the board withdrew is withdrawn from the club too;
- ``reviews`` retained: the finished reviews (referee/review.py) of the board's latest games
              that ended, as their pages show them, again whenever one is finished;
- ``command`` subscribed only with ``--mqtt-commands``: new game and take back from the club
              view; the broker's per-board credentials and ACLs decide who may send them.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import dataclasses
import json
import logging
import queue
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from firmware_bridge.faces.broker import (
    DEFAULT_PREFIX,
    Broker,
    MqttError,
    check_board_name,
    parse_broker,
)
from firmware_bridge.faces.safejson import JsonLimitError, loads_limited
from firmware_bridge.referee.daemon import Command, CommandResult
from firmware_bridge.referee.snapshot import Snapshot

if TYPE_CHECKING:  # paho is imported when a client is made: a run without MQTT never loads it
    import paho.mqtt.client as paho

    from firmware_bridge.referee.journal import GameRecord

SCHEMA_VERSION = 1
MAX_QUEUED = 1000  # messages paho keeps while the broker is away (events; state is refreshed)
REFRESH = 30.0  # seconds: a state that only moves the last frame's time on waits this long
RETRY_MIN, RETRY_MAX = 1, 30  # seconds of reconnect back-off
# Seconds between two timelines published: one is published after each move, result or new
# game, but never two within this. Building one reads the game's whole recording (70 ms for
# 60 moves here, tools/bench_recorder.py; a few times that on a Pi): once a move, at a
# person's pace, costs a Pi a few percent of a core late in a long game.
TIMELINE_EVERY = 2.0
TIMELINE_BYTES = 400 * 1024  # a timeline past this drops its oldest moves' events to fit
RESULTS_PUBLISHED = 150  # the latest games a board publishes as its results (an evening's)
REVIEWS_PUBLISHED = 10  # the latest ended games whose finished reviews a board publishes
REVIEWS_BYTES = 400 * 1024  # past this the oldest reviews are left out
REVIEWED = "reviewed"  # queued by the analyst's thread: a review was finished
COMMAND_BYTES = 16 * 1024  # a command is a few dozen bytes
COMMAND_DEPTH = 8


def refused_words(
    broker: Broker, board: str, *, prefix: str, topic: str, kind: str, reason: str
) -> str:
    """What to fix when the broker refuses a publish. The documented ACL lets each login
    write under its own name only (``pattern write PREFIX/%u/#``): a login that is not the
    board's id is the mismatch to fix, not the ACL."""
    said = f"the broker {broker.describe()} refused to take {topic} ({reason}): "
    if broker.username and broker.username != board:
        return said + (
            f"this referee logs in as {broker.username!r} but publishes as board {board!r}, "
            f"and the documented ACL lets a login write only under its own name "
            f"({prefix}/%u/#): give it the login {board!r}, or --board-id "
            f"{broker.username} (docs/mqtt.md)"
        )
    return said + (
        f"give this board's login write access to {prefix}/%u/{kind} in the broker's ACL "
        "(docs/mqtt.md)"
    )


@dataclass(frozen=True, slots=True)
class Topics:
    prefix: str
    board: str

    @property
    def base(self) -> str:
        return f"{self.prefix}/{self.board}"

    @property
    def state(self) -> str:
        return f"{self.base}/state"

    @property
    def events(self) -> str:
        return f"{self.base}/events"

    @property
    def status(self) -> str:
        return f"{self.base}/status"

    @property
    def command(self) -> str:
        return f"{self.base}/command"

    @property
    def timeline(self) -> str:
        return f"{self.base}/timeline"

    @property
    def results(self) -> str:
        return f"{self.base}/results"

    @property
    def reviews(self) -> str:
        return f"{self.base}/reviews"


# MQTT 5's reason for a connection closed because another client connected with its id.
SESSION_TAKEN_OVER = 142
TAKEOVERS_KEPT = 5
# A live connection closed this often within FLAP_WINDOW s, each time taken back at once, is
# another client with the same id taking turns with this one (a cut link does not come back
# at once three times a minute).
FLAPS = 3
FLAP_WINDOW = 60.0


def taken_over_words(board: str, broker: Broker) -> str:
    """What a referee says when the broker closed its connection for another client's."""
    login = f" with its login {broker.username!r}" if broker.username else ""
    return (f"another client connected to {broker.describe()}{login} and the broker closed "
            f"this board's connection for it: is a second referee running as {board}, or "
            "is this board's login used elsewhere? Retrying")  # fmt: skip


def unreachable_words(broker: Broker) -> str:
    """Why the broker cannot be reached, as far as one more try tells: nothing listening
    there (a broker not started, or one that stopped: Mosquitto started with -d that cannot
    read its files exits without a word), a name that does not resolve, or no answer."""
    import socket

    where = f"{broker.host}:{broker.port}"
    try:
        with socket.create_connection((broker.host, broker.port), timeout=2.0):
            why = "it took the connection but not the login or TLS: see its log"
    except ConnectionRefusedError:
        why = (f"nothing listens on {where}: is the broker running? (Mosquitto started with "
               "-d stops without a word when it cannot read its files: start it once without "
               "-d to see why; docs/mqtt.md)")  # fmt: skip
    except socket.gaierror:
        why = f"no machine is named {broker.host!r} on this network"
    except OSError as exc:
        why = f"{where} does not answer ({exc.strerror or exc})"
    return f"cannot reach the broker {broker.describe()}: {why}; retrying"


def new_client(broker: Broker, client_id: str) -> paho.Client:
    """A paho client with our login, TLS and back-off settings (not yet connected)."""
    import ssl

    import paho.mqtt.client as paho
    from paho.mqtt.enums import CallbackAPIVersion

    # MQTT 5: the broker answers a publish it refuses (an ACL that leaves a topic out) with
    # a reason, where MQTT 3.1.1 drops it without a word.
    client = paho.Client(CallbackAPIVersion.VERSION2, client_id=client_id,
                         protocol=paho.MQTTv5)  # fmt: skip
    if broker.username:
        client.username_pw_set(broker.username, broker.password)
    if broker.tls:
        context = ssl.create_default_context(cafile=broker.ca_file)
        client.tls_set_context(context)
    client.reconnect_delay_set(RETRY_MIN, RETRY_MAX)
    client.max_queued_messages_set(MAX_QUEUED)
    return client


class Complaints:
    """Broker problems, logged once and then at most once a minute while they last (a broker
    down for an hour is not 3600 lines)."""

    def __init__(self, log: logging.Logger, form: str) -> None:
        self.log, self.form = log, form
        self.last = ("", 0.0)

    def say(self, text: str) -> None:
        said, when = self.last
        now = time.monotonic()
        if text != said or now - when >= 60:
            self.last = (text, now)
            self.log.warning(self.form, text)

    def clear(self) -> None:
        self.last = ("", 0.0)


# -- events: what changed between two snapshots ---------------------------------------------
def events_between(old: Snapshot | None, new: Snapshot) -> list[dict[str, Any]]:
    """The events a director wants to hear of, from one snapshot to the next (docs/mqtt.md)."""
    events: list[dict[str, Any]] = []
    game = {"number": new.game_number, "id": new.game_id}
    old_moves: tuple[Any, ...]
    if old is None:
        old_moves = new.moves  # a (re)started referee: its game so far is not news
    elif old.game_number != new.game_number:
        events.append({"type": "new-game", "game": game, "title": new.title,
                       "options": dict(new.options)})  # fmt: skip
        old_moves = ()
    else:
        old_moves = old.moves
    same = 0
    for before, after in zip(old_moves, new.moves, strict=False):
        if (before.number, before.text) != (after.number, after.text):
            break
        same += 1
    if len(old_moves) > same:
        events.append({"type": "takeback", "game": game,
                       "moves": [m.text for m in reversed(old_moves[same:])]})  # fmt: skip
    for move in new.moves[same:]:
        events.append({"type": "move", "game": game, "number": move.number,
                       "player": move.player, "text": move.text, "played_at": move.at,
                       "events": list(move.events)})  # fmt: skip
    if (
        old is not None
        and new.outcome is not None
        and (old.outcome is None or old.game_number != new.game_number)
    ):
        events.append({"type": "game-end", "game": game, "outcome": new.outcome,
                           "winner": new.winner, "moves": len(new.moves)})  # fmt: skip
    was_alert = "" if old is None else old.alert
    if new.alert != was_alert:
        if new.alert:
            events.append({"type": new.alert, "game": game, "status": new.status})
        elif old is not None:
            events.append({"type": "corrected", "game": game, "was": was_alert})
    had = set() if old is None else {(w.cell, w.kind) for w in old.sensor_warnings}
    for warning in new.sensor_warnings:
        if (warning.cell, warning.kind) not in had:
            events.append({"type": "sensor-warning", "game": game, **warning.to_json()})
    seen = set() if old is None else set(old.connection.faults)
    if old is not None:
        for at, code, text in new.connection.faults:
            if (at, code, text) not in seen:
                events.append({"type": "fault", "code": code, "text": text, "at_board": at})
    if old is None or old.connection.state != new.connection.state:
        events.append({"type": "connection", "state": new.connection.state,
                       "message": new.connection.message})  # fmt: skip
    return events


def _without_frame_time(snapshot: Snapshot) -> Snapshot:
    return dataclasses.replace(
        snapshot, connection=dataclasses.replace(snapshot.connection, last_frame=None)
    )


# -- the publisher ----------------------------------------------------------------------------
Submit = Callable[[Command], "concurrent.futures.Future[CommandResult]"]
CommandParser = Callable[[dict[str, Any], tuple[str, str]], Command]  # body, (game, profile)


class MqttPublisher:
    """A listener of the daemon that publishes its board (see the module's docstring).

    ``commands``: when given (``--mqtt-commands``), control objects arriving on the board's
    ``command`` topic are parsed by it (with the game and board profile in use) and submitted
    to the daemon's queue."""

    def __init__(
        self,
        broker: Broker,
        board: str,
        *,
        log: logging.Logger,
        submit: Submit | None = None,
        commands: CommandParser | None = None,
        journal: Path | None = None,
        config_dir: Path | None = None,
    ) -> None:
        self.broker = broker
        self.journal = journal  # read-only, for the timeline (None: no timeline published)
        self.config_dir = config_dir
        self.topics = Topics(broker.prefix, check_board_name(board))
        self.log = log
        self.submit = submit
        self.commands = commands if submit is not None else None
        self.snapshots: queue.Queue[Snapshot | str | None] = queue.Queue()
        self.lock = threading.Lock()
        self.latest = ""  # the latest state payload, for a (re)connect
        self.retained: dict[str, str] = {}  # topic -> its latest timeline, results, reviews
        self.current = ("", "")  # (game id, profile id) in use, for a new-game command
        self.connected = False
        self.ever_connected = False
        self.complaints = Complaints(log, "MQTT: %s (refereeing goes on)")
        self.sent_lock = threading.Lock()
        self.in_flight: dict[int, str] = {}  # message id -> topic, until the broker answers
        self.refused: set[str] = set()  # the topics (by kind) the broker refused to take
        # Not guessable: on a broker that lets any client id in, nobody cuts this board off
        # by connecting with its id. (The documented broker names each client by its login,
        # use_username_as_clientid, so only this board's own login can.)
        self.client = new_client(broker, f"board-referee-{board}-{secrets.token_hex(4)}")
        self.taken_over: list[float] = []  # when another client took this one's place
        self.lost_at: list[float] = []  # when the broker lately closed a live connection
        self.client.will_set(self.topics.status, self._status("offline", "lost"), qos=1,
                             retain=True)  # fmt: skip
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_connect_fail = self._on_connect_fail
        self.client.on_message = self._on_message
        self.client.on_publish = self._on_publish
        self.worker = threading.Thread(target=self._work, name="mqtt", daemon=True)

    def start(self) -> None:
        """Connect in the background (a broker that is not there yet is retried)."""
        self.client.connect_async(self.broker.host, self.broker.port, keepalive=30)
        self.client.loop_start()
        self.worker.start()
        self.log.info("MQTT: publishing board %s to %s under %s/", self.topics.board,
                      self.broker.describe(), self.topics.base)  # fmt: skip

    def stop(self) -> None:
        """A clean stop: the status says offline (stopped), then we leave the broker."""
        self.snapshots.put(None)
        self.worker.join(5)
        with self.lock:
            info = None
            if self.connected:
                info = self._put(
                    self.topics.status, self._status("offline", "stopped"), retain=True
                )
        if info is not None:
            with contextlib.suppress(RuntimeError, ValueError):
                info.wait_for_publish(2)
        self.client.disconnect()
        self.client.loop_stop()

    # -- the daemon's side: never blocks --------------------------------------------------
    def publish(self, snapshot: Snapshot) -> None:
        self.snapshots.put(snapshot)

    def reviewed(self, number: int) -> None:
        """The analyst finished game ``number``'s review (from its thread): never blocks."""
        self.snapshots.put(REVIEWED)

    # -- our worker ---------------------------------------------------------------------
    def _work(self) -> None:
        previous: Snapshot | None = None
        sent_as: Snapshot | None = None  # the last one sent, without its last frame's time
        sent_at = 0.0
        due: tuple[int, int, str | None] | None = None  # the game's timeline is to be sent
        timeline_for: tuple[int, int, str | None] | None = None
        timeline_at = -TIMELINE_EVERY
        results_for: tuple[int, str | None] | None = None
        while True:
            wait = (
                None if due is None else max(0.0, timeline_at + TIMELINE_EVERY - time.monotonic())
            )
            try:
                snapshot = self.snapshots.get(timeout=wait)
            except queue.Empty:  # only the timeline fell due: for the snapshot last sent
                if previous is None:
                    due = None
                    continue
                snapshot = previous
            if snapshot is None:
                return
            if isinstance(snapshot, str):  # a review finished
                self._try(lambda: self._send_reviews(self._records()), "the reviews")
                continue
            ended = (snapshot.game_number, snapshot.outcome)
            if self.journal is not None and ended != results_for:
                results_for = ended
                self._try(self._send_ended, "the results")
            key = (snapshot.game_number, len(snapshot.moves), snapshot.outcome)
            if self.journal is not None and key != timeline_for:
                due = key
            if due is not None and time.monotonic() - timeline_at >= TIMELINE_EVERY:
                timeline_at = time.monotonic()
                if self._send_timeline(snapshot):
                    timeline_for, due = due, None
            if snapshot is previous:
                continue
            stripped = _without_frame_time(snapshot)
            if stripped == sent_as and time.monotonic() - sent_at < REFRESH:
                continue  # only the last frame's time moved on: not worth a message per board
            sent_as, sent_at = stripped, time.monotonic()
            try:
                self._send(previous, snapshot)
            except Exception:  # the broker's face must never take anything else down
                self.log.exception("MQTT: could not publish a snapshot")
            previous = snapshot

    def _send_timeline(self, snapshot: Snapshot) -> bool:
        """The game's timeline, read from the journal, published retained. False: the
        recording does not hold the snapshot's last move yet (it is tried again)."""
        from firmware_bridge.referee.timeline import timeline_of

        assert self.journal is not None
        try:
            timeline = timeline_of(self.journal, snapshot.game_number, self.config_dir)
        except Exception as exc:  # a journal being written, a game no longer made here
            self.complaints.say(f"no timeline of game {snapshot.game_number}: {exc}")
            return True
        steps: list[dict[str, Any]] = timeline["steps"]  # type: ignore[assignment]
        made = sum(1 for step in steps if not step["taken_back"])
        body = {"schema": SCHEMA_VERSION, "board": self.topics.board, "at": time.time(),
                **timeline}  # fmt: skip
        self._retain(self.topics.timeline, fit_timeline(body, TIMELINE_BYTES), again=True)
        return made >= len(snapshot.moves) or not timeline["recorded"]

    def _try(self, send: Callable[[], None], what: str) -> None:
        try:
            send()
        except Exception:  # the broker's face must never take anything else down
            self.log.exception("MQTT: could not publish %s", what)

    def _retain(self, topic: str, text: str, *, again: bool = False) -> None:
        """Publish ``text`` retained on ``topic``, kept for a reconnect; the same text as last
        time is not sent again, unless ``again``."""
        with self.lock:
            if not again and self.retained.get(topic) == text:
                return
            self.retained[topic] = text
            if self.connected:
                self._put(topic, text, retain=True)

    def _records(self) -> list[GameRecord]:
        from firmware_bridge.referee.journal import read_records

        assert self.journal is not None
        return read_records(self.journal)

    def _send_ended(self) -> None:
        """A game ended or began: the results and the reviews, from one read of the journal."""
        records = self._records()
        self._try(lambda: self._send_results(records), "the results")
        self._try(lambda: self._send_reviews(records), "the reviews")

    def _send_reviews(self, records: list[GameRecord]) -> None:
        """The finished reviews of the board's latest ended games, published retained, with
        the board pictures they are drawn on (faces/review_page.py's published_review)."""
        from firmware_bridge.faces.review_page import published_review

        assert self.journal is not None
        ended = [r for r in records if r.status != "playing"]
        reviews: list[dict[str, Any]] = []
        pictures: dict[str, Any] = {}
        for record in ended[-REVIEWS_PUBLISHED:]:
            found = published_review(self.journal, record, self.config_dir)
            if found is not None:
                reviews.append(found[0])
                pictures[found[1].key] = found[1].to_json()
        # (no "at": the same reviews are the same text, and not sent again)
        body = {"schema": SCHEMA_VERSION, "board": self.topics.board, "reviews": reviews,
                "pictures": pictures}  # fmt: skip
        text = json.dumps(body, separators=(",", ":"))
        while len(text) > REVIEWS_BYTES and body["reviews"]:
            reviews.pop(0)  # the oldest first
            text = json.dumps(body, separators=(",", ":"))
        self._retain(self.topics.reviews, text)

    def _send_results(self, records: list[GameRecord]) -> None:
        """The board's latest ended games, from its journal, published retained."""
        from firmware_bridge.referee.records import played, result_of

        config = str(self.config_dir) if self.config_dir else None
        window = records[-RESULTS_PUBLISHED:]
        since = window[0].id if len(records) > RESULTS_PUBLISHED else 1
        ended = [result_of(r, config, self.topics.board) for r in played(window)
                 if r.status != "playing"]  # fmt: skip
        body = {"schema": SCHEMA_VERSION, "board": self.topics.board, "at": time.time(),
                "since": since, "results": ended}  # fmt: skip
        self._retain(self.topics.results, json.dumps(body, separators=(",", ":")))

    def _send(self, previous: Snapshot | None, snapshot: Snapshot) -> None:
        text = snapshot.to_text()
        events = events_between(previous, snapshot)
        with self.lock:
            self.latest = text
            self.current = (snapshot.game_id, snapshot.profile)
            if self.connected:  # else the state is published on connecting
                self._put(self.topics.state, text, retain=True)
        for event in events:  # QoS 1: paho keeps them (up to MAX_QUEUED) while we are away
            self._event(event)

    def _event(self, event: dict[str, Any]) -> None:
        body = {"schema": SCHEMA_VERSION, "board": self.topics.board, "at": time.time(), **event}
        self._put(self.topics.events, json.dumps(body, separators=(",", ":")))

    def _put(self, topic: str, payload: str, *, retain: bool = False) -> Any:
        """Publish at QoS 1, remembering the topic until the broker answers: a publish it
        refuses (MQTT 5: not authorized, an ACL that leaves the topic out) is said, never
        silently lost."""
        info = self.client.publish(topic, payload, qos=1, retain=retain)
        with self.sent_lock:
            self.in_flight[info.mid] = topic
            if len(self.in_flight) > 4 * MAX_QUEUED:  # answers that never came: forget them
                self.in_flight.pop(next(iter(self.in_flight)))
        return info

    def _on_publish(self, client: paho.Client, userdata: Any, mid: int, reason: Any,
                    properties: Any) -> None:  # fmt: skip
        with self.sent_lock:
            topic = self.in_flight.pop(mid, "")
        if not topic or not reason.is_failure:
            return
        kind = topic.rsplit("/", 1)[-1]
        fresh = kind not in self.refused
        self.refused.add(kind)
        self.complaints.say(refused_words(self.broker, self.topics.board,
                                          prefix=self.topics.prefix, topic=topic, kind=kind,
                                          reason=str(reason)))  # fmt: skip
        if fresh and kind != "status":  # the status says so (the club view shows it)
            self._put(self.topics.status, self._status("online", "connected"), retain=True)

    def _status(self, state: str, reason: str) -> str:
        """``commands``: whether this referee takes new game and take back from a club view
        (--mqtt-commands), so a club view offers those controls only where they work."""
        takes = state == "online" and self.commands is not None
        body = {"schema": SCHEMA_VERSION, "board": self.topics.board, "state": state,
                "reason": reason, "at": time.time(), "commands": takes,
                "refused": sorted(self.refused)}  # fmt: skip
        if self.taken_over:  # the club view says it: someone else connects as this board
            body["taken_over"] = list(self.taken_over)
        return json.dumps(body)

    # -- paho's network thread ------------------------------------------------------------
    def _on_connect(
        self, client: paho.Client, userdata: Any, flags: Any, reason: Any, properties: Any
    ) -> None:
        if reason.is_failure:
            self.complaints.say(f"the broker {self.broker.describe()} refused us: {reason}")
            return
        with self.lock:
            self.connected = True
            self._put(self.topics.status, self._status("online", "connected"), retain=True)
            if self.latest:
                self._put(self.topics.state, self.latest, retain=True)
            for topic, text in self.retained.items():
                self._put(topic, text, retain=True)
        if self.commands is not None:
            client.subscribe(self.topics.command, qos=1)
        again = " again" if self.ever_connected else ""
        self.ever_connected = True
        self.complaints.clear()
        self.log.info("MQTT: connected%s to %s", again, self.broker.describe())

    def _on_disconnect(
        self, client: paho.Client, userdata: Any, flags: Any, reason: Any, properties: Any
    ) -> None:
        now = time.time()
        with self.lock:
            was = self.connected
            self.connected = False
            if was:
                self.lost_at = [t for t in self.lost_at if now - t < FLAP_WINDOW] + [now]
            # Another client with this board's client id (the documented broker: its login)
            # takes its place: an MQTT 5 broker may say so; Mosquitto 2.0 only closes the
            # connection, which this referee takes back at once, and the other client again.
            taken = getattr(reason, "value", None) == SESSION_TAKEN_OVER or (
                was and len(self.lost_at) >= FLAPS)  # fmt: skip
            if taken:
                self.taken_over = [*self.taken_over, now][-TAKEOVERS_KEPT:]
        if taken:
            self.complaints.say(taken_over_words(self.topics.board, self.broker))
        elif was and reason.is_failure:
            self.complaints.say(f"lost the broker {self.broker.describe()} ({reason}); retrying")

    def _on_connect_fail(self, client: paho.Client, userdata: Any) -> None:
        self.complaints.say(unreachable_words(self.broker))

    def _on_message(self, client: paho.Client, userdata: Any, message: paho.MQTTMessage) -> None:
        if self.commands is None or self.submit is None or message.topic != self.topics.command:
            return
        ident: object = None
        try:
            try:  # bounded before parsing: a deep payload must not end paho's thread
                body = loads_limited(message.payload, max_bytes=COMMAND_BYTES,
                                     max_depth=COMMAND_DEPTH)  # fmt: skip
            except JsonLimitError as exc:
                raise ValueError(f"refused: {exc}") from None
            except ValueError:
                raise ValueError("not a JSON object") from None
            if not isinstance(body, dict):
                raise ValueError("not a JSON object")
            given = body.get("id")
            ident = given if isinstance(given, str) and len(given) <= 64 else None
            command = self.commands(body, self.current)
        except ValueError as exc:
            self.log.warning("MQTT: ignored a command on %s: %s", message.topic, exc)
            self._event({"type": "command", "id": ident, "ok": False, "message": str(exc)})
            return
        future = self.submit(command)

        def answered(done: concurrent.futures.Future[CommandResult]) -> None:
            result = done.result()
            self._event({"type": "command", "id": ident, "ok": result.ok,
                         "message": result.message})  # fmt: skip

        future.add_done_callback(answered)


def fit_timeline(body: dict[str, Any], limit: int) -> str:
    """The timeline as a payload of at most ``limit`` bytes where it can be: the oldest moves'
    events are left out first (each says how many), the moves themselves kept."""
    text = json.dumps(body, separators=(",", ":"))
    steps = body.get("steps")
    if len(text) <= limit or not isinstance(steps, list):
        return text
    for step in steps:
        events = step.get("events") or []
        if not events or (len(events) == 1 and events[0].get("kind") == "gap"):
            continue
        at = events[0].get("at", "")
        step["events"] = [{"at": at, "kind": "gap", "text": f"{len(events)} events left out of "
                           "the club's copy (the board's kiosk has them)"}]  # fmt: skip
        text = json.dumps(body, separators=(",", ":"))
        if len(text) <= limit:
            break
    return text


__all__ = [
    "DEFAULT_PREFIX",
    "Broker",
    "Complaints",
    "MqttError",
    "MqttPublisher",
    "Topics",
    "check_board_name",
    "events_between",
    "fit_timeline",
    "new_client",
    "parse_broker",
]
