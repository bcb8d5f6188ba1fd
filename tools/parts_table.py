"""The price table of docs/build-a-board.md (section 2), made from the shipped profiles by
firmware_bridge/circuit/bill.py (the circuit's parts at physics/materials.py's prices), and
the table of what each board is built from (its Materials and mechanics):
``python tools/parts_table.py`` prints it; tests/test_board_template.py checks the guide
holds exactly this."""

from __future__ import annotations

from firmware_bridge.circuit.bill import price_table
from firmware_bridge.physics.materials import build_table, shipped_boards


def main() -> int:
    print(price_table(shipped_boards()), end="")
    print()
    print(build_table(shipped_boards()), end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
