"""Where the pages listen and which names reach them: addresses, host names, the state folder
and the pages' access tokens.

Kept apart from the servers (and from aiohttp) so that a referee run without a page, and the
command line's checks of its options, never import a web server.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import ipaddress
import os
import resource
import secrets
import socket
import struct
from collections.abc import Iterable
from pathlib import Path


class WebError(Exception):
    """The server cannot start (address in use, bad address); the message says why."""


def parse_address(text: str, option: str = "--kiosk") -> tuple[str, int]:
    """``HOST:PORT`` (``[::1]:8080`` for IPv6)."""
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit() or not 0 <= int(port) < 65536:
        raise WebError(f"{option} {text!r}: expected HOST:PORT, like 127.0.0.1:8080")
    return host.strip("[]") or "127.0.0.1", int(port)


def raise_descriptor_limit(want: int = 4096) -> None:
    """Raise the soft descriptor limit towards the hard one (a Pi's default soft limit is
    1024): more room under the caps for the board's reopening and the journal."""
    with contextlib.suppress(ValueError, OSError):
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        target = want if hard == resource.RLIM_INFINITY else min(want, hard)
        if soft != resource.RLIM_INFINITY and soft < target:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))


def add_allow_host_argument(parser: argparse.ArgumentParser) -> None:
    """``--allow-host``, for every command that serves a page."""
    parser.add_argument(
        "--allow-host", action="append", metavar="NAME",
        default=[n for n in os.environ.get("BOARD_REFEREE_ALLOW_HOSTS", "").split(",") if n],
        help="another host name the pages answer to, besides localhost, this machine's name "
        "and its .local name, and any address (repeatable; default: $BOARD_REFEREE_ALLOW_HOSTS, "
        "comma-separated); other names are refused, against DNS rebinding",
    )  # fmt: skip


def own_names(extra: Iterable[str] = ()) -> frozenset[str]:
    """The host names this machine answers to: localhost, its host name, its ``.local`` name
    (avahi), its fully qualified name, and any the operator added. Addresses are always
    accepted (a rebinding attack needs a name)."""
    names = {"localhost"}
    with contextlib.suppress(OSError):
        host = socket.gethostname().lower().rstrip(".")
        if host:
            names |= {host, host.split(".")[0] + ".local"}
    with contextlib.suppress(OSError):
        fqdn = socket.getfqdn().lower().rstrip(".")
        if fqdn:
            names.add(fqdn)
    names |= {n.lower().rstrip(".") for n in extra if n}
    return frozenset(names)


def host_name(host: str) -> str:
    """The name or address in a Host header, without its port."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1 : host.find("]")] if "]" in host else host
    if host.count(":") == 1:
        host = host.partition(":")[0]
    return host.rstrip(".")


def is_address(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def state_dir(home: str | None = None) -> Path:
    """Where journals, tokens and results live: under ``home`` (a state folder, as a systemd
    unit gives XDG_STATE_HOME) when given, else this user's."""
    base = home or os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "board-referee"


def write_whole(path: Path, text: str) -> None:
    """Write a file of the state folder whole, by a rename: a crash or a kill never leaves half
    of it (OSError as the disk gives it)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".new")
    temporary.write_text(text, encoding="utf-8")
    os.replace(temporary, path)


def load_token(folder: Path, name: str = "kiosk-token") -> str:
    """A page's access token, generated once and kept in ``folder`` (beside the journal)."""
    path = folder / name
    try:
        token = path.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        token = ""
    except (OSError, UnicodeDecodeError) as exc:
        raise WebError(f"cannot read the kiosk token {path}: {exc}") from exc
    if token:
        return token
    token = secrets.token_urlsafe(18)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            handle.write(token + "\n")
    except OSError as exc:
        raise WebError(f"cannot store the kiosk token in {path}: {exc.strerror}") from exc
    return token


