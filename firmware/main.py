"""Board Referee's firmware for a Raspberry Pi Pico: MicroPython runs this at power-on.
Building and installing it: docs/build-a-board.md."""

import start

start.main()
