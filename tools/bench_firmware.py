"""The Pico firmware's budgets, measured in MicroPython (the Unix port, here):

- heap: what the board holds (buffers, tables, the firmware's bytecode, its calibration), and
  the smallest heap from which it referees in every larger one (found by halving, then checked
  KB by KB above, since the threshold need not be clean: the firmware runs a refereeing loop in
  ``-X heapsize=N`` and either finishes or runs out of memory);
- time to send a SCAN of every sensor, to apply an LED_DELTA of 10 LEDs, to draw the LEDs for
  a blink step, and the sensor loop's cost per cell;
- the garbage one refereeing loop leaves (0 bytes means the loop never allocates).

The Unix port's words are 8 bytes, a Pico's 4: heap figures here are an upper bound for a
Pico, and times are the development machine's, many times a Pico's (``board-referee
firmware bench --port PORT`` measures a real Pico; docs/firmware.md says what to expect).

Run: ``python tools/bench_firmware.py [--board PROFILE --option KEY=VALUE ...]``.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from firmware_bridge.boards.firmware_files import board_config, install  # noqa: E402
from firmware_bridge.boards.micropython import run_bench  # noqa: E402
from firmware_bridge.link import catalog  # noqa: E402
from firmware_bridge.link.wiring import led_feeds_needed  # noqa: E402

# The largest board of any game: Goats Wintering's 10-limp hexagon, 300 cells. So many linear
# hall sensors need a 5 V supply of their own (docs/build-a-board.md): 4 A here, joined to its
# 13 m LED chain at as many points as the profile's check asks (3: one feed drops 1.7 V).
LARGEST = ("goats-wintering", {"board": "10-limp"}, 4000)
CLEAN_KB = 12  # smallest_heap: every size this far above it runs too
BOARDS = [("three-dragons", {}, None), ("vanguard", {}, None), ("the-lion-game", {}, None),
          ("protect-the-goat-reed", {}, None), ("goats-wintering", {}, None), LARGEST]  # fmt: skip


def bench_config(profile_id: str, options: dict[str, str], supply: int | None) -> dict[str, Any]:
    """board.json of a board to measure, with ``supply`` mA where it needs a supply of its own
    (and the LED feeds that supply's chain then needs, as a builder would give it)."""
    game = catalog.load_game(catalog.profile_game(profile_id), options)
    profile = catalog.load_profile(profile_id, game)
    if supply is not None and profile.pico is not None:
        wiring = dataclasses.replace(
            profile.pico, power=dataclasses.replace(profile.pico.power, supply_ma=supply)
        )
        leds = profile.led_count
        feeds = led_feeds_needed(wiring, len(profile.sensor_cells), leds)
        if feeds is not None:
            wiring = dataclasses.replace(
                wiring, power=dataclasses.replace(wiring.power, led_feeds=feeds)
            )
        profile = dataclasses.replace(profile, pico=wiring)
    return board_config(profile, game, "bench")


def add_board_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--board", help="one profile only (default: the five games' and the "
                        "largest board)")  # fmt: skip
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE")


def chosen_boards(args: argparse.Namespace) -> list[tuple[str, dict[str, str], int | None]]:
    """The boards to measure: --board with its --option, or all of BOARDS."""
    if not args.board:
        return BOARDS
    options = dict(pair.split("=", 1) for pair in args.option)
    return [(args.board, options, 4000)]


def flash_for(profile_id: str, options: dict[str, str], supply: int | None, folder: Path) -> int:
    """The board's flash in ``folder``, calibrated as a builder's linear board runs (its
    calibration.json read at start-up is part of what the heap must hold)."""
    config = bench_config(profile_id, options, supply)
    install(folder, config, compiled=True, host=True)
    sensors = config["sensors"]
    count = int(sensors["count"])
    calibration = folder / "calibration.json"
    if sensors["kind"] == "linear":
        centre = int(sensors["bands"]["centre"])
        rest = [centre - 600 + (i * 37) % 1200 for i in range(count)]  # sensors differ
        calibration.write_text(json.dumps({"base": rest, "bad": []}))
    else:
        calibration.unlink(missing_ok=True)
    return count


def measure(folder: Path, count: int, heap: str | None, loops: int) -> dict[str, str]:
    rest = [19859 if i % 3 else 32000 for i in range(count)]  # resting, and some pieces
    result = run_bench(folder, loops, rest, heap=heap)
    if result.returncode != 0:
        return {"error": (result.stderr or result.stdout).strip().splitlines()[-1:][0]}
    figures = {}
    for line in result.stdout.splitlines():
        words = line.split()
        if len(words) >= 2:
            figures[words[0]] = " ".join(words[1:])
    return figures


def smallest_heap(folder: Path, count: int, loops: int) -> int:
    """The smallest heap (KB, Unix port) from which the refereeing loop runs through in every
    size up to CLEAN_KB more. Found by halving, then checked KB by KB above: the threshold need
    not be clean (one large allocation fits or not by where the free blocks fall; the 300-cell
    board once started in 78 KB, failed in 80 and started again in 82)."""

    def runs(kb: int) -> bool:
        return "error" not in measure(folder, count, f"{kb}K", loops)

    low, high = 8, 256
    while high - low > 1:
        middle = (low + high) // 2
        if runs(middle):
            high = middle
        else:
            low = middle
    size = high + 1
    while size <= high + CLEAN_KB:
        if not runs(size):
            high = size + 1  # a failure above: the clean range starts past it
        size += 1
    return high


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_board_arguments(parser)
    parser.add_argument("--loops", type=int, default=1000, help="refereeing loops a run")
    args = parser.parse_args()
    boards = chosen_boards(args)
    print(f"{'board':<32} {'cells':>5} {'modules':>8} {'board':>7} {'hw layer':>8} "
          f"{'peak':>7} {'min heap':>8} {'SCAN':>9} {'DELTA 10':>9} {'LED step':>9} "
          f"{'per cell':>12} {'garbage':>14}")  # fmt: skip
    for profile_id, options, supply in boards:
        with tempfile.TemporaryDirectory(prefix="board-referee-bench-") as tmp:
            folder = Path(tmp)
            count = flash_for(profile_id, options, supply, folder)
            figures = measure(folder, count, None, args.loops)
            if "error" in figures:
                print(f"{profile_id}: {figures['error']}")
                return 1
            heap = smallest_heap(folder, count, max(100, args.loops // 10))

            def kb(name: str) -> str:
                return f"{int(figures[name].split()[0]) / 1024:.1f}K"  # noqa: B023

            name = profile_id + (f" ({', '.join(options.values())})" if options else "")
            print(f"{name:<32} {count:>5} {kb('heap_modules'):>8} {kb('heap_board'):>7} "
                  f"{kb('heap_hw_layer'):>8} {kb('heap_peak'):>7} {heap:>7}K "
                  f"{figures['scan_send']:>9} {figures.get('led_delta_apply_10', '-'):>9} "
                  f"{figures.get('led_render', '-'):>9} {figures['sensor_read']:>12} "
                  f"{figures['loop_garbage']:>14}")  # fmt: skip
    print(
        "MicroPython's Unix port (8-byte words; a Pico's are 4). modules: the firmware's "
        "bytecode; board: the buffers and tables it keeps; hw layer: the simulated hardware "
        "(a Pico's hw.py is a fraction of it); peak: the heap in use while refereeing, all "
        "included; min heap: the smallest -X heapsize from which it starts and referees in "
        f"every size up to {CLEAN_KB} KB more. Linear boards are calibrated. "
        "Times are this machine's."
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
