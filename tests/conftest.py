"""Fixtures shared by the end-to-end suites."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

from tests.netns import Namespace, namespace
from tests.test_end_to_end import Rig

__all__ = ["namespace"]  # another machine, for the tests that need one (tests/netns.py)

CHROMIUM = os.environ.get("BOARD_REFEREE_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]  # fmt: skip

# No per-example deadline: the tests run in parallel (make test: pytest -n), and an example
# that took 600 ms on a busy core once failed a run as "flaky". Speed is the benchmarks' to
# measure (tools/bench_*.py), not a unit test's.
settings.register_profile("board-referee", deadline=None)
settings.load_profile("board-referee")


@pytest.fixture
def rigs() -> Iterator[list[Rig]]:
    """Referee-and-board rigs a test makes, closed when it ends (see test_end_to_end.make)."""
    made: list[Rig] = []
    yield made
    for rig in made:
        rig.close()


@pytest.fixture(scope="session")
def _chromium() -> Iterator[dict[str, Any]]:
    """Playwright and one Chromium for all of a worker's page tests: started per test module
    (as it was, 30 times in make test) they cost some 40 s of CPU on two cores."""
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: `make test` installs Debian's chromium package")
    with sync_playwright() as playwright:
        held: dict[str, Any] = {"playwright": playwright, "browser": None}
        yield held
        if held["browser"] is not None and held["browser"].is_connected():
            held["browser"].close()


@pytest.fixture
def browser(_chromium: dict[str, Any]) -> Iterator[Any]:
    """The worker's Chromium (started again if it died); each page a test opens is its own
    context (``Browser.new_page``), and every context it left open is closed after it, so no
    page of one test (a kiosk's event stream, its timers) runs on into the next."""
    instance = _chromium["browser"]
    if instance is None or not instance.is_connected():
        launch = _chromium["playwright"].chromium.launch
        instance = _chromium["browser"] = launch(executable_path=CHROMIUM, args=ARGS)
    yield instance
    if instance.is_connected():
        for context in list(instance.contexts):
            context.close()


# The suites that take longest, started first: with pytest -n (make test) the long whole games
# then run beside the many short tests instead of alone at the end, the cores idle.
LONGEST_FIRST = (
    "test_chip.py",
    "test_compiled_engine.py",
    "test_table_sim.py",
    "test_firmware_end_to_end.py",
    "test_end_to_end.py",
    "test_cli.py",
    "test_conformance.py",
    "test_lion_end_to_end.py",
    "test_board_check.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    def rank(item: pytest.Item) -> int:
        name = item.path.name
        return LONGEST_FIRST.index(name) if name in LONGEST_FIRST else len(LONGEST_FIRST)

    items.sort(key=rank)  # stable: each file keeps its own order
    # --dist worksteal hands each worker one contiguous block of the collection at the start:
    # dealt out like cards, every block starts with its share of the long suites.
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    if workers > 1:
        items[:] = [item for k in range(workers) for item in items[k::workers]]


@pytest.fixture
def remote_browser(_chromium: dict[str, Any], namespace: Namespace) -> Iterator[Any]:
    """A Chromium on another machine (the test's network namespace): its pages come from
    there, never from this machine's own address or loopback."""
    launch = _chromium["playwright"].chromium.launch
    instance = launch(executable_path=str(namespace.chromium), args=ARGS)
    yield instance
    instance.close()
