"""The firmware's budgets, measured where it runs: on a Pico (``board-referee firmware bench``
runs this file there with mpremote, the board in maintenance mode) or in MicroPython's Unix
port (``python tools/bench_firmware.py``).

It builds the board of this Pico's board.json, then times what the loop does and counts what
it keeps: the heap the board holds, the bytes one refereeing loop allocates (its garbage), the
time to send a SCAN of every sensor, to apply an LED_DELTA, and to read one sensor. Each figure
is a line ``name value unit``.
"""

import gc

gc.collect()
START = gc.mem_alloc()  # before the firmware's modules are loaded
import hw  # noqa: E402  (its own share is told apart: a Pico's hw.py is the smallest)

gc.collect()
HARDWARE = gc.mem_alloc() - START
import time  # noqa: E402

import settings as store  # noqa: E402
from codec import cobs_encode, crc16, zeros  # noqa: E402
from referee import HOST_HELLO, LED_DELTA, LEDS, PING, SCAN_REQUEST, Referee  # noqa: E402

gc.collect()
MODULES = gc.mem_alloc() - START - HARDWARE


class _Line:
    """A serial port for the benchmark: what the host 'sends' is read from ``incoming`` up to
    ``limit`` (the loop moves it on); what the board sends is counted and dropped."""

    def __init__(self):
        self.incoming = bytearray()
        self.at = 0
        self.limit = 0
        self.sent = 0

    def read_into(self, buf):
        count = min(len(buf), self.limit - self.at)
        for k in range(count):
            buf[k] = self.incoming[self.at + k]
        self.at += count
        return count

    def write(self, data):
        self.sent += len(data)


def _host_frame(line, kind, payload, seq):
    """A host frame onto ``line.incoming``, encoded by the firmware's own codec."""
    body = bytearray(2 + len(payload) + 2)
    body[0] = kind
    body[1] = seq & 0xFF
    body[2 : 2 + len(payload)] = payload
    crc = crc16(body, 0, 2 + len(payload))
    body[-2] = crc >> 8
    body[-1] = crc & 0xFF
    wire = bytearray(len(body) + len(body) // 254 + 3)
    size = cobs_encode(body, len(body), wire)
    line.incoming += wire[:size]


def _delta(board, first, changes, colour):
    """An LED_DELTA payload: ``changes`` LEDs from ``first`` set to ``colour``, with the CRC of
    the frame that results."""
    count = board.leds.count
    frame = bytearray(board.frame)
    payload = bytearray(5 + 6 * changes)
    payload[0] = count >> 8
    payload[1] = count & 0xFF
    payload[4] = changes
    for k in range(changes):
        index = (first + k) % count
        at = 5 + 6 * k
        payload[at] = index >> 8
        payload[at + 1] = index & 0xFF
        payload[at + 2 : at + 6] = bytes(colour)
        frame[4 * index : 4 * index + 4] = bytes(colour)
    crc = crc16(frame, 0, 4 * count)
    payload[2] = crc >> 8
    payload[3] = crc & 0xFF
    return payload


def _per_call_us(action, rounds):
    start = time.ticks_us()
    for _ in range(rounds):
        action()
    return time.ticks_diff(time.ticks_us(), start) / rounds


def _say(name, value, unit):
    print(name, value if isinstance(value, int) else "%.1f" % value, unit)


def run(rounds=200, loops=2000):
    gc.collect()
    before = gc.mem_alloc()
    config = store.load()
    board = Referee(config, None, "power")
    base = zeros("H", board.count)  # read as start.py reads it: in pieces
    if board.sensors.linear and store.read_calibration(base):
        board.sensors.calibrate(base)
    del base
    line = _Line()
    board.out.port = line
    board.sensors.leds = None  # as start.py does once the board is set up
    del config
    gc.collect()
    held = gc.mem_alloc() - before
    count = board.count
    _say("sensors", count, "")
    _say("leds", board.leds.count, "")
    _say("heap_hw_layer", HARDWARE, "bytes")
    _say("heap_modules", MODULES, "bytes")
    _say("heap_board", held, "bytes")

    _say("scan_send", _per_call_us(board.scan, rounds), "us")
    if board.leds.count:
        one = _delta(board, 0, 10, (0, 255, 0, 0xFF))
        two = _delta(board, 0, 10, (255, 0, 0, 0xA0))
        flip = [False]

        def apply():
            flip[0] = not flip[0]
            payload = one if flip[0] else two
            board.leds.apply_delta(payload, 5, 10, payload[2] << 8 | payload[3])

        _say("led_delta_apply_10", _per_call_us(apply, rounds), "us")

        def draw():
            board.leds.drawn = -1  # drawn in full, as at a new frame or a changing blink step
            board.leds.render(0)

        _say("led_render", _per_call_us(draw, rounds), "us")
    sensors = board.sensors
    sensors.settle(time.ticks_us(), time.ticks_us, hw.pace)  # as at power-on: the quiet bands
    now = time.ticks_us()

    def whole_scan():
        for step in range(sensors.steps):
            sensors.scan_step(step, now)

    _say("sensor_read", _per_call_us(whole_scan, max(1, rounds // 10)) / count, "us/cell")

    # Refereeing: the loop as it runs, with a host talking to it and the LEDs changing. The
    # host's frames are made beforehand, so what the loop allocates is the firmware's alone.
    seq = 0
    _host_frame(line, HOST_HELLO, b"\x02\x05bench", seq)
    _host_frame(line, SCAN_REQUEST, b"", seq + 1)
    seq = 2
    if board.leds.count:
        whole = bytearray(2 + 4 * board.leds.count)
        whole[0] = board.leds.count >> 8
        whole[1] = board.leds.count & 0xFF
        _host_frame(line, LEDS, whole, seq)
        seq += 1
    marks = [len(line.incoming)]
    for loop in range(50, loops, 50):
        if board.leds.count and loop % 100 == 0:
            colour = (0, 255, 0, 0xFF) if loop % 200 else (255, 0, 0, 0xA0)
            _host_frame(line, LED_DELTA, _delta(board, loop, 8, colour), seq)
        else:
            _host_frame(line, PING, bytes((loop >> 8 & 0xFF, loop & 0xFF)), seq)
        seq += 1
        marks.append(len(line.incoming))
    port = line
    gc.collect()
    start_heap = gc.mem_alloc()
    peak = start_heap
    started = time.ticks_ms()
    for loop in range(loops):
        if loop % 50 == 0 and loop // 50 < len(marks):
            line.limit = marks[loop // 50]  # the host's next frame arrives
        now = time.ticks_ms()
        for step in range(sensors.steps):
            sensors.scan_step(step, time.ticks_us())
            board.receive(port)
        board.buttons.scan()
        if sensors.nchanged:
            board.changes()
        board.leds.render(now)
        peak = max(peak, gc.mem_alloc())
    elapsed = time.ticks_diff(time.ticks_ms(), started)
    garbage = gc.mem_alloc() - start_heap
    _say("loop_ms", elapsed / loops, "ms")
    _say("loop_garbage", garbage / loops, "bytes/loop")
    gc.collect()
    _say("heap_after", gc.mem_alloc() - START, "bytes")
    _say("heap_peak", peak - START, "bytes")
    _say("heap_free", gc.mem_free(), "bytes")
    total = gc.mem_free() + gc.mem_alloc()
    _say("heap_total", total, "bytes")
    _say("heap_low_free", total - peak, "bytes")  # the low-water mark while refereeing
    _say("sent", line.sent, "bytes")


if __name__ == "__main__":
    run()
