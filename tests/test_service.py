"""A Pi that sets itself up: the systemd units (checked with systemd-analyze verify) and the
daemon's notifications to systemd (READY, then WATCHDOG from the main loop), received on a
socket the test provides, as systemd would."""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import TYPE_CHECKING

from firmware_bridge.commands import service
from firmware_bridge.faces import screen
from firmware_bridge.faces.hosts import machine_addresses, page_urls
from firmware_bridge.referee.notify import Notifier
from tests.e2e import DaemonProcess, EmulatorProcess
from tests.mosquitto import free_port
from tests.netns import Namespace, request_from

if TYPE_CHECKING:
    from playwright.sync_api import Browser


def install(dest: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "firmware_bridge.cli", "install-service", "--dest", str(dest),
         "--state-dir", str(dest / "state"), *args],
        capture_output=True, text=True, check=False,
    )  # fmt: skip


def test_two_boards_keep_their_own_settings_and_the_units_pass_systemd_analyze_verify(
    tmp_path: Path,
) -> None:
    """The units are shared, so they hold no board's settings: each board's port, kiosk and
    broker are in its own environment file, and a second board never changes the first's."""
    first = install(tmp_path, "--board-id", "table1", "--kiosk", "0.0.0.0:8080",
                    "--kiosk-user", "root")  # fmt: skip
    assert first.returncode == 0, first.stderr
    env1 = tmp_path / "etc/board-referee/table1.env"
    env1.write_text(env1.read_text() + "BOARD_REFEREE_MQTT_PREFIX=club/v1\n")  # the operator's
    second = install(tmp_path, "--board-id", "table2", "--port", "/dev/board-referee-table2",
                     "--kiosk", "127.0.0.1:8082", "--kiosk-user", "root",
                     "--mqtt", "mqtt://table2@club-pi", "--mqtt-commands")  # fmt: skip
    assert second.returncode == 0, second.stderr
    assert "systemctl enable --now board-referee@table2.service" in second.stdout
    assert "note:" not in second.stdout
    units = tmp_path / "etc/systemd/system"
    service = (units / "board-referee@.service").read_text()
    assert f"ExecStart={sys.executable} -m firmware_bridge.cli run --board-id %i\n" in service
    assert "EnvironmentFile=-/etc/board-referee/%i.env" in service
    assert "Type=notify" in service and "WatchdogSec=" in service
    kiosk = (units / "board-referee-kiosk@.service").read_text()
    assert "kiosk-screen --board-id %i" in kiosk and "Wants=board-referee@%i.service" in kiosk
    for text in (service, kiosk):
        settings = "\n".join(line for line in text.splitlines() if not line.startswith("#"))
        assert not re.search(r"@[A-Z_]+@|8080|8082|table[12]|/dev/|--port|--kiosk ", settings)
    assert service_env(tmp_path, "table1") == {
        "BOARD_REFEREE_PORT": "auto", "BOARD_REFEREE_KIOSK": "0.0.0.0:8080",
        "BOARD_REFEREE_MQTT_PREFIX": "club/v1",
    }  # fmt: skip
    assert service_env(tmp_path, "table2") == {
        "BOARD_REFEREE_PORT": "/dev/board-referee-table2", "BOARD_REFEREE_KIOSK": "127.0.0.1:8082",
        "BOARD_REFEREE_MQTT": "mqtt://table2@club-pi", "BOARD_REFEREE_MQTT_COMMANDS": "1",
    }  # fmt: skip
    again = install(tmp_path, "--board-id", "table1", "--kiosk", "0.0.0.0:8082")
    assert again.returncode == 0 and "board table2 serves its kiosk page" in again.stdout
    assert service_env(tmp_path, "table1")["BOARD_REFEREE_MQTT_PREFIX"] == "club/v1"  # kept
    for board in ("table1", "table2"):  # instances of the templates, as systemd makes them
        for unit in ("board-referee@", "board-referee-kiosk@"):
            shutil.copy(units / f"{unit}.service", units / f"{unit}{board}.service")
    analyze = shutil.which("systemd-analyze")
    assert analyze is not None, "make test installs systemd-analyze (tools/ensure-chromium.sh)"
    verify = subprocess.run(
        [analyze, "verify", "--man=no",
         *(str(units / f"{unit}{board}.service") for board in ("table1", "table2")
           for unit in ("board-referee@", "board-referee-kiosk@"))],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert verify.returncode == 0, verify.stderr


def service_env(root: Path, board: str) -> dict[str, str]:
    return service.read_env(root / "etc/board-referee" / f"{board}.env")


def test_a_setting_that_cannot_be_one_line_is_refused(tmp_path: Path) -> None:
    result = install(tmp_path, "--board-id", "table1", "--game", "three-dragons\nUser=root")
    assert result.returncode == 2 and "a setting is one line" in result.stderr
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "etc").exists()


