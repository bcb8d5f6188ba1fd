"""Fixtures shared by the end-to-end suites."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.test_end_to_end import Rig


@pytest.fixture
def rigs() -> Iterator[list[Rig]]:
    """Referee-and-board rigs a test makes, closed when it ends (see test_end_to_end.make)."""
    made: list[Rig] = []
    yield made
    for rig in made:
        rig.close()
