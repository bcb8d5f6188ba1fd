"""The board's side of protocol 2 (docs/protocol.md): it reports what the sensors and buttons
say, shows the LEDs the host asks for, and answers every host frame.

One loop, no threads and no interrupts: read a step of sensors (a bank, or a run of banks),
send what changed, take what the host sent, and after each full scan send the buttons and any
fault and light the LEDs for the current blink step. Every buffer is made before the loop starts.
"""

import time

import hw
import settings as store
from codec import TOO_LONG, Deframer, Framer
from leds import Leds
from sensors import Buttons, Sensors

FIRMWARE = "board-referee-pico 1.0"

# Message types (docs/protocol.md).
HELLO = 0x01
SCAN = 0x02
CHANGE = 0x03
BUTTON = 0x04
ACK = 0x05
NAK = 0x06
FAULT = 0x07
PONG = 0x08
HOST_HELLO = 0x81
SCAN_REQUEST = 0x82
LEDS = 0x83
PING = 0x84
LED_DELTA = 0x85

# NAK reasons.
BAD_FRAME = 1
UNKNOWN_TYPE = 2
BAD_PAYLOAD = 3
WRONG_SIZE = 4
MISMATCH = 5

# FAULT codes (docs/protocol.md).
FAULT_SENSOR = 1
FAULT_SENSOR_OK = 2
FAULT_RESTART = 3
FAULT_CALIBRATION = 4
FAULT_NOISE = 5
FAULT_POWER = 7  # every sensor out of band at once: their supply, not 77 broken wires
FAULT_POWER_OK = 8
NO_POWER = (
    "the sensors have no power: every sensor reads outside its band at once "
    "(is the board's 5 V supply plugged in and switched on?)"
)

SENSING = {"occupancy": 0, "owner": 1}
LED_KINDS = {"none": 0, "mono": 1, "rgb": 2}
RESTARTS = {
    "watchdog": "restarted by its watchdog: the firmware stalled",
    "brownout": "restarted after a brown-out: the supply sagged (too many LEDs lit at once, "
    "or a weak USB port or cable)",
}
HEALTHY_MS = 60000  # running this long clears the count of error restarts
# Damaged frames are answered at most once per NAK_GAP_MS (noise would otherwise be answered
# with more bytes than it has), and those left unanswered are told at most once a second.
NAK_GAP_MS = 100
NOISE_REPORT_MS = 1000


