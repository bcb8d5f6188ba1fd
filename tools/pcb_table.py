"""Print the guide's PCB price table (docs/build-a-board.md, "Order the board"): each shipped
magnetic profile's board size, from its layout (the same code firmware pcb places with), and
five boards' price by the fab's model (firmware_bridge/pcb/fab.py). Needs KiCad's footprint
library (the parts' sizes): run it where make test runs.

    .venv/bin/python tools/pcb_table.py
"""

from __future__ import annotations

from firmware_bridge.circuit.board import board_circuit
from firmware_bridge.link.catalog import load_game, load_profile, profile_game, profile_ids
from firmware_bridge.pcb import kicad
from firmware_bridge.pcb.fab import JLCPCB, Design
from firmware_bridge.pcb.layout import MOUNTING_HOLE, lay_out
from firmware_bridge.physics.stackup import parse_build


def main() -> None:
    print(
        "| profile | board (mm) | parts | within JLCPCB's 400 x 500 mm "
        "| five boards (US$, estimate) |"
    )
    print("|---|---|---|---|---|")
    for pid in profile_ids():
        game = load_game(profile_game(pid))
        profile = load_profile(pid, game)
        if profile.pico is None:
            continue
        circuit = board_circuit(profile, game)
        fpids = sorted({p.spec.footprint for p in circuit.parts.values()} | {MOUNTING_HOLE})
        layout = lay_out(circuit, profile, game, parse_build(profile), kicad.footprints(fpids),
                         Design().pitch)  # fmt: skip
        fits = "yes" if JLCPCB.fits(layout.width, layout.height) else "no"
        price = JLCPCB.price_five(layout.width, layout.height)
        print(f"| {pid} | {layout.width:.0f} x {layout.height:.0f} | {len(circuit.parts)} | "
              f"{fits} | {price:.0f} |")  # fmt: skip


if __name__ == "__main__":
    main()
