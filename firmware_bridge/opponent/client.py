"""A driver's handle on an engine process: start it, send the protocol's lines, read its
answers with a time limit. The referee's opponent and the arena (tools/arena.py) use it.

The process's output is read by a thread of its own into a queue, so a wait has a timeout and
an engine that hangs or dies is said as an ``EngineError``, never a driver stuck forever.
"""

from __future__ import annotations

import contextlib
import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from firmware_bridge.opponent.protocol import Info, Request, Verb, format_request, parse_info

# How long an engine may take beyond the time it was given before it counts as hung. Not a
# few seconds: the referee starts its engine at a lower priority, and on a machine whose cores
# are all busy (measured: make test beside three busy processes) its answer came more than
# 5 s late, the referee called it hung and the computer lost its move. A hung engine is rare;
# waiting 20 s more for one costs less than that.
GRACE_S = 20.0


class EngineError(RuntimeError):
    """The engine process died, hung, or answered ``error``; the text says which."""


@dataclass(frozen=True, slots=True)
class Answer:
    """An engine's answer to ``go``."""

    move: str
    infos: tuple[Info, ...]
    seconds: float  # from sending go to reading bestmove

    @property
    def last(self) -> Info | None:
        return self.infos[-1] if self.infos else None


def engine_command(*extra: str) -> list[str]:
    """How to start this installation's engine: the same Python, the same package."""
    return [sys.executable, "-m", "firmware_bridge.cli", "engine", *extra]


class EngineProcess:
    """One engine process, driven line by line."""

    def __init__(self, command: Sequence[str] | None = None, *,
                 env: Mapping[str, str] | None = None, name: str = "engine",
                 cwd: str | None = None) -> None:  # fmt: skip
        self.name = name
        self.command = list(command or engine_command())
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._process = subprocess.Popen(
            self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, text=True, bufsize=1,
            env={**os.environ, **(env or {})}, cwd=cwd,
        )  # fmt: skip
        threading.Thread(target=self._read, daemon=True, name=f"{name}-reader").start()

    def _read(self) -> None:
        stdout = self._process.stdout
        assert stdout is not None
        for line in stdout:
            self._lines.put(line.rstrip("\n"))
        self._lines.put(None)

    @property
    def alive(self) -> bool:
        return self._process.poll() is None

    @property
    def pid(self) -> int:
        return self._process.pid

    def send(self, request: Request | str) -> None:
        line = request if isinstance(request, str) else format_request(request)
        stdin = self._process.stdin
        try:
            assert stdin is not None
            stdin.write(line + "\n")
            stdin.flush()
        except (BrokenPipeError, OSError, ValueError) as exc:
            raise EngineError(f"{self.name} is not running ({exc})") from None

    def _next(self, deadline: float) -> str:
        wait = deadline - time.monotonic()
        try:
            line = self._lines.get(timeout=max(wait, 0.0))
        except queue.Empty:
            raise EngineError(f"{self.name} did not answer in time") from None
        if line is None:
            self._lines.put(None)  # every later wait sees the end too
            raise EngineError(f"{self.name} stopped (exit status {self._process.wait()})")
        return line

    def ask(self, request: Request | str, timeout: float = GRACE_S) -> str:
        """Send a line that is answered by one line (``ok``, ``readyok``); that line, or
        EngineError with the engine's ``error`` text."""
        self.send(request)
        line = self._next(time.monotonic() + timeout)
        if line.startswith("error"):
            raise EngineError(line[len("error") :].strip())
        return line

    def new_game(self, game: str, options: Mapping[str, object] | None = None,
                 timeout: float = GRACE_S) -> None:  # fmt: skip
        pairs = tuple((str(k), str(v)) for k, v in (options or {}).items())
        self.ask(Request(Verb.GAME, game=game, options=pairs), timeout)

    def position(self, moves: Sequence[str] = ()) -> None:
        self.ask(Request(Verb.POSITION, moves=tuple(moves)))

    def level(self, level: int) -> None:
        self.ask(Request(Verb.SETOPTION, options=(("level", str(level)),)))

    def option(self, name: str, value: str) -> None:
        self.ask(Request(Verb.SETOPTION, options=((name, value),)))

    def go(self, movetime_ms: int | None = None, nodes: int | None = None) -> Answer:
        """The engine's move; EngineError if it errs, dies, or takes far longer than asked."""
        start = time.monotonic()
        self.send(Request(Verb.GO, movetime_ms=movetime_ms, nodes=nodes))
        allowed = GRACE_S + (movetime_ms / 1000.0 if movetime_ms is not None else 600.0)
        infos: list[Info] = []
        while True:
            line = self._next(start + allowed)
            if line.startswith("bestmove "):
                return Answer(line.split()[1], tuple(infos), time.monotonic() - start)
            if line.startswith("error"):
                raise EngineError(line[len("error") :].strip())
            info = parse_info(line)
            if info is not None:
                infos.append(info)

    def close(self) -> None:
        """Ask it to quit; end it if it does not."""
        if self.alive:
            with contextlib.suppress(EngineError):
                self.send("quit")
            try:
                self._process.wait(timeout=2)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
        for stream in (self._process.stdin, self._process.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()

    def __enter__(self) -> EngineProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
