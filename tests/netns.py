"""Another machine, made by the test itself: a network namespace joined to this one by a veth
pair (``ip netns add``, ``ip link add … type veth``). A client inside it reaches a server
here at ``host`` (this side's end of the pair) from ``guest`` (its own end): for the server a
client from another machine, never this machine's own address or its loopback. Where a
namespace cannot be made (no root, no iproute2, a kernel without them) the test is skipped
with the reason.

``Namespace.python`` runs Python inside it; ``Namespace.chromium`` is an executable for
Playwright that starts Debian's Chromium inside it (Playwright talks to Chromium over pipes,
which cross namespaces), so a page can be opened from the other machine too.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import subprocess
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

IP = shutil.which("ip") or "/usr/sbin/ip"


class NamespaceError(Exception):
    """A namespace could not be made here; the message says why."""


def _ip(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([IP, *args], capture_output=True, text=True, check=False, timeout=30)
    if check and done.returncode != 0:
        raise NamespaceError(f"`ip {' '.join(args)}` failed: {done.stderr.strip()}")
    return done


class Namespace:
    """A network namespace of the test's own, with one veth pair to this machine."""

    def __init__(self, folder: Path) -> None:
        if os.geteuid() != 0:
            raise NamespaceError("making a network namespace needs root")
        if not Path(IP).exists():
            raise NamespaceError("iproute2's ip command is missing")
        tag = secrets.token_hex(3)
        self.name = f"brt-{tag}"
        self.outer, inner = f"vbo{tag}", f"vbi{tag}"
        taken = _ip("-4", "addr").stdout
        for _ in range(50):  # a /30 no other test (or interface) of this machine uses
            net = f"10.{secrets.choice(range(64, 250))}.{secrets.choice(range(0, 250))}"
            if f"inet {net}." not in taken:
                break
        self.host, self.guest = f"{net}.1", f"{net}.2"
        self.folder = folder
        _ip("netns", "add", self.name)
        try:
            _ip("link", "add", self.outer, "type", "veth", "peer", "name", inner)
            _ip("link", "set", inner, "netns", self.name)
            _ip("addr", "add", f"{self.host}/30", "dev", self.outer)
            _ip("link", "set", self.outer, "up")
            _ip("-n", self.name, "addr", "add", f"{self.guest}/30", "dev", inner)
            _ip("-n", self.name, "link", "set", inner, "up")
            _ip("-n", self.name, "link", "set", "lo", "up")
        except NamespaceError:
            self.close()
            raise
        self.chromium = folder / f"chromium-in-{self.name}"
        real = os.environ.get("BOARD_REFEREE_CHROMIUM", "/usr/bin/chromium")
        self.chromium.write_text(f'#!/bin/sh\nexec {IP} netns exec {self.name} {real} "$@"\n')
        self.chromium.chmod(0o755)

    def command(self, *args: str) -> list[str]:
        """``args`` run inside the namespace."""
        return [IP, "netns", "exec", self.name, *args]

    def python(self, code: str, timeout: float = 30) -> subprocess.CompletedProcess[str]:
        """Python ``code`` run inside the namespace (its stdout is the answer)."""
        return subprocess.run(self.command(sys.executable, "-c", code), capture_output=True,
                              text=True, timeout=timeout, check=False)  # fmt: skip

    def close(self) -> None:
        with contextlib.suppress(NamespaceError, subprocess.TimeoutExpired):
            _ip("link", "del", self.outer, check=False)
            _ip("netns", "del", self.name, check=False)


@pytest.fixture
def namespace(tmp_path: Path) -> Iterator[Namespace]:
    """Another machine for the test (skipped, with the reason, where none can be made)."""
    try:
        made = Namespace(tmp_path)
    except NamespaceError as exc:
        pytest.skip(f"no other machine to test from: {exc}")
    yield made
    made.close()


REQUEST = """
import http.client, json, sys, urllib.parse
url, method, body, headers = sys.argv[1], sys.argv[2], sys.argv[3], json.loads(sys.argv[4])
parts = urllib.parse.urlsplit(url)
connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=15)
connection.putrequest(method, parts.path + ("?" + parts.query if parts.query else ""))
for key, value in headers:
    connection.putheader(key, value.encode("latin-1"))
data = body.encode("latin-1") if method != "GET" else None
if data is not None:
    connection.putheader("Content-Length", str(len(data)))
connection.endheaders(data)
answer = connection.getresponse()
print(json.dumps([answer.status, answer.read().decode("utf-8", "replace")]))
"""


def request_from(space: Namespace, url: str, method: str = "GET", body: str | bytes = "",
                 headers: Mapping[str, str | bytes] | None = None) -> tuple[int, str]:  # fmt: skip
    """An HTTP request made from the other machine, with exactly these headers (a value may
    be raw bytes): (status, body)."""
    import json

    raw = body.decode("latin-1") if isinstance(body, bytes) else body
    pairs = [[k, v.decode("latin-1") if isinstance(v, bytes) else v]
             for k, v in (headers or {}).items()]  # fmt: skip
    done = subprocess.run(
        space.command(sys.executable, "-c", REQUEST, url, method, raw, json.dumps(pairs)),
        capture_output=True, text=True, timeout=30, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        raise AssertionError(f"the request from the namespace failed: {done.stderr.strip()}")
    status, text = json.loads(done.stdout)
    return int(status), str(text)


__all__ = ["Namespace", "NamespaceError", "namespace", "request_from"]
