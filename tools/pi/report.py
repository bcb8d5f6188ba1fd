"""What the check says: each step's outcome and time, one line each, and the figures it
measured; the exit status is 1 when any step failed."""

from __future__ import annotations

import contextlib
import sys
import time
import traceback
from collections.abc import Iterator
from dataclasses import dataclass, field


class CannotRunHereError(Exception):
    """A step that cannot run here, with why (not a failure)."""


@dataclass
class Report:
    started: float = field(default_factory=time.monotonic)
    failed: list[str] = field(default_factory=list)
    figures: list[str] = field(default_factory=list)
    verbose: bool = False

    def say(self, text: str) -> None:
        print(f"        {text}", flush=True)

    def figure(self, text: str) -> None:
        self.figures.append(text)
        self.say(text)

    @contextlib.contextmanager
    def step(self, name: str) -> Iterator[None]:
        """One step: ``ok``, ``FAIL`` (the check goes on to the end of its part, then stops)
        or ``skip``, with its time."""
        began = time.monotonic()
        print(f"  ..  {name}", flush=True)
        try:
            yield
        except CannotRunHereError as why:
            print(f"[skip] {name}: {why}", flush=True)
            return
        except Exception as exc:
            seconds = time.monotonic() - began
            print(f"[FAIL] {name} ({seconds:.1f} s): {exc}", flush=True)
            if self.verbose:
                traceback.print_exc(file=sys.stdout)
            self.failed.append(name)
            raise
        print(f"[ ok ] {name} ({time.monotonic() - began:.1f} s)", flush=True)

    def summary(self) -> int:
        took = time.monotonic() - self.started
        print(f"\npi-check: {took / 60:.1f} min", flush=True)
        for line in self.figures:
            print(f"  {line}")
        if self.failed:
            print(f"FAILED: {', '.join(self.failed)}", flush=True)
            return 1
        print("every step passed", flush=True)
        return 0
