"""The board's LEDs: the frame the host last set, played on a WS2812B chain.

The frame holds each LED as the protocol sends it (red, green, blue, an 8-step blink mask played
bit 7 first, 125 ms a step). ``render`` lights the chain for one step, and only when some lit
LED differs from the step before, or once a second while any is lit (a WS2812B chain of 300
LEDs takes 9 ms to write, the scan stopped the while). Brightness is capped twice: the
builder's ``brightness`` (under a board, full WS2812B brightness dazzles), and the power
budget: when the frame would draw more than ``budget_ma`` with every LED lit at once, all LEDs
are dimmed by the same factor, so a whole board lit stays inside the USB supply.
"""

import micropython
from codec import crc16, zeros

STEP_MS = 125


@micropython.viper
def _draw(frame: ptr8, buf: ptr8, cfg: ptr32):  # noqa: F821
    """The pixels of one blink step: ``cfg`` holds the LED count, the step's bit of the blink
    mask, the brightness factor (of 65536), where red, green and blue go in a pixel, and
    whether the LEDs are single-colour (lit with the brightest channel)."""
    n = int(cfg[0])
    bit = int(cfg[1])
    factor = int(cfg[2])
    red = int(cfg[3])
    green = int(cfg[4])
    blue = int(cfg[5])
    mono = int(cfg[6])
    p = 0
    q = 0
    while n > 0:
        n -= 1
        if int(frame[p + 3]) & bit:
            r = int(frame[p])
            g = int(frame[p + 1])
            b = int(frame[p + 2])
            if mono:
                level = r
                if g > level:  # noqa: PLR1730 (max() would box viper ints)
                    level = g
                if b > level:  # noqa: PLR1730
                    level = b
                r = g = b = level
            buf[q + red] = (r * factor) >> 16
            buf[q + green] = (g * factor) >> 16
            buf[q + blue] = (b * factor) >> 16
        else:
            buf[q] = 0
            buf[q + 1] = 0
            buf[q + 2] = 0
        p += 4
        q += 3


class Leds:
    def __init__(self, strip, frame, settings):
        self.count = len(frame) // 4
        self.strip = strip
        self.frame = frame  # 4 bytes an LED, in chain order
        self.scratch = bytearray(len(frame))  # an LED_DELTA is tried here before it is kept
        order = settings.get("order", "GRB")
        self.red = order.index("R")
        self.green = order.index("G")
        self.blue = order.index("B")
        self.mono = settings.get("kind") == "mono"
        self.brightness = settings.get("brightness", 255)
        self.budget = settings.get("budget_ma", 400)
        self.per_channel = settings.get("ma_per_channel", 20)
        self.factor = self.brightness << 8  # of 65536: a colour channel is lit at c * factor >> 16
        self.drawn = -1  # the step last drawn; -1: draw at the next chance
        self.moves = 0  # bit 7 - s: some lit LED differs at step s from step s - 1
        self.lit = False  # some LED of the frame is ever lit
        self.cfg = zeros("i", 7)  # _draw's settings: count, step bit, factor, order, mono
        self.cfg[3] = self.red
        self.cfg[4] = self.green
        self.cfg[5] = self.blue
        self.cfg[6] = 1 if self.mono else 0

    def set_frame(self, src, offset):
        """A whole LEDS frame: its ``count`` LEDs from src[offset:]."""
        frame = self.frame
        for i in range(4 * self.count):
            frame[i] = src[offset + i]
        self._changed()

    def apply_delta(self, src, offset, changes, crc):
        """An LED_DELTA's ``changes`` (6 bytes each from src[offset:]). Kept only if the whole
        resulting frame has checksum ``crc``; returns False (nothing changed) otherwise."""
        scratch = self.scratch
        frame = self.frame
        size = 4 * self.count
        for i in range(size):
            scratch[i] = frame[i]
        for _ in range(changes):
            at = 4 * (src[offset] << 8 | src[offset + 1])
            scratch[at] = src[offset + 2]
            scratch[at + 1] = src[offset + 3]
            scratch[at + 2] = src[offset + 4]
            scratch[at + 3] = src[offset + 5]
            offset += 6
        if crc16(scratch, 0, size) != crc:
            return False
        for i in range(size):
            frame[i] = scratch[i]
        self._changed()
        return True

    def dark(self):
        frame = self.frame
        for i in range(4 * self.count):
            frame[i] = 0
        self._changed()

    def _changed(self):
        """A new frame: work out its brightness factor, and draw it at the next chance."""
        frame = self.frame
        total = 0
        moves = 0
        for i in range(self.count):
            p = 4 * i
            mask = frame[p + 3]
            if mask:
                if mask != 0xFF and (frame[p] or frame[p + 1] or frame[p + 2]):
                    moves |= mask ^ ((mask >> 1 | mask << 7) & 0xFF)  # vs the step before
                if self.mono:
                    total += 3 * max(frame[p], frame[p + 1], frame[p + 2])
                else:
                    total += frame[p] + frame[p + 1] + frame[p + 2]
        # Milliamps if every LED of the frame were lit at once at the builder's brightness.
        lit = total * self.brightness // 255 * self.per_channel // 255
        if lit > self.budget:
            self.factor = (self.brightness << 8) * self.budget // lit
        else:
            self.factor = self.brightness << 8
        self.moves = moves
        self.lit = total > 0
        self.drawn = -1

    def render(self, now_ms):
        """Light the chain for the blink step of ``now_ms``, if it is not lit so already."""
        step = (now_ms // STEP_MS) & 7
        if step == self.drawn:
            return False
        # The chain shows this step already when nothing lit changes at the steps since the
        # one drawn (more than one when the loop was held up); a lit one is redrawn at step 0
        # all the same (a pixel upset by noise on the data line).
        if self.drawn >= 0:
            passed = 0
            at = self.drawn
            while at != step:
                at = (at + 1) & 7
                passed |= 0x80 >> at
            if not self.moves & passed and not (passed & 0x80 and self.lit):
                self.drawn = step
                return False
        self.drawn = step
        cfg = self.cfg
        cfg[0] = self.count
        cfg[1] = 0x80 >> step
        cfg[2] = self.factor
        _draw(self.frame, self.strip.buf, cfg)
        self.strip.write()
        return True
