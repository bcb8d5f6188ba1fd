"""A game's report: the one file a club sends when a game went wrong (``board-referee report``).

It packs one game's flight recording (recorder.py) with what a replay elsewhere needs and what a
reader asks first: the game's description and board profile as this installation had them (the
YAML files themselves, so a club's own board replays as it was built), the software versions
that recorded it and the firmware the board said it ran (its HELLO), the game's options, moves
and result. ``board-referee replay`` takes the file as it takes a journal.

The file is gzip-compressed JSON. The players' names are withheld unless asked for: each
person becomes "Person 1", "Person 2" ... everywhere the recording holds them (the names given,
and the words shown), consistently, so the report still replays identically.
"""

from __future__ import annotations

import gzip
import json
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from firmware_bridge.link import catalog
from firmware_bridge.link.protocol import FrameError, Hello, decode_frame
from firmware_bridge.referee.computer import COMPUTER
from firmware_bridge.referee.journal import GameRecord
from firmware_bridge.referee.recorder import (
    COMMAND,
    RECEIVED,
    RESULT,
    SESSION,
    SHOWN,
    software_version,
)

KIND = "board-referee report"
FORMAT = 1  # the report's own format (the recording inside has its own)
GZIP_MAGIC = b"\x1f\x8b"
MAX_BYTES = 64 * 1024 * 1024  # a report past this, unpacked, is refused rather than read
Entry = tuple[Any, ...]


class ReportError(Exception):
    """A report that cannot be made or read; one line saying why."""


@dataclass(frozen=True)
class Report:
    """One game's report, as written to and read from the file."""

    game: int  # its number in the journal it came from
    game_id: str
    options: dict[str, str]
    profile: str
    status: str
    outcome: dict[str, object] | None
    started: str
    ended: str | None
    moves: tuple[str, ...]
    made: str  # when the report was made (UTC, ISO)
    software: str  # the version that made the report
    recorded_by: tuple[str, ...]  # the versions that recorded its sessions
    firmware: tuple[str, ...]  # what the board said it ran, each distinct HELLO
    configs: dict[str, str]  # "games/ID.yaml" / "boards/ID.yaml" -> the file's text
    entries: tuple[Entry, ...]
    players: tuple[str, str] | None = None  # as the report names them (Person N, withheld)
    problem: str = ""  # the recording's damage, named when the report was made
    names_withheld: bool = True
    own: int = 0  # where the game's own entries begin (those before: an earlier game's)

    def to_json(self) -> dict[str, object]:
        return {
            "kind": KIND, "format": FORMAT, "made": self.made, "software": self.software,
            "game": {
                "number": self.game, "id": self.game_id, "options": self.options,
                "profile": self.profile, "status": self.status, "outcome": self.outcome,
                "started": self.started, "ended": self.ended, "moves": list(self.moves),
                "players": None if self.players is None else list(self.players),
            },
            "recorded_by": list(self.recorded_by), "firmware": list(self.firmware),
            "names_withheld": self.names_withheld, "problem": self.problem,
            "configs": self.configs, "recording": [list(e) for e in self.entries],
            "own": self.own,
        }  # fmt: skip


def make_report(
    record: GameRecord,
    entries: Sequence[Entry],
    *,
    config_dir: Path | None = None,
    with_names: bool = False,
    problem: str = "",
    own: int = 0,
) -> Report:
    """The report of the game ``record`` from its recording ``entries`` (Journal.recording_for)."""
    directory = catalog.config_dir(str(config_dir) if config_dir else None)
    configs: dict[str, str] = {}
    for folder, name in sorted(_configs_named(record, entries)):
        path = directory / folder / f"{name}.yaml"
        try:
            configs[f"{folder}/{name}.yaml"] = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise ReportError(f"cannot read {path} for the report: {exc.strerror}") from exc
        except UnicodeDecodeError:
            raise ReportError(f"{path} is not UTF-8 text") from None
    kept, aliased = ((tuple(entries), record.players) if with_names
                     else _withheld(entries, record.players))  # fmt: skip
    versions = {str(e[2].get("version")) for e in entries if e[0] == SESSION and _info(e)}
    return Report(
        game=record.id, game_id=record.game,
        options={k: str(v) for k, v in record.options.items()}, profile=record.profile,
        status=record.status, outcome=record.outcome, started=record.started, ended=record.ended,
        moves=tuple(move for move, _ in record.moves),
        made=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), software=software_version(),
        recorded_by=tuple(sorted(versions)), firmware=firmware_said(entries), configs=configs,
        entries=kept, players=(aliased[0], aliased[1]) if any(aliased) else None,
        problem=problem,
        names_withheld=not with_names, own=own,
    )  # fmt: skip


