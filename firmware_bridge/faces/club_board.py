"""What the club view knows of one board (faces/club.py follows many): its latest good
retained state, kept as text and summed up for its card, its status, and what was wrong with
its last bad message. (Split from club.py.)"""

from __future__ import annotations

import dataclasses
import datetime
import json
from dataclasses import dataclass
from typing import Any

SUMMARY_KEYS = ("game_number", "pieces", "signals", "last_move", "lifted", "unexpected", "ghosts",
                "status", "notice", "to_move", "phase", "scores", "outcome", "winner",
                "alert", "alert_since", "at", "sensor_warnings", "sensor_brief")  # fmt: skip


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
        moves = s.get("moves") or []
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
