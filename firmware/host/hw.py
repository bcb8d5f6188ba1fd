"""The hardware layer for MicroPython's Unix port: a simulated board for the tests.

``board-referee firmware host`` copies the firmware into a folder that stands for the Pico's
flash, with this file as its hw.py, and runs it in MicroPython. Everything else is the firmware
as it runs on a Pico. This layer simulates what the firmware's pins are wired to, from the same
board.json: the multiplexers (which bank is enabled, which channel selected), the sensors behind
them (a table of raw readings with their noise, set by the host process), the buttons, the
WS2812B chain (what it shows is reported back), the watchdog and the reset cause.

The host process talks to it over two pipes named in $BOARD_REFEREE_HW ("IN,OUT" descriptors):
  in:  ``v INDEX VALUE NOISE`` a sensor's raw reading (ADC counts, or a switch's level)
       ``f INDEX VALUE US``   a flicker of a linear sensor: VALUE for US microseconds of the
                              firmware's clock from its first read, then its reading again
       ``b NAME 0|1``         a button released / pressed
       ``hang``               stall the firmware (for the watchdog)
  out: ``T`` and a text line: ``ready``, ``wdt MS``, ``feed``, ``reset``; or ``L`` and the LED
       frame the firmware holds (4 bytes an LED) then the pixels lit (3 bytes an LED), raw.
This layer shares the firmware's heap (the tests cap it at a Pico's budget), so it allocates
as little as the firmware does: raw bytes out, no lists per reading.
The serial port is stdin/stdout, as on the Pico; the host process joins it to a pty.
"""

import json
import os
import random
import select
import sys
import time

import micropython
from codec import zeros

_getenv = getattr(os, "getenv", lambda name: None)  # (the WebAssembly port has none)
_fds = (_getenv("BOARD_REFEREE_HW") or "").split(",")
_control = open("/dev/fd/" + _fds[0], "rb") if len(_fds) == 2 else None
_events = open("/dev/fd/" + _fds[1], "wb") if len(_fds) == 2 else None
_poller = select.poll()
if _control is not None:
    _poller.register(_control, select.POLLIN)
_line = bytearray(128)
_fill = 0
_one = bytearray(1)
_hang = False


def _say(text):
    if _events is not None:
        # Unbuffered: flush() would fsync, which a pipe refuses.
        _events.write(b"T")
        _events.write(text)
        _events.write(b"\n")


def _wiring():
    with open("board.json") as handle:
        config = json.load(handle)
    sensing = config["sensors"]
    buttons = {}
    for name, pin in (config["buttons"].get("pins") or {}).items():
        buttons[pin] = name
    hold = 3 * config["buttons"].get("debounce_ms", 20)
    return (sensing["count"], tuple(sensing["select"]), tuple(sensing.get("enable") or ()),
            tuple(sensing.get("bank_select") or ()), tuple(sensing["signal"]),
            buttons, hold)  # fmt: skip


_count, _select_pins, _enable_pins, _bank_pins, _signal_pins, _button_pins, _hold_ms = _wiring()
del _wiring  # run once: its code is heap the firmware's budget can have back
_values = zeros("i", _count)  # each sensor's raw reading ...
_noise = zeros("i", _count)  # ... and how far it wanders
_pressed = {}
# A press is held for a time in the firmware's clock, not the host's: when this process is
# starved (a loaded machine), a press and its release can arrive in one _sync, and the
# firmware would never see the button down. A finger's press lasts past the debounce on a
# Pico, so the release waits until the firmware has read the button down twice, _hold_ms
# apart (a starved loop can take longer than the hold between two scans: counted from the
# press, the release could come at the firmware's second look, and the press go unseen). The
# firmware dates each button reading as it reads it (Buttons.scan), so two readings a hold
# apart here are a hold apart to its debounce too.
_down_at = {}  # name -> ticks_ms when the firmware first read it pressed
_held = set()  # the names the firmware has read pressed _hold_ms after that
_release = set()  # the names the host released before they were held long enough
_levels = {}  # output pin -> level
# One flicker at a time, timed by the firmware's clock from its first read (as a press is
# above): a host's two lines a few ms apart can reach a starved process tens of ms apart.
_flick = [-1, 0, 0, -1]  # index, value, length in us, first read (-1: not yet)


