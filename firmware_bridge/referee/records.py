"""Game records for people: one game as text that ``board-referee play --moves-file``
replays, used by ``board-referee records``, the kiosk page and the club view."""

from __future__ import annotations

import csv
import functools
import io
import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from engine import ConfigError, Game, Outcome, Player, declared, moves_played
from engine.clock import pgn_clock
from firmware_bridge.link import catalog
from firmware_bridge.referee import clock_journal
from firmware_bridge.referee.journal import GameRecord


def _record_game(record: GameRecord, config_dir: str | None) -> Game | None:
    """The game a record was played, built from its config as the file stands now (None when
    it is gone or no longer builds the game: names and results stay plain). Kept while the
    file is unchanged: a list of results names the same few games hundreds of times over, and
    parsing a game's YAML takes tens of milliseconds (the whole of an evening's results)."""
    try:
        folder = catalog.config_dir(config_dir)
        stamp = (folder / "games" / f"{record.game}.yaml").stat()
    except (ConfigError, OSError):
        return None
    options = json.dumps(record.options, sort_keys=True)
    return _game(folder, record.game, options, (stamp.st_mtime_ns, stamp.st_size))


@functools.lru_cache(maxsize=32)
def _game(folder: Path, game_id: str, options: str, stamp: tuple[int, int]) -> Game | None:
    try:
        return catalog.load_game(game_id, json.loads(options), folder)
    except ConfigError:
        return None


def record_title(record: GameRecord, config_dir: str | None) -> str:
    """The game's title ("Vanguard"), or its id when its file is gone."""
    game = _record_game(record, config_dir)
    return game.title if game is not None else record.game


def played(records: Iterable[GameRecord]) -> list[GameRecord]:
    """The games somebody played: a game abandoned before its first move (a New game pressed
    over an untouched one) is no result, and no row."""
    return [r for r in records if r.moves or r.status != "abandoned"]


def result_words(record: GameRecord, config_dir: str | None) -> str:
    outcome = record.outcome
    if not outcome:
        return ""
    game = _record_game(record, config_dir)
    winner = outcome.get("winner")
    reason = str(outcome.get("reason", ""))
    if winner not in (1, 2):
        return Outcome(None, reason).describe(("", ""))
    names = game.player_names if game is not None else ("Player 1", "Player 2")
    return Outcome(Player(int(str(winner))), reason).describe(names, record.players)


def option_text(value: object) -> str:
    """An option's value as the command line and the engine protocol write it (true, 3)."""
    return str(value).lower() if isinstance(value, bool) else str(value)


def record_text(
    record: GameRecord, config_dir: str | None = None, result: str | None = None
) -> str:
    """A game's record for people: a header of comments, then one move a line with who and
    when; ``board-referee play --moves-file`` replays it as it stands. ``result``: the result
    in words when the record has no outcome object (a record built from a board's state)."""
    game = _record_game(record, config_dir)
    title = game.title if game is not None else record.game
    names = game.player_names if game is not None else ("Player 1", "Player 2")
    options = " ".join(f"--option {k}={option_text(v)}" for k, v in record.options.items())
    if result is None:
        result = f": {result_words(record, config_dir)}" if record.outcome else ""
    else:
        result = f": {result}" if result else ""
    ended = f", ended {record.ended}" if record.ended else ""
    replay = " ".join(["board-referee play --game", record.game, options, "--moves-file FILE"])
    lines = [
        f"# {title}: game {record.id} of {Path(record.journal).name}, on board {record.profile}",
        f"# started {record.started}{ended}",
        f"# {record.status}{result}",
        f"# replay: {replay.replace('  ', ' ')}",
    ]
    if any(record.players):
        lines.insert(
            2,
            "# players: "
            + "; ".join(
                f"{side}: {person or '(not named)'}"
                for side, person in zip(names, record.players, strict=True)
            ),
        )
    if record.start:
        lines.append("# started from a position: replay with --position (the JSON record has it)")
    if record.hints:
        said = ", ".join(f"before move {n} ({move})" for n, move in record.hints)
        lines.append(f"# hints used: {len(record.hints)}: {said}")
    clocks = clock_journal.read(Path(record.journal), record.id) if record.journal else None
    after: tuple[int, ...] = ()
    if clocks is not None:  # PGN's TimeControl, and each move's [%clk] (the mover's time left)
        lines.append(f"# time control: {clocks.control.pgn()}")
        after = clocks.moves
    state = None
    if game is not None:
        try:
            state = game.state_from_json(record.start) if record.start else game.new_state()
        except ValueError:
            state = None
    number = 0
    for index, (move, at) in enumerate(record.moves):
        clk = f" [%clk {pgn_clock(after[index])}]" if index < len(after) else ""
        by = declared(move)
        if by is not None:  # a result the players declared: no move, and the declarer's
            how = "lost on time" if move.startswith("time:") else "resigned"
            said = "draw agreed" if by == 0 else f"{names[by - 1]} {how}"
            lines.append(f"   {move:<12} # {said} {at[11:19]}{clk}".rstrip())
            continue
        number += 1
        who = ""
        if state is not None:
            who = names[state.to_move.index]
            try:
                state.apply(state.parse(move))
            except ValueError:
                state = None
        lines.append(f"{number}. {move:<12} # {who} {at[11:19]}{clk}".rstrip())
    return "\n".join(lines) + "\n"


