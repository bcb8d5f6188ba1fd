"""``board-referee club``: the club view, every board published to an MQTT broker on one
page, served until stopped (the page itself: ``faces/club.py``)."""

from __future__ import annotations

import argparse
import os
import signal
import threading
from pathlib import Path

from firmware_bridge.commands import logs
from firmware_bridge.commands.common import Subparsers, UserError, broker_of, mqtt_arguments
from firmware_bridge.faces.broker import MAX_BOARDS
from firmware_bridge.faces.hosts import (
    add_allow_host_argument,
    is_loopback,
    load_token,
    page_urls,
    parse_address,
    raise_descriptor_limit,
    say_urls,
    state_dir,
)
from firmware_bridge.link import catalog

DEFAULT_CLUB = "127.0.0.1:8090"


def add_parser(sub: Subparsers, common: argparse.ArgumentParser) -> None:
    club = sub.add_parser(
        "club", parents=[common],
        help="the club view: every board published to an MQTT broker, on one page",
        description="The club view: every board of the club on one page, followed on the "
        "club's MQTT broker (each board's referee sends its state there with --mqtt), with "
        "the evening's results, standings and records (docs/mqtt.md).",
    )  # fmt: skip
    mqtt_arguments(club, "follow the boards on")
    club.add_argument(
        "--listen", default=os.environ.get("BOARD_REFEREE_CLUB", DEFAULT_CLUB), metavar="HOST:PORT",
        help=f"serve the page here (default: $BOARD_REFEREE_CLUB, else {DEFAULT_CLUB}; beyond "
        "loopback, controls need the access token kept beside the results)",
    )  # fmt: skip
    club.add_argument(
        "--alert-after",
        type=float,
        default=20.0,
        metavar="SECONDS",
        help="an illegal move uncorrected this long is an alert (default 20)",
    )
    club.add_argument("--results", metavar="FILE",
                      help="where finished games are kept (default: club-results.jsonl in "
                      "$XDG_STATE_HOME/board-referee/)")  # fmt: skip
    club.add_argument("--max-boards", type=int, default=MAX_BOARDS, metavar="N",
                      help=f"follow at most N boards; others are ignored with a log line "
                      f"(default {MAX_BOARDS})")  # fmt: skip
    club.add_argument("--broker-log", metavar="FILE",
                      help="the broker's own log (Mosquitto's, log_type all): what it refuses "
                      "(a board's login writing as another, a wrong password) is shown on "
                      "the page (docs/mqtt.md)")  # fmt: skip
    add_allow_host_argument(club)
    club.add_argument("--verbose", action="store_true", help="log more")
    club.set_defaults(handler=_cmd_club)


def _cmd_club(args: argparse.Namespace) -> int:
    """The director's page, fed by the broker, until stopped."""
    log = logs.configure(args.verbose)
    if not args.mqtt:
        raise UserError("say which broker: --mqtt mqtt://HOST[:PORT] (or $BOARD_REFEREE_MQTT)")
    mqtt_broker = broker_of(args)
    host, port = parse_address(args.listen, "--listen")
    if not 0 < args.alert_after <= 3600:
        raise UserError("--alert-after must be between 0 and 3600 seconds")
    directory = catalog.config_dir(args.config_dir)
    results = Path(args.results) if args.results else state_dir() / "club-results.jsonl"
    token = None
    if not is_loopback(host):
        token = load_token(results.parent, "club-token")
    if not 1 <= args.max_boards <= 10000:
        raise UserError("--max-boards must be between 1 and 10000")
    raise_descriptor_limit()
    from firmware_bridge.faces.club import ClubServer

    server = ClubServer(host, port, broker=mqtt_broker, config_dir=directory, token=token, log=log,
                        results_path=results, alert_after=args.alert_after,
                        max_boards=args.max_boards,
                        allow_hosts=tuple(args.allow_host),
                        broker_log=Path(args.broker_log) if args.broker_log else None)  # fmt: skip
    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())
    server.start()
    log.info("club view: %s; boards from %s", say_urls(page_urls(host, server.port)),
             mqtt_broker.describe())  # fmt: skip
    if token is not None:  # where it is, never what it is: logs are kept and shared
        log.info("club view controls need the access token kept in %s: open the page once "
                 "with ?token= and its contents", results.parent / "club-token")  # fmt: skip
    try:
        stop.wait()
    finally:
        server.stop()
    log.info("stopped")
    return 0
