"""JSON from outside (a page's request, an MQTT payload), read within limits.

Python's parser recurses once per nesting level: a deeply nested payload raises RecursionError
inside it (on a paho thread that ends the thread; in a web handler, a 500). So the size is
checked first and the nesting is measured before parsing, on the text with its strings taken
out, by counting brackets. Everything the project reads from the network goes through here.
"""

from __future__ import annotations

import json
import re
from itertools import accumulate
from typing import Any

STRINGS = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
OPEN = frozenset(b"[{")


class JsonLimitError(ValueError):
    """The payload is over a limit; ``too_big`` says whether it was the size."""

    def __init__(self, message: str, *, too_big: bool = False) -> None:
        super().__init__(message)
        self.too_big = too_big


def depth(raw: bytes) -> int:
    """How deeply ``raw``'s arrays and objects nest (brackets inside strings do not count)."""
    brackets = STRINGS.sub(b"", raw).translate(None, NOT_BRACKETS)
    if not brackets:
        return 0
    return max(accumulate(1 if b in OPEN else -1 for b in brackets))


def loads_limited(raw: bytes | bytearray | str, *, max_bytes: int, max_depth: int) -> Any:
    """``json.loads`` of at most ``max_bytes`` nested at most ``max_depth`` deep. Raises
    JsonLimitError over a limit, ValueError for what is not JSON (UTF-8)."""
    data = raw.encode("utf-8") if isinstance(raw, str) else bytes(raw)
    if len(data) > max_bytes:
        raise JsonLimitError(
            f"the JSON is {len(data):,} bytes, more than the {max_bytes:,} accepted", too_big=True
        )
    if data.count(b"[") + data.count(b"{") > max_depth and depth(data) > max_depth:
        raise JsonLimitError(f"the JSON nests more than {max_depth} levels deep")
    try:
        return json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, RecursionError) as exc:
        raise ValueError(f"not JSON: {exc}") from None


__all__ = ["JsonLimitError", "depth", "loads_limited"]
