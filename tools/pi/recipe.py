"""The recipe as written: the shell blocks of docs/raspberry-pi.md (and of the other pages it
sends a club to), read from the documents themselves, so what the check runs is what a club
types.

Every ``sh`` block of such a page carries a comment just above it that says what the check does
with it, so a new block is never skipped in silence:

    <!-- pi-check: NAME -->                  run it, as step NAME
    <!-- pi-check: NAME until "TEXT" -->     its last line runs until TEXT shows, then Ctrl-C
    <!-- pi-check: skip (WHY) -->            not run here, for the reason given
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass
from pathlib import Path

MARK = re.compile(
    r"<!--\s*pi-check:\s*(?:skip\s*\((?P<why>[^)]*)\)|(?P<name>[\w-]+)"
    r'(?:\s+until\s+"(?P<until>[^"]+)")?)\s*-->'
)
FENCE = re.compile(r"^\s*```(\w*)\s*$")


class RecipeError(ValueError):
    """A page whose blocks the check cannot follow."""


@dataclass(frozen=True, slots=True)
class Block:
    doc: str  # the page, relative to the checkout
    line: int  # the block's first line in it
    name: str  # the step ("" for a skipped block)
    text: str
    until: str = ""  # its last line runs until this shows, then gets Ctrl-C
    skipped: str = ""  # why it is not run here

    @property
    def where(self) -> str:
        return f"{self.doc}:{self.line}"

    @property
    def commands(self) -> str:
        """The block without its last line when that line runs until something shows."""
        if not self.until:
            return self.text
        return "\n".join(self.text.rstrip("\n").splitlines()[:-1]) + "\n"

    @property
    def last(self) -> str:
        return self.text.rstrip("\n").splitlines()[-1]


def read_blocks(root: Path, doc: str) -> list[Block]:
    """The ``sh`` blocks of ``doc``, in order, with what the check does with each."""
    lines = (root / doc).read_text(encoding="utf-8").splitlines()
    blocks: list[Block] = []
    mark: re.Match[str] | None = None
    index = 0
    while index < len(lines):
        line = lines[index]
        found = MARK.search(line)
        if found:
            mark = found
            index += 1
            continue
        fence = FENCE.match(line)
        if fence:
            end = index + 1
            while end < len(lines) and not FENCE.match(lines[end]):
                end += 1
            if fence.group(1) == "sh":
                if mark is None:
                    raise RecipeError(
                        f"{doc}:{index + 1}: a shell block with no pi-check "
                        "comment above it (say whether the check runs it)"
                    )
                text = textwrap.dedent("\n".join(lines[index + 1 : end]) + "\n")
                blocks.append(
                    Block(
                        doc,
                        index + 2,
                        mark.group("name") or "",
                        text,
                        mark.group("until") or "",
                        mark.group("why") or "",
                    )
                )
            mark = None
            index = end + 1
            continue
        if line.strip():
            mark = None if not line.lstrip().startswith("<!--") else mark
        index += 1
    return blocks


def step(blocks: list[Block], name: str) -> Block:
    for block in blocks:
        if block.name == name:
            return block
    raise RecipeError(f"no step {name!r} in the recipe (a <!-- pi-check: {name} --> block)")