def _info(entry: Entry) -> bool:
    return len(entry) > 2 and isinstance(entry[2], dict)


def _configs_named(record: GameRecord, entries: Sequence[Entry]) -> set[tuple[str, str]]:
    """Every game and board the recording's sessions and commands name (a session may change
    game at the kiosk), and the game's own."""
    named = {("games", record.game), ("boards", record.profile)}
    for entry in entries:
        if entry[0] == SESSION and _info(entry):
            named.add(("games", str(entry[2].get("game_id", record.game))))
            named.add(("boards", str(entry[2].get("profile", record.profile))))
        elif entry[0] == COMMAND and _info(entry):
            if "game" in entry[2]:
                named.add(("games", str(entry[2]["game"])))
            if "profile" in entry[2]:
                named.add(("boards", str(entry[2]["profile"])))
    for folder, name in named:
        if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]*", name):
            raise ReportError(f"the recording names a {folder[:-1]} {name!r}, not a config name")
    return named


def firmware_said(entries: Sequence[Entry]) -> tuple[str, ...]:
    """What the board said it ran, each distinct HELLO's firmware and board id."""
    said: list[str] = []
    for entry in entries:
        if entry[0] != RECEIVED or len(entry) < 4:
            continue
        try:
            _, message = decode_frame(bytes.fromhex(str(entry[3])))
        except (FrameError, ValueError):
            continue
        if isinstance(message, Hello):
            words = f"{message.firmware} (board {message.board_id!r}, protocol {message.protocol})"
            if words not in said:
                said.append(words)
    return tuple(said)


def withhold_names(entries: Sequence[Entry], players: Sequence[str] = ()) -> tuple[Entry, ...]:
    """The recording with each person's name replaced by "Person N", wherever it is held: the
    names a session started with, the names given with a new game, and the words shown."""
    return _withheld(entries, players)[0]


def _withheld(
    entries: Sequence[Entry], players: Sequence[str]
) -> tuple[tuple[Entry, ...], tuple[str, ...]]:
    """The recording with names withheld, and ``players`` as it names them (the computer
    stays the computer: which side it played is part of the record)."""
    names: dict[str, str] = {}

    def alias(name: object) -> str:
        text = str(name).strip()
        if not text or COMPUTER.match(text):  # the computer is no person: which side it played
            return text  # is what the replay needs to decide as the referee did

        if text not in names:
            names[text] = f"Person {len(names) + 1}"
        return names[text]

    for person in players:  # the game's own players are Person 1 and 2
        alias(person)
    for entry in entries:  # every name first, so words are rewritten with all of them known
        if entry[0] == SESSION and _info(entry):
            for person in entry[2].get("people") or ():
                alias(person)
        elif entry[0] == COMMAND and _info(entry):
            for person in entry[2].get("players") or ():
                alias(person)
    aliased = tuple(alias(p) for p in players)
    if not names:
        return tuple(entries), aliased
    # Longest first, and only as whole words, so "Ann" is not taken out of "Anna" or "Annex".
    pattern = re.compile(
        "|".join(rf"(?<!\w){re.escape(n)}(?!\w)" for n in sorted(names, key=len, reverse=True))
    )

    def words(text: object) -> object:
        return pattern.sub(lambda m: names[m.group(0)], text) if isinstance(text, str) else text

    def kept(entry: Entry) -> Entry:
        if entry[0] == SESSION and _info(entry) and entry[2].get("people"):
            info = dict(entry[2], people=[alias(p) for p in entry[2]["people"]])
            return (*entry[:2], info, *entry[3:])
        if entry[0] == COMMAND and _info(entry) and entry[2].get("players"):
            said = dict(entry[2], players=[alias(p) for p in entry[2]["players"]])
            return (*entry[:2], said, *entry[3:])
        if entry[0] in (SHOWN, RESULT):
            return (entry[0], *(words(part) for part in entry[1:]))
        return entry

    return tuple(kept(entry) for entry in entries), aliased


