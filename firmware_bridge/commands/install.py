"""``board-referee install-service`` and ``kiosk-screen``: a Pi's systemd units and this
board's settings (the units and their files: ``service.py``), and the kiosk screen the
kiosk unit runs."""

from __future__ import annotations

import argparse
import contextlib
import functools
import os
import pwd
import re
import sys
from pathlib import Path

from firmware_bridge.commands import service
from firmware_bridge.commands.common import (
    DEFAULT_KIOSK,
    Subparsers,
    UserError,
    board_name,
    journal_file,
)
from firmware_bridge.faces import screen
from firmware_bridge.faces.broker import MqttError, parse_broker
from firmware_bridge.faces.hosts import WebError, parse_address, state_dir
from firmware_bridge.link.serial_link import PortError, check_port


def add_parser(sub: Subparsers, common: argparse.ArgumentParser) -> None:
    installer = sub.add_parser(
        "install-service", parents=[common],
        help="install the systemd units (shared by every board) and this board's settings",
        description="Writes the systemd units board-referee@.service (and, with --kiosk-user, "
        "board-referee-kiosk@.service), shared by every board on this machine, and this "
        "board's own settings in /etc/board-referee/NAME.env, which the units read. Run it "
        "once per board; a board's other settings in its file are kept.",
    )  # fmt: skip
    installer.add_argument("--board-id", required=True, metavar="NAME", help="the board's name")
    installer.add_argument("--port", default="auto",
                         help="the board's port: auto, or a stable name such as "
                         "/dev/board-referee-NAME (default: auto)")  # fmt: skip
    installer.add_argument("--game", help="the game (default: the journal's, else three-dragons)")
    installer.add_argument(
        "--kiosk", default=DEFAULT_KIOSK, metavar="HOST:PORT",
        help=f"where this board's kiosk page is served (default {DEFAULT_KIOSK}; a second "
        "board needs another port)",
    )  # fmt: skip
    installer.add_argument("--mqtt", metavar="URL", help="publish this board to the club's broker")
    installer.add_argument("--mqtt-password-file", metavar="FILE",
                         help="the file holding this board's broker password")  # fmt: skip
    installer.add_argument("--mqtt-commands", action="store_true",
                         help="accept new game and take back from the club view")  # fmt: skip
    installer.add_argument("--user", default="root", help="the user the referee runs as")
    installer.add_argument("--kiosk-user", help="also a kiosk screen unit: Chromium in kiosk "
                         "mode on this desktop user's screen")  # fmt: skip
    installer.add_argument(
        "--state-dir", default="/var/lib/board-referee",
        help="where the journals are kept (default /var/lib/board-referee)",
    )  # fmt: skip
    installer.add_argument(
        "--dest", default="/", metavar="DIR",
        help="write everything under DIR instead of / (DIR/etc/systemd/system, "
        "DIR/etc/board-referee), to look at or check a set-up before installing it",
    )  # fmt: skip
    installer.set_defaults(handler=_cmd_install_service)

    kiosk = sub.add_parser(
        "kiosk-screen", parents=[common],
        help="show a board's kiosk page full screen (run by the kiosk screen unit)",
        description="Shows the board's kiosk page full screen on the Pi's own display: it "
        "waits for the desktop (Wayland or X11) and for the referee's page to answer, then "
        "becomes Chromium in kiosk mode on it (Debian's chromium, or chromium-browser), with a "
        "profile of its own for this board. Its touches work without the access token "
        "(the page is opened on loopback, from the Pi itself). The board-referee-kiosk@NAME unit "
        "install-service writes runs it after the referee; run by hand, it shows the page "
        "on the desktop you are logged in to (docs/raspberry-pi.md, 4a. The kiosk screen).",
    )  # fmt: skip
    kiosk.add_argument("--board-id", default=os.environ.get("BOARD_REFEREE_BOARD_ID", "board"),
                        metavar="NAME", help="the board's name")  # fmt: skip
    kiosk.add_argument(
        "--kiosk", default=os.environ.get("BOARD_REFEREE_KIOSK", DEFAULT_KIOSK),
        metavar="HOST:PORT",
        help=f"the board's kiosk page (default: $BOARD_REFEREE_KIOSK, else {DEFAULT_KIOSK})",
    )  # fmt: skip
    kiosk.set_defaults(handler=_cmd_kiosk_screen)


USER_NAME = re.compile(r"[a-z_][a-z0-9_-]{0,31}")


def _check_user(option: str, user: str, *, real: bool) -> None:
    """A user a unit may run as: a user name (an empty one would write ``User=``, which runs
    the unit as root, or leave the kiosk screen out without a word), and, when installing for
    real, one this machine has."""
    if not USER_NAME.fullmatch(user):
        shown = repr(user) if user else "an empty name"
        raise UserError(f"{option} {shown} is no user name: give the user the unit runs as "
                        "(lower-case letters, digits, '_' and '-', like pi)")  # fmt: skip
    if real:
        try:
            pwd.getpwnam(user)
        except KeyError:
            raise UserError(
                f"{option} {user}: this machine has no such user (add it first, or name another)"
            ) from None


