"""Board Referee host side: protocol, serial link, hardware profiles, reconciler, journal,
daemon and the ``board-referee`` command."""

# The one place the version is written: pyproject.toml reads it (dynamic), and a recording
# names it without importlib.metadata (25 ms a referee's start would spend before its board).
__version__ = "0.1.0"