def test_an_empty_user_is_refused_never_written_as_root(tmp_path: Path) -> None:
    """Issue 64: ``--user ""`` wrote ``User=`` (systemd runs that as root) and ``--kiosk-user
    ""`` left the kiosk screen out without a word. Both are refused, with what to give."""
    for option in ("--user", "--kiosk-user"):
        for bad in ("", "Pi User", "root\nGroup=x"):
            result = install(tmp_path, "--board-id", "table1", option, bad)
            assert result.returncode == 2, (option, bad, result.stderr)
            assert f"{option} " in result.stderr and "is no user name" in result.stderr
            assert "Traceback" not in result.stderr
            assert not (tmp_path / "etc").exists()
    result = install(tmp_path, "--board-id", "table1", "--user", "pi", "--kiosk-user", "pi")
    assert result.returncode == 0, result.stderr  # a preview (--dest): any well-formed name
    unit = (tmp_path / "etc/systemd/system/board-referee@.service").read_text()
    assert "\nUser=pi\n" in unit
    assert (tmp_path / "etc/systemd/system/board-referee-kiosk@.service").exists()


def test_the_unit_runs_the_board_its_environment_file_names(tmp_path: Path) -> None:
    """What the unit runs (``run --board-id NAME`` and nothing else) takes its port, kiosk
    and game from the board's environment file; the command line still beats it."""
    emu = EmulatorProcess(tmp_path, "vanguard", "vanguard")
    kiosk = free_port()
    result = install(tmp_path, "--board-id", "table1", "--port", str(emu.link), "--game",
                     "vanguard", "--kiosk", f"127.0.0.1:{kiosk}")  # fmt: skip
    assert result.returncode == 0, result.stderr
    unit = (tmp_path / "etc/systemd/system/board-referee@.service").read_text()
    command = re.search(r"^ExecStart=(.*)$", unit, re.M).group(1).replace("%i", "table1")  # type: ignore[union-attr]
    env = {k: v for k, v in os.environ.items() if not k.startswith("BOARD_REFEREE_")}
    env |= service_env(tmp_path, "table1") | {"XDG_STATE_HOME": str(tmp_path / "state")}
    proc = subprocess.Popen([*command.split(), "--settle-ms", "100"], env=env, text=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)  # fmt: skip
    try:
        lines = read_until(proc, "board scanned")
        assert any("refereeing Vanguard" in line for line in lines), lines
        if not any("kiosk page:" in line for line in lines):  # the board first, the page beside
            lines += read_until(proc, "kiosk page:")
        assert any(f"127.0.0.1:{kiosk}" in line for line in lines), lines
    finally:
        proc.terminate()
        proc.wait(10)
        emu.close()
    overridden = subprocess.run(
        [*command.split(), "--port", str(tmp_path / "no-such-dir" / "x"), "--game", "nope"],
        env=env, capture_output=True, text=True, timeout=30, check=False,
    )  # fmt: skip
    assert overridden.returncode == 2 and "nope" in overridden.stderr  # the command line's game


def read_until(proc: subprocess.Popen[str], text: str, timeout: float = 20) -> list[str]:
    assert proc.stderr is not None
    lines: list[str] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = proc.stderr.readline()
        if not line:
            break
        lines.append(line.rstrip("\n"))
        if text in line:
            return lines
    raise AssertionError(f"no {text!r} in:\n" + "\n".join(lines))


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


