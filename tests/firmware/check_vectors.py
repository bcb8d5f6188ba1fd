"""MicroPython: the firmware's codec and message builders against docs/protocol-vectors.json.

Run by tests/test_protocol_vectors.py in MicroPython's Unix port, in a folder holding the
firmware (with the host's hardware layer) and a board.json of 77 owner sensors and 77 RGB LEDs,
the board the vectors describe. Prints one line a mismatch and exits 1 if there is any.
"""

import json
import sys

from codec import Deframer, Framer, cobs_decode, cobs_encode, crc16
from referee import ACK, NAK, PONG, Referee

failures = []


def check(what, ok):
    if not ok:
        failures.append(what)
        print("MISMATCH", what)


class Capture:
    def __init__(self):
        self.last = b""

    def write(self, data):
        self.last = bytes(data)


with open(sys.argv[1]) as handle:
    vectors = json.load(handle)

for case in vectors["crc16"]:
    data = bytes.fromhex(case["data"])
    check("crc16 of " + case["data"][:16], crc16(data, 0, len(data)) == case["crc"])

for case in vectors["cobs"]:
    raw = bytes.fromhex(case["raw"])
    encoded = bytes.fromhex(case["encoded"])
    out = bytearray(len(raw) + len(raw) // 254 + 3)
    size = cobs_encode(raw, len(raw), out)
    check("cobs encode " + case["raw"][:16], bytes(out[:size]) == encoded + b"\x00")
    back = bytearray(encoded)
    length = cobs_decode(back, len(encoded))
    check("cobs decode " + case["raw"][:16], length == len(raw) and bytes(back[:length]) == raw)

with open("board.json") as handle:
    config = json.load(handle)
board = Referee(config, None, "power")
port = Capture()
board.out.port = port

for case in vectors["frames"]:
    kind = case["type"]
    fields = case["fields"]
    wire = bytes.fromhex(case["wire"])
    board.out.seq = case["seq"]
    label = kind + " seq " + str(case["seq"])
    if kind == "HELLO":
        board.protocol = fields["protocol"]
        board.board_id = fields["board_id"]
        board.hello()
    elif kind == "SCAN" and len(fields["codes"]) == board.count:
        board.counter = fields["counter"]
        for i, code in enumerate(fields["codes"]):
            board.sensors.stable[i] = code
        board.scan()
    elif kind == "SCAN":  # a board larger than this one: the codec alone
        codes = fields["codes"]
        framer = Framer(8 + 2 * len(codes), port)
        framer.seq = case["seq"]
        counter = fields["counter"]
        body = framer.body
        body[2:6] = bytes(
            ((counter >> 24) & 255, (counter >> 16) & 255, (counter >> 8) & 255, counter & 255)
        )
        body[6] = len(codes) >> 8
        body[7] = len(codes) & 255
        for i, code in enumerate(codes):
            body[8 + 2 * i] = code
            body[9 + 2 * i] = 0
        framer.send(0x02, 6 + 2 * len(codes))
    elif kind == "CHANGE":
        board.counter = fields["counter"] - 1
        for k, (sensor, code) in enumerate(fields["changes"]):
            board.sensors.stable[sensor] = code
            board.sensors.changed[k] = sensor
        board.sensors.nchanged = len(fields["changes"])
        board.changes()
    elif kind == "BUTTON":
        board.counter = fields["counter"] - 1
        board.buttons.events[0] = fields["button"] << 1 | fields["pressed"]
        board.buttons.nevents = 1
        board.button_events()
    elif kind == "ACK":
        board.reply(ACK, fields["seq"])
    elif kind == "NAK":
        board.reply(NAK, fields["seq"], fields["reason"])
    elif kind == "FAULT":
        board.fault(fields["code"], fields["text"])
    elif kind == "PONG":
        board.out.body[2] = fields["token"] >> 8
        board.out.body[3] = fields["token"] & 255
        board.out.send(PONG, 2)
    else:  # a host frame: the firmware must decode it to these bytes, and act on it
        deframer = Deframer(len(wire) + 8)
        length = 0
        for byte in wire:
            length = deframer.push(byte) or length
        check(label + " decodes", length > 0 and deframer.buf[1] == case["seq"])
        if kind == "LED_DELTA":
            for i, led in enumerate(fields["before"]):
                board.frame[4 * i : 4 * i + 4] = bytes(led)
            board.protocol = 2
            board.inp = deframer
            board.handle(length)
            after = bytearray(board.frame)
            for index, led in fields["changes"]:
                check(
                    label + " LED " + str(index),
                    bytes(after[4 * index : 4 * index + 4]) == bytes(led),
                )
            reply = bytearray(port.last[:-1])
            size = cobs_decode(reply, len(reply))
            check(
                label + " acknowledged", size == 5 and reply[0] == ACK and reply[2] == case["seq"]
            )
        continue
    check(label + " bytes", port.last == wire)

print("checked", len(vectors["frames"]), "frames,", len(failures), "mismatches")
sys.exit(1 if failures else 0)
