"""The kiosk screen, for real: the kiosk unit's Chromium on the Pi's Wayland compositor (sway
with its headless backend, one 800x480 output), its picture taken by the compositor itself
(grim), a control touched, the browser killed and the referee restarted.

The check looks into the browser through Chromium's remote debugging port, which the Pi's
/etc/chromium.d/ turns on for the check (Debian's chromium reads its flags from there); the
browser is otherwise started exactly as the kiosk unit starts it.
"""

from __future__ import annotations

import json
import shutil
import time
import urllib.request
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pi import roots
from pi.machine import MachineError
from pi.png import covered, difference, read_png

if TYPE_CHECKING:
    from pi.evening import Evening

DEBUG_PORT = 9222
FLAGS_FILE = "etc/chromium.d/pi-check"
FLAGS = f'export CHROMIUM_FLAGS="$CHROMIUM_FLAGS --remote-debugging-port={DEBUG_PORT}"\n'
KIOSK = "board-referee-kiosk@table1.service"
SCREEN = (800, 480)


def debug_flags(root: Path) -> None:
    """Chromium's debugging port on, for the check to look in (before the kiosk starts)."""
    (root / FLAGS_FILE).parent.mkdir(parents=True, exist_ok=True)
    (root / FLAGS_FILE).write_text(FLAGS)


def kiosk_target() -> dict[str, Any] | None:
    """The kiosk page as Chromium's debugging port lists it, once it is there."""
    try:
        with urllib.request.urlopen(
            f"http://127.0.0.1:{DEBUG_PORT}/json/list", timeout=2
        ) as answer:
            targets = json.loads(answer.read())
    except OSError:
        return None
    for target in targets:
        if target.get("type") == "page" and ":8080/?screen=1" in target.get("url", ""):
            return dict(target)
    return None


def grim(club: Evening, name: str) -> Path:
    """The compositor's own picture of the screen, as the Pi's user takes it."""
    listed = club.pi.root_run("ls /run/user/1000").stdout.split()  # a tmpfs of the Pi's own
    sockets = sorted(n for n in listed if n.startswith("wayland-") and not n.endswith(".lock"))
    if not sockets:
        raise MachineError("no Wayland compositor runs for pi")
    inside = f"/var/tmp/{name}.png"
    club.pi.root_run(
        f"runuser -u pi -- env XDG_RUNTIME_DIR=/run/user/1000 "
        f"WAYLAND_DISPLAY={sockets[0]} grim {inside}"
    ).check()
    target = club.logs / f"{name}.png"
    shutil.copy(club.pi.path(inside), target)
    return target


def check_screen(club: Evening) -> None:
    from playwright.sync_api import sync_playwright

    pi = club.pi
    report = club.report
    one = club.tables[0]
    if not one.played:  # the page is shown once it has the game's moves
        one.play(1)
    with sync_playwright() as playwright:
        with report.step("kiosk: the page on the compositor, full screen"):
            took = pi.wait_for("the kiosk page on the screen", kiosk_target, timeout=120)
            browser = playwright.chromium.connect_over_cdp(f"http://127.0.0.1:{DEBUG_PORT}")
            page = find_page(browser)
            moves_shown(page, 1)
            sizes = page.evaluate("[innerWidth, innerHeight, screen.width, screen.height]")
            if sizes != [*SCREEN, *SCREEN]:
                raise MachineError(
                    f"the page is {sizes[0]}x{sizes[1]} on a "
                    f"{sizes[2]}x{sizes[3]} screen, not full screen"
                )
            shot = grim(club, "kiosk-screen")
            seen = read_png(shot)
            drawn = read_png(page.screenshot())
            empty = covered(seen)
            off = difference(seen, drawn)
            if (seen.width, seen.height) != SCREEN or empty or off > 6:
                raise MachineError(
                    f"the screen ({seen.width}x{seen.height}) is not the page: "
                    f"{len(empty)} empty blocks, {off:.1f} apart"
                )
            keep = roots.cache_dir() / "last-kiosk-screen.png"
            shutil.copy(shot, keep)
            report.say(
                f"the page on screen {took:.0f} s after the check began looking, "
                f"{seen.width}x{seen.height}, {off:.1f} from Chromium's own picture; "
                f"the compositor's picture: {keep}"
            )
        with report.step("kiosk: Take back touched on the screen, with no token"):
            before = one.moves()
            box = page.locator("#btn-takeback").bounding_box()
            if box is None:
                raise MachineError("no Take back button on the screen")
            page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
            pi.wait_for(
                "the take-back in the journal", lambda: one.moves() == before[:-1], timeout=30
            )
            one.state.undo()
            one.played.pop()
            one.set_board()
            one.play(1)
            report.say(f"taken back: {before[-1]}; the hands put the board back and played on")
        with report.step("kiosk: the browser killed: the screen comes back"):
            main = pi.unit(KIOSK, "MainPID")["MainPID"]
            pi.root_run(f"kill -KILL {main}").check()
            browser.close()
            pi.wait_for("the browser to go", lambda: kiosk_target() is None, timeout=30)
            took = pi.wait_for("the kiosk page back on the screen", kiosk_target, timeout=90)
            browser = playwright.chromium.connect_over_cdp(f"http://127.0.0.1:{DEBUG_PORT}")
            page = find_page(browser)
            moves_shown(page, 1)
            report.say(f"back {took:.0f} s after the kill (RestartSec=5)")
        with report.step("kiosk: the referee restarted: the page follows it"):
            pi.root_run("systemctl restart board-referee@table1").check()
            club.wait_referees()
            one.put_right()
            count = len(one.played)
            one.play(1)
            moves_shown(page, count + 1)
            shot = grim(club, "kiosk-screen-after")
            shutil.copy(shot, roots.cache_dir() / "last-kiosk-screen-after.png")
            report.say("the page reconnected by itself and shows the next move")
        browser.close()


def moves_shown(page: Any, least: int) -> None:
    """Wait for the page's move list to hold ``least`` moves. Through locators, which run in
    Playwright's own world: a polled function (wait_for_function) is evaluated by the page
    and the page's CSP (default-src 'self') refuses it, once it must poll."""
    deadline = time.monotonic() + 30
    while page.locator("#moves li").count() < least:
        if time.monotonic() > deadline:
            raise MachineError(f"the page's move list never held {least} moves")
        time.sleep(0.2)


def find_page(browser: Any) -> Any:
    for context in browser.contexts:
        for page in context.pages:
            if ":8080/?screen=1" in page.url:
                return page
    raise MachineError("the kiosk page is not among the browser's pages")
