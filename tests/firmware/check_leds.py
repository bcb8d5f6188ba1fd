"""MicroPython: the LED chain is written when a blink step shows something new, and not again
for steps that show nothing new, also when the loop was held up past several steps (a busy
host running the Unix port; a long chain write). Run by tests/test_firmware_protocol.py in
MicroPython's Unix port beside the firmware's leds.py and codec.py. Prints the writes at each
render as JSON."""

import json

from leds import STEP_MS, Leds

COUNT = 4


class Strip:
    def __init__(self):
        self.buf = bytearray(3 * COUNT)
        self.writes = 0

    def write(self):
        self.writes += 1


strip = Strip()
leds = Leds(strip, bytearray(4 * COUNT), {})


def show(red, green, blue, mask):
    """Every LED the same: a whole frame, as LEDS sets it."""
    frame = bytearray(bytes((red, green, blue, mask)) * COUNT)
    leds.set_frame(frame, 0)


def writes_at(steps):
    """Render at each of these blink steps (counted on, never back): the chain writes of each."""
    got = []
    for n in steps:
        before = strip.writes
        leds.render(n * STEP_MS)
        got.append(strip.writes - before)
    return got


result = {}
show(0, 0, 0, 0)  # dark
result["dark"] = writes_at([0, 1, 4, 7, 9, 13])
show(0, 255, 0, 0xFF)  # lit and still
result["still"] = writes_at([16, 17, 20, 23, 25, 26])
show(0, 255, 0, 0xF0)  # on for steps 0-3, off for 4-7
result["blinking"] = writes_at([32, 33, 35, 38, 39, 42])
print(json.dumps(result))
