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
def _scan(  # noqa: PLR0917 (a viper function takes its buffers as arguments)
    cfg: ptr32,  # noqa: F821
    masks: ptr32,  # noqa: F821
    order: ptr8,  # noqa: F821
    quiet: ptr16,  # noqa: F821
    values: ptr16,  # noqa: F821
    loud: ptr16,  # noqa: F821
) -> int:
    """RP2040 registers: read the sensors of banks ``cfg[0]`` to ``cfg[1]`` (below ``cfg[2]``
    sensors; ``cfg[8]`` < 16: that channel only) into ``values`` by sensor, as ADC.read_u16
    (``cfg[5]``: linear) or Pin.value would, and list in ``loud`` those outside their quiet band
    (``quiet``: low, high per sensor). Returns how many are listed.

    Each read waits ``cfg[3]`` us after the switch (the screen: enough for a live sensor to
    drive the line), or ``cfg[4]`` (the settle: enough for a broken wire to fall out of every
    band) in bank ``cfg[6]`` (the sweep). A screened reading outside its quiet band is read
    again once the whole settle has passed, so nothing is judged on a screened reading."""
    # SIO: GPIO_IN at word 1, GPIO_OUT_SET at 5, GPIO_OUT_CLR at 6. TIMERAWL: microseconds.
    # ADC: CS at word 0 (EN bit 0, START_ONCE 2, READY 8, AINSEL 12-14), RESULT at word 1.
    sio = ptr32(0xD0000000)  # noqa: F821
    timer = ptr32(0x40054028)  # noqa: F821
    adc = ptr32(0x4004C000)  # noqa: F821
    bank = int(cfg[0])
    end = int(cfg[1])
    count = int(cfg[2])
    screen = int(cfg[3])
    settle = int(cfg[4])
    linear = int(cfg[5])
    sweep = int(cfg[6])
    banks = int(cfg[7])
    only = int(cfg[8])
    cs = int(adc[0]) & ~0x1F700C
    found = 0
    while bank < end:
        sio[5] = masks[32 + bank]  # the bank's enable lines (or second-level selects)
        sio[6] = masks[32 + banks + bank]
        line = int(masks[32 + 2 * banks + bank])  # its ADC input, or its GPIO_IN bit
        start_once = cs | (line << 12) | 4
        first_wait = settle if bank == sweep else screen
        base = bank << 4
        i = 0
        while i < 16:
            c = int(order[i])
            i += 1
            index = base + c
            if index >= count or (only < 16 and c != only):
                continue
            sio[5] = masks[c]
            sio[6] = masks[16 + c]
            began = int(timer[0])
            at = index << 1
            low = int(quiet[at])
            high = int(quiet[at + 1])
            wait = first_wait
            while True:
                while int(timer[0]) - began < wait:
                    pass
                if linear:
                    adc[0] = start_once
                    while not (int(adc[0]) & 0x100):
                        pass
                    v = int(adc[1])
                    v = (v << 4) | (v >> 8)
                else:
                    v = 1 if int(sio[1]) & line else 0
                if wait >= settle or (v >= low and v <= high):
                    break
                wait = settle  # out of its band on a screened read: read it again, settled
            values[index] = v
            if v < low or v > high:
                loud[found] = index
                found += 1
        bank += 1
    return found


def _mask(pins, value):
    """The SIO masks that drive ``pins`` (bit k of ``value`` on pins[k]): (set, clear)."""
    high = low = 0
    for k in range(len(pins)):
        if value >> k & 1:
            high |= 1 << pins[k]
        else:
            low |= 1 << pins[k]
    return high, low


class _Cells:
    """The multiplexed sensors read straight from the RP2040's registers, a whole run of banks
    in one call: a cell costs its wait and about 4 us, where Pin.value, time.sleep_us and
    ADC.read_u16 from bytecode cost about 25 between them and each bank as much again."""

    def __init__(self, settings, order, quiet, values):
        self.order = order  # the channels in the order read (Gray code: one line a step)
        self.quiet = quiet  # each sensor's quiet band (sensors.py keeps it)
        self.values = values  # each sensor's latest reading
        select = settings["select"]
        enable = settings.get("enable") or []
        bank_select = settings.get("bank_select") or []
        signals = settings["signal"]
        self.linear = linear = settings["kind"] == "linear"
        count = settings["count"]
        self.banks = banks = (count + 15) // 16
        self.masks = array("I", bytes(4 * (32 + 3 * banks)))
        masks = self.masks
        for channel in range(16):
            masks[channel], masks[16 + channel] = _mask(select, channel)
        every_en, _ = _mask(enable, (1 << len(enable)) - 1)
        for bank in range(banks):
            if enable:  # every bank's EN high (off), then this bank's low
                high, low = every_en, 1 << enable[bank]
            elif bank_select:
                high, low = _mask(bank_select, bank & 15)
            else:
                high = low = 0
            masks[32 + bank] = high
            masks[32 + banks + bank] = low
            pin = signals[bank >> 4 if bank_select else 0]
            masks[32 + 2 * banks + bank] = pin - _FIRST_ADC_PIN if linear else 1 << pin
        self.loud = array("H", bytes(2 * count))  # the sensors a scan found outside their band
        self.settle_us = settings.get("settle_us", 0)
        self.screen_us = min(settings.get("screen_us", self.settle_us), self.settle_us)
        self.cfg = array("I", bytes(4 * 9))
        cfg = self.cfg
        cfg[2] = count
        cfg[5] = 1 if linear else 0
        cfg[7] = banks

    def scan(self, first, end, sweep):
        """Banks ``first`` to ``end`` (bank ``sweep`` read settled throughout); returns how
        many sensors it listed in ``loud``."""
        cfg = self.cfg
        cfg[0] = first
        cfg[1] = end
        cfg[3] = self.screen_us
        cfg[4] = self.settle_us
        cfg[6] = sweep
        cfg[8] = 16
        return _scan(cfg, self.masks, self.order, self.quiet, self.values, self.loud)

    def read(self, index):
        """Sensor ``index`` alone, settled, into ``values[index]``."""
        cfg = self.cfg
        cfg[0] = index >> 4
        cfg[1] = cfg[0] + 1
        cfg[3] = self.settle_us
        cfg[4] = self.settle_us
        cfg[6] = cfg[0]
        cfg[8] = index & 15
        _scan(cfg, self.masks, self.order, self.quiet, self.values, self.loud)
        return self.values[index]


def cells(settings, order, quiet, values):
    """A fast reader of the multiplexed sensors (``settings``: board.json's ``sensors``; each
    bank's channels read in ``order``; ``quiet``, ``values``: sensors.py's), or
    None: sensors.py then reads through Pin and ADC. Written for the RP2040's registers
    (tested on the emulated chip); a Pico 2 (RP2350) takes the portable path."""
    select = settings["select"]
    signals = settings["signal"]
    pins = select + signals + (settings.get("enable") or []) + (settings.get("bank_select") or [])
    if not _RP2040 or len(select) != 4 or any(p > 29 for p in pins):
        return None
    if settings["kind"] == "linear" and any(p < _FIRST_ADC_PIN for p in signals):
        return None
    return _Cells(settings, order, quiet, values)


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
