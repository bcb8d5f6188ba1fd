"""The board's sensors: one per cell, read through 16-channel multiplexers (CD74HC4067).

Sensor i is input i % 16 of bank i // 16. Every bank's S0-S3 lines are shared; a bank is picked
either by its own EN line (``enable``: active low, all SIG pins joined on one input) or by a
second-level multiplexer whose S0-S3 are ``bank_select`` (bank b is its input b % 16, on
signal pin b // 16). Channels are visited in Gray-code order, so one select line changes a step.

Two kinds of sensor:
- ``switch``: reed switches or digital hall switches, active low with a pull-up: occupancy.
- ``linear``: linear (analogue) hall sensors read by the ADC. A magnet's pole moves the
  reading one way or the other, so the reading says whose piece it is (player 1's pieces north
  pole down); which way north moves it is the part's and the profile's ``bands.north``, written
  into board.json: the shipped DRV5053 PA/RA profiles read north high (their sensitivity is
  negative and a north pole is a negative field). Each cell has its own two thresholds
  (calibration.json), with hysteresis; a reading beyond ``fault_low``/``fault_high`` is in no
  band at all (a broken wire pulled to ground by the SIG pull-down, a short) and is reported as
  a fault, not a piece.

A reading is reported only once it has been the same for ``debounce_ms``. Time here is the
microsecond tick (``time.ticks_us``, wrapping at 2**30), so the debounce is not rounded to a
millisecond.

Scanning. Where the hardware layer reads the registers itself (``hw.cells``: the RP2040), every
cell is first read ``screen_us`` after the switch, the time a live sensor takes to drive the
line; a reading outside its quiet band is read again after the whole ``settle_us``, the time a
broken wire takes to fall out of every band, and only settled readings are judged. Each full
scan also reads one bank settled throughout (the sweep, a bank after another), so a broken wire
whose screened reading still looks like its cell's last one is found within a few scans. A cell
whose reading is being timed is read again, settled, as soon as its debounce is over (the
follow list), not a scan later. Elsewhere (the Unix port, an RP2350) every read is settled,
through Pin and ADC, a bank a step.
"""

import time

from codec import zeros
from micropython import const

OUT = const(0xFF)  # in no band: a fault, never reported as a reading
GRAY = b"\x00\x01\x03\x02\x06\x07\x05\x04\x0c\x0d\x0f\x0e\x0a\x0b\x09\x08"  # 0 1 3 2 6 7 5 4 12 ...
BIT = (0, 0, 1, 0, 2, 0, 0, 0, 3)  # the select line of a one-line change
FAULTED = const(1)
REPORT_OUT = const(2)
REPORT_BACK = const(4)
FOLLOWED = const(8)
MAX_REPORTS = const(3)
FOLLOW = const(16)  # cells followed at once (more wait for the scan)
STEP_US = const(1000)  # about how long one step of a register scan may take
TICKS = const(0x3FFFFFFF)  # ticks_us wraps at 2**30


