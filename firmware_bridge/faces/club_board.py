"""What the club view knows of one board (faces/club.py follows many): its latest good
retained state, kept as text and summed up for its card, its status, and what was wrong with
its last bad message. (Split from club.py.)"""

from __future__ import annotations

import dataclasses
import datetime
import json
from dataclasses import dataclass
from typing import Any

from engine import declared

SUMMARY_KEYS = ("game_number", "pieces", "signals", "last_move", "lifted", "unexpected", "ghosts",
                "misplaced",
                "status", "notice", "to_move", "phase", "scores", "outcome", "winner",
                "alert", "alert_since", "at", "sensor_warnings", "sensor_brief",
                "clocks")  # fmt: skip


@dataclass
class BoardEntry:
    """What the club knows of one board: its latest good retained state (kept as text, parsed
    only when a record is asked for) and status, and what was wrong with its last bad one."""

    name: str
    state_text: str = ""
    picture_key: str = ""
    picture_text: str = ""  # the board's own picture (never another board's)
    online: bool | None = None  # None: no status seen yet
    status_reason: str = ""
    status_at: float | None = None
    offline_received: float | None = None  # when an offline status reached the club view
    last_heard: float | None = None  # wall time of the referee's latest message (or frame)
    last_event: str = ""
    problem: str = ""  # why its last message was refused, shown on its card
    commands: bool = False  # its referee takes new game and take back from here
    refused: list[str] = dataclasses.field(default_factory=list)  # topics the broker refuses it
    # When another client took its referee's place on the broker (its login used twice)
    taken_over: list[float] = dataclasses.field(default_factory=list)
    seq: int = 0
    summary_text: str = ""
    digest: dict[str, Any] | None = None  # what the card shows of the latest good state

    @property
    def state(self) -> dict[str, Any] | None:
        if not self.state_text:
            return None
        state: dict[str, Any] = json.loads(self.state_text)
        return state

    def take_state(self, s: dict[str, Any], text: str) -> None:
        """A good state: kept as text, with the part the card shows."""
        game = s.get("game") or {}
        connection = s.get("connection") or {}
        # A declared result (a resignation, an agreed draw) is the game's last entry but no
        # move: the card counts and names only the moves.
        moves = [m for m in s.get("moves") or [] if declared(str(m.get("text", ""))) is None]
        digest: dict[str, Any] = {key: s.get(key) for key in SUMMARY_KEYS}
        digest.update(
            title=game.get("title", ""),
            game=game.get("id", ""),
            players=game.get("players", []),
            people=game.get("people", ["", ""]),
            options=game.get("options", {}),
            key=s["board"]["key"],
            moves=len(moves),
            last_text=(moves[-1].get("words") or moves[-1].get("text", "")) if moves else "",
            last_move_at=_seconds(moves[-1].get("at")) if moves else None,
            connection={
                "state": connection.get("state", ""),
                "message": connection.get("message", ""),
                "faults": connection.get("faults", [])[-3:],
            },
        )
        self.state_text, self.digest = text, digest

    def take_status(self, body: dict[str, Any], *, retained: bool, received: float,
                    heard: float) -> None:  # fmt: skip
        """A good status: online, or offline since when. ``received``: when it reached the
        club; ``heard``: the time it carries (or ``received``); ``retained``: the broker
        handed it over as kept, not as it came."""
        known = (self.online, self.status_reason)
        self.online = body["state"] == "online"
        self.commands = self.online and body.get("commands") is True
        self.refused = [str(t)[:40] for t in body.get("refused") or []][:10]
        self.taken_over = [float(t) for t in body.get("taken_over") or []][-5:]
        self.status_reason = str(body.get("reason", ""))[:80]
        if retained and known == (self.online, self.status_reason) and not self.online:
            # The same "offline" again, as the broker hands its retained messages to the club
            # on reconnecting: the club knew it already, from when it came. Its time stays: a
            # referee dead before a broker outage is not the outage's.
            return
        if self.online:
            self.status_at, self.offline_received = heard, None
            return
        self.offline_received = received
        self.status_at = heard
        if self.status_reason == "lost":
            # The broker's last will carries the time it was set (when the referee connected).
            # Heard as it came, the broker sent it when it lost the referee (at once for a
            # process killed; within 45 s, its keepalive's one and a half, for a cut cable);
            # found retained, the referee's latest message is the best the club knows.
            self.status_at = received if not retained else self.last_heard or received

    def summary(self) -> dict[str, Any]:
        out: dict[str, Any] = dict(self.digest or {key: None for key in SUMMARY_KEYS})
        out.update(
            name=self.name,
            online=self.online,
            status_reason=self.status_reason,
            status_at=self.status_at,
            offline_received=self.offline_received,
            last_event=self.last_event,
            problem=self.problem,
            commands=self.commands,
            refused=self.refused,
            taken_over=self.taken_over,
        )
        if self.digest is None:
            out.update(title="", game="", players=[], people=["", ""], options={}, key="",
                       moves=0, last_text="", last_move_at=None,
                       connection={"state": "", "message": "", "faults": []})  # fmt: skip
        return out


def _seconds(iso: object) -> float | None:
    """An ISO 8601 time as seconds since the epoch (None if it is not one)."""
    try:
        return datetime.datetime.fromisoformat(str(iso)).timestamp()
    except ValueError:
        return None


__all__ = ["SUMMARY_KEYS", "BoardEntry"]


def game_of(name: str, number: int, state: dict[str, Any]) -> dict[str, Any]:
    """A game as the results and the records keep it, from a board's state."""
    game = state.get("game") or {}
    moves = state.get("moves") or []
    outcome = state.get("outcome")
    return {
        "board": name,
        "game_number": number,
        "game": game.get("id", ""),
        "title": game.get("title", ""),
        "options": game.get("options", {}),
        "profile": game.get("profile", ""),
        "players": game.get("players", []),
        "people": game.get("people", ["", ""]),
        "outcome": outcome,
        "winner": state.get("winner"),
        "moves": [[m.get("text", ""), m.get("at", "")] for m in moves],
        "started": state.get("started") or (moves[0].get("at", "") if moves else ""),
        "ended": moves[-1].get("at", "") if moves and outcome else None,
    }