CSV_COLUMNS = ("board", "game_number", "game", "title", "options", "side_1", "player_1",
               "side_2", "player_2", "result", "winner", "moves", "started", "ended")  # fmt: skip


CSV_HEADERS = {"Content-Disposition": 'attachment; filename="results.csv"'}  # for a download


def csv_cell(value: object) -> str:
    """One CSV cell. Text a spreadsheet would run as a formula (=, +, -, @ first) is quoted
    with a leading apostrophe: a result's names come from the players and from the network."""
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True)
    text = "" if value is None else text
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def results_csv(rows: Iterable[Mapping[str, Any]]) -> str:
    """Results as CSV for a tournament's spreadsheet: one game a row, with the board, the
    game, who played which side, the result and when (ISO 8601, UTC). ``rows``: mappings with
    the CSV_COLUMNS keys (``record_row`` makes one from a journal's game)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(CSV_COLUMNS)
    for row in rows:
        writer.writerow([csv_cell(row.get(column)) for column in CSV_COLUMNS])
    return out.getvalue()


def result_row(
    *,
    board: str,
    number: int,
    game: str,
    title: str,
    options: Mapping[str, object],
    sides: Sequence[str],
    people: tuple[str, str],
    result: str,
    winner: object,
    moves: int,
    started: str,
    ended: str,
) -> dict[str, Any]:
    """One game as a results row (CSV_COLUMNS), from the journal or from a club's results.
    ``winner``: 1 or 2 (its side is named), anything else for none."""
    return {
        "board": board, "game_number": number, "game": game, "title": title,
        "options": options, "side_1": sides[0], "player_1": people[0], "side_2": sides[1],
        "player_2": people[1], "result": result,
        "winner": sides[int(str(winner)) - 1] if winner in (1, 2) else "",
        "moves": moves, "started": started, "ended": ended,
    }  # fmt: skip


def result_of(record: GameRecord, config_dir: str | None, board: str) -> dict[str, Any]:
    """A finished or abandoned game as a board publishes it to the club (docs/mqtt.md,
    ``results``): the club's results are exactly these, never worked out again."""
    game = _record_game(record, config_dir)
    outcome = record.outcome or {}
    winner = outcome.get("winner")
    scores = None  # the game's own final scores, where it keeps them (Goats Wintering)
    if game is not None:
        try:
            state = game.state_from_json(record.start) if record.start else game.new_state()
            for move, _ in record.moves:
                state.apply(state.parse(move), check=False)
            kept = state.scores()
            scores = None if kept is None else [kept[Player.ONE], kept[Player.TWO]]
        except ValueError:
            scores = None
    return {
        "board": board, "game_number": record.id, "game": record.game,
        "title": game.title if game is not None else record.game,
        "options": {k: v if isinstance(v, str | int | float | bool) else str(v)
                    for k, v in record.options.items()},
        "profile": record.profile,
        "players": list(game.player_names if game is not None else ("Player 1", "Player 2")),
        "people": list(record.players), "status": record.status,
        "outcome": result_words(record, config_dir) or None,
        "winner": winner if winner in (1, 2) else None,
        "moves": [[move, at] for move, at in record.moves], "scores": scores,
        "started": record.started, "ended": record.ended,
    }  # fmt: skip


def record_row(record: GameRecord, config_dir: str | None, board: str = "") -> dict[str, Any]:
    """A journal's game as a results row (see ``results_csv``)."""
    game = _record_game(record, config_dir)
    return result_row(
        board=board or record.profile, number=record.id, game=record.game,
        title=game.title if game is not None else record.game, options=record.options,
        sides=game.player_names if game is not None else ("Player 1", "Player 2"),
        people=record.players, result=result_words(record, config_dir) or record.status,
        winner=(record.outcome or {}).get("winner"),
        moves=moves_played(m for m, _ in record.moves),
        started=record.started, ended=record.ended or "",
    )  # fmt: skip


__all__ = [
    "CSV_COLUMNS", "CSV_HEADERS", "csv_cell", "played", "record_row", "record_text", "result_of",
    "result_row", "result_words", "results_csv",
]  # fmt: skip
