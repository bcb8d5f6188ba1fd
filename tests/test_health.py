"""Sensors going bad during play: the tracker names the cell, and lets players' hands be."""

from __future__ import annotations

from firmware_bridge.referee.health import FLAP_COUNT, PHANTOM_AFTER, QUIET_AFTER, SensorHealth

NAMES = ("a1", "b1", "c1")


def test_a_sensor_changing_again_and_again_is_flapping_until_it_is_quiet() -> None:
    health = SensorHealth(NAMES)
    now = 0.0
    for k in range(FLAP_COUNT - 1):
        now += 0.5
        health.observe({} if k % 2 else {1: True}, {1: True} if k % 2 else {}, now)
    assert health.warnings() == ()
    assert health.observe({}, {1: True}, now + 0.5)  # the one too many
    (warning,) = health.warnings()
    assert (warning.cell, warning.kind) == ("b1", "flapping") and "b1" in warning.text
    assert not health.tick(now + QUIET_AFTER - 1)
    assert health.tick(now + 0.5 + QUIET_AFTER)  # quiet for a minute: over
    assert health.warnings() == ()


def test_moves_made_on_a_cell_are_hands_not_a_bad_sensor() -> None:
    health = SensorHealth(NAMES)
    for k in range(FLAP_COUNT - 1):
        health.observe({} if k % 2 else {1: True}, {1: True} if k % 2 else {}, k * 0.5)
    health.moved([1])
    health.observe({}, {1: True}, 10.0)
    assert health.warnings() == ()


def test_a_cell_asked_to_be_cleared_for_long_is_named_until_it_is_clear() -> None:
    health = SensorHealth(NAMES)
    assert not health.asked_to_clear([2], 0.0)
    assert not health.tick(PHANTOM_AFTER - 0.1)
    assert health.tick(PHANTOM_AFTER)
    (warning,) = health.warnings()
    assert (warning.cell, warning.kind) == ("c1", "phantom")
    assert "its sensor is stuck" in warning.text
    assert health.asked_to_clear([], PHANTOM_AFTER + 1)  # the piece came off: nothing to say
    assert health.warnings() == ()
