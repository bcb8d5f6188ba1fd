"""Write docs/protocol-vectors.json: frames of every message type as bytes on the wire.

The host's codec (firmware_bridge/link/protocol.py) and the Pico firmware's (firmware/codec.py and
the message builders in firmware/referee.py) are separate code, in CPython and MicroPython.
Both are held to these bytes by the tests (tests/test_protocol_vectors.py runs the firmware's
side in MicroPython), and anyone writing firmware of their own can check theirs against them.
Run ``python tools/protocol_vectors.py`` after a deliberate change to the protocol.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from firmware_bridge.link import cobs  # noqa: E402
from firmware_bridge.link.crc import crc16  # noqa: E402
from firmware_bridge.link.protocol import (  # noqa: E402
    Ack,
    Button,
    ButtonEvent,
    Change,
    Fault,
    Hello,
    HostHello,
    LedDelta,
    LedKind,
    LedPattern,
    Leds,
    Message,
    Nak,
    NakReason,
    Ping,
    Pong,
    Reading,
    Scan,
    ScanRequest,
    Sensing,
    encode_frame,
    led_delta,
)

PATH = ROOT / "docs" / "protocol-vectors.json"


def _frame(message: Message, seq: int, fields: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": message.NAME,
        "seq": seq,
        "fields": fields,
        "wire": encode_frame(message, seq).hex(),
    }


def vectors() -> dict[str, Any]:
    crc = [
        {"data": data.hex(), "crc": crc16(data)}
        for data in (b"123456789", b"", b"\x00", b"\xff" * 40, bytes(range(256)))
    ]
    cobs_cases = [
        b"",
        b"\x00",
        b"\x00\x00",
        b"\x11\x22\x00\x33",
        bytes(range(1, 255)),
        bytes(range(1, 256)),
        bytes(range(256)) * 2,
    ]
    frames = []
    buttons = frozenset(Button)
    for protocol, board_id in ((1, "pico-e6614103e7452d2f"), (2, "table-1")):
        hello = Hello(
            protocol,
            77,
            77,
            Sensing.OWNER,
            LedKind.RGB,
            buttons,
            "board-referee-pico 1.0",
            board_id,
        )
        frames.append(
            _frame(
                hello,
                0 if protocol == 1 else 2,
                {
                    "protocol": protocol,
                    "sensors": 77,
                    "leds": 77,
                    "sensing": 1,
                    "led_kind": 2,
                    "buttons": 15,
                    "firmware": "board-referee-pico 1.0",
                    "board_id": board_id,
                },
            )
        )
    codes = [0, 2, 3, 0, 0, 1, 2] * 11
    frames.append(
        _frame(Scan(5, tuple(Reading(c) for c in codes)), 7, {"counter": 5, "codes": codes})
    )
    big = [1 + (i % 3) for i in range(300)]  # no zero byte for 600 bytes: COBS's long blocks
    frames.append(
        _frame(
            Scan(0x01020304, tuple(Reading(c) for c in big)),
            255,
            {"counter": 0x01020304, "codes": big},
        )
    )
    changes = [(3, 2), (70, 0), (76, 3)]
    frames.append(
        _frame(
            Change(9, tuple((s, Reading(c)) for s, c in changes)),
            8,
            {"counter": 9, "changes": changes},
        )
    )
    frames.append(
        _frame(
            ButtonEvent(10, Button.TAKEBACK, True), 9, {"counter": 10, "button": 2, "pressed": 1}
        )
    )
    frames.append(_frame(Ack(200), 10, {"seq": 200}))
    for reason in NakReason:
        seq = 255 if reason is NakReason.BAD_FRAME else 12
        frames.append(_frame(Nak(seq, reason), 11 + reason, {"seq": seq, "reason": int(reason)}))
    frames.append(
        _frame(
            Fault(1, "sensor 12: reads 105 of 65535, outside every band"),
            20,
            {"code": 1, "text": "sensor 12: reads 105 of 65535, outside every band"},
        )
    )
    frames.append(_frame(Pong(0xBEEF), 21, {"token": 0xBEEF}))
    frames.append(_frame(HostHello(2, "referee"), 0, {"protocol": 2, "host": "referee"}))
    frames.append(_frame(ScanRequest(), 1, {}))
    frames.append(_frame(Ping(0x0102), 2, {"token": 0x0102}))
    lit = tuple(
        LedPattern(0, 255, 0, 0xFF) if i % 7 == 0 else LedPattern(0, 0, 0, 0) for i in range(77)
    )
    frames.append(_frame(Leds(lit), 3, {"leds": [list(led) for led in lit]}))
    want = tuple(LedPattern(255, 0, 0, 0xA0) if i in (5, 9) else led for i, led in enumerate(lit))
    delta = led_delta(want, [lit])
    assert isinstance(delta, LedDelta)
    frames.append(
        _frame(
            delta,
            4,
            {
                "count": 77,
                "crc": delta.crc,
                "changes": [[i, list(led)] for i, led in delta.changes],
                "before": [list(led) for led in lit],
            },
        )
    )
    return {
        "about": "Board Referee protocol 2 (docs/protocol.md): CRC-16/CCITT-FALSE, COBS, and "
        "frames of every message as hex bytes on the wire, 0x00 delimiter included. Written "
        "by tools/protocol_vectors.py from the host's codec; the firmware is tested against it.",
        "crc16": crc,
        "cobs": [{"raw": raw.hex(), "encoded": cobs.encode(raw).hex()} for raw in cobs_cases],
        "frames": frames,
    }


def text() -> str:
    return json.dumps(vectors(), indent=1) + "\n"


def main() -> int:
    PATH.write_text(text(), encoding="utf-8")
    print(f"wrote {PATH.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