def test_the_built_in_emulator_ends_with_its_referee_even_on_kill_9(tmp_path: Path) -> None:
    """A killed referee leaves no emulator holding the web port: the next start works, and
    finds the emulated board as it was left, as it finds a physical one (no pieces to fix)."""
    kiosk, web = free_port(), free_port()
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path)}
    command = [sys.executable, "-m", "firmware_bridge.cli", "run", "--kiosk",
               f"127.0.0.1:{kiosk}", "--emulator-web", f"127.0.0.1:{web}", "--settle-ms", "100",
               "--game", "three-dragons", "--new"]  # fmt: skip
    referee = subprocess.Popen(command, env=env, text=True, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE)  # fmt: skip
    try:
        read_until(referee, "board scanned")
        for step in ({"do": "lift", "cell": "c1"}, {"do": "place", "cell": "c4"}):
            request = urllib.request.Request(f"http://127.0.0.1:{web}/api/action",
                                             json.dumps(step).encode(),
                                             {"Content-Type": "application/json"})  # fmt: skip
            urllib.request.urlopen(request, timeout=10).read()
        read_until(referee, "move 1: White c1-c4")
        children = Path(f"/proc/{referee.pid}/task/{referee.pid}/children").read_text().split()
        assert len(children) == 1, children
        emulator = int(children[0])
        referee.kill()
        referee.wait(10)
        deadline = time.monotonic() + 10
        while Path(f"/proc/{emulator}").exists() and time.monotonic() < deadline:
            if Path(f"/proc/{emulator}/stat").read_text().split()[2] == "Z":
                break  # ended, not yet reaped by init
            time.sleep(0.05)
        stat = Path(f"/proc/{emulator}/stat")
        assert not stat.exists() or stat.read_text().split()[2] == "Z", "the emulator lives on"
        command.remove("--new")  # the game goes on
        again = subprocess.Popen(command, env=env, text=True, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.PIPE)  # fmt: skip
        try:
            lines = read_until(again, "board scanned")  # its web port was free again
            assert any("resuming game 1" in line for line in lines), lines
            lines = read_until(again, "to move")  # at once: the board is as it was
            assert lines[-1].endswith("Black to move"), lines
            assert not any("set the board to the position" in line for line in lines), lines
        finally:
            again.terminate()
            again.wait(10)
    finally:
        if referee.poll() is None:
            referee.kill()
            referee.wait()


def test_a_port_in_use_names_the_process_holding_it(tmp_path: Path) -> None:
    holder = subprocess.Popen(
        [sys.executable, "-c", "import socket, sys, time; s = socket.socket(); "
         "s.bind(('127.0.0.1', 0)); s.listen(); print(s.getsockname()[1], flush=True); "
         "time.sleep(60)"],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert holder.stdout is not None
        port = int(holder.stdout.readline())
        result = subprocess.run(
            [sys.executable, "-m", "firmware_bridge.cli", "run", "--kiosk", f"127.0.0.1:{port}"],
            env={**os.environ, "XDG_STATE_HOME": str(tmp_path)},
            capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip
    finally:
        holder.kill()
        holder.wait()
    assert result.returncode == 2, result.stderr
    assert f"127.0.0.1:{port}" in result.stderr and f"process {holder.pid}: " in result.stderr
    # and the option (and variable) that moves the page elsewhere
    assert "--kiosk HOST:PORT (or $BOARD_REFEREE_KIOSK)" in result.stderr
    assert "Traceback" not in result.stderr


def test_the_kiosk_screen_waits_for_the_desktop_and_the_page_then_opens_it_on_wayland(
    tmp_path: Path,
) -> None:
    """Raspberry Pi OS starts labwc (Wayland): the screen unit's command finds it, waits for
    it and for the referee's page (a browser error page would stay up), then starts Chromium
    for Wayland on the page. A fake Chromium records what it was given."""
    bin_dir, runtime = tmp_path / "bin", tmp_path / "run"
    bin_dir.mkdir()
    runtime.mkdir()
    record = tmp_path / "chromium-args"
    fake = bin_dir / "chromium"
    fake.write_text(f'#!/bin/sh\necho "$WAYLAND_DISPLAY $*" > {record}\n')
    fake.chmod(0o755)
    port = free_port()
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}",
           "XDG_RUNTIME_DIR": str(runtime), "XDG_CACHE_HOME": str(tmp_path / "cache"),
           "BOARD_REFEREE_KIOSK": f"0.0.0.0:{port}"}  # fmt: skip
    env.pop("WAYLAND_DISPLAY", None)
    env.pop("DISPLAY", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "firmware_bridge.cli", "kiosk-screen", "--board-id", "table1"],
        env=env, text=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    compositor = socket.socket(socket.AF_UNIX)
    page = socket.socket()
    try:
        read_until(proc, "waiting for the desktop")
        compositor.bind(str(runtime / "wayland-0"))  # labwc starts
        read_until(proc, f"waiting for the kiosk page at http://127.0.0.1:{port}/?screen=1")
        page.bind(("127.0.0.1", port))  # the referee serves its page
        page.listen()
        lines = read_until(proc, "showing")
        assert proc.wait(10) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
        compositor.close()
        page.close()
    assert "on the wayland desktop" in lines[-1]
    args = record.read_text().split()
    assert args[0] == "wayland-0" and "--kiosk" in args and "--ozone-platform=wayland" in args
    assert args[-1] == f"http://127.0.0.1:{port}/?screen=1"
    assert f"--user-data-dir={runtime}/board-referee/kiosk-table1" in args  # in memory


