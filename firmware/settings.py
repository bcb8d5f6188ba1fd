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


def calibration(count):
    """The calibration for ``count`` sensors, or None (none made, or for another board)."""
    try:
        data = _read(CALIBRATION)
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or len(data.get("base") or ()) != count:
        return None
    return data


def save_calibration(data):
    with open(CALIBRATION + ".new", "w") as handle:
        json.dump(data, handle)
    import os

    os.rename(CALIBRATION + ".new", CALIBRATION)


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
