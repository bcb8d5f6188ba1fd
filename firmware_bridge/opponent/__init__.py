"""The computer opponent's process and its protocol: ``board-referee engine`` (the server),
and the client the referee and the arena drive it with (docs/engine.md)."""
