"""The hardware layer on a Raspberry Pi Pico, Pico W or Pico 2 (RP2040 / RP2350).

Everything the firmware touches that is not plain Python comes through this module: pins, the
ADC, the WS2812B chain, the watchdog, the reset cause, the USB serial port. The tests run the
same firmware in MicroPython's Unix port with another ``hw`` module (firmware/host/hw.py) in
its place, which simulates the multiplexers, sensors, LEDs and buttons.
"""

import select
import sys
import time
from array import array

import machine
import micropython
from machine import ADC, Pin  # noqa: F401 (the firmware uses hw.Pin and hw.ADC)
from micropython import const

try:
    from neopixel import NeoPixel
except ImportError:  # a MicroPython built without it
    NeoPixel = None

MACHINE = sys.implementation._machine  # e.g. "Raspberry Pi Pico with RP2040"
_POWMAN_CHIP_RESET = 0x4010002C  # RP2350: why the chip last reset
_HAD_BOR = 0x20000  # ... a brown-out
_RP2040 = "RP2040" in MACHINE
_FIRST_ADC_PIN = const(26)  # GPIO 26-29 are ADC inputs 0-3


@micropython.viper
def _read_cells(order: ptr8, masks: ptr32, cfg: ptr32, out: ptr16) -> int:  # noqa: F821
    """RP2040 registers: for each channel of ``order`` below ``cfg[0]``, drive S0-S3 (SIO set
    and clear), wait ``cfg[2]`` us on the timer, then read the ADC input ``cfg[1]``
    (``cfg[3]``: linear) or the GPIO bit ``cfg[4]`` into ``out[channel]``, as ADC.read_u16 and
    Pin.value would. Returns the channel left selected."""
    # SIO: GPIO_IN at word 1, GPIO_OUT_SET at 5, GPIO_OUT_CLR at 6. TIMERAWL: microseconds.
    # ADC: CS at word 0 (EN bit 0, START_ONCE 2, READY 8, AINSEL 12-14), RESULT at word 1.
    sio = ptr32(0xD0000000)  # noqa: F821
    timer = ptr32(0x40054028)  # noqa: F821
    adc = ptr32(0x4004C000)  # noqa: F821
    n = int(cfg[0])
    settle = int(cfg[2])
    linear = int(cfg[3])
    bit = int(cfg[4])
    start_once = (int(adc[0]) & ~0x1F700C) | (int(cfg[1]) << 12) | 4
    last = 0
    i = 0
    while i < 16:
        c = int(order[i])
        i += 1
        if c >= n:
            continue
        sio[5] = masks[c]
        sio[6] = masks[16 + c]
        last = c
        began = int(timer[0])
        while int(timer[0]) - began < settle:
            pass
        if linear:
            adc[0] = start_once
            while not (int(adc[0]) & 0x100):
                pass
            v = int(adc[1])
            out[c] = (v << 4) | (v >> 8)
        else:
            out[c] = 1 if int(sio[1]) & bit else 0
    return last


class _Cells:
    """The multiplexed sensors read straight from the RP2040's registers: a cell in a few
    microseconds, where Pin.value, time.sleep_us and ADC.read_u16 cost about 25 between them
    (the CHANGE latency is the debounce plus up to two scans)."""

    def __init__(self, select, signals, linear):
        self.masks = array("I", bytes(4 * 32))
        for channel in range(16):
            high = low = 0
            for k in range(len(select)):
                if channel >> k & 1:
                    high |= 1 << select[k]
                else:
                    low |= 1 << select[k]
            self.masks[channel] = high
            self.masks[16 + channel] = low
        self.signals = signals
        self.cfg = array("I", bytes(4 * 5))
        self.cfg[3] = 1 if linear else 0
        self.linear = linear

    def read(self, order, n, line, settle_us, out):
        """The channels below ``n``, in ``order``, on signal line ``line``, into ``out`` (by
        channel); returns the channel left selected."""
        cfg = self.cfg
        cfg[0] = n
        cfg[2] = settle_us
        if self.linear:
            cfg[1] = self.signals[line] - _FIRST_ADC_PIN
        else:
            cfg[4] = 1 << self.signals[line]
        return _read_cells(order, self.masks, cfg, out)


def cells(select, signals, linear):
    """A fast reader of the multiplexed sensors, or None: sensors.py then reads through Pin and
    ADC. Written for the RP2040's registers (tested on the emulated chip); a Pico 2 (RP2350)
    takes the portable path."""
    if not _RP2040 or len(select) != 4 or any(p > 29 for p in select + signals):
        return None
    if linear and any(p < _FIRST_ADC_PIN for p in signals):
        return None
    return _Cells(select, signals, linear)


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
