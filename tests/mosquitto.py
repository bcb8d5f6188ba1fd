"""A real Mosquitto broker on a free loopback port, for the tests and the club benchmark.

Optionally with logins (a password file made by ``mosquitto_passwd``) and an ACL file, the
way docs/mqtt.md configures a club's broker. ``restart`` keeps the port, so clients reconnect.
"""

from __future__ import annotations

import getpass
import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

MOSQUITTO = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
PASSWD = shutil.which("mosquitto_passwd") or "/usr/bin/mosquitto_passwd"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Mosquitto:
    def __init__(
        self,
        folder: Path,
        *,
        users: dict[str, str] | None = None,
        acl: str | None = None,
        conf: str | None = None,
        owner: str | None = None,
    ) -> None:
        """``conf``: a configuration as docs/mqtt.md writes it, run as it is but for its
        listener's port, the folder its files are in (the test's own) and its ``user`` (the
        folder's ``owner``: started as root, Mosquitto drops to it; None: the test's own
        user, so a root test stays root)."""
        self.owner = owner
        if not Path(MOSQUITTO).exists():
            raise RuntimeError(f"{MOSQUITTO} is missing: `make test` installs Debian's mosquitto")
        self.folder = folder
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        folder.mkdir(parents=True, exist_ok=True)
        lines = [
            f"listener {self.port} 127.0.0.1",
            "persistence false",
            f"user {getpass.getuser()}",  # as root, stay root: the files are the test's own
            "log_type error",
            "log_type warning",
            "log_type notice",
            f"log_dest file {folder / 'mosquitto.log'}",
        ]
        if users:
            passwords = folder / "passwords"
            passwords.touch(mode=0o600)
            for name, password in users.items():
                subprocess.run([PASSWD, "-b", str(passwords), name, password], check=True,
                               capture_output=True)  # fmt: skip
            lines += ["allow_anonymous false", f"password_file {passwords}"]
        else:
            lines.append("allow_anonymous true")
        if acl is not None:
            (folder / "acl").write_text(acl, encoding="utf-8")
            (folder / "acl").chmod(0o600)
            lines.append(f"acl_file {folder / 'acl'}")
        if conf is not None:
            documented = [line for line in conf.splitlines() if line and not line.startswith("#")]
            lines = [self._here(line, folder) for line in documented]
            if not any(line.startswith("user ") for line in lines):
                lines.append(f"user {getpass.getuser()}")
        self.config = folder / "mosquitto.conf"
        self.config.write_text("\n".join(lines) + "\n", encoding="utf-8")
        if owner is not None and os.geteuid() == 0:  # the director's folder and files
            for path in (folder, *folder.iterdir()):
                shutil.chown(path, owner)
        self.url = f"mqtt://127.0.0.1:{self.port}"
        self.start()

    def _here(self, line: str, folder: Path) -> str:
        """A documented line with the test's port and folder."""
        key, _, value = line.partition(" ")
        if key == "listener":
            return f"listener {self.port} 127.0.0.1"
        if key in ("password_file", "acl_file"):
            return f"{key} {folder / ('passwords' if key == 'password_file' else 'acl')}"
        if key == "user":  # the folder's owner, as the guide's is the director
            return f"user {self.owner or getpass.getuser()}"
        if key == "persistence_location":
            return f"{key} {folder}/"
        if key == "log_dest" and value.startswith("file "):
            return f"log_dest file {folder / 'mosquitto.log'}"
        return line

    def start(self) -> None:
        self.proc = subprocess.Popen([MOSQUITTO, "-c", str(self.config)],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)  # fmt: skip
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                err = self.proc.stderr.read().decode() if self.proc.stderr else ""
                raise RuntimeError(f"mosquitto did not start: {err.strip()}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("mosquitto did not listen within 10 s")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None

    def restart(self) -> None:
        self.stop()
        self.start()

    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid


__all__ = ["Mosquitto", "free_port"]
