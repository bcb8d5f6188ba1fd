"""A Pi that sets itself up: the systemd units (checked with systemd-analyze verify) and the
daemon's notifications to systemd (READY, then WATCHDOG from the main loop), received on a
socket the test provides, as systemd would."""

from __future__ import annotations

import re
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

from firmware_bridge.notify import Notifier
from tests.e2e import DaemonProcess, EmulatorProcess


def test_the_units_install_and_pass_systemd_analyze_verify(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "firmware_bridge.cli", "install-service", "--board-id", "table1",
         "--kiosk-user", "root", "--dest", str(tmp_path), "--state-dir", str(tmp_path / "s")],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "systemctl enable --now board-referee@table1.service" in result.stdout
    service = (tmp_path / "board-referee@.service").read_text()
    assert f"ExecStart={sys.executable} -m firmware_bridge.cli run --board-id %i" in service
    assert "Type=notify" in service and "WatchdogSec=" in service
    assert "Restart=on-failure" in service and not re.search(r"@[A-Z_]+@", service)
    kiosk = (tmp_path / "board-referee-kiosk@.service").read_text()
    assert "--kiosk" in kiosk and "http://127.0.0.1:8080/" in kiosk
    for unit in ("board-referee@", "board-referee-kiosk@"):  # instances of the templates
        shutil.copy(tmp_path / f"{unit}.service", tmp_path / f"{unit}table1.service")
    analyze = shutil.which("systemd-analyze")
    assert analyze is not None, "make test installs systemd-analyze (tools/ensure-chromium.sh)"
    verify = subprocess.run(
        [analyze, "verify", "--man=no", str(tmp_path / "board-referee@table1.service"),
         str(tmp_path / "board-referee-kiosk@table1.service")],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert verify.returncode == 0, verify.stderr


def test_the_daemon_tells_systemd_it_is_ready_and_alive(tmp_path: Path) -> None:
    address = str(tmp_path / "notify")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    listener.bind(address)
    listener.settimeout(0.2)
    emu = EmulatorProcess(tmp_path, "three-dragons", "three-dragons")
    env = {"NOTIFY_SOCKET": address, "WATCHDOG_USEC": "400000"}
    daemon = DaemonProcess(tmp_path, "three-dragons", "three-dragons", emu.link, env=env)
    messages: list[str] = []
    try:
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and messages.count("WATCHDOG=1") < 3:
            try:
                messages.extend(listener.recv(4096).decode().splitlines())
            except TimeoutError:
                continue
    finally:
        emu.close()
        daemon.stop()
        listener.close()
    assert messages[0] == "READY=1"
    assert messages.count("WATCHDOG=1") >= 3
    assert any(m.startswith("STATUS=") and "to move" in m for m in messages), messages


def test_without_systemd_nothing_is_sent_and_a_foreign_watchdog_is_ignored() -> None:
    assert Notifier({}).socket is None
    assert Notifier({"WATCHDOG_USEC": "1000000", "WATCHDOG_PID": "1"}).watchdog is None
    assert Notifier({"WATCHDOG_USEC": "1000000"}).watchdog == 0.5
