"""One protocol, two codecs: the host's (CPython) and the Pico firmware's (MicroPython) are held
to the same bytes, docs/protocol-vectors.json (written by tools/protocol_vectors.py)."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

from firmware_bridge.boards.firmware_files import board_config, install
from firmware_bridge.boards.micropython import find_micropython
from firmware_bridge.link import catalog

ROOT = Path(__file__).resolve().parent.parent
VECTORS = ROOT / "docs" / "protocol-vectors.json"


def _tool() -> ModuleType:
    path = ROOT / "tools" / "protocol_vectors.py"
    spec = importlib.util.spec_from_file_location("protocol_vectors", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["protocol_vectors"] = module
    spec.loader.exec_module(module)
    return module


def test_the_host_codec_writes_the_vectors_byte_for_byte() -> None:
    assert VECTORS.read_text(encoding="utf-8") == _tool().text(), (
        "the host's codec no longer gives docs/protocol-vectors.json: a protocol change must "
        "be deliberate (python tools/protocol_vectors.py), and the firmware changed with it"
    )


def test_the_firmware_codec_and_messages_give_the_same_bytes(tmp_path: Path) -> None:
    game = catalog.load_game("three-dragons")
    profile = catalog.load_profile("three-dragons", game)  # 77 owner sensors, 77 RGB LEDs
    install(tmp_path, board_config(profile, game), compiled=False, host=True)
    shutil.copyfile(ROOT / "tests" / "firmware" / "check_vectors.py", tmp_path / "check.py")
    result = subprocess.run(
        [find_micropython(), "check.py", str(VECTORS)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 mismatches" in result.stdout
