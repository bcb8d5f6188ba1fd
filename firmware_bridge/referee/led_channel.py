"""The board's LEDs, from the referee's side: the frame it wants shown, the frame in flight
(sent again, with backoff, until acknowledged) and the frame the board acknowledged, against
which an LED_DELTA is built (docs/protocol.md, "Protocol 2").

The daemon decides what the LEDs must say and when the link can carry a frame; this holds
what is on its way and what the board shows, so a late ACK, a NAK or a reconnect each leave
one clear next step. Pure: no I/O, no clock (the daemon passes ``now``).
"""

from __future__ import annotations

from dataclasses import dataclass

from firmware_bridge.link.leds import led_frame
from firmware_bridge.link.profile import BoardProfile
from firmware_bridge.link.protocol import Leds, Message, led_delta

LED_RETRY = 0.25  # an LED frame not acknowledged is sent again after this, then twice as
LED_RETRY_MAX = 2.0  # long each time up to this: a board slow to answer is not flooded
SENT_KEPT = 64  # LED frames remembered by sequence number, for an acknowledgement that is late


@dataclass
class Pending:
    seq: int
    frame: Leds
    sent: float
    retries: int = 0

    @property
    def due(self) -> float:
        """When to send it again, unless acknowledged."""
        return self.sent + min(LED_RETRY * (1 << min(self.retries, 8)), LED_RETRY_MAX)


class LedChannel:
    def __init__(self, profile: BoardProfile) -> None:
        self.want: Leds = led_frame({}, profile)
        self.pending: Pending | None = None
        self.acked: Leds | None = None  # what the board showed last it said (None: unknown)
        self.sent: dict[int, Leds] = {}  # seq -> the frame it carried (ACK -> shown)

    def forget(self, profile: BoardProfile | None = None) -> None:
        """A new link, or (``profile``) a new board: what it shows is unknown; with a new
        profile the wanted frame is that board's (a frame of the old size would be refused)."""
        if profile is not None:
            self.want = led_frame({}, profile)
        self.acked = self.pending = None
        self.sent.clear()

    def unknown(self) -> None:
        """The board may show anything (it said HELLO): the next frame is a whole one."""
        self.acked = None

    def wanted(self, frame: Leds) -> bool:
        """Want ``frame`` shown; True if that is news (a frame to send)."""
        if frame == self.want:
            return False
        self.want = frame
        return True

    def message(self, deltas: bool) -> Message:
        """What to send for the wanted frame: an LED_DELTA of the LEDs that change when the
        board takes deltas and what it shows is known (acknowledged, or the frame in flight),
        else the whole frame."""
        if deltas and self.acked is not None:
            shown = [self.acked.leds]
            if self.pending is not None:
                shown.append(self.pending.frame.leds)
            delta = led_delta(self.want.leds, shown)
            if delta is not None:
                return delta
        return self.want

    def sent_as(self, seq: int | None, now: float) -> None:
        """The wanted frame went out as frame ``seq`` (None: the link took nothing)."""
        if seq is None:
            self.pending = None
            return
        last = self.pending
        retries = last.retries + 1 if last is not None and last.frame == self.want else 0
        self.pending = Pending(seq, self.want, now, retries)
        self.sent.pop(seq, None)
        self.sent[seq] = self.want
        while len(self.sent) > SENT_KEPT:
            del self.sent[next(iter(self.sent))]

    def acknowledged(self, seq: int) -> bool:
        """The board shows the frame ``seq`` carried, however late the ACK (a board slower to
        answer than LED_RETRY acknowledges an earlier copy). True: send the wanted frame."""
        shown = self.sent.pop(seq, None)
        if shown is None:
            return False
        self.acked = shown
        if self.pending is not None and shown == self.pending.frame:
            self.pending = None
        return self.pending is None and self.acked != self.want

    def refused(self) -> bool:
        """A NAK: what the board shows is unknown. True: send a whole frame now."""
        if self.pending is None:
            return False
        self.acked = None
        return True

    def due(self) -> float | None:
        """When the frame in flight is to be sent again (None: nothing in flight)."""
        return None if self.pending is None else self.pending.due
