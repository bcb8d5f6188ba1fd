"""Board Referee's firmware for a Raspberry Pi Pico: MicroPython runs this at power-on.
Building and installing it: docs/build-a-board.md."""

# Ctrl-C (0x03) is data on this line, and a host may be sending frames from the moment the
# USB port appears. MicroPython turns Ctrl-C into KeyboardInterrupt while it runs this file;
# one raised during the imports below left the board at the prompt, echoing the host's frames
# into the REPL until it was unplugged. The two statements that turn it off hold no jump, so no
# pending interrupt is raised before them; one that came earlier is raised at the loop's jump
# in the try, and dropped there (its frame is lost and resent: the host's CRC sees to that).
from micropython import kbd_intr

kbd_intr(-1)
try:
    for _ in range(2):
        pass
except KeyboardInterrupt:
    pass

try:
    import start

    start.main()
except Exception as exc:  # before the loop's own handling: out of memory at import, mostly
    # Room for halt.py: what the failed start made is garbage once nothing names it.
    import sys

    text = type(exc).__name__ + ": " + str(exc)
    del exc
    globals().pop("start", None)
    for name in ("start", "referee", "leds", "sensors", "settings", "calibrate"):
        sys.modules.pop(name, None)
    import gc

    gc.collect()
    import halt

    halt.run(text)
