"""The LED vocabulary: what each cell's light tells the players (table: docs/leds.md).

Every signal has its own colour *and* its own blink rhythm, so it reads without colour vision.
Patterns are 8-step masks, bit 7 first, 125 ms a step: the firmware plays them in a loop.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import Enum

from engine import Cell
from firmware_bridge.link.profile import BoardProfile
from firmware_bridge.link.protocol import LED_OFF, LedKind, LedPattern, Leds


class Signal(Enum):
    MOVE_TO = "move_to"  # put the piece you are moving here (consequence of a move)
    MOVE_FROM = "move_from"  # take the piece from here (to a cell showing MOVE_TO)
    REMOVE = "remove"  # take this piece off the board (it was captured)
    PUT_BACK = "put_back"  # a piece belongs here: put it (back)
    ILLEGAL = "illegal"  # this piece must not be here: take it away (illegal move, knock)
    CHOOSE = "choose"  # a cell of one of the options of a choice you must make
    ADJUST = "adjust"  # change this piece where it stands (turn the die)
    HINT = "hint"  # a legal destination for the piece you are holding
    HELD = "held"  # this piece may not move now (stuck, immobilised): state no sensor sees
    CHARGED = "charged"  # this piece carries momentum into its next move (a charge)
    REFUSED = "refused"  # the button just pressed does nothing now (a brief flash)
    FLAG = "flag"  # this side's time ran out: its pieces, until the next game or a take-back


VOCABULARY: Mapping[Signal, LedPattern] = {
    Signal.MOVE_TO: LedPattern(0, 255, 0, 0xFF),  # green, steady
    Signal.MOVE_FROM: LedPattern(255, 160, 0, 0xF0),  # amber, slow blink (1 Hz)
    Signal.REMOVE: LedPattern(255, 0, 0, 0xA0),  # red, double flash
    Signal.PUT_BACK: LedPattern(0, 80, 255, 0xCC),  # blue, 2 Hz blink
    Signal.ILLEGAL: LedPattern(255, 0, 255, 0xAA),  # magenta, fast blink (4 Hz)
    Signal.CHOOSE: LedPattern(0, 255, 255, 0xA8),  # cyan, triple flash
    Signal.ADJUST: LedPattern(255, 255, 255, 0x80),  # white, one short blip
    Signal.HINT: LedPattern(0, 40, 0, 0xFF),  # dim green, steady
    Signal.HELD: LedPattern(60, 0, 0, 0xFE),  # dim red, on with a short gap (not hint's)
    Signal.CHARGED: LedPattern(60, 30, 0, 0xF8),  # dim amber, long on, short off
    Signal.REFUSED: LedPattern(255, 40, 0, 0xE0),  # orange-red, one long flash
    Signal.FLAG: LedPattern(255, 0, 0, 0xEE),  # red, long flashes (2 Hz): mono boards by rhythm
}

TAGS: Mapping[Signal, str] = {
    Signal.MOVE_TO: "TO",
    Signal.MOVE_FROM: "FR",
    Signal.REMOVE: "RM",
    Signal.PUT_BACK: "PB",
    Signal.ILLEGAL: "!!",
    Signal.CHOOSE: "??",
    Signal.ADJUST: "AD",
    Signal.HINT: "..",
    Signal.HELD: "==",
    Signal.CHARGED: ">>",
    Signal.REFUSED: "NO",
    Signal.FLAG: "TM",
}


# Lights that help and ask nothing of the hands: dim, and a player may go on without them.
HELP = frozenset({Signal.HINT, Signal.HELD, Signal.CHARGED})


def pattern_for(signal: Signal, led_kind: LedKind) -> LedPattern:
    led = VOCABULARY[signal]
    if led_kind is LedKind.MONO:  # one colour: brightness only, the rhythm carries the meaning
        level = 60 if signal in HELP else 255
        return LedPattern(level, level, level, led.pattern)
    return led


def led_frame(signals: Mapping[Cell, Signal], profile: BoardProfile) -> Leds:
    """The whole-board LED frame for ``signals`` in the profile's LED order."""
    leds = [LED_OFF] * len(profile.led_cells)
    for cell, signal in signals.items():
        index = profile.led_of.get(cell)
        if index is not None:
            leds[index] = pattern_for(signal, profile.led_kind)
    return Leds(tuple(leds))


def signals_from_frame(frame: Leds, profile: BoardProfile) -> dict[Cell, Signal]:
    """What a player reads off the board's LEDs (the emulator's view of an LED frame)."""
    by_look = {pattern_for(s, profile.led_kind): s for s in Signal}
    signals: dict[Cell, Signal] = {}
    for index, led in enumerate(frame.leds):
        if index >= len(profile.led_cells) or led == LED_OFF:
            continue
        cell = profile.led_cells[index]
        signal = by_look.get(led)
        if cell is not None and signal is not None:
            signals[cell] = signal
    return signals
