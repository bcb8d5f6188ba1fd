"""The board emulator's own promises (its use over a pty is in the end-to-end tests)."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

from firmware_bridge import catalog
from firmware_bridge.emulator import Emulator


class SlowPipe:
    """An output that lets other threads run between writes, as a busy pipe does."""

    def __init__(self) -> None:
        self.parts: list[str] = []

    def write(self, text: str) -> int:
        self.parts.append(text)
        time.sleep(0.0002)
        return len(text)

    def flush(self) -> None:
        pass


def test_events_from_two_threads_each_arrive_as_one_json_line(tmp_path: Path) -> None:
    # The command thread and the I/O thread both emit; a JSON reader (the end-to-end harness,
    # a builder's script) drops a line it cannot decode, and with it two events.
    game = catalog.load_game("three-dragons")
    profile = catalog.load_profile("three-dragons", game)
    out = SlowPipe()
    emulator = Emulator(game, profile, {}, link_path=tmp_path / "board", out=out,  # type: ignore[arg-type]
                        json_mode=True)  # fmt: skip

    def emit_many(kind: str) -> None:
        for number in range(150):
            emulator.emit(kind, number=number)

    threads = [threading.Thread(target=emit_many, args=(k,)) for k in ("leds", "pieces")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    lines = "".join(out.parts).splitlines()
    events = [json.loads(line) for line in lines]
    assert len(events) == 300
    for kind in ("leds", "pieces"):
        assert [e["number"] for e in events if e["event"] == kind] == list(range(150))
