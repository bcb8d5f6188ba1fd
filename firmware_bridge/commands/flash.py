"""``board-referee firmware flash``: the firmware and board.json onto a Pico, with mpremote.

The Pico must be running MicroPython and be at its prompt: a new Pico once MicroPython's UF2 is
on it, or a board that runs the referee firmware started in maintenance mode (CONFIRM held
while plugging it in: the firmware then leaves the prompt free and starts no watchdog).

What it does, in order (``--dry-run`` prints it instead):
1. asks the Pico which .mpy version its MicroPython loads; modules are compiled with mpy-cross
   when it matches (they then load without the compiler's heap), else copied as source;
2. removes firmware files of the other form (an old .py beside a new .mpy), copies the
   firmware and board.json (main.py last), and lists the Pico's files to check them;
3. resets the Pico, which then starts the referee firmware (``--no-reset`` leaves it at the
   prompt). calibration.json, made on the board, is kept.
"""

from __future__ import annotations

import shlex
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine import ConfigError
from firmware_bridge.boards.firmware_files import (
    PICO_ARCH,
    RUNTIME,
    find_mpy_cross,
    find_tool,
    install,
)

PICO_VID = 0x2E8A  # Raspberry Pi
MPY_CROSS_VERSION = (6, 3)  # what the mpy-cross this project installs writes
TIMEOUT = 60
PROBE_TIMEOUT = 5  # a Pico at its prompt answers within a second
MAINTENANCE = (" (if the board runs the referee firmware, hold CONFIRM while plugging it in, "
               "then try again)")  # fmt: skip
VERSION = "import sys; print(sys.implementation._mpy)"
# sys.implementation._mpy's processor codes (bits 10-13), as mpy-cross's -march names them.
NATIVE_ARCHES = (None, "x86", "x64", "armv6", "armv6m", "armv7m", "armv7em", "armv7emsp",
                 "armv7emdp", "xtensa", "xtensawin", "rv32imc")  # fmt: skip
LIST = "import os; print(os.listdir())"


class FlashError(ConfigError):
    """The Pico could not be flashed (the message says why and what to do)."""


@dataclass(frozen=True, slots=True)
class Step:
    what: str
    command: tuple[str, ...]


def find_pico() -> str:
    """The one Pico on USB (by its vendor id); a FlashError names the candidates otherwise."""
    from serial.tools import list_ports

    picos = [p for p in list_ports.comports() if p.vid == PICO_VID]
    if not picos:
        raise FlashError(
            "no Raspberry Pi Pico found on USB: is it plugged in, with MicroPython on it? "
            "(a board running the referee: hold CONFIRM while plugging it in)"
        )
    if len(picos) > 1:
        named = ", ".join(f"{p.device} ({p.serial_number or 'no serial'})" for p in picos)
        raise FlashError(f"several Picos are plugged in: {named}; name one with --port")
    return str(picos[0].device)