class Referee:
    def __init__(self, settings, calibration, reason, error=""):
        sensing = settings["sensors"]
        self.sensors = Sensors(hw, sensing, calibration)
        self.count = self.sensors.count
        led_settings = settings["leds"]
        led_count = led_settings.get("count", 0)
        self.frame = bytearray(4 * led_count)
        strip = hw.strip(led_settings.get("pin"), led_count, self.frame)
        self.leds = Leds(strip, self.frame, led_settings)
        button_settings = settings["buttons"]
        self.buttons = Buttons(hw, button_settings.get("pins", {}),
                               button_settings.get("debounce_ms", 20))  # fmt: skip
        self.board_id = settings.get("board_id") or "pico-" + hw.uid()
        self.sensing = SENSING[settings["sensing"]]
        self.led_kind = LED_KINDS[led_settings.get("kind", "rgb")] if led_count else 0
        self.protocol = 1  # until a host asks for 2
        self.counter = 0  # sensor and button events since power-on
        # The largest frame each way: a SCAN or a CHANGE of every sensor (255 at most) out, a
        # LEDS frame of every LED in (an LED_DELTA is sent only when it is shorter).
        self.out = Framer(max(8 + 2 * self.count, 7 + 4 * min(self.count, 255), 300), None)
        self.inp = Deframer(max(8 + 4 * led_count, 270))
        self.chunk = bytearray(64)
        self.notice = RESTARTS.get(reason, "")
        if error:
            self.notice = "restarted after a firmware error: " + error
        self.started = time.ticks_ms()
        self.healthy = not error
        self.nak_at = time.ticks_add(self.started, -NAK_GAP_MS)
        self.unanswered = 0  # damaged frames not answered since the last report
        # Sensors out of band are said after a further fault_ms: time for every sensor to
        # have left its band if their supply went, so that is said once (FAULT_POWER).
        self.weighing = False
        self.weigh_from = 0
        self.unpowered = False
        self.noise_at = self.started

    # -- sending ----------------------------------------------------------------------------
    def _put16(self, at, value):
        self.out.body[at] = value >> 8
        self.out.body[at + 1] = value & 0xFF

    def _put32(self, at, value):
        body = self.out.body
        body[at] = (value >> 24) & 0xFF
        body[at + 1] = (value >> 16) & 0xFF
        body[at + 2] = (value >> 8) & 0xFF
        body[at + 3] = value & 0xFF

    def _text(self, at, text):
        raw = text.encode()[:255]
        self.out.body[at] = len(raw)
        self.out.body[at + 1 : at + 1 + len(raw)] = raw
        return at + 1 + len(raw)

    def hello(self):
        body = self.out.body
        body[2] = self.protocol
        self._put16(3, self.count)
        self._put16(5, self.leds.count)
        body[7] = self.sensing
        body[8] = self.led_kind
        body[9] = self.buttons.mask
        end = self._text(10, FIRMWARE)
        end = self._text(end, self.board_id)
        self.out.send(HELLO, end - 2)

    def scan(self):
        self._put32(2, self.counter)
        self._put16(6, self.count)
        body = self.out.body
        stable = self.sensors.stable
        at = 8
        for i in range(self.count):
            body[at] = stable[i]
            body[at + 1] = 0
            at += 2
        self.out.send(SCAN, at - 2)
        self.sensors.nchanged = 0  # the scan told them all

    def changes(self):
        sensors = self.sensors
        changed = sensors.changed
        stable = sensors.stable
        body = self.out.body
        done = 0
        while done < sensors.nchanged:
            batch = min(255, sensors.nchanged - done)
            self.counter = (self.counter + 1) & 0xFFFFFFFF
            self._put32(2, self.counter)
            body[6] = batch
            at = 7
            for k in range(done, done + batch):
                index = changed[k]
                body[at] = index >> 8
                body[at + 1] = index & 0xFF
                body[at + 2] = stable[index]
                body[at + 3] = 0
                at += 4
            self.out.send(CHANGE, at - 2)
            done += batch
        sensors.nchanged = 0

    def button_events(self):
        buttons = self.buttons
        body = self.out.body
        for k in range(buttons.nevents):
            event = buttons.events[k]
            self.counter = (self.counter + 1) & 0xFFFFFFFF
            self._put32(2, self.counter)
            body[6] = event >> 1
            body[7] = event & 1
            self.out.send(BUTTON, 6)
        buttons.nevents = 0

    def reply(self, kind, seq, reason=0):
        self.out.body[2] = seq
        if kind == NAK:
            self.out.body[3] = reason
            self.out.send(NAK, 2)
        else:
            self.out.send(kind, 1)

    def fault(self, code, text):
        self.out.body[2] = code
        end = self._text(3, text)
        self.out.send(FAULT, end - 2)

    def sensor_faults(self, now):
        """The sensors' faults: one by one, or, when every sensor leaves its band at once, one
        FAULT_POWER (and one FAULT_POWER_OK when they read again)."""
        sensors = self.sensors
        if sensors.linear and self.count > 1:
            if not self.weighing:
                self.weighing = True
                self.weigh_from = now
                return
            if time.ticks_diff(now, self.weigh_from) < sensors.fault // 1000:
                return
            self.weighing = False
            dark = sensors.all_out()
            if dark != self.unpowered:
                self.unpowered = dark
                if dark:
                    sensors.drop_reports()
                    self.fault(FAULT_POWER, NO_POWER)
                    return
                sensors.powered_again()  # those still out are said one by one, below
                self.fault(FAULT_POWER_OK, "the sensors have power again")
            elif dark:
                sensors.drop_reports()
                return
        while True:
            found = self.sensors.take_fault()
            if found is None:
                return
            index, out, raw, last = found
            self._sensor_fault(index, out, raw, last)

    def _sensor_fault(self, index, out, raw, last):
        if out:
            text = "sensor " + str(index) + ": reads " + str(raw) + " of 65535, outside every band"
            if last:
                text += " (again: no more reports of it until the board restarts)"
            self.fault(FAULT_SENSOR, text)
        else:
            self.fault(FAULT_SENSOR_OK, "sensor " + str(index) + ": reads normally again")

    def notices(self):
        """What a host that just said HOST_HELLO should know: a restart, sensors out of band,
        a board that was never calibrated. The restart is said again to each HOST_HELLO until
        the host goes on to ask for a scan or send LEDs (``heard``): a host that gave up on a
        slow-booting board and reopened the port, or a probe that only listened for HELLO,
        would otherwise take the only telling of it with them."""
        if self.notice:
            self.fault(FAULT_RESTART, self.notice)
        sensors = self.sensors
        if self.unpowered:
            self.fault(FAULT_POWER, NO_POWER)
        else:
            for i in range(self.count):
                if sensors.flags[i] & 1:
                    self._sensor_fault(i, True, sensors.raw[i], False)
        if not sensors.calibrated:
            self.fault(
                FAULT_CALIBRATION,
                "not calibrated: the sensors use default thresholds (hold SELECT while "
                "plugging the board in, with the board empty)",
            )  # fmt: skip

    # -- receiving --------------------------------------------------------------------------
    def receive(self, port):
        """One chunk (64 bytes) of what the host sent. Called after every bank of sensors, so
        a host that never pauses (resending a frame it thinks lost, or a flood) slows the
        board's answers but cannot stop it scanning, reporting and feeding its watchdog: the
        rest waits in the USB buffer for the next turn."""
        count = port.read_into(self.chunk)
        for k in range(count):
            length = self.inp.push(self.chunk[k])
            if length > 0:
                self.handle(length)
            elif length == TOO_LONG:
                self.too_long()
            elif length < 0:
                self.damaged()

    def damaged(self):
        now = time.ticks_ms()
        if time.ticks_diff(now, self.nak_at) >= NAK_GAP_MS:
            self.nak_at = now
            self.reply(NAK, 255, BAD_FRAME)
        else:
            self.unanswered += 1

    def report_noise(self, now):
        """How many damaged frames went unanswered (a bad cable, a wrong baud rate)."""
        if self.unanswered and time.ticks_diff(now, self.noise_at) >= NOISE_REPORT_MS:
            self.fault(FAULT_NOISE, "noise on the line: " + str(self.unanswered)
                       + " damaged frames not answered")  # fmt: skip
            self.unanswered = 0
            self.noise_at = now

    def too_long(self):
        """An intact frame longer than any this board takes: answered by its sequence number,
        an LEDS or LED_DELTA for another number of LEDs as WRONG_SIZE at any length."""
        buf = self.inp.buf
        kind = buf[0]
        if kind == LEDS or (kind == LED_DELTA and self.protocol >= 2):
            reason = WRONG_SIZE if (buf[2] << 8 | buf[3]) != self.leds.count else BAD_PAYLOAD
        elif kind in (HOST_HELLO, SCAN_REQUEST, PING):
            reason = BAD_PAYLOAD
        else:
            reason = UNKNOWN_TYPE
        self.reply(NAK, buf[1], reason)

    def handle(self, length):
        buf = self.inp.buf
        kind = buf[0]
        seq = buf[1]
        size = length - 2  # the payload, from buf[2]
        if kind == HOST_HELLO:
            if size < 2 or buf[3] != size - 2:
                self.reply(NAK, seq, BAD_PAYLOAD)
                return
            self.protocol = max(1, min(2, buf[2]))
            self.hello()
            self.notices()
        elif kind == SCAN_REQUEST:
            self.notice = ""  # heard: only a host that had HELLO (and the notices) asks
            if size:
                self.reply(NAK, seq, BAD_PAYLOAD)
            else:
                self.scan()
        elif kind == PING:
            if size != 2:
                self.reply(NAK, seq, BAD_PAYLOAD)
            else:
                self.out.body[2] = buf[2]
                self.out.body[3] = buf[3]
                self.out.send(PONG, 2)
        elif kind == LEDS:
            self.notice = ""
            count = buf[2] << 8 | buf[3] if size >= 2 else -1
            if count < 0 or size != 2 + 4 * count:
                self.reply(NAK, seq, BAD_PAYLOAD)
            elif count != self.leds.count:
                self.reply(NAK, seq, WRONG_SIZE)
            else:
                self.leds.set_frame(buf, 4)
                self.reply(ACK, seq)
        elif kind == LED_DELTA and self.protocol >= 2:
            self.notice = ""
            self.delta(seq, buf, size)
        else:
            self.reply(NAK, seq, UNKNOWN_TYPE)  # LED_DELTA too, to a host speaking v1

    def delta(self, seq, buf, size):
        if size < 5 or size != 5 + 6 * buf[6]:
            self.reply(NAK, seq, BAD_PAYLOAD)
            return
        count = buf[2] << 8 | buf[3]
        if count != self.leds.count:
            self.reply(NAK, seq, WRONG_SIZE)
            return
        changes = buf[6]
        at = 7
        for _ in range(changes):
            if (buf[at] << 8 | buf[at + 1]) >= count:
                self.reply(NAK, seq, BAD_PAYLOAD)
                return
            at += 6
        if self.leds.apply_delta(buf, 7, changes, buf[4] << 8 | buf[5]):
            self.reply(ACK, seq)
        else:
            self.reply(NAK, seq, MISMATCH)  # keep what is shown; the host sends a whole frame

    # -- the loop ---------------------------------------------------------------------------
    def run(self, port, dog):
        self.out.port = port
        sensors = self.sensors
        sensors.settle(time.ticks_us(), time.ticks_us, hw.pace)
        self.hello()  # unsolicited, at power-on: protocol 1 until a host asks for more
        steps = sensors.steps
        step = 0
        while True:
            dog.feed()
            sensors.scan_step(step, time.ticks_us())
            if sensors.nchanged:  # at once, not at the end of the scan: a scan less late
                self.changes()
            self.receive(port)
            step += 1
            if step < steps:
                continue
            step = 0
            now = time.ticks_ms()
            self.buttons.scan()
            if self.buttons.nevents:
                self.button_events()
            if sensors.pending:
                self.sensor_faults(now)
            if self.unanswered:
                self.report_noise(now)
            self.leds.render(now)
            if not self.healthy and time.ticks_diff(now, self.started) > HEALTHY_MS:
                self.healthy = True
                store.clear_errors()
            hw.pace()
