"""The part of ``make pi-check`` that fits in the suite: the Pi's recipe as the check reads it.

``make pi-check`` (tools/pi_check.py) boots a Pi's system and runs docs/raspberry-pi.md's
shell blocks as written; each block says what the check does with it. Here: every block of
the pages it follows says so, every step the check runs is there, and a block that says
nothing is refused with its line, so a block added to the recipe is never skipped in silence.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

from pi.recipe import RecipeError, read_blocks, step  # noqa: E402


def test_every_block_of_the_recipe_says_what_the_check_does_with_it() -> None:
    from pi.club import BROKER_DOC, RECIPE, RECIPE_STEPS

    blocks = read_blocks(ROOT, RECIPE) + read_blocks(ROOT, BROKER_DOC)
    assert all(b.name or b.skipped for b in blocks)
    for name in (*RECIPE_STEPS, "packages", "backup"):
        assert step(blocks, name).text.strip(), name
    install = step(blocks, "install")
    assert install.until == "kiosk page:" and "board-referee run" in install.last
    assert "make install" in install.commands and "board-referee run" not in install.commands
    # The user may open the board's port before the recipe first runs the referee on it.
    names = [b.name for b in blocks if b.name]
    assert names.index("dialout") < names.index("board") < names.index("service")


def test_a_block_that_says_nothing_is_refused_with_its_line(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("# A page\n\n<!-- pi-check: one -->\n```sh\necho one\n```\n\n"
                    "Some words.\n\n```sh\necho two\n```\n")  # fmt: skip
    with pytest.raises(RecipeError, match=r"page.md:10: a shell block with no pi-check"):
        read_blocks(tmp_path, "page.md")
    page.write_text("  <!-- pi-check: skip (not here) -->\n  ```sh\n  echo one\n  ```\n")
    (block,) = read_blocks(tmp_path, "page.md")
    assert block.skipped == "not here" and block.text == "echo one\n"
