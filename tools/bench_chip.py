"""The firmware's figures on the emulated RP2040, in the chip's own time (125 MHz cycles).

For each shipped board and the 300-cell Goats Wintering board, the board's UF2 (the pinned
MicroPython, the compiled firmware, board.json) runs in rp2040js inside the board's pin-level
model (``board-referee firmware chip``'s), and this prints:

- from firmware/bench.py run on the chip (its ticks_us is the chip's timer): a full scan of
  every sensor, sending a SCAN, applying a 10-LED LED_DELTA, drawing a
  blink step, and the heap: free once the board is built and its low-water mark while
  refereeing, on the real 32-bit port;
- from the referee firmware itself, spoken to as a host would: a CHANGE from a magnet's
  arrival at a sensor to the frame leaving on USB, and an LED frame and an LED_DELTA from the
  last byte into the chip to the last bit out on the WS2812B data pin (median and worst).

Targets (issue 28): a 77-cell scan within 10 ms, a CHANGE on USB within the debounce plus
5 ms, the low-water mark above 64 KB free. The emulator runs slower than a Pico here; every
time printed is the chip's, not this machine's.

Run: ``python tools/bench_chip.py [--board PROFILE --option KEY=VALUE ...] [--samples N]``.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))

from bench_firmware import add_board_arguments, bench_config, chosen_boards  # noqa: E402

from firmware_bridge.boards.chip import ChipProcess  # noqa: E402
from firmware_bridge.boards.uf2 import build_uf2  # noqa: E402
from firmware_bridge.link.protocol import (  # noqa: E402
    Change,
    HostHello,
    LedDelta,
    LedPattern,
    Leds,
    Scan,
    ScanRequest,
    leds_crc,
)

SWING = 12000  # a magnet's swing on a linear sensor, as the simulated boards give it
STEADY_NS = 1_000_000_000  # the latencies are timed from this much chip time after the SCAN
ROUNDS = 20  # bench.py's repetitions of each timed action (the chip runs slowly here)


def resting(config: dict[str, Any]) -> tuple[list[int], int]:
    """Each sensor's level with nothing on it, and with a player 1 piece."""
    sensors = config["sensors"]
    if sensors["kind"] != "linear":
        return [65535] * sensors["count"], 0
    centre = sensors["bands"]["centre"]
    north_high = sensors["bands"]["north"] == "high"
    return [centre] * sensors["count"], centre + (SWING if north_high else -SWING)


def on_chip_bench(config: dict[str, Any], folder: Path, loops: int) -> dict[str, float]:
    """firmware/bench.py on the chip, in place of main.py: its lines ``name value unit``."""
    script = f"import bench\nbench.run(rounds={ROUNDS}, loops={int(loops)})\n"
    chip = _start(config, folder, {"main.py": script.encode()})
    try:
        # bench.py's last line, whole (MicroPython's prompt may follow in the same packet)
        chip.wait(lambda: re.search(rb"\nsent \d+ bytes\r?\n", chip.raw) or None, timeout=3600)
        text = bytes(chip.raw).decode("ascii", "replace")
    finally:
        chip.close()
    figures = {}
    for line in text.splitlines():
        words = line.split()
        if len(words) >= 2 and words[0].isidentifier():
            try:
                figures[words[0]] = float(words[1])
            except ValueError:
                continue
    return figures


def _start(config: dict[str, Any], folder: Path, extra: dict[str, bytes]) -> ChipProcess:
    """The board's UF2, calibrated as a builder's board is, with ``extra`` files, running."""
    rest, _ = resting(config)
    files = dict(extra)
    if config["sensors"]["kind"] == "linear":
        files["calibration.json"] = json.dumps({"base": rest}).encode()
    uf2 = folder / "board.uf2"
    uf2.write_bytes(build_uf2(config, extra=files))
    (folder / "board.json").write_text(json.dumps(config))
    return ChipProcess(uf2, folder / "board.json", rest)


