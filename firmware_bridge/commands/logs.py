"""Logging for the daemon: plain lines on stderr.

Under systemd (stderr is not a terminal) each line starts with a syslog priority such as
``<6>``, which journald turns into the entry's priority; it adds its own timestamps. On a
terminal the lines carry a time and a level name instead. ``--verbose`` adds every frame.
"""

from __future__ import annotations

import logging
import sys
from typing import TextIO

PRIORITY = {
    logging.DEBUG: 7,
    logging.INFO: 6,
    logging.WARNING: 4,
    logging.ERROR: 3,
    logging.CRITICAL: 2,
}


class JournaldFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        priority = PRIORITY.get(record.levelno, 6)
        return f"<{priority}>{super().format(record)}"


def configure(
    verbose: bool, stream: TextIO | None = None, name: str = "board-referee"
) -> logging.Logger:
    stream = stream or sys.stderr
    logger = logging.getLogger(name)
    logger.handlers.clear()
    logger.propagate = False
    handler = logging.StreamHandler(stream)
    if stream.isatty():
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)-7s %(message)s",
                                               datefmt="%H:%M:%S"))  # fmt: skip
    else:
        handler.setFormatter(JournaldFormatter("%(message)s"))
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG if verbose else logging.INFO)
    return logger