def test_the_kiosk_screen_finds_x11_and_says_when_there_is_no_browser(tmp_path: Path) -> None:
    x11 = tmp_path / "x11"
    x11.mkdir()
    home = tmp_path / "home"
    home.mkdir()
    (home / ".Xauthority").write_text("")
    assert screen.find_desktop({}, 1000, x11_dir=x11, home=home) is None
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(x11 / "X0"))
        desktop = screen.find_desktop({"XDG_RUNTIME_DIR": str(tmp_path)}, 1000, x11_dir=x11,
                                      home=home)  # fmt: skip
    assert desktop is not None and desktop.kind == "x11"
    assert desktop.env["DISPLAY"] == ":0" and desktop.env["XAUTHORITY"].endswith(".Xauthority")
    assert desktop.platform_flag == "--ozone-platform=x11"
    assert screen.find_browser(lambda name: None) is None
    assert screen.find_browser({"chromium-browser": "/usr/bin/chromium-browser"}.get) == (
        "/usr/bin/chromium-browser"
    )
    result = subprocess.run(
        [sys.executable, "-m", "firmware_bridge.cli", "kiosk-screen"],
        env={**os.environ, "PATH": str(tmp_path)}, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert result.returncode == 2 and "no browser for the kiosk screen" in result.stderr


def test_a_page_on_every_address_is_announced_at_addresses_a_phone_can_open(
    tmp_path: Path,
) -> None:
    """`--kiosk 0.0.0.0:PORT` used to print http://0.0.0.0:PORT/, which no phone opens."""
    assert page_urls("0.0.0.0", 8080, addresses=["192.168.1.20", "2001:db8::5"],
                     local_name="table-pi.local") == [
        "http://table-pi.local:8080/", "http://192.168.1.20:8080/", "http://127.0.0.1:8080/",
    ]  # fmt: skip
    assert page_urls("::", 8080, addresses=["192.168.1.20", "2001:db8::5"], local_name="") == [
        "http://192.168.1.20:8080/", "http://[2001:db8::5]:8080/", "http://127.0.0.1:8080/",
    ]  # fmt: skip
    assert page_urls("192.168.1.20", 8080) == ["http://192.168.1.20:8080/"]
    kiosk = free_port()
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path)}
    referee = subprocess.Popen(
        [sys.executable, "-m", "firmware_bridge.cli", "run", "--kiosk", f"0.0.0.0:{kiosk}",
         "--emulator-web", f"127.0.0.1:{free_port()}"],
        env=env, text=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        lines = read_until(referee, "kiosk page:")
    finally:
        referee.terminate()
        referee.wait(10)
    line = lines[-1]
    assert "0.0.0.0" not in line and f"http://127.0.0.1:{kiosk}/" in line
    for address in machine_addresses():
        if ":" not in address:
            assert f"http://{address}:{kiosk}/" in line


def unit_command(root: Path, unit: str, board: str) -> list[str]:
    """A unit's ExecStart, as systemd runs it for ``board``."""
    text = (root / "etc/systemd/system" / unit).read_text()
    found = re.search(r"^ExecStart=(.*)$", text, re.M)
    assert found is not None, unit
    return found.group(1).replace("%i", board).split()


def unit_environment(root: Path, unit: str, board: str) -> dict[str, str]:
    """A unit's environment as systemd gives it: its Environment= lines, then the board's
    environment file."""
    text = (root / "etc/systemd/system" / unit).read_text()
    env = dict(re.findall(r"^Environment=([A-Z_]+)=(.*)$", text, re.M))
    return env | service_env(root, board)


def test_the_pis_own_screen_uses_every_control_and_strangers_still_need_the_token(
    tmp_path: Path, browser: Browser, namespace: Namespace
) -> None:
    """The recipe's own set-up (install-service --kiosk 0.0.0.0:PORT --kiosk-user): the referee
    and kiosk-screen started as their units start them; a stand-in for Chromium records the
    address kiosk-screen gives it; that address, opened in Chromium, presses a control with no
    token typed by anyone. A request from another machine without the token is still refused."""
    from playwright.sync_api import expect

    from tests.test_kiosk import TIMEOUT

    emu = EmulatorProcess(tmp_path, "three-dragons", "three-dragons")
    port = free_port()
    done = install(tmp_path, "--board-id", "table1", "--port", str(emu.link),
                   "--kiosk", f"0.0.0.0:{port}", "--kiosk-user", "root")  # fmt: skip
    assert done.returncode == 0, done.stderr
    base = {k: v for k, v in os.environ.items() if not k.startswith("BOARD_REFEREE_")}
    referee_env = base | unit_environment(tmp_path, "board-referee@.service", "table1")
    referee = subprocess.Popen([*unit_command(tmp_path, "board-referee@.service", "table1"),
                                "--settle-ms", "100"], env=referee_env, text=True,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)  # fmt: skip
    # The desktop kiosk-screen waits for (a Wayland socket), and a stand-in browser.
    runtime = tmp_path / "runtime"
    runtime.mkdir()
    desktop = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    desktop.bind(str(runtime / "wayland-0"))
    stand_in = tmp_path / "bin"
    stand_in.mkdir()
    given = tmp_path / "browser-was-given"
    (stand_in / "chromium").write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" > {given}\n')
    (stand_in / "chromium").chmod(0o755)
    screen_env = base | unit_environment(tmp_path, "board-referee-kiosk@.service", "table1") | {
        "PATH": f"{stand_in}:{os.environ['PATH']}", "XDG_RUNTIME_DIR": str(runtime),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
    }  # fmt: skip
    try:
        read_until(referee, "board scanned")
        shown = subprocess.run(unit_command(tmp_path, "board-referee-kiosk@.service", "table1"),
                               env=screen_env, capture_output=True, text=True, timeout=60,
                               check=False)  # fmt: skip
        assert shown.returncode == 0, shown.stderr
        address = given.read_text().split()[-1]
        assert address == f"http://127.0.0.1:{port}/?screen=1", address
        page = browser.new_page(viewport={"width": 800, "height": 480})
        page.goto(address)
        expect(page.locator("#status")).to_have_text("White to move", timeout=TIMEOUT)
        # A touchscreen shows no mouse arrow over the page (?screen=1).
        cursor = "getComputedStyle(document.getElementById('btn-menu')).cursor"
        assert page.evaluate(cursor) == "none"
        assert page.evaluate("getComputedStyle(document.body).cursor") == "none"
        page.locator("#btn-menu").click()
        page.locator("#btn-newgame").click()
        page.locator('#ng-players input[name="player-1"]').fill("Alice")
        page.locator("#ng-start").click()  # a control, pressed by touch: nothing typed
        expect(page.locator("#players")).to_contain_text("Alice (White)", timeout=TIMEOUT)
        expect(page.locator("#newgame")).to_be_hidden()  # taken: the dialog closed
        expect(page.locator("#status")).to_have_text("Alice to move", timeout=TIMEOUT)
        page.close()
        # From another machine (the test's network namespace, never this one's loopback):
        # refused.
        code, text = request_from(namespace, f"http://{namespace.host}:{port}/api/takeback",
                                  "POST", "{}", {"Content-Type": "application/json"})  # fmt: skip
        assert code == 401 and "access token" in json.loads(text)["error"], (code, text)
    finally:
        referee.terminate()
        referee.wait(10)
        emu.close()
        desktop.close()


def test_records_and_report_find_a_boards_journal_from_its_unit(tmp_path: Path) -> None:
    """``records --board-id`` and ``report --board-id`` look where the board's referee keeps
    its journal: its environment file, else the state folder its unit gives."""
    from firmware_bridge.commands.common import board_journal
    from firmware_bridge.link import catalog
    from firmware_bridge.referee.journal import Journal

    assert install(tmp_path, "--board-id", "table1").returncode == 0
    where = tmp_path / "state" / "board-referee" / "journal-table1.sqlite3"
    journal = Journal(where)
    game = catalog.load_game("vanguard")
    journal.start_game(game, "vanguard", None, ("Ann", "Bob"))
    journal.close()
    found, looked = board_journal("table1", root=tmp_path)
    assert found == where, looked
    env = service.env_path(tmp_path, "table2")
    env.write_text(f"BOARD_REFEREE_JOURNAL={tmp_path / 'elsewhere.sqlite3'}\n")
    assert board_journal("table2", root=tmp_path)[0] == tmp_path / "elsewhere.sqlite3"
    # (the command itself reads / : its words when nothing is there)
    result = subprocess.run([sys.executable, "-m", "firmware_bridge.cli", "records",
                             "--board-id", "no-such-board"], capture_output=True, text=True,
                            env={**os.environ, "XDG_STATE_HOME": str(tmp_path / "x")},
                            check=False)  # fmt: skip
    assert result.returncode == 2 and "no journal of board no-such-board" in result.stderr
