"""The board's printed circuit board, laid out and routed from its circuit, built and checked by
KiCad (firmware pcb; docs/build-a-board.md, Order the board)."""
