"""Where a club's MQTT broker is, and the names a board goes by there: parsed from the command
line before anything connects. Kept apart from the publisher (mqtt.py), which needs the
referee's daemon: every command checks its options, and only ``run`` and ``club`` publish.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

DEFAULT_PREFIX = "board-referee/v1"
BOARD_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
MAX_BOARDS = 250  # boards the club view follows at once (club --max-boards)


class MqttError(Exception):
    """A broker URL or option that can never work; the message says why."""


@dataclass(frozen=True, slots=True)
class Broker:
    """Where the broker is and how to log in. ``mqtt://[USER[:PASSWORD]@]HOST[:PORT]``, or
    ``mqtts://`` for TLS (port 8883 by default)."""

    host: str
    port: int
    tls: bool = False
    username: str | None = None
    password: str | None = None
    ca_file: str | None = None
    prefix: str = DEFAULT_PREFIX

    def describe(self) -> str:
        scheme = "mqtts" if self.tls else "mqtt"
        user = f"{self.username}@" if self.username else ""
        return f"{scheme}://{user}{self.host}:{self.port}"


def parse_broker(
    url: str,
    *,
    username: str | None = None,
    password: str | None = None,
    password_file: str | None = None,
    ca_file: str | None = None,
    prefix: str | None = None,
) -> Broker:
    """The broker from its URL and options (options win over the URL's user and password)."""
    parts = urlsplit(url if "://" in url else f"mqtt://{url}")
    if parts.scheme not in ("mqtt", "mqtts"):
        raise MqttError(f"--mqtt {url!r}: use mqtt://HOST[:PORT] or mqtts://HOST[:PORT]")
    try:
        port = parts.port
    except ValueError:
        raise MqttError(f"--mqtt {url!r}: the port is not a number from 1 to 65535") from None
    if not parts.hostname:
        raise MqttError(f"--mqtt {url!r}: name the broker's host, like mqtt://club-pi:1883")
    if parts.path not in ("", "/"):
        raise MqttError(f"--mqtt {url!r}: no path after the host (set --mqtt-prefix instead)")
    tls = parts.scheme == "mqtts"
    if password_file:
        try:
            password = Path(password_file).read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError) as exc:
            why = getattr(exc, "strerror", None) or exc
            raise MqttError(f"--mqtt-password-file {password_file}: {why}") from None
    if ca_file and not Path(ca_file).is_file():
        raise MqttError(f"--mqtt-ca {ca_file}: no such file")
    prefix = (prefix if prefix is not None else DEFAULT_PREFIX).strip("/")
    if not prefix or any(c in prefix for c in "+#"):
        raise MqttError(f"--mqtt-prefix {prefix!r}: a topic path without + or #")
    return Broker(
        parts.hostname,
        port or (8883 if tls else 1883),
        tls,
        username or (unquote(parts.username) if parts.username else None),
        password if password is not None else
        (unquote(parts.password) if parts.password else None),
        ca_file,
        prefix,
    )  # fmt: skip


def check_board_name(name: str) -> str:
    if not BOARD_NAME.fullmatch(name):
        raise MqttError(f"board name {name!r}: letters, digits, '.', '_' and '-' only")
    return name
