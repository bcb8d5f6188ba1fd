"""The referee's own error."""

from __future__ import annotations


class DaemonError(Exception):
    """A problem that stops the daemon (bad journal, wrong board); the message says why."""