def port_holder(port: int, proc: Path = Path("/proc")) -> str | None:
    """Who listens on TCP ``port`` here, in words (``process 1234: board-referee emulate
    ...``), read from /proc; None when nobody is found (or this is not Linux)."""
    inodes: set[str] = set()
    for table in ("tcp", "tcp6"):
        try:
            lines = (proc / "net" / table).read_text(encoding="ascii").splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if len(fields) > 9 and fields[3] == "0A" and fields[1].endswith(f":{port:04X}"):
                inodes.add(fields[9])  # LISTEN, on that port, on any address
    if not inodes:
        return None
    wanted = {f"socket:[{inode}]" for inode in inodes}
    for pid_dir in proc.iterdir():
        if not pid_dir.name.isdigit():
            continue
        try:
            fds = list((pid_dir / "fd").iterdir())
        except OSError:
            continue  # another user's process, or one that ended
        for fd in fds:
            try:
                target = os.readlink(fd)
            except OSError:
                continue
            if target in wanted:
                return f"process {pid_dir.name}: {_command_line(pid_dir)}"
    return "a process of another user (sudo ss -ltnp shows which)"


def _command_line(pid_dir: Path) -> str:
    try:
        raw = (pid_dir / "cmdline").read_bytes()
    except OSError:
        return "?"
    words = [w.decode(errors="replace") for w in raw.split(b"\0") if w]
    text = " ".join(Path(words[0]).name if i == 0 else w for i, w in enumerate(words))
    return text[:200] or "?"


WILDCARDS = ("0.0.0.0", "::", "")  # a page served on every address


def local_host(host: str) -> str:
    """Where this machine reaches its own page served on ``host``: loopback for a page on
    every address."""
    return "127.0.0.1" if host in WILDCARDS else host


def page_url(host: str, port: int) -> str:
    """``http://HOST:PORT/``, an IPv6 address in brackets."""
    return f"http://[{host}]:{port}/" if ":" in host else f"http://{host}:{port}/"


def machine_addresses() -> list[str]:
    """This machine's own addresses that another device could reach it on: every interface's
    IPv4 address, then its global IPv6 ones (no loopback, no link-local)."""
    found: list[str] = []
    with contextlib.suppress(OSError):
        for _, name in socket.if_nameindex():
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
                try:  # SIOCGIFADDR: the interface's IPv4 address
                    packed = fcntl.ioctl(probe.fileno(), 0x8915,
                                         struct.pack("256s", name.encode()[:15]))  # fmt: skip
                except OSError:
                    continue  # down, or no IPv4 address
            found.append(socket.inet_ntoa(packed[20:24]))
    with contextlib.suppress(OSError):
        for line in Path("/proc/net/if_inet6").read_text(encoding="ascii").splitlines():
            fields = line.split()
            if len(fields) >= 4 and fields[3] == "00":  # global scope
                found.append(str(ipaddress.IPv6Address(bytes.fromhex(fields[0]))))
    usable = []
    for address in found:
        parsed = ipaddress.ip_address(address)
        if not (parsed.is_loopback or parsed.is_link_local) and address not in usable:
            usable.append(address)
    return usable


def avahi_running(run: Path = Path("/run")) -> bool:
    """Whether avahi answers for ``NAME.local`` here (its daemon's socket is there)."""
    return (run / "avahi-daemon" / "socket").exists()


def page_urls(host: str, port: int, *, addresses: Iterable[str] | None = None,
              local_name: str | None = None) -> list[str]:  # fmt: skip
    """The addresses a person types to open a page served on ``host:port``. A page on every
    address (0.0.0.0) is not at http://0.0.0.0/: it is at each of the machine's addresses,
    at its ``.local`` name where avahi answers, and on loopback; the first is the one to give
    a phone."""
    if host not in WILDCARDS:
        return [page_url(host, port)]
    if local_name is None and avahi_running():
        with contextlib.suppress(OSError):
            local_name = socket.gethostname().split(".")[0] + ".local"
    mine = machine_addresses() if addresses is None else list(addresses)
    if host == "0.0.0.0":
        mine = [a for a in mine if ":" not in a]
    names = [*([local_name] if local_name else []), *mine, "127.0.0.1"]
    return [page_url(name, port) for name in names]


def say_urls(urls: list[str]) -> str:
    """``URL`` or ``URL (also URL, URL)``, for a log line."""
    return urls[0] + (f" (also {', '.join(urls[1:])})" if len(urls) > 1 else "")