class Flasher:
    def __init__(self, port: str, mpremote: str | None = None) -> None:
        found = mpremote or find_tool("mpremote", "BOARD_REFEREE_MPREMOTE")
        if found is None:
            raise FlashError("mpremote is not installed: pip install mpremote (MicroPython's "
                             "own tool)")  # fmt: skip
        self.mpremote = found
        self.port = port

    def command(self, *words: str) -> tuple[str, ...]:
        # "resume": no soft reset first. A soft reset runs main.py again, and a board in
        # maintenance mode would start the referee firmware, which leaves no prompt.
        return (self.mpremote, "connect", self.port, "resume", *words)

    def run(self, step: Step, timeout: float = TIMEOUT) -> str:
        try:
            result = subprocess.run(step.command, capture_output=True, text=True,
                                    timeout=timeout, check=False)  # fmt: skip
        except subprocess.TimeoutExpired as exc:
            raise FlashError(
                f"{step.what}: {self.port} does not answer MicroPython's prompt in "
                f"{timeout:.0f} s{MAINTENANCE}"
            ) from exc
        if result.returncode != 0:
            said = (result.stderr or result.stdout).strip().splitlines()
            last = said[-1] if said else f"exit status {result.returncode}"
            hint = MAINTENANCE if "repl" in last.lower() or "could not" in last.lower() else ""
            raise FlashError(f"{step.what} on {self.port} failed: {last}{hint}")
        return result.stdout

    def mpy_version(self) -> tuple[int, int, str | None] | None:
        """The .mpy version the Pico's MicroPython loads and the processor it runs native
        code for, as mpy-cross names it (None: it did not say)."""
        step = Step("asking MicroPython its version", self.command("exec", VERSION))
        words = self.run(step, timeout=PROBE_TIMEOUT).split()
        try:
            value = int(words[-1])
        except (IndexError, ValueError):
            return None
        code = (value >> 10) & 0xF
        arch = NATIVE_ARCHES[code] if code < len(NATIVE_ARCHES) else None
        return value & 0xFF, (value >> 8) & 3, arch

    def steps(self, staged: Path, files: Sequence[str], reset: bool) -> list[Step]:
        stale = []
        for name in RUNTIME:
            stem = name.removesuffix(".py")
            for form in (f"{stem}.py", f"{stem}.mpy"):
                if form not in files and form != "main.py":
                    stale.append(form)
        tidy = (f"import os\nfor name in {stale!r}:\n    try:\n        os.remove(name)\n"
                "    except OSError:\n        pass\n")  # fmt: skip
        copy: list[str] = []
        for name in files:  # each to its own name: ":" alone is not a folder on every port
            copy += [*(["+"] if copy else []), "cp", str(staged / name), f":{name}"]
        steps = [
            Step("removing old firmware files", self.command("exec", tidy)),
            Step("copying the firmware and board.json", self.command(*copy)),
            Step("listing the Pico's files", self.command("exec", LIST)),
        ]
        if reset:
            steps.append(Step("resetting the Pico into the referee firmware",
                              self.command("reset")))  # fmt: skip
        return steps


def flash(
    config: dict[str, Any],
    port: str,
    *,
    compiled: bool = True,
    reset: bool = True,
    dry_run: bool = False,
    out: Any = sys.stdout,
) -> list[str]:
    """Install the firmware and ``config`` on the Pico at ``port`` (``auto``: the one on USB).
    Returns the files installed."""
    if port == "auto":
        port = find_pico()
    flasher = Flasher(port)
    if compiled and find_mpy_cross() is None:
        compiled = False
        print("mpy-cross is not installed: copying the firmware as source", file=out)
    with tempfile.TemporaryDirectory(prefix="board-referee-flash-") as folder:
        staged = Path(folder)
        board: tuple[int, int, str | None] | None = None
        if dry_run:
            board = (*MPY_CROSS_VERSION, PICO_ARCH) if compiled else None
            print(shlex.join(flasher.command("exec", VERSION)), file=out)
        elif compiled:
            board = flasher.mpy_version()
        version = board[:2] if board is not None else None
        arch = board[2] if board is not None else None
        if compiled and (version != MPY_CROSS_VERSION or arch is None):
            compiled = False
            why = (f"loads .mpy version {version}, not {MPY_CROSS_VERSION}"
                   if version != MPY_CROSS_VERSION else "runs no native code")  # fmt: skip
            print(f"the Pico's MicroPython {why}: copying the firmware as source", file=out)
        files = install(staged, config, compiled=compiled, arch=arch)
        files = [name for name in files if name != "main.py"] + ["main.py"]
        steps = flasher.steps(staged, files, reset)
        for step in steps:
            if dry_run:
                print(shlex.join(step.command), file=out)
                continue
            print(f"{step.what} ...", file=out, flush=True)
            said = flasher.run(step)
            if step.what.startswith("listing"):
                missing = [name for name in files if name not in said]
                if missing:
                    raise FlashError(
                        f"the Pico on {port} lacks {', '.join(missing)} after the copy"
                    )
    if not dry_run:
        print(f"installed {len(files)} files on {port}: {' '.join(files)}", file=out)
    return files
