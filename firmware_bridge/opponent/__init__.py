"""The computer opponent's process and its protocol: ``board-referee engine`` (the server),
and the client the referee and the arena drive it with (docs/engine.md)."""

# A finished game's review: the engine's think a position (a 100-move game in some 45 s of
# one core, at the lowest priority): review.py, and run --review-ms.
REVIEW_MS = 400
