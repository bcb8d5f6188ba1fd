"""Calibration of a board of linear hall sensors, on the board itself.

Hold SELECT while plugging the board in. Every LED blinks blue: take every piece off the board,
then press CONFIRM. Each sensor is read many times with nothing on it; its resting reading is
kept in calibration.json, and its thresholds are ``delta`` either side of it (sensors differ by
more than one threshold for all would allow). The LEDs then show each cell
green, or red where the sensor reads in no band or far from the others (a piece left on it, a
broken wire): those cells keep the default thresholds. Then the board starts as usual.
"""

import time

import hw
import settings as store
from codec import zeros

SAMPLES = 24
PROMPT = (0, 80, 255, 0xF0)  # blue, slow blink: clear the board, press CONFIRM
WORKING = (40, 40, 40, 0xFF)
GOOD = (0, 120, 0, 0xFF)
BAD = (255, 0, 0, 0xAA)
CONFIRM = 1


def _fill(leds, colour):
    frame = leds.frame
    raw = bytes(colour)
    for i in range(leds.count):
        frame[4 * i : 4 * i + 4] = raw
    leds._changed()


def _save(base, bad):
    """calibration.json, ``{"base": [...], "bad": [...]}`` (settings.read_calibration reads it),
    written a number at a time: ``base`` is an array, which json cannot write, and one text of
    a 300-cell board's numbers would be a 2 KB allocation at calibration's peak. Here, not in
    settings.py, whose code every start keeps in the heap."""
    with open(store.CALIBRATION + ".new", "w") as handle:
        handle.write('{"base": [')
        for i in range(len(base)):
            handle.write((", " if i else "") + str(base[i]))
        handle.write('], "bad": [')
        for i in range(len(bad)):
            handle.write((", " if i else "") + str(bad[i]))
        handle.write("]}")
    import os

    os.rename(store.CALIBRATION + ".new", store.CALIBRATION)


def _wait_confirm(leds, buttons):
    while True:
        now = time.ticks_ms()
        buttons.scan()
        for k in range(buttons.nevents):
            if buttons.events[k] == (CONFIRM << 1 | 1):
                buttons.nevents = 0
                return
        buttons.nevents = 0
        leds.render(now)
        hw.sleep_ms(5)
        hw.pace()


def run(sensors, leds, buttons, bands):
    """Calibrate; returns the number of cells left on the default thresholds."""
    count = sensors.count
    _fill(leds, PROMPT)
    _wait_confirm(leds, buttons)
    _fill(leds, WORKING)
    leds.render(time.ticks_ms())
    # The sums in an array, averaged in place, and one list of their exact size to sort for
    # the median: lists grown an item at a time (a comprehension, sorted()) take up to twice
    # their size, and a Vanguard board calibrating in the tests' 64 KB failed for 512 bytes.
    base = zeros("I", count)  # 24 readings of 65535 at most: well inside 32 bits
    for _ in range(SAMPLES):
        for i in range(count):
            base[i] += sensors.read(i)
        hw.sleep_ms(4)
        hw.pace()
    ordered = [0] * count
    for i in range(count):
        base[i] //= SAMPLES
        ordered[i] = base[i]
    ordered.sort()
    median = ordered[count // 2]
    del ordered
    delta = bands.get("delta", 5000)
    centre = bands.get("centre", 32768)
    fault_low = bands.get("fault_low", 1000)
    fault_high = bands.get("fault_high", 64500)
    bad = []
    for i in range(count):
        value = base[i]
        if (value - delta < fault_low or value + delta > fault_high
                or abs(value - median) > delta // 2):  # fmt: skip
            bad.append(i)
            base[i] = centre
    sensors.calibrate(base)  # delta either side of each base, as the board.json's bands say
    _save(base, bad)
    frame = leds.frame
    _fill(leds, GOOD)
    places = sensors.leds  # the LED of each sensor's cell (-1: none)
    for i in bad:
        if places is not None and 0 <= places[i] < leds.count:
            frame[4 * places[i] : 4 * places[i] + 4] = bytes(BAD)
    leds._changed()
    until = time.ticks_add(time.ticks_ms(), 3000)
    while time.ticks_diff(until, time.ticks_ms()) > 0:
        leds.render(time.ticks_ms())
        hw.sleep_ms(20)
        hw.pace()
    leds.dark()
    return len(bad)