def _connected(signal_index):
    """The sensor joined to signal pin number ``signal_index`` now; -1: none, -2: several."""
    channel = 0
    for k in range(len(_select_pins)):
        channel |= _levels.get(_select_pins[k], 0) << k
    if _enable_pins:
        bank = -1
        for b in range(len(_enable_pins)):
            if _levels.get(_enable_pins[b], 1) == 0:
                if bank >= 0:
                    return -2  # two multiplexers drive the line at once: a firmware bug
                bank = b
        if bank < 0:
            return -1
    elif _bank_pins:
        line = 0
        for k in range(len(_bank_pins)):
            line |= _levels.get(_bank_pins[k], 0) << k
        bank = signal_index * 16 + line
    else:
        bank = 0
    index = bank * 16 + channel
    return index if index < _count else -1


def _sync():
    """Take the host process's news (sensor readings, buttons), without waiting."""
    global _fill, _hang
    if _control is None:
        return
    while True:
        ready = False
        for _ in _poller.ipoll(0):
            ready = True
        if not ready:
            return
        if not _control.readinto(_one):
            sys.exit(0)  # the host process is gone: the power with it
        byte = _one[0]
        if byte != 10:
            if _fill < len(_line):
                _line[_fill] = byte
                _fill += 1
            continue
        words = bytes(_line[:_fill]).decode().split()
        _fill = 0
        if not words:
            continue
        if words[0] == "v":
            index = int(words[1])
            if 0 <= index < _count:
                _values[index] = int(words[2])
                _noise[index] = int(words[3])
                if index == _flick[0]:
                    _flick[0] = -1  # a new reading ends a flicker
        elif words[0] == "f":
            index = int(words[1])
            if 0 <= index < _count:
                _flick[0] = index
                _flick[1] = int(words[2])
                _flick[2] = int(words[3])
                _flick[3] = -1
        elif words[0] == "b":
            name = words[1]
            if words[2] == "1":
                _pressed[name] = True
                _down_at.pop(name, None)
                _held.discard(name)
                _release.discard(name)
            elif _pressed.get(name):
                _release.add(name)
        elif words[0] == "hang":
            _hang = True


class Pin:
    IN = 0
    OUT = 1
    PULL_UP = 1
    PULL_DOWN = 2

    def __init__(self, number, mode=IN, pull=None, value=None):
        self.number = number
        self.mode = mode
        self.pull = pull
        if mode == Pin.OUT:
            _levels[number] = value or 0

    def value(self, level=None):
        if level is not None:
            _levels[self.number] = 1 if level else 0
            return None
        if self.mode == Pin.OUT:
            return _levels.get(self.number, 0)
        if self.number in _button_pins:  # the host's latest news first: a button held
            _sync()  # at power-on is read before any scan (maintenance, calibration)
            name = _button_pins[self.number]
            if not _pressed.get(name):
                return 1
            now = time.ticks_ms()
            if name not in _down_at:
                _down_at[name] = now
            elif name in _held and name in _release:
                _pressed[name] = False
                _release.remove(name)
                _held.remove(name)
                del _down_at[name]
                return 1
            elif time.ticks_diff(now, _down_at[name]) >= _hold_ms:
                _held.add(name)
            return 0
        if self.number in _signal_pins:
            index = _connected(_signal_pins.index(self.number))
            if index >= 0:
                return 1 if _values[index] else 0
            if index == -2:
                return random.getrandbits(1)
        return 1 if self.pull == Pin.PULL_UP else 0

    def __call__(self, level=None):
        return self.value(level)

    def on(self):
        self.value(1)

    def off(self):
        self.value(0)


