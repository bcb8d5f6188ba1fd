"""systemd's service notifications (sd_notify): READY once the main loop runs, WATCHDOG while
it keeps running, STATUS with what the players must do. Without ``NOTIFY_SOCKET`` (not started
by systemd) it does nothing. The protocol is one datagram of ``KEY=VALUE`` lines to a Unix
socket whose path the environment names (``@`` for the abstract namespace)."""

from __future__ import annotations

import contextlib
import os
import socket


class Notifier:
    def __init__(self, environ: dict[str, str] | None = None) -> None:
        env = os.environ if environ is None else environ
        address = env.get("NOTIFY_SOCKET", "")
        self.address = "\0" + address[1:] if address.startswith("@") else address
        self.socket: socket.socket | None = None
        if self.address:
            self.socket = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        usec = env.get("WATCHDOG_USEC", "")
        pid = env.get("WATCHDOG_PID", "")
        wanted = usec.isdigit() and (not pid or pid == str(os.getpid()))
        # Half the watchdog time, as systemd advises; None: no watchdog asked for.
        self.watchdog: float | None = int(usec) / 2e6 if wanted else None

    def send(self, *fields: str) -> None:
        if self.socket is None:
            return
        with contextlib.suppress(OSError):  # systemd gone away: nothing to tell
            self.socket.sendto("\n".join(fields).encode(), self.address)

    def close(self) -> None:
        if self.socket is not None:
            self.socket.close()
            self.socket = None
