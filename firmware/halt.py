"""A board whose firmware could not start (out of memory while importing or building it, a
missing module): it says so, in the protocol, to every host that asks.

Without this a start-up error went out as a text traceback on the serial line and the board sat
at MicroPython's prompt, which no referee reads. Here the Pico's LED blinks fast, and each
HOST_HELLO is answered with FAULT 6 naming the error and the heap (the referee shows it); a
PING gets its PONG, so the link stays up and the message stays on the screen. Nothing here is
bigger than a few hundred bytes. Hold CONFIRM while plugging the board in for the prompt
(maintenance is decided before anything big is made).
"""

import gc

import hw
from codec import TOO_LONG, Deframer, Framer

FAULT = 0x07
PONG = 0x08
HOST_HELLO = 0x81
PING = 0x84
FAULT_START = 6


def _fault(out, text):
    raw = text.encode()[:250]
    body = out.body
    body[2] = FAULT_START
    body[3] = len(raw)
    body[4 : 4 + len(raw)] = raw
    out.send(FAULT, 2 + len(raw))


def run(error):
    """Say ``error`` (the exception's type and message) for ever; never returns."""
    gc.collect()
    text = (
        "the firmware could not start: " + error
        + " (" + str(gc.mem_free() // 1024) + " KB of heap free once it failed)"
    )  # fmt: skip
    if error.startswith("MemoryError"):
        text += ": a board this size needs more memory (docs/firmware.md, Budgets)"
    hw.log(text)
    hw.blink(100)
    port = hw.Serial()
    out = Framer(260, port)
    inp = Deframer(16)  # what a host says here fits; a longer frame is only counted
    chunk = bytearray(64)
    _fault(out, text)  # unsolicited, as HELLO is at power-on
    while True:
        count = port.read_into(chunk)
        for k in range(count):
            length = inp.push(chunk[k])
            if length == TOO_LONG or length > 0:
                kind = inp.buf[0]
                if kind == HOST_HELLO:
                    _fault(out, text)
                elif kind == PING and length == 4:
                    out.body[2] = inp.buf[2]
                    out.body[3] = inp.buf[3]
                    out.send(PONG, 2)
        if not count:
            hw.sleep_ms(5)