def _cmd_install_service(args: argparse.Namespace) -> int:
    """The shared units, and this board's settings in its own environment file (see
    firmware_bridge/commands/service.py); then how to start them."""
    name = board_name(args.board_id)
    parse_address(args.kiosk)
    if args.port != "auto":
        try:
            check_port(args.port)
        except PortError as exc:
            raise UserError(str(exc)) from exc
    if args.mqtt:
        try:
            parse_broker(args.mqtt)
        except MqttError as exc:
            raise UserError(str(exc)) from exc
    root = Path(args.dest)
    _check_user("--user", args.user, real=root == Path("/"))
    if args.kiosk_user is not None:
        _check_user("--kiosk-user", args.kiosk_user, real=root == Path("/"))
    installation = service.Installation(
        python=sys.executable, user=args.user, state_dir=args.state_dir,
        docs=str(Path(__file__).resolve().parent.parent.parent / "docs"),
        kiosk_user=args.kiosk_user,
    )  # fmt: skip
    settings = {"BOARD_REFEREE_PORT": args.port, "BOARD_REFEREE_KIOSK": args.kiosk}
    if args.game:
        settings["BOARD_REFEREE_GAME"] = args.game
    if args.config_dir:
        settings["BOARD_REFEREE_CONFIG"] = str(Path(args.config_dir).resolve())
    if args.mqtt:
        settings["BOARD_REFEREE_MQTT"] = args.mqtt
    if args.mqtt_password_file:
        settings["BOARD_REFEREE_MQTT_PASSWORD_FILE"] = str(Path(args.mqtt_password_file).resolve())
    if args.mqtt_commands:
        settings["BOARD_REFEREE_MQTT_COMMANDS"] = "1"
    env_file = service.env_path(root, name)
    try:
        before = env_file.read_text(encoding="utf-8") if env_file.is_file() else ""
        units = service.unit_texts(installation)
        env = service.env_text(name, settings, before)
        unit_dir = root / service.UNIT_DIR
        unit_dir.mkdir(parents=True, exist_ok=True)
        for unit, text in units.items():
            (unit_dir / unit).write_text(text, encoding="utf-8")
            print(f"wrote {unit_dir / unit}")
        env_file.parent.mkdir(parents=True, exist_ok=True)
        env_file.write_text(env, encoding="utf-8")
        print(f"wrote {env_file}")
    except service.ServiceError as exc:
        raise UserError(str(exc)) from exc
    except OSError as exc:
        where = exc.filename or root
        raise UserError(f"cannot write {where}: {exc.strerror or exc} (as root: sudo)") from exc
    clash = _kiosk_clash(root, name, args.kiosk)
    if clash:
        print(f"note: board {clash} serves its kiosk page on {args.kiosk} too; give one of them "
              "another --kiosk port")  # fmt: skip
    enable = " ".join(u.replace("@.", f"@{name}.") for u in units)
    print(f"start them now and at every boot: sudo systemctl daemon-reload && "
          f"sudo systemctl enable --now {enable}")  # fmt: skip
    journal = journal_file(state_dir(args.state_dir), name)
    print(f"this board's journal: {journal}; its settings: /etc/board-referee/{name}.env")
    return 0


def _kiosk_clash(root: Path, name: str, address: str) -> str | None:
    """Another board of this machine whose kiosk page is at ``address`` too."""
    port = parse_address(address)[1]
    for path in sorted((root / service.ENV_DIR).glob("*.env")):
        other = service.read_env(path).get("BOARD_REFEREE_KIOSK")
        if path.stem != name and other:
            with contextlib.suppress(WebError):
                if parse_address(other)[1] == port:
                    return path.stem
    return None


def _cmd_kiosk_screen(args: argparse.Namespace) -> int:
    """Wait for the desktop and the page, then become Chromium in kiosk mode on it."""
    address = parse_address(args.kiosk)
    browser = screen.find_browser()
    if browser is None:
        names = ", ".join(screen.BROWSERS)
        raise UserError(f"no browser for the kiosk screen: install one of {names} "
                        "(sudo apt-get install chromium)")  # fmt: skip
    say = functools.partial(print, file=sys.stderr, flush=True)
    desktop = screen.wait_for(lambda: screen.find_desktop(os.environ, os.getuid()),
                              "the desktop (Wayland or X11) to start", say)  # fmt: skip
    assert isinstance(desktop, screen.Desktop)
    url = screen.page_url(address)
    screen.wait_for(lambda: screen.page_answers(address), f"the kiosk page at {url}", say)
    command = screen.browser_command(browser, desktop, url,
                                     screen.profile_dir(desktop.env, args.board_id))  # fmt: skip
    say(f"showing {url} on the {desktop.kind} desktop: {' '.join(command)}")
    screen.launch(command, desktop.env)
    return 0  # not reached: launch replaces this process
