"""What the measurements and the screen check use of a club evening on the booted Pi: its
machine, its report, its logs folder and its tables, and a wait for their referees. The club
(club.py) has all of it and hands itself over; measure.py and screen.py name only this, so
they never import the club that calls them. (A Protocol: nothing here is run.)"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from pi.boards import Table
from pi.machine import Machine
from pi.report import Report


class Evening(Protocol):
    """A club evening under way on the booted Pi."""

    report: Report
    logs: Path
    tables: list[Table]

    @property
    def pi(self) -> Machine: ...

    def wait_referees(self, timeout: float = 90) -> None: ...


__all__ = ["Evening"]
