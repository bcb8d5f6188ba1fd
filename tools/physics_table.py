"""docs/build-a-board.md's physics: the table of every shipped profile's figures (section 4,
"The magnets and sensors, worked out") and its pictures (docs/physics/), made by
firmware_bridge/physics. ``python tools/physics_table.py`` prints the table;
``--pictures`` writes the pictures again. tests/test_physics.py holds the guide to both."""

from __future__ import annotations

import argparse
from pathlib import Path

from firmware_bridge.physics.check import physics_table, shipped_verdicts
from firmware_bridge.physics.parts import sources_text
from firmware_bridge.physics.pictures import guide_pictures

PICTURES = Path(__file__).resolve().parent.parent / "docs" / "physics"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pictures", action="store_true", help=f"write {PICTURES} again")
    args = parser.parse_args()
    if args.pictures:
        for path in guide_pictures(PICTURES):
            print(f"wrote {path}")
    else:
        print(physics_table(shipped_verdicts()))
        print(sources_text(), end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
