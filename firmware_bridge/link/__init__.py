"""The link to a board: what goes over the wire and what a board is.

Frames (COBS, CRC), the protocol's messages, the serial link and probing for a board, the board
profiles and their Pico wiring, the catalog of configured games and profiles, the LED vocabulary
and the text drawing of a board. Imports: ``engine`` only, and the modules of this folder.
"""
