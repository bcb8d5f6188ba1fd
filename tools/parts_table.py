"""The price table of docs/build-a-board.md (section 2), made from the shipped profiles by
firmware_bridge/link/parts.py: ``python tools/parts_table.py`` prints it; the test
tests/test_board_template.py checks the guide holds exactly this."""

from __future__ import annotations

from firmware_bridge.link.parts import price_table, shipped_boards


def main() -> int:
    print(price_table(shipped_boards()), end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
