"""Running KiCad: its half of the work (pcb/kicad_side.py) in the system's python3.

Debian's ``kicad`` package installs ``pcbnew`` for the system's python3 only, so the venv's
Python hands its requests over as JSON files and reads KiCad's answers back the same way.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from pathlib import Path
from typing import Any

SIDE = Path(__file__).with_name("kicad_side.py")
PYTHON_CANDIDATES = ("/usr/bin/python3", "/usr/local/bin/python3")
INSTALL = "install KiCad 6 (Debian: sudo apt-get install kicad kicad-footprints)"


class KicadError(RuntimeError):
    """KiCad is missing, or refused what it was given (its message is kept)."""


def system_python() -> str:
    """The python3 that can import pcbnew (an environment variable may name another)."""
    named = os.environ.get("BOARD_REFEREE_KICAD_PYTHON")
    for candidate in (named,) if named else PYTHON_CANDIDATES:
        if candidate and Path(candidate).exists():
            found = subprocess.run([candidate, "-c", "import pcbnew"], capture_output=True)  # noqa: PLW1510
            if found.returncode == 0:
                return candidate
    raise KicadError(f"KiCad's pcbnew is not installed for the system's python3: {INSTALL}")


def run(command: str, request: dict[str, Any], *, timeout: float = 900) -> Any:
    python = system_python()
    with tempfile.TemporaryDirectory(prefix="board-referee-kicad-") as scratch:
        source, target = Path(scratch, "in.json"), Path(scratch, "out.json")
        source.write_text(json.dumps(request))
        done = subprocess.run(  # noqa: PLW1510
            [python, str(SIDE), command, str(source), str(target)],
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        if done.returncode != 0 or not target.exists():
            tail = (done.stderr + done.stdout).strip().splitlines()[-8:] or [
                f"exit {done.returncode}"
            ]
            raise KicadError(f"KiCad could not {command}: " + " / ".join(tail))
        return json.loads(target.read_text())


def footprints(fpids: list[str]) -> dict[str, Any]:
    """Each footprint's pads and courtyard, as KiCad's library draws them."""
    if not Path(os.environ.get("KICAD6_FOOTPRINT_DIR", "/usr/share/kicad/footprints")).is_dir():
        raise KicadError(f"KiCad's footprint library is not installed: {INSTALL}")
    return dict(run("pads", {"footprints": sorted(set(fpids))}))
