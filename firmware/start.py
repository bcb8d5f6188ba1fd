"""Power-on: decide what the board does, then run it.

- No usable board.json, or three firmware errors in a row: the Pico's own LED blinks fast and
  the board stays at MicroPython's prompt, so ``board-referee firmware flash`` can put it right.
- CONFIRM held at power-on: maintenance. The Pico's LED steady and the prompt free for
  ``firmware flash`` and ``firmware bench``; no watchdog runs.
- SELECT held at power-on (linear hall sensors): calibrate first (calibrate.py).
- Otherwise: the referee's board (referee.py), fed by the hardware watchdog.
An error inside the loop is written to error.log and the board restarts; the next host to
connect is told (FAULT 3).
"""

import gc
import sys
import time

import hw
import settings as store
from codec import zeros
from sensors import Buttons


def _stay(reason, fast=True):
    """Leave MicroPython's prompt free, the Pico's LED saying why: blinking fast, something to
    put right; steady, maintenance."""
    hw.log("staying at the prompt: " + reason)
    hw.blink(100 if fast else 0)


def main():
    try:
        config = store.load()
    except store.SettingsError as exc:
        _stay(str(exc))
        return
    errors, last_error = store.errors()
    if errors >= 3:
        _stay("three firmware errors in a row (error.log): " + last_error)
        return
    buttons = config["buttons"]
    # Maintenance before anything big is made: a board whose firmware cannot start (out of
    # memory, see halt.py) still gives its prompt to ``firmware flash``.
    held = Buttons(hw, buttons.get("pins", {}), 0)
    if held.down(buttons.get("maintenance", "confirm")):
        _stay("maintenance (CONFIRM held at power-on)", fast=False)
        return
    del held
    from referee import Referee

    gc.collect()  # what the imports left: the board's buffers are made in one clean heap

    reason = hw.reset_reason()
    sensors = config["sensors"]
    board = Referee(config, None, reason, last_error if errors else "")
    if sensors["kind"] == "linear":  # read once the board's buffers are made: a smaller peak
        base = zeros("H", sensors["count"])
        if store.read_calibration(base):
            board.sensors.calibrate(base)
        del base
    if sensors["kind"] == "linear" and board.buttons.down(buttons.get("calibrate", "select")):
        gc.collect()  # calibrate's code and its lists want room the board's buffers left
        import calibrate

        calibrate.run(board.sensors, board.leds, board.buttons, sensors.get("bands", {}))
        board.buttons.nevents = 0
    watchdog_ms = config.get("watchdog_ms", 4000)
    board.sensors.leds = None  # only the calibration shows cells by their LEDs
    del config, sensors, buttons
    gc.collect()  # the JSON documents are done with: the loop starts with the heap it keeps
    port = hw.Serial()
    dog = hw.watchdog(watchdog_ms)
    try:
        board.run(port, dog)
    except Exception as exc:
        text = "%s: %s" % (type(exc).__name__, exc)
        try:
            import io

            trace = io.StringIO()
            sys.print_exception(exc, trace)
            lines = trace.getvalue().strip().split("\n")
            where = [line.strip() for line in lines if line.strip().startswith("File")]
            if where:
                text += " (" + where[-1] + ")"
        except Exception:
            pass
        store.record_error(text[:200])
        hw.log("firmware error: " + text)
        time.sleep_ms(50)
        hw.reset()
