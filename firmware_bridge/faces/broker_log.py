"""What the club's broker refused, read from its own log (``club --broker-log FILE``).

A broker says nothing to anyone else when it refuses a client: a board's login publishing on
another board's topics, a wrong password, a second client with a board's login. Mosquitto
writes each one to its log (docs/mqtt.md, ``log_type all``), which is on the director's
machine beside the club view: the club view follows that file and shows what it refused, so a
director sees it on the page, not only by grepping the log afterwards. With
``use_username_as_clientid`` (the documented set-up) the name in each line is the login.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

KEPT = 20  # the latest refusals the page shows
READ_EVERY = 0.5  # seconds between looks at the log
TAIL_BYTES = 64 * 1024  # read this much of a log that already exists: the evening so far

DENIED = re.compile(r"^(\d+): Denied (PUBLISH|SUBSCRIBE) from (\S+) \(.*?'([^']{1,300})'")
NOT_AUTHORISED = re.compile(r"^(\d+): Client (\S+) disconnected, not authori[sz]ed")
TAKEN_OVER = re.compile(r"^(\d+): Client (\S+) already connected, closing old connection")


@dataclass(frozen=True, slots=True)
class Refusal:
    """One thing the broker refused (or a connection it closed for another's)."""

    at: float  # the broker's own time for it (seconds since the epoch)
    kind: str  # publish | subscribe | login | taken-over
    who: str  # the client (its login, in the documented set-up; "<unknown>" for a bad login)
    topic: str = ""

    def to_json(self) -> dict[str, object]:
        return {"at": self.at, "kind": self.kind, "who": self.who, "topic": self.topic}


def parse_line(line: str) -> Refusal | None:
    """A Mosquitto log line as a refusal, or None for every other line."""
    if found := DENIED.match(line):
        return Refusal(float(found[1]), found[2].lower(), found[3][:64], found[4])
    if found := NOT_AUTHORISED.match(line):
        return Refusal(float(found[1]), "login", found[2][:64])
    if found := TAKEN_OVER.match(line):
        return Refusal(float(found[1]), "taken-over", found[2][:64])
    return None


class BrokerLog:
    """Follows the broker's log file from a thread of its own; hands each refusal to
    ``take`` (the club's loop). A log that is not there yet, or rotated, is followed anew."""

    def __init__(self, path: Path, take: Callable[[Refusal], None], log: logging.Logger) -> None:
        self.path = path
        self.take = take
        self.log = log
        self.running = True
        self.thread = threading.Thread(target=self._run, name="broker-log", daemon=True)

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        self.running = False

    def _run(self) -> None:
        position: int | None = None
        told = False
        rest = b""
        while self.running:
            try:
                size = self.path.stat().st_size
                if position is None or size < position:  # first look, or a new file
                    position = max(0, size - TAIL_BYTES) if position is None else 0
                    rest = b""
                if size > position:
                    with self.path.open("rb") as file:
                        file.seek(position)
                        data = file.read(size - position)
                    position += len(data)
                    lines = (rest + data).split(b"\n")
                    rest = lines.pop()[-4096:]
                    for raw in lines:
                        refusal = parse_line(raw.decode("utf-8", "replace"))
                        if refusal is not None:
                            self.take(refusal)
                told = False
            except OSError as exc:
                if not told:
                    told = True
                    self.log.warning("club view: cannot read the broker's log %s (%s): what "
                                     "it refuses is not shown until it can", self.path,
                                     exc.strerror or exc)  # fmt: skip
            time.sleep(READ_EVERY)


__all__ = ["KEPT", "BrokerLog", "Refusal", "parse_line"]