def latencies(config: dict[str, Any], folder: Path, samples: int) -> dict[str, list[float]]:
    """CHANGE and LED latencies of the referee firmware, in the chip's microseconds."""
    rest, piece = resting(config)
    chip = _start(config, folder, {})
    found: dict[str, list[float]] = {"change": [], "leds": [], "delta": []}
    try:
        chip.host(HostHello(2, "bench"))
        chip.host(ScanRequest())
        chip.wait_for(lambda m: isinstance(m, Scan), timeout=600)
        # Timed from a second of the chip's time on: the first CHANGE within half a second
        # of power-on came 7 ms later than any after it, on every board (not explained yet;
        # a player's first move comes seconds after power-on).
        chip.send({"after": STEADY_NS, "id": 1})
        chip.wait_for(lambda m: isinstance(m, dict) and m.get("alarm") == 1, timeout=600)
        count = config["sensors"]["count"]
        for k in range(samples):
            sensor = (k * 7) % count
            for level in (piece, rest[sensor]):
                since = chip.now
                chip.send({"v": [sensor, level, 100], "mark": True})
                applied, _ = chip.wait_for(_said("applied"), 600, after=since)
                sent, _ = chip.wait_for(_change_of(sensor), 600, after=applied)
                found["change"].append((sent - applied) / 1000)
        leds = config["leds"]["count"]
        for k in range(samples if leds else 0):
            frame = tuple(
                LedPattern(200, k + 1, 0, 0xFF) if i % 5 == k % 5 else LedPattern(0, 0, 0, 0)
                for i in range(leds)
            )
            found["leds"].append(_led_latency(chip, Leds(frame)))
            after = list(frame)
            changes = []
            for index in range((k + 1) % 5, leds, 5):
                after[index] = LedPattern(0, 200, k + 1, 0xFF)
                changes.append((index, after[index]))
                if len(changes) == 10:
                    break
            delta = LedDelta(leds, leds_crc(tuple(after)), tuple(changes))
            found["delta"].append(_led_latency(chip, delta))
    finally:
        chip.close()
    return found


def _said(key: str) -> Callable[[Any], bool]:
    """Is it the chip model's mark ``key`` (not a protocol frame)?"""
    return lambda item: isinstance(item, dict) and key in item


def _change_of(sensor: int) -> Callable[[Any], bool]:
    """Is it a CHANGE frame that reports ``sensor``?"""
    return lambda item: isinstance(item, Change) and any(s == sensor for s, _ in item.changes)


def _led_latency(chip: ChipProcess, message: Leds | LedDelta) -> float:
    """From the chip taking the frame's last byte to the chain latching new pixels (us)."""
    since = chip.now
    before = next((m["leds"] for m in reversed(chip.marks) if "leds" in m), None)
    chip.host(message, mark=True)
    taken, _ = chip.wait_for(_said("taken"), 600, after=since)
    shown, _ = chip.wait_for(lambda m: _said("leds")(m) and m["leds"] != before, 600, after=taken)
    return (shown - taken) / 1000


def _spread(values: list[float]) -> str:
    if not values:
        return "-"
    return f"{statistics.median(values) / 1000:.1f}/{max(values) / 1000:.1f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_board_arguments(parser)
    parser.add_argument("--samples", type=int, default=6, help="CHANGEs and LED frames timed")
    parser.add_argument("--loops", type=int, default=100, help="bench.py's refereeing loops")
    args = parser.parse_args()
    boards = chosen_boards(args)
    print(f"{'board':<32} {'cells':>5} {'scan ms':>8} {'SCAN ms':>8} "
          f"{'DELTA10':>8} {'LED step':>8} {'CHANGE ms':>10} {'LEDS ms':>9} {'DELTA ms':>9} "
          f"{'free KB':>8} {'low KB':>7}")  # fmt: skip
    for profile_id, options, supply in boards:
        config = bench_config(profile_id, options, supply)
        with tempfile.TemporaryDirectory(prefix="board-referee-chip-") as tmp:
            folder = Path(tmp)
            started = time.monotonic()
            bench = on_chip_bench(config, folder, args.loops)
            print(f"  {profile_id}: bench.py on the chip in {time.monotonic() - started:.0f} s",
                  file=sys.stderr)  # fmt: skip
            timed = latencies(config, folder, args.samples)
            print(f"  {profile_id}: latencies in {time.monotonic() - started:.0f} s",
                  file=sys.stderr)  # fmt: skip
        count = config["sensors"]["count"]
        name = profile_id + (f" ({', '.join(options.values())})" if options else "")
        scan = bench.get("sensor_read", 0.0) * count / 1000
        print(f"{name:<32} {count:>5} {scan:>8.2f} "
              f"{bench.get('scan_send', 0) / 1000:>8.2f} "
              f"{bench.get('led_delta_apply_10', 0) / 1000:>8.2f} "
              f"{bench.get('led_render', 0) / 1000:>8.2f} {_spread(timed['change']):>10} "
              f"{_spread(timed['leds']):>9} {_spread(timed['delta']):>9} "
              f"{bench.get('heap_free', 0) / 1024:>8.1f} "
              f"{bench.get('heap_low_free', 0) / 1024:>7.1f}", flush=True)  # fmt: skip
    print(
        "The emulated RP2040 at 125 MHz, in its own time. scan: every sensor read once "
        "(bench.py's per-cell time x cells, the settling time included); "
        "SCAN, DELTA10, LED step: sending a SCAN, applying a 10-LED delta, drawing a blink "
        "step; CHANGE: a magnet's arrival to its frame on USB (median/worst, the debounce "
        "included); LEDS, DELTA: the frame's last byte into the chip to the last bit on the "
        "data pin (median/worst); free: the heap free once the board is built; low: its "
        "low-water mark while refereeing."
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
