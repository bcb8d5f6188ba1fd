"""The engine protocol's lines (docs/engine.md): one place that writes and reads them, for the
engine process (``server.py``) and every program that drives one (the referee's opponent, the
arena in tools/).

Modelled on UCI: the driver sends ``game``, ``position``, ``go``, ``setoption``, ``isready``,
``stop``, ``quit``; the engine answers ``ok``, ``readyok``, ``info ...``, ``bestmove M`` or
``error TEXT``. Moves are written as ``board-referee moves`` prints them.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

LEVELS = range(1, 6)
DEFAULT_MOVETIME_MS = 1000
MAX_MOVETIME_MS = 600_000  # ten minutes: a longer think is a mistyped number
MAX_NODES = 100_000_000


QUOTED = 40  # characters of a bad line an error quotes at most


def shorten(text: str) -> str:
    """A piece of a bad line to quote: never the whole of a 100 KB one back at its sender."""
    return text if len(text) <= QUOTED else text[:QUOTED] + "…"


class ProtocolError(ValueError):
    """A line that breaks the protocol; its text is what the engine answers after ``error``."""


class Verb(Enum):
    GAME = "game"
    POSITION = "position"
    GO = "go"
    SETOPTION = "setoption"
    ISREADY = "isready"
    STOP = "stop"
    QUIT = "quit"


@dataclass(frozen=True, slots=True)
class Request:
    """One parsed line from the driver."""

    verb: Verb
    game: str = ""  # GAME: the game id
    options: tuple[tuple[str, str], ...] = ()  # GAME: its options; SETOPTION: (name, value)
    moves: tuple[str, ...] = ()  # POSITION: the moves from the start
    movetime_ms: int | None = None  # GO
    nodes: int | None = None  # GO


def _number(word: str, what: str, low: int, high: int) -> int:
    try:
        value = int(word)
    except ValueError:
        raise ProtocolError(f"{what}: expected a whole number, got {word!r}") from None
    if not low <= value <= high:
        raise ProtocolError(f"{what}: {value} is out of range ({low} to {high})")
    return value


def parse_request(line: str) -> Request | None:
    """The request a line holds; None for a blank line. Raises ProtocolError naming what is
    wrong with a line that is not one."""
    words = line.split()
    if not words:
        return None
    head, rest = words[0], words[1:]
    try:
        verb = Verb(head)
    except ValueError:
        known = ", ".join(v.value for v in Verb)
        raise ProtocolError(f"unknown command {shorten(head)!r} (known: {known})") from None
    if verb is Verb.GAME:
        if not rest:
            raise ProtocolError("game: name the game, e.g. 'game vanguard'")
        options = []
        for word in rest[1:]:
            name, sep, value = word.partition("=")
            if not sep or not name or not value:
                raise ProtocolError(f"game: option {word!r} is not NAME=VALUE")
            options.append((name, value))
        return Request(verb, game=rest[0], options=tuple(options))
    if verb is Verb.POSITION:
        if rest and rest[0] == "startpos":  # UCI's word for the start, accepted as well
            rest = rest[1:]
        if rest and rest[0] != "moves":
            raise ProtocolError(f"position: expected 'moves' after 'position', got {rest[0]!r}")
        return Request(verb, moves=tuple(rest[1:]))
    if verb is Verb.GO:
        return _parse_go(rest)
    if verb is Verb.SETOPTION:
        # UCI's form: setoption name NAME value VALUE
        if len(rest) != 4 or rest[0] != "name" or rest[2] != "value":
            raise ProtocolError("setoption: expected 'setoption name NAME value VALUE'")
        return Request(verb, options=((rest[1].lower(), rest[3]),))
    if rest:
        raise ProtocolError(f"{head}: takes nothing after it, got {' '.join(rest)!r}")
    return Request(verb)


def _parse_go(words: list[str]) -> Request:
    movetime: int | None = None
    nodes: int | None = None
    index = 0
    while index < len(words):
        word = words[index]
        if word not in ("movetime", "nodes"):
            raise ProtocolError(f"go: unknown limit {word!r} (known: movetime, nodes)")
        if index + 1 >= len(words):
            raise ProtocolError(f"go: {word} needs a number")
        if word == "movetime":
            movetime = _number(words[index + 1], "go movetime", 1, MAX_MOVETIME_MS)
        else:
            nodes = _number(words[index + 1], "go nodes", 1, MAX_NODES)
        index += 2
    if movetime is None and nodes is None:
        movetime = DEFAULT_MOVETIME_MS
    return Request(Verb.GO, movetime_ms=movetime, nodes=nodes)


def format_request(request: Request) -> str:
    """The line for ``request`` (the inverse of ``parse_request``)."""
    verb = request.verb
    if verb is Verb.GAME:
        return " ".join(["game", request.game, *(f"{k}={v}" for k, v in request.options)])
    if verb is Verb.POSITION:
        return " ".join(["position", "moves", *request.moves]) if request.moves else "position"
    if verb is Verb.GO:
        words = ["go"]
        if request.movetime_ms is not None:
            words += ["movetime", str(request.movetime_ms)]
        if request.nodes is not None:
            words += ["nodes", str(request.nodes)]
        return " ".join(words)
    if verb is Verb.SETOPTION:
        name, value = request.options[0]
        return f"setoption name {name} value {value}"
    return str(verb.value)


@dataclass(frozen=True, slots=True)
class Info:
    """What an ``info`` line says about the search so far."""

    playouts: int
    depth: int
    chance: float  # the mover's expected result, 0 to 1
    time_ms: int
    pv: tuple[str, ...] = ()

    def line(self) -> str:
        rate = self.playouts * 1000 // max(self.time_ms, 1)
        words = [
            "info", "depth", str(self.depth), "playouts", str(self.playouts), "pps", str(rate),
            "score", "winrate", f"{self.chance:.3f}", "time", str(self.time_ms),
        ]  # fmt: skip
        if self.pv:
            words += ["pv", *self.pv]
        return " ".join(words)


def parse_info(line: str) -> Info | None:
    """An ``info`` line read back (None for anything else)."""
    words = line.split()
    if not words or words[0] != "info":
        return None
    values: dict[str, str] = {}
    pv: tuple[str, ...] = ()
    index = 1
    while index < len(words):
        key = words[index]
        if key == "pv":
            pv = tuple(words[index + 1 :])
            break
        if key == "score" and index + 2 < len(words):
            values["winrate"] = words[index + 2]
            index += 3
            continue
        if index + 1 < len(words):
            values[key] = words[index + 1]
        index += 2
    try:
        return Info(
            int(values.get("playouts", "0")), int(values.get("depth", "0")),
            float(values.get("winrate", "0.5")), int(values.get("time", "0")), pv,
        )  # fmt: skip
    except ValueError:
        return None