class Sensors:
    def __init__(self, hw, settings, calibration):
        self.count = count = settings["count"]
        self.linear = settings["kind"] == "linear"
        self.debounce = 1000 * settings.get("debounce_ms", 30)  # us
        # Microseconds the signal line is given after the multiplexers switch: the line and
        # every multiplexer's capacitance recharge through the pull-up (or discharge through the
        # pull-down) before the read (docs/build-a-board.md, "Settling"). The register reader
        # (hw.cells) also takes board.json's shorter ``screen_us``.
        self.settle_us = settings.get("settle_us", 0)
        self.wait = hw.settle
        self.fault = 1000 * settings.get("fault_ms", 500)  # us
        self.stable = bytearray(count)  # what the host has been told
        self.cand = bytearray(count)  # the reading being timed
        self.since = zeros("i", count)
        self.flags = bytearray(count)
        self.reports = bytearray(count)
        self.raw = zeros("H", count)  # the reading that made a fault, for its message
        self.changed = zeros("H", count)
        self.follow = zeros("H", FOLLOW)  # sensors being timed, read again once due
        self.nfollow = 0
        # Per sensor, the lowest and highest raw readings that change nothing (scan_step's
        # fast path), side by side: low > high (none) until a reading has been judged.
        self.quiet = zeros("H", 2 * count)
        for i in range(count):
            self.quiet[2 * i] = 1
        self.nchanged = 0
        self.pending = 0  # fault reports waiting to be sent
        self.banks = (count + 15) // 16
        self.leds = settings.get("leds")  # the LED index of each sensor's cell, or -1
        self.select = [hw.Pin(p, hw.Pin.OUT, value=0) for p in settings["select"]]
        self.channel = 0
        self.enable = None
        self.bank_select = None
        if settings.get("enable"):
            self.enable = [hw.Pin(p, hw.Pin.OUT, value=1) for p in settings["enable"]]
        if settings.get("bank_select"):
            self.bank_select = [hw.Pin(p, hw.Pin.OUT, value=0) for p in settings["bank_select"]]
        self.bank = -1
        self.values = zeros("H", count)  # the latest reading of each sensor
        signal = settings["signal"]
        if self.linear:
            self.inputs = [hw.ADC(hw.Pin(p)) for p in signal]
            bands = settings.get("bands", {})
            self.fault_low = bands.get("fault_low", 1000)
            self.fault_high = bands.get("fault_high", 64500)
            self.hysteresis = bands.get("hysteresis", 600)
            delta = bands.get("delta", 5000)
            centre = bands.get("centre", 32768)
            north_low = bands.get("north", "low") == "low"
            self.low = zeros("H", count)
            self.high = zeros("H", count)
            for i in range(count):
                self.low[i] = centre - delta
                self.high[i] = centre + delta
            # The code a reading below the low threshold means: 2 (player 1) when north is low.
            self.lowcode = bytearray(count)
            for i in range(count):
                self.lowcode[i] = 2 if north_low else 3
            for i in settings.get("flip", ()):  # sensors mounted the other way round
                if 0 <= i < count:
                    self.lowcode[i] = 3 if north_low else 2
            self.delta = delta
            self.calibrated = False
            if calibration:
                self.calibrate(calibration)
        else:
            pull = hw.Pin.PULL_UP if settings.get("active_low", True) else hw.Pin.PULL_DOWN
            self.inputs = [hw.Pin(p, hw.Pin.IN, pull) for p in signal]
            self.active = 0 if settings.get("active_low", True) else 1
            self.calibrated = True
        self.cells = hw.cells(settings, GRAY, self.quiet, self.values)
        # A step of the loop: a bank through Pin and ADC, or as many banks as the registers
        # read in about STEP_US; the sweep's bank moves on once a full scan.
        self.per_step = 1
        if self.cells is not None:
            self.per_step = max(1, STEP_US // (16 * (self.cells.screen_us + 5)))
        self.steps = (self.banks + self.per_step - 1) // self.per_step
        self.sweep = 0

    def calibrate(self, base):
        """Thresholds ``delta`` either side of each sensor's own resting reading (``base``,
        one per sensor: settings.read_calibration fills it)."""
        delta = self.delta
        if len(base) != self.count:
            return
        for i in range(self.count):
            self.low[i] = base[i] - delta
            self.high[i] = base[i] + delta
        self.calibrated = True
        for i in range(self.count):
            self._quiet(i)

    def _bank(self, bank):
        if bank == self.bank:
            return
        if self.enable is not None:
            if self.bank >= 0:
                self.enable[self.bank].value(1)
            self.enable[bank].value(0)
        elif self.bank_select is not None:
            line = bank & 15
            for k in range(4):
                self.bank_select[k].value((line >> k) & 1)
        self.bank = bank

    def _channel(self, channel):
        diff = channel ^ self.channel
        k = 0
        while diff:
            if diff & 1:
                self.select[k].value((channel >> k) & 1)
            diff >>= 1
            k += 1
        self.channel = channel

    def read(self, index):
        """One sensor's raw reading, now, settled (calibration, the benchmark, the follow
        list)."""
        if self.cells is not None:
            return self.cells.read(index)
        bank = index >> 4
        self._bank(bank)
        self._channel(index & 15)
        if self.settle_us:
            self.wait(self.settle_us)
        source = self.inputs[bank >> 4 if self.bank_select is not None else 0]
        return source.read_u16() if self.linear else source.value()

    def scan_step(self, step, now):
        """Read the sensors of one step (below ``steps``) and time their readings; a reading
        stable for the debounce is added to ``changed``. A reading inside its sensor's quiet
        band (the same as it was, reported, no fault) costs two comparisons: only the cells
        that change are judged in Python, so the scan is quick and a change is seen sooner.
        Then the followed cells whose debounce is over are read again and judged."""
        if self.cells is None:
            self._scan_bank(step, now)
        else:
            first = step * self.per_step
            end = min(self.banks, first + self.per_step)
            found = self.cells.scan(first, end, self.sweep)
            if end == self.banks:
                self.sweep = (self.sweep + 1) % self.banks
            values = self.values
            loud = self.cells.loud
            for k in range(found):
                index = loud[k]
                self._judge(index, values[index], now)
        if self.nfollow:
            self._follow_up()

    def _follow_up(self):
        """Read each followed sensor whose debounce is over, settled, and judge it: a change
        is told at its time, not at its cell's turn in the next scan."""
        follow = self.follow
        now = time.ticks_us()
        k = 0
        while k < self.nfollow:
            index = follow[k]
            if self._held(index, now, self.debounce):
                self._judge(index, self.read(index), now)
                if k < self.nfollow and follow[k] != index:
                    continue  # it left the list; another took its place
            k += 1

    def _scan_bank(self, bank, now):
        """The bank's sensors through Pin and ADC, one select line changed a step (the
        portable path), each reading outside its quiet band judged."""
        switched = bank != self.bank
        self._bank(bank)
        source = self.inputs[bank >> 4 if self.bank_select is not None else 0]
        first = bank << 4
        n = min(16, self.count - first)
        linear = self.linear
        select = self.select
        settle = self.settle_us
        wait = self.wait
        quiet = self.quiet
        current = self.channel
        for channel in GRAY:
            if channel >= n:
                continue
            diff = channel ^ current
            if diff:
                if diff & (diff - 1):  # more than one line to change (after a direct read)
                    self.channel = current
                    self._channel(channel)
                else:
                    b = BIT[diff]
                    select[b].value((channel >> b) & 1)
                current = channel
                if settle:
                    wait(settle)
            elif switched and settle:
                wait(settle)
            switched = False
            value = source.read_u16() if linear else source.value()
            index = first + channel
            self.values[index] = value
            if value < quiet[2 * index] or value > quiet[2 * index + 1]:
                self._judge(index, value, now)
        self.channel = current

    def _judge(self, index, value, now):
        """A reading outside its sensor's quiet band: what it says, timed for the debounce."""
        cand = self.cand
        stable = self.stable
        flags = self.flags
        if self.linear:
            if value < self.fault_low or value > self.fault_high:
                code = OUT
            else:
                code = self.lowcode[index]
                was = cand[index]
                lo = self.low[index]
                hi = self.high[index]
                if was == code:
                    lo += self.hysteresis
                elif was == 5 - code:
                    hi -= self.hysteresis
                if value <= lo:
                    pass
                elif value >= hi:
                    code = 5 - code
                else:
                    code = 0
        else:
            code = 1 if value == self.active else 0
        if code != cand[index]:
            cand[index] = code
            self.since[index] = now
            if code == OUT:
                self.raw[index] = value
        elif code == OUT:
            if not flags[index] & FAULTED and self._held(index, now, self.fault):
                flags[index] |= FAULTED | REPORT_OUT
                self.pending += 1
        elif (code != stable[index] or flags[index] & FAULTED) and self._held(
            index, now, self.debounce
        ):
            if flags[index] & FAULTED:
                flags[index] = (flags[index] & ~FAULTED) | REPORT_BACK
                self.pending += 1
            if code != stable[index]:
                stable[index] = code
                self.changed[self.nchanged] = index
                self.nchanged += 1
        self._quiet(index)
        self._track(index)

    def _track(self, index):
        """Follow a sensor while a reading in a band is being timed (its quiet band empty),
        not after; a reading in no band is no hurry (it is reported after ``fault_ms``)."""
        flags = self.flags
        timing = self.quiet[2 * index] > self.quiet[2 * index + 1] and self.cand[index] != OUT
        if timing and not flags[index] & FOLLOWED:
            if self.nfollow < FOLLOW:
                self.follow[self.nfollow] = index
                self.nfollow += 1
                flags[index] |= FOLLOWED
        elif not timing and flags[index] & FOLLOWED:
            flags[index] &= ~FOLLOWED
            follow = self.follow
            for k in range(self.nfollow):
                if follow[k] == index:
                    self.nfollow -= 1
                    follow[k] = follow[self.nfollow]
                    break

    def _quiet(self, index):
        """The band of raw readings that would change nothing for sensor ``index``: none while
        a reading is being timed or a fault is open (every read is then judged in full)."""
        code = self.cand[index]
        quiet = self.quiet
        at = 2 * index
        if code != self.stable[index] or code == OUT or self.flags[index] & FAULTED:
            quiet[at] = 1
            quiet[at + 1] = 0
        elif not self.linear:
            level = self.active if code else 1 - self.active
            quiet[at] = level
            quiet[at + 1] = level
        else:
            low = self.low[index]
            high = self.high[index]
            if code == self.lowcode[index]:  # below the low threshold (and its hysteresis)
                lo, hi = self.fault_low, low + self.hysteresis
            elif code:  # above the high threshold, less its hysteresis
                lo, hi = max(low + 1, high - self.hysteresis), self.fault_high
            else:  # between the two: empty
                lo, hi = low + 1, high - 1
            quiet[at] = max(lo, self.fault_low, 0)
            quiet[at + 1] = max(0, min(hi, self.fault_high, 65535))

    def settle(self, now_us, clock, pace):
        """At power-on: read until every sensor has been stable for the debounce, and take
        that as the board (the host asks for a SCAN; nothing is reported as a change).
        ``clock``: time.ticks_us."""
        until = now_us + self.debounce + 20000
        now = now_us
        while (until - now) & TICKS < 0x20000000:
            for step in range(self.steps):
                self.scan_step(step, now)
            pace()
            now = clock()
        for i in range(self.count):
            if self.cand[i] != OUT:
                self.stable[i] = self.cand[i]
            self._quiet(i)
            self._track(i)
        self.nchanged = 0

    def _held(self, index, now, us):
        return (now - self.since[index]) & TICKS >= us

    def all_out(self):
        """Is every sensor reading outside every band (their supply gone)?"""
        cand = self.cand
        for i in range(self.count):  # noqa: SIM110 (a generator would allocate)
            if cand[i] != OUT:
                return False
        return True

    def drop_reports(self):
        """Forget the faults waiting to be said: one fault said them all."""
        flags = self.flags
        for i in range(self.count):
            flags[i] &= ~(REPORT_OUT | REPORT_BACK)
        self.pending = 0

    def powered_again(self):
        """The supply is back: a sensor still out of band is a fault of its own, to be said;
        one that reads again needs no word of its own."""
        flags = self.flags
        pending = 0
        for i in range(self.count):
            if flags[i] & FAULTED:
                flags[i] = (flags[i] & ~REPORT_BACK) | REPORT_OUT
                pending += 1
            else:
                flags[i] &= ~(REPORT_OUT | REPORT_BACK)
        self.pending = pending

    def take_fault(self):
        """(sensor, out of band?, raw reading, last report?) of one fault to report, or None."""
        if not self.pending:
            return None
        flags = self.flags
        for i in range(self.count):
            if flags[i] & (REPORT_OUT | REPORT_BACK):
                out = bool(flags[i] & REPORT_OUT)
                flags[i] &= ~(REPORT_OUT | REPORT_BACK)
                self.pending -= 1
                if self.reports[i] >= MAX_REPORTS:
                    continue  # an intermittent wire: it was said often enough
                if out:
                    self.reports[i] += 1
                return i, out, self.raw[i], out and self.reports[i] == MAX_REPORTS
        self.pending = 0
        return None


class Buttons:
    """The four buttons (pass, confirm, takeback, select), to ground with pull-ups,
    debounced; ``events`` fills ``pressed`` with (button << 1 | down) codes."""

    NAMES = ("pass", "confirm", "takeback", "select")

    def __init__(self, hw, pins, debounce_ms):
        self.pins = []
        for number, name in enumerate(self.NAMES):
            pin = pins.get(name)
            if pin is not None:
                self.pins.append((number, hw.Pin(pin, hw.Pin.IN, hw.Pin.PULL_UP)))
        self.mask = 0
        for number, _ in self.pins:
            self.mask |= 1 << number
        self.debounce = debounce_ms
        self.stable = bytearray(4)
        self.cand = bytearray(4)
        self.since = zeros("i", 4)
        self.events = bytearray(8)
        self.nevents = 0

    def down(self, name):
        """Is this button held now (read directly: at power-on, before any debounce)?"""
        number = self.NAMES.index(name)
        for n, pin in self.pins:
            if n == number:
                return pin.value() == 0
        return False

    def scan(self):
        for number, pin in self.pins:
            level = 1 if pin.value() == 0 else 0
            # The time of this reading, not of the loop's turn: a loop held up between the two
            # (a busy host running the Unix port) would date a reading too early, and a press
            # held past the debounce could be judged a bounce and go unreported.
            now = time.ticks_ms()
            if level != self.cand[number]:
                self.cand[number] = level
                self.since[number] = now
            elif level != self.stable[number] and self._held(number, now):
                self.stable[number] = level
                if self.nevents < len(self.events):
                    self.events[self.nevents] = number << 1 | level
                    self.nevents += 1

    def _held(self, number, now):
        return (now - self.since[number]) & 0x3FFFFFFF >= self.debounce