class ADC:
    def __init__(self, pin):
        self.pin = pin.number if isinstance(pin, Pin) else pin

    def read_u16(self):
        if self.pin not in _signal_pins:
            return 0
        index = _connected(_signal_pins.index(self.pin))
        if index == -1:
            return random.getrandbits(6)  # the SIG line's pull-down: near 0 V
        if index == -2:
            return random.getrandbits(16)
        value = _values[index]
        if index == _flick[0]:  # (a linear sensor's: the tests' flickers are on those)
            now = time.ticks_us()
            if _flick[3] < 0:
                _flick[3] = now
            if time.ticks_diff(now, _flick[3]) < _flick[2]:
                value = _flick[1]
            else:
                _flick[0] = -1
        noise = _noise[index]
        if noise:
            value += random.getrandbits(16) % (2 * noise + 1) - noise
        return min(65535, max(0, value))


class _Strip:
    """A WS2812B chain: reports the frame the firmware holds and the pixels it lit."""

    def __init__(self, count, frame):
        self.buf = bytearray(3 * count)
        self.frame = frame

    def write(self):
        # Every write is told (the host process keeps what changed): a copy kept here to
        # compare with would take heap a Pico's strip does not.
        if _events is not None:
            _events.write(b"L")
            _events.write(self.frame)
            _events.write(self.buf)


def strip(pin, count, frame):
    return _Strip(count, frame)


class Serial:
    """stdin and stdout, as on the Pico; the host process joins them to a pty."""

    def __init__(self):
        micropython.kbd_intr(-1)
        self.inp = sys.stdin.buffer
        self.out = sys.stdout.buffer
        self.poller = select.poll()
        self.poller.register(sys.stdin, select.POLLIN)
        self.one = bytearray(1)

    def read_into(self, buf):
        count = 0
        limit = len(buf)
        while count < limit:
            ready = False
            for _ in self.poller.ipoll(0):
                ready = True
            if not ready:
                break
            if not self.inp.readinto(self.one):
                sys.exit(0)  # the cable is out: so is the power
            buf[count] = self.one[0]
            count += 1
        return count

    def write(self, data):
        self.out.write(data)


class _Watchdog:
    def __init__(self, ms):
        self.ms = ms
        self.told = time.ticks_ms()
        _say("wdt " + str(ms))

    def feed(self):
        now = time.ticks_ms()
        if time.ticks_diff(now, self.told) >= self.ms // 4:
            self.told = now
            _say("feed")


def watchdog(ms):
    return _Watchdog(ms)


def reset_reason():
    return _getenv("BOARD_REFEREE_RESET") or "power"


def uid():
    return _getenv("BOARD_REFEREE_UID") or "e6614103e7452d2f"


def reset():
    _say("reset")
    sys.exit(3)


_wake = select.poll()
if _control is not None:  # (no serial line without it: the benchmark's runs)
    _wake.register(sys.stdin, select.POLLIN)
    _wake.register(_control, select.POLLIN)


def pace():
    """Once a full scan. A Pico takes a few milliseconds over it; here the scan is quicker,
    so wait up to 2 ms (or until the host writes) instead of spinning a whole core."""
    while _hang:
        time.sleep_ms(50)
        _sync()
    for _ in _wake.ipoll(2):
        break
    _sync()


def settle(us):
    """The simulated board's signal line has no capacitance: nothing to wait for (an OS sleep
    of a few microseconds would cost far more, and slow the scan under load)."""


def sleep_ms(ms):
    time.sleep_ms(ms)
    _sync()


def onboard_led():
    return Pin(25, Pin.OUT)


def blink(period_ms):
    _say("blink " + str(period_ms))


def log(text):
    sys.stderr.write("[firmware] " + text + "\n")


_say("ready")
_sync()  # the sensors' first readings, if the host process has written them already


def cells(settings, order, quiet, values):
    """No register-level reader here: sensors.py reads the simulated multiplexers through
    Pin and ADC, its portable path."""
    return None
