"""The Pi's system images, built from Debian's packages and cached between runs.

- ``base``: Debian bookworm (what Raspberry Pi OS Bookworm is built on) by debootstrap, set up
  as a Pi comes: a first user ``pi`` with sudo, a host name, a desktop session that starts at
  boot (sway with its headless backend, standing in for Raspberry Pi OS's labwc: both are
  wlroots compositors; bookworm has no labwc, and its cage lacks the wp_viewporter Chromium
  now needs to draw a page), grim to take the screen's picture, and what udev would do for a
  USB serial board (its tty in group dialout, its /dev/serial/by-id name), since udev does not
  run in a container.
- ``packages``: ``base`` with the recipe's first step run in it (its system packages), so a run
  does not download a browser each time. Its key is the step's own text: change the step in
  docs/raspberry-pi.md and the layer is built again.

Each layer is a folder named by a digest of what made it; a layer above another holds only its
own changes (an overlay's upper folder), so the runs mount them as overlay layers.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

MIRROR = "http://deb.debian.org/debian"
SUITE = "bookworm"
BASE_PACKAGES = (
    "systemd",
    "systemd-sysv",
    "libpam-systemd",
    "dbus",
    "sudo",
    "python3",
    "ca-certificates",
    "procps",
    "iproute2",
    "sway",
    "grim",
    "fonts-dejavu-core",
    "less",
)
SWAY_CONFIG = """\
# The Pi's 7" screen: one output of 800x480, windows without borders.
output HEADLESS-1 mode 800x480 position 0,0
default_border none
default_floating_border none
"""
DESKTOP_UNIT = """\
# The desktop session Raspberry Pi OS starts at boot for its user (labwc, logged in
# automatically): here sway with its headless backend, a screen with no monitor.
[Unit]
Description=The desktop session of pi (headless)
After=systemd-user-sessions.service user@1000.service
Wants=user@1000.service

[Service]
User=pi
PAMName=login
Environment=XDG_RUNTIME_DIR=/run/user/1000 WLR_BACKENDS=headless WLR_RENDERER=pixman
Environment=WLR_LIBINPUT_NO_DEVICES=1
ExecStart=/usr/bin/sway
Restart=always

[Install]
WantedBy=graphical.target
"""
SERIAL_NAMES = """\
#!/bin/sh
# What udev does when a USB serial board is plugged in: its tty in group dialout (0660), and a
# stable name under /dev/serial/by-id. The boards' list: /etc/usb-serial-names, one
# "TTY BY-ID-NAME" a line.
mkdir -p /dev/serial/by-id
while read -r tty name; do
    [ -e "/dev/$tty" ] || continue
    chown root:dialout "/dev/$tty" && chmod 0660 "/dev/$tty"
    if [ -n "$name" ]; then ln -sf "../../$tty" "/dev/serial/by-id/$name"; fi
done < /etc/usb-serial-names
"""
SERIAL_UNIT = """\
[Unit]
Description=USB serial boards' names and groups (udev's work)
DefaultDependencies=no
After=local-fs.target
Before=sysinit.target

[Service]
Type=oneshot
ExecStart=/usr/local/sbin/usb-serial-names
RemainAfterExit=yes

