"""What the Pico knows of its board: board.json (written by ``board-referee firmware config``
from the board's hardware profile) and calibration.json (written by the board's own
calibration, see calibrate.py). Both live in the Pico's flash beside the firmware."""

import json

CONFIG = "board.json"
CALIBRATION = "calibration.json"
ERRORS = "error.log"
FORMAT = 1


class SettingsError(Exception):
    pass


def _read(name):
    with open(name) as handle:
        return json.load(handle)


def load():
    try:
        settings = _read(CONFIG)
    except OSError:
        raise SettingsError(
            "no " + CONFIG + ": install it with board-referee firmware flash"
        ) from None
    except ValueError:
        raise SettingsError(CONFIG + " is not valid JSON") from None
    if not isinstance(settings, dict) or settings.get("format") != FORMAT:
        raise SettingsError(CONFIG + " is not format " + str(FORMAT) + ": write it again")
    for key in ("sensing", "sensors", "leds", "buttons"):
        if key not in settings:
            raise SettingsError(CONFIG + " has no " + key)
    return settings


def read_calibration(base):
    """Each sensor's resting reading from calibration.json into ``base`` (an array as long as
    the board has sensors); False if there is none, or it is for another board.

    Read in 128-byte pieces, the numbers parsed as they come: the file of a 300-cell board is
    about 2 KB as text and 4 KB as parsed JSON, one allocation that failed in a heap with
    room to spare for everything else (the board started in 78 KB, not in 80, again in 82)."""
    try:
        handle = open(CALIBRATION, "rb")
    except OSError:
        return False
    piece = bytearray(128)
    key = b'"base"'
    matched = 0  # bytes of the key seen so far, then 6 once found
    inside = False  # within the list of numbers
    value = -1  # the number being read (-1: none yet)
    count = 0
    try:
        while True:
            size = handle.readinto(piece)
            if not size:
                return False
            for k in range(size):
                byte = piece[k]
                if inside:
                    if 48 <= byte <= 57:
                        value = (0 if value < 0 else value * 10) + byte - 48
                        if value > 65535:
                            return False
                    elif byte in b",]":
                        if value >= 0:
                            if count >= len(base):
                                return False
                            base[count] = value
                            count += 1
                            value = -1
                        if byte == 93:
                            return count == len(base)
                    elif byte not in b" \t\r\n":
                        return False
                elif matched < 6:
                    matched = matched + 1 if byte == key[matched] else (1 if byte == 34 else 0)
                elif byte == 91:  # [
                    inside = True
                elif byte not in b" \t\r\n:":
                    matched = 0
    finally:
        handle.close()


def errors():
    """(consecutive error restarts, the last error's text) from error.log."""
    try:
        with open(ERRORS) as handle:
            lines = handle.read().split("\n")
        return int(lines[0]), lines[1] if len(lines) > 1 else ""
    except (OSError, ValueError):
        return 0, ""


def record_error(text):
    count, _ = errors()
    with open(ERRORS, "w") as handle:
        handle.write(str(count + 1) + "\n" + text + "\n")


def clear_errors():
    import os

    try:
        os.remove(ERRORS)
    except OSError:
        pass
