"""Typed errors of the rules engine.

All are ``ValueError`` subclasses so that callers that only care about "bad input" can catch one
type, while callers that care (the CLI, the reconciler) can tell them apart.
"""

from __future__ import annotations


class ConfigError(ValueError):
    """A game or board description is invalid. The message names the file, key and problem."""


class InvalidMoveError(ValueError):
    """Move text that cannot be parsed for this game (unknown cell, malformed notation)."""


class IllegalMoveError(ValueError):
    """A well-formed move that the rules do not allow in the current position."""


class PositionError(ValueError):
    """A position description (JSON form) that is malformed or inconsistent with the game."""
