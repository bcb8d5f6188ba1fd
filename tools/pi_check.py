"""``make pi-check``: the product as a club gets it, on a booted Pi system, tested as written.

A Debian bookworm root (Raspberry Pi OS Bookworm's base), built from Debian's packages and
cached, boots under systemd-nspawn with systemd as its init. Two emulated boards (Three Dragons
and Vanguard, board ids table1 and table2) are on this host's ptys and appear inside as USB
serial ports (/dev/ttyACM0 and 1, with /dev/serial/by-id names). Then:

1. the recipe: docs/raspberry-pi.md's shell blocks, as written, as the Pi's user (the install
   from a USB stick, the first run, the board, the services for two boards, the club's broker
   from docs/mqtt.md, the club set-up, the SD card's log settings);
2. the units as systemd runs them: their order, user and restart policy, the state folder's
   owner, the serial port's group; and a broken copy of a unit, which the same check refuses;
3. a club evening: a game on each board; a referee killed (systemd restarts it, the game
   goes on); the broker stopped and started; the Pi's power cut at 20 points of the games
   (the journal passes its integrity check, no move is lost); ``git pull && make install``
   and a restart mid-game;
4. the kiosk screen on a Wayland compositor (sway, headless): its picture taken by the
   compositor (grim), the page full screen, a control used without a token, the browser
   killed and the referee restarted;
5. the referee's start to its first LED frame, on the booted system;
6. what an evening writes to the SD card;
7. (``--arm64``, or ``make pi-check``) the install on arm64 under qemu-user: the mypyc build's
   time and memory, the engine's speed, the tests, the firmware's UF2.

Every step prints its outcome and time; the exit status is 1 when any failed.
Run: ``python tools/pi_check.py [--part NAME ...] [--keep]`` (as root: it mounts and boots).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tools")]

from pi import roots  # noqa: E402
from pi.report import Report  # noqa: E402

PARTS = ("recipe", "units", "evening", "kiosk", "start", "sd-card", "arm64")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--part",
        action="append",
        choices=PARTS,
        help="run only these parts (the recipe always runs first; default: all)",
    )
    parser.add_argument("--no-arm64", action="store_true", help="leave out the arm64 part")
    parser.add_argument(
        "--keep",
        action="store_true",
        help="leave the Pi running at the end (its root and how to enter it are printed)",
    )
    parser.add_argument("--verbose", action="store_true", help="tracebacks of failed steps")
    args = parser.parse_args()
    if os.geteuid() != 0:
        print("pi-check mounts, chroots and boots a system: run it as root (sudo)", file=sys.stderr)
        return 2
    missing = [t for t in ("debootstrap", "systemd-nspawn", "nsenter") if not shutil.which(t)]
    if missing:
        print(f"pi-check needs {', '.join(missing)} (make pi-check installs them)", file=sys.stderr)
        return 2
    parts = set(args.part or PARTS)
    if args.no_arm64:
        parts.discard("arm64")
    report = Report(verbose=args.verbose)
    print(f"pi-check: parts {', '.join(p for p in PARTS if p in parts)}; cache {roots.cache_dir()}")
    from pi.club import Club

    try:
        if parts - {"arm64"}:
            with Club(report, parts, keep=args.keep) as club:
                club.run()
        if "arm64" in parts:
            from pi.arm64 import check_arm64

            check_arm64(report)
    except Exception:  # a failed step: reported already; the summary says which
        if not report.failed:
            raise
    return report.summary()


if __name__ == "__main__":
    sys.exit(main())
