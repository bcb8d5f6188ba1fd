"""The kiosk screen: Chromium in kiosk mode on a board's kiosk page, on the desktop beside it.

Run by ``board-referee-kiosk@NAME.service`` as the desktop user. A system service starts before
the desktop is up and before the referee serves its page, and Raspberry Pi OS may run Wayland
(labwc, since Bookworm) or X11; so this waits for a desktop to show the page on, finds which
one it is, waits for the page to answer, and only then starts the browser (which would
otherwise show an error page and stay on it).
"""

from __future__ import annotations

import os
import shutil
import socket
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from firmware_bridge.faces.hosts import local_host
from firmware_bridge.faces.hosts import page_url as page_address

BROWSERS = ("chromium", "chromium-browser")  # Debian and newer Raspberry Pi OS; older ones
CHROMIUM_FLAGS = (
    "--kiosk", "--noerrdialogs", "--disable-infobars", "--no-first-run",
    "--disable-session-crashed-bubble", "--disable-component-update",
    "--check-for-update-interval=31536000", "--disable-pinch", "--overscroll-history-navigation=0",
    "--disk-cache-size=33554432",  # its cache is in memory with its profile: 32 MB at most
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Desktop:
    """A desktop to open a window on: its kind and the environment a program needs for it."""

    kind: str  # wayland | x11
    env: dict[str, str]

    @property
    def platform_flag(self) -> str:
        return f"--ozone-platform={self.kind}"


def find_desktop(environ: Mapping[str, str], uid: int, x11_dir: Path = Path("/tmp/.X11-unix"),
                 home: Path | None = None) -> Desktop | None:  # fmt: skip
    """The user's desktop, Wayland first (what Raspberry Pi OS starts), else X11; None while
    there is neither (the desktop has not started yet)."""
    runtime = Path(environ.get("XDG_RUNTIME_DIR") or f"/run/user/{uid}")
    named = environ.get("WAYLAND_DISPLAY")
    sockets = [runtime / named] if named else sorted(runtime.glob("wayland-[0-9]*"))
    for path in sockets:
        if path.is_socket():
            return Desktop("wayland", {"XDG_RUNTIME_DIR": str(runtime),
                                       "WAYLAND_DISPLAY": path.name})  # fmt: skip
    display = environ.get("DISPLAY") or ":0"
    number = display.rpartition(":")[2].split(".")[0]
    if number.isdigit() and (x11_dir / f"X{number}").is_socket():
        env = {"DISPLAY": display, "XDG_RUNTIME_DIR": str(runtime)}
        authority = environ.get("XAUTHORITY") or str((home or Path.home()) / ".Xauthority")
        if Path(authority).is_file():
            env["XAUTHORITY"] = authority
        return Desktop("x11", env)
    return None


def find_browser(which: Callable[[str], str | None] = shutil.which) -> str | None:
    for name in BROWSERS:
        found = which(name)
        if found:
            return found
    return None


def page_url(address: tuple[str, int]) -> str:
    """The kiosk page as the screen beside it opens it: a page served on every address is
    opened on loopback, and ``?screen=1`` hides the mouse arrow over it."""
    host, port = address
    return page_address(local_host(host), port) + "?screen=1"


def page_answers(address: tuple[str, int], timeout: float = 1.0) -> bool:
    host, port = address
    try:
        with socket.create_connection((local_host(host), port), timeout=timeout):
            return True
    except OSError:
        return False


def browser_command(browser: str, desktop: Desktop, url: str, profile: Path) -> list[str]:
    return [browser, *CHROMIUM_FLAGS, desktop.platform_flag, f"--user-data-dir={profile}", url]


def wait_for(check: Callable[[], object], what: str, say: Callable[[str], None], *,
             sleep: Callable[[float], None] = time.sleep, every: float = 2.0,
             remind: float = 60.0) -> object:  # fmt: skip
    """``check()`` until it gives something; says what it waits for, then once a minute."""
    waited = 0.0
    while True:
        found = check()
        if found:
            return found
        if waited == 0.0 or waited // remind != (waited - every) // remind:
            say(f"waiting for {what}")
        sleep(every)
        waited += every


def profile_dir(environ: Mapping[str, str], board: str) -> Path:
    """The browser's own profile for this screen, so a desktop browser's session, crash bubble
    or extensions never appear on it. It lives in the desktop's runtime folder, in memory:
    Chromium writes its profile all the time (25 MB an hour measured on the booted Pi,
    docs/raspberry-pi.md), which an SD card need not take, and a kiosk keeps nothing worth a
    reboot. Without a runtime folder, in the user's cache."""
    runtime = environ.get("XDG_RUNTIME_DIR")
    if runtime and Path(runtime).is_dir():
        return Path(runtime) / "board-referee" / f"kiosk-{board}"
    base = environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "board-referee" / f"kiosk-{board}"


def launch(command: list[str], env: Mapping[str, str]) -> None:
    """Become the browser (the service's main process is then Chromium itself)."""
    os.execvpe(command[0], command, {**os.environ, **env})
