"""The board's circuit as code: its parts and nets worked out from a hardware profile's wiring
(the same code the firmware's configuration comes from), an electrical rules check over it,
its netlist, bill of materials and schematic, and a simulation of its sensor line in ngspice
(``board-referee firmware circuit``; docs/build-a-board.md, "The circuit, checked")."""