[Install]
WantedBy=sysinit.target
"""


def cache_dir() -> Path:
    explicit = os.environ.get("PI_CHECK_CACHE")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "board-referee" / "pi-check"


def digest(*parts: str) -> str:
    value = hashlib.sha256()
    for part in parts:
        value.update(part.encode() + b"\0")
    return value.hexdigest()[:16]


def base_key(arch: str) -> str:
    return digest(
        SUITE, arch, *BASE_PACKAGES, SWAY_CONFIG, DESKTOP_UNIT, SERIAL_NAMES, SERIAL_UNIT, "base 1"
    )


def chroot(root: Path, command: str) -> None:
    subprocess.run(
        [
            "chroot",
            str(root),
            "/usr/bin/env",
            "-i",
            "PATH=/usr/sbin:/usr/bin:/sbin:/bin",
            "sh",
            "-c",
            command,
        ],
        check=True,
    )


def build_base(
    arch: str,
    say: Callable[[str], None],
    *,
    packages: tuple[str, ...] = BASE_PACKAGES,
    desktop: bool = True,
) -> Path:
    """The base image for ``arch``, from the cache or built now (debootstrap)."""
    key = base_key(arch) if desktop else digest(SUITE, arch, *packages, "plain 1")
    folder = cache_dir() / f"base-{arch}-{key}"
    if (folder / ".done").exists():
        say(f"base image {folder.name}: cached")
        return folder
    shutil.rmtree(folder, ignore_errors=True)
    partial = folder.with_name(folder.name + ".partial")
    started = time.monotonic()
    if not (partial / ".debootstrapped").exists():  # else only its set-up failed last time
        shutil.rmtree(partial, ignore_errors=True)
        partial.parent.mkdir(parents=True, exist_ok=True)
        say(f"base image {folder.name}: debootstrap {SUITE} {arch} (a few minutes, once)")
        command = [
            "debootstrap",
            "--variant=minbase",
            f"--arch={arch}",
            f"--include={','.join(packages)}",
            SUITE,
            str(partial),
            MIRROR,
        ]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            log = partial / "debootstrap" / "debootstrap.log"
            detail = log.read_text()[-1500:] if log.exists() else done.stderr[-1500:]
            raise RuntimeError(f"debootstrap failed:\n{detail}")
        (partial / ".debootstrapped").touch()
    (partial / "etc/hostname").write_text("table-pi\n")
    (partial / "etc/hosts").write_text(
        "127.0.0.1\tlocalhost\n127.0.1.1\ttable-pi\n127.0.0.1\tclub-pi\n"
    )
    (partial / "etc/apt/sources.list").write_text(f"deb {MIRROR} {SUITE} main\n")
    chroot(
        partial,
        "id pi >/dev/null 2>&1 || useradd -m -u 1000 -s /bin/bash -G adm,sudo,video,users pi",
    )
    (partial / "etc/sudoers.d/010_pi-nopasswd").write_text("pi ALL=(ALL) NOPASSWD: ALL\n")
    (partial / "etc/sudoers.d/010_pi-nopasswd").chmod(0o440)
    if desktop:
        sway = partial / "home/pi/.config/sway/config"
        sway.parent.mkdir(parents=True, exist_ok=True)
        sway.write_text(SWAY_CONFIG)
        chroot(
            partial,
            "chown -R pi:pi /home/pi/.config && mkdir -p /var/lib/systemd/linger "
            "&& touch /var/lib/systemd/linger/pi",
        )
        (partial / "etc/systemd/system/pi-desktop.service").write_text(DESKTOP_UNIT)
        chroot(
            partial, "systemctl enable pi-desktop.service && systemctl set-default graphical.target"
        )
    if desktop:  # a booted Pi (the arm64 root only builds and runs programs)
        (partial / "usr/local/sbin/usb-serial-names").write_text(SERIAL_NAMES)
        (partial / "usr/local/sbin/usb-serial-names").chmod(0o755)
        (partial / "etc/usb-serial-names").write_text("")
        (partial / "etc/systemd/system/usb-serial-names.service").write_text(SERIAL_UNIT)
        chroot(partial, "systemctl enable usb-serial-names.service")
        # One machine id for the image, as a Pi's is made at its first boot (the system's log
        # is kept under it).
        chroot(partial, "rm -f /etc/machine-id && systemd-machine-id-setup --print >/dev/null")
    chroot(partial, "apt-get clean")
    (partial / ".debootstrapped").unlink()
    (partial / ".done").write_text(f"{time.monotonic() - started:.0f} s\n")
    partial.rename(folder)
    say(f"base image {folder.name}: built in {time.monotonic() - started:.0f} s")
    return folder


def trust_host_authorities(root: Path) -> None:
    """The certificate authorities this host's network needs (a proxy that re-signs TLS, as
    some venues' networks do), trusted in ``root`` too, so its pip reaches PyPI as this host's
    does. Nothing when this host trusts only Debian's own list."""
    local = Path("/usr/local/share/ca-certificates")
    found = sorted(local.glob("*.crt")) if local.is_dir() else []
    if not found:
        return
    target = root / "usr/local/share/ca-certificates"
    target.mkdir(parents=True, exist_ok=True)
    for path in found:
        shutil.copy(path, target / path.name)
    subprocess.run(["chroot", str(root), "update-ca-certificates"], check=True, capture_output=True)


def prune(keep: set[Path]) -> None:
    """Removes cached images no longer asked for (an older key of the same kind)."""
    folder = cache_dir()
    if not folder.is_dir():
        return
    for entry in folder.iterdir():
        if entry.is_dir() and entry not in keep and not entry.name.startswith("run"):
            kind = entry.name.rsplit("-", 1)[0]
            if any(k.name.rsplit("-", 1)[0] == kind for k in keep):
                shutil.rmtree(entry, ignore_errors=True)