def write_report(report: Report, path: Path) -> None:
    """The report to ``path``, whole or not at all (written beside it, then renamed)."""
    data = gzip.compress(json.dumps(report.to_json(), separators=(",", ":")).encode(), 9)
    partial = path.with_name(path.name + ".part")
    try:
        partial.write_bytes(data)
        partial.replace(path)
    except OSError as exc:
        partial.unlink(missing_ok=True)
        raise ReportError(f"cannot write {path}: {exc.strerror}") from exc


def is_report(path: Path) -> bool:
    """Whether ``path`` looks like a report (gzip) rather than a journal (SQLite)."""
    try:
        with path.open("rb") as file:
            return file.read(2) == GZIP_MAGIC
    except OSError:
        return False


def read_report(path: Path) -> Report:
    """The report at ``path``; ReportError says what is wrong with a file that is not one.
    A recording damaged inside it is read as far as it goes (``Report.problem`` names where)."""
    try:
        with gzip.open(path, "rb") as file:
            data = file.read(MAX_BYTES + 1)
    except (OSError, EOFError) as exc:
        raise ReportError(f"{path}: not a whole report ({exc})") from exc
    if len(data) > MAX_BYTES:
        raise ReportError(f"{path}: larger than {MAX_BYTES // 2**20} MB unpacked; not read")
    try:
        whole = json.loads(data)
    except ValueError as exc:
        raise ReportError(f"{path}: not a report ({exc})") from None
    if not isinstance(whole, dict) or whole.get("kind") != KIND:
        raise ReportError(f"{path}: not a board-referee report")
    if whole.get("format") != FORMAT:
        raise ReportError(f"{path}: a report in format {whole.get('format')!r}, made by "
                          f"board-referee {whole.get('software', '?')}; this version reads "
                          f"format {FORMAT}")  # fmt: skip
    try:
        game = whole["game"]
        configs = whole["configs"]
        if not isinstance(configs, dict) or not all(
            isinstance(k, str) and isinstance(v, str) and _config_path(k)
            for k, v in configs.items()
        ):
            raise ReportError(f"{path}: its config files are not named as games/ID.yaml or "
                              "boards/ID.yaml")  # fmt: skip
        entries, problem = _entries(whole["recording"])
        players = game.get("players")
        return Report(
            game=int(game["number"]), game_id=str(game["id"]),
            options={str(k): str(v) for k, v in dict(game.get("options") or {}).items()},
            profile=str(game["profile"]), status=str(game.get("status", "")),
            outcome=game.get("outcome") if isinstance(game.get("outcome"), dict) else None,
            started=str(game.get("started", "")), ended=game.get("ended"),
            moves=tuple(str(m) for m in game.get("moves") or ()), made=str(whole.get("made", "")),
            software=str(whole.get("software", "?")),
            recorded_by=tuple(str(v) for v in whole.get("recorded_by") or ()),
            firmware=tuple(str(v) for v in whole.get("firmware") or ()), configs=configs,
            entries=entries,
            players=(str(players[0]), str(players[1])) if isinstance(players, list)
            and len(players) == 2 else None,
            problem="; ".join(p for p in (str(whole.get("problem") or ""), problem) if p),
            names_withheld=bool(whole.get("names_withheld", True)),
            own=min(max(int(whole.get("own") or 0), 0), len(entries)),
        )  # fmt: skip
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise ReportError(f"{path}: a report with a part missing or malformed ({exc!r})") from None


def _config_path(name: str) -> bool:
    return re.fullmatch(r"(games|boards)/[A-Za-z0-9][A-Za-z0-9_.-]*\.yaml", name) is not None


def _entries(recording: object) -> tuple[tuple[Entry, ...], str]:
    """The report's recording, to its first entry that is not one (named)."""
    if not isinstance(recording, list):
        raise ReportError("its recording is not a list of entries")
    kept: list[Entry] = []
    for number, entry in enumerate(recording, start=1):
        if not isinstance(entry, list) or not entry or not isinstance(entry[0], str):
            return tuple(kept), f"the report's recording, entry {number}: not an entry"
        kept.append(tuple(entry))
    return tuple(kept), ""


def unpack_configs(report: Report, folder: Path) -> Path:
    """The report's game and board files written under ``folder`` as a config directory."""
    for name, text in report.configs.items():
        if not _config_path(name):  # never a path out of the folder
            raise ReportError(f"the report names a config file {name!r}")
        target = folder / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    return folder
