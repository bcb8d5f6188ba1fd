"""The hardware layer on a Raspberry Pi Pico, Pico W or Pico 2 (RP2040 / RP2350).

Everything the firmware touches that is not plain Python comes through this module: pins, the
ADC, the WS2812B chain, the watchdog, the reset cause, the USB serial port. The tests run the
same firmware in MicroPython's Unix port with another ``hw`` module (firmware/host/hw.py) in
its place, which simulates the multiplexers, sensors, LEDs and buttons.
"""

import select
import sys
import time

import machine
import micropython
from machine import ADC, Pin  # noqa: F401 (the firmware uses hw.Pin and hw.ADC)

try:
    from neopixel import NeoPixel
except ImportError:  # a MicroPython built without it
    NeoPixel = None

MACHINE = sys.implementation._machine  # e.g. "Raspberry Pi Pico with RP2040"
_POWMAN_CHIP_RESET = 0x4010002C  # RP2350: why the chip last reset
_HAD_BOR = 0x20000  # ... a brown-out


class _NoStrip:
    """No LEDs wired (a profile with ``leds: none``)."""

    def __init__(self, count):
        self.buf = bytearray(3 * count)

    def write(self):
        pass


def strip(pin, count, frame):
    """The WS2812B chain on ``pin``. ``frame`` (the LEDs as the host set them) is for the
    host's simulated strip; a real one only shows its pixels."""
    if pin is None or NeoPixel is None or count == 0:
        return _NoStrip(count)
    return NeoPixel(Pin(pin), count)


class Serial:
    """The USB serial port (the console's stdin and stdout), in binary. Ctrl-C (0x03) is data
    here, not an interrupt: protocol frames may contain it."""

    def __init__(self):
        micropython.kbd_intr(-1)
        self.inp = sys.stdin.buffer
        self.out = sys.stdout.buffer
        self.poller = select.poll()
        self.poller.register(sys.stdin, select.POLLIN)
        self.one = bytearray(1)

    def read_into(self, buf):
        """Whatever has arrived, up to len(buf) bytes, without waiting."""
        count = 0
        limit = len(buf)
        while count < limit:
            ready = False
            for _ in self.poller.ipoll(0):
                ready = True
            if not ready:
                break
            self.inp.readinto(self.one)
            buf[count] = self.one[0]
            count += 1
        return count

    def write(self, data):
        self.out.write(data)


def watchdog(ms):
    """The hardware watchdog: the chip resets unless fed within ``ms`` (8.3 s at most)."""
    return machine.WDT(timeout=min(ms, 8388))


def reset_reason():
    """Why the chip started: power, watchdog, brownout or reset."""
    cause = machine.reset_cause()
    if cause == getattr(machine, "WDT_RESET", -1):
        return "watchdog"
    if "RP2350" in MACHINE and machine.mem32[_POWMAN_CHIP_RESET] & _HAD_BOR:
        return "brownout"  # the RP2040 cannot tell a brown-out from power-on
    if cause == getattr(machine, "PWRON_RESET", -1):
        return "power"
    return "reset"


def uid():
    return "".join("%02x" % b for b in machine.unique_id())


def reset():
    machine.reset()


def pace():
    """Called once a full scan: the Pico scans flat out."""


def settle(us):
    """Give the multiplexers' signal line ``us`` microseconds to settle after a switch."""
    time.sleep_us(us)


def sleep_ms(ms):
    time.sleep_ms(ms)


def onboard_led():
    """The Pico's own LED (to blink when there is no usable board.json)."""
    try:
        return Pin("LED", Pin.OUT)
    except (TypeError, ValueError):
        return Pin(25, Pin.OUT)


_timer = None


def blink(period_ms):
    """Blink the Pico's own LED from a timer, leaving MicroPython's prompt free; 0: steady."""
    global _timer
    led = onboard_led()
    if _timer is not None:
        _timer.deinit()
        _timer = None
    if not period_ms:
        led.value(1)
        return
    _timer = machine.Timer(period=period_ms, mode=machine.Timer.PERIODIC,
                           callback=lambda _t: led.toggle())  # fmt: skip


def log(text):
    """Nowhere to write on the Pico: its console is the protocol's serial line."""
