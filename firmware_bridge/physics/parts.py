"""The magnets and sensors a board is built from, as their makers describe them: SI units, each
figure with its source (docs/build-a-board.md, "The magnets and sensors, worked out", lists
them). The physics (field.py) and the checks (check.py) read only these.

A figure a datasheet gives as a range is kept as the end that is worse for the board: the
weakest magnet of a grade, the least sensitive sensor of a variant, the reed that needs the
most field to close and the least to open.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from types import MappingProxyType

MM = 1e-3
MT = 1e-3  # tesla per millitesla

# Sintered NdFeB grades: remanence Br at 20 degC, the grade's lowest (MMPA Standard 0100-00,
# and every maker's grade table since: N35 1.17-1.22 T, N42 1.28-1.32 T, N52 1.42-1.47 T).
GRADES = MappingProxyType(
    {"N35": 1.17, "N38": 1.22, "N42": 1.28, "N45": 1.32, "N48": 1.37, "N50": 1.40, "N52": 1.42}
)
# A reed switch's rating is in ampere-turns of its maker's test coil; the field it takes is,
# as an order of magnitude, 0.1 mT an ampere-turn with the field along the reed from both
# ends, and twice that from one end only (Littelfuse AN102A, "Ampere*turn versus mT and
# Gauss"; a coil's B = mu0 N I / length, e.g. Dexter Magnetic's FAQ). The check averages the
# field along the glass, which gives one-ended drive its due, and asks the margin below.
MT_PER_AT = 0.1
REED_MARGIN = (
    1.25  # the rule's own factor of 2 is common to all three figures of one reed: see docs
)
HALL_MARGIN = 1.25  # sensitivity +-10 % over temperature (DRV5053, DRV5033), Br's spread
LSB_V = 3.3 / 65535  # the firmware's readings: 0-65535 over the ADC's 0-3.3 V


class SensorKind(Enum):
    REED = "reed"
    LINEAR = "linear"  # a linear hall sensor: its output moves with the field
    SWITCH = "switch"  # a hall switch: on past its operate point, off under its release point


@dataclass(frozen=True, slots=True)
class Magnet:
    """A piece's disc magnet, magnetised through its thickness."""

    diameter: float  # m
    thickness: float  # m
    grade: str

    @property
    def remanence(self) -> float:
        return GRADES[self.grade]


@dataclass(frozen=True, slots=True)
class Sensor:
    """A sensor part, with the figures the checks need and where they come from."""

    name: str
    kind: SensorKind
    source: str
    # its body, lying flat under the top with its marked (sensing) face up: thickness,
    # length along the leads, width, and where its element sits below the marked face
    body: tuple[float, float, float]  # m
    element_depth: float  # m
    # a linear hall sensor: output volts per tesla (the sign says which pole raises it, a
    # south pole at the marked face counting as +), at rest, and its output's range
    sensitivity: float = 0.0  # V/T, the least of the variant (by HALL's spread)
    rest: float = 0.0  # V
    output: tuple[float, float] = (0.0, 0.0)  # V
    # a hall switch: operate (on) and release (off) fields, worst ends; a reed: its pull-in
    # and drop-out as ampere-turns, (least, most)
    operate: float = 0.0  # T
    release: float = 0.0  # T
    pull_in_at: tuple[float, float] = (0.0, 0.0)
    drop_out_at: tuple[float, float] = (0.0, 0.0)
    lead_diameter: float = 0.5 * MM

    @property
    def pull_in(self) -> float:
        """The field (T) the least sensitive reed of the rating needs to close."""
        return self.pull_in_at[1] * MT_PER_AT * MT

    @property
    def pull_in_least(self) -> float:
        """The field (T) that closes the most sensitive reed of the rating."""
        return self.pull_in_at[0] * MT_PER_AT * MT

    @property
    def drop_out(self) -> float:
        """The field (T) under which every reed of the rating opens again."""
        return self.drop_out_at[0] * MT_PER_AT * MT


_TO92 = (1.52 * MM, 4.00 * MM, 3.15 * MM)  # TI's LPG: 4.00 x 3.15 mm, 1.52 mm thick
# TI's DRV5053 variants: sensitivity in mV/mT (SLIS153, features), +-10 % over temperature.
DRV5053 = MappingProxyType(
    {"OA": -11.0, "PA": -23.0, "RA": -45.0, "VA": -90.0, "CA": 23.0, "EA": 45.0}
)


def drv5053(variant: str) -> Sensor:
    return Sensor(
        f"drv5053 ({variant})",
        SensorKind.LINEAR,
        "TI DRV5053 datasheet SLIS153: sensitivity by variant, output 0.2-1.8 V, 1.0 V at 0 mT, "
        "TO-92 (LPG) 4.00 x 3.15 mm; its Hall element at the body's middle",
        _TO92,
        0.76 * MM,
        sensitivity=DRV5053[variant] * 0.9,
        rest=1.0,
        output=(0.2, 1.8),
    )


SENSORS = MappingProxyType(
    {
        "reed": Sensor(
            "reed",
            SensorKind.REED,
            "a 14 x 2 mm glass reed rated 10-15 AT pull-in, 5-12 AT drop-out, as sold for "
            "alarm contacts (Littelfuse MDSR-7 class); AT to mT: Littelfuse AN102A",
            (2.0 * MM, 14.0 * MM, 2.0 * MM),
            1.0 * MM,
            pull_in_at=(10.0, 15.0),
            drop_out_at=(5.0, 12.0),
        ),
        "drv5033": Sensor(
            "drv5033",
            SensorKind.SWITCH,
            "TI DRV5033 datasheet SLIS151: FA variant, operate +-3.5 mT, release +-2 mT, "
            "+-10 % over temperature; TO-92 (LPG)",
            _TO92,
            0.76 * MM,
            operate=3.5 * 1.1 * MT,
            release=2.0 * 0.9 * MT,
        ),
        "ss49e": Sensor(
            "ss49e",
            SensorKind.LINEAR,
            "Honeywell SS39ET/SS49E/SS59ET datasheet: 1.4 mV/G at least at 5 V, ratiometric "
            "(so 0.92 mV/G at 3.3 V), VCC/2 at rest, span 0.86-4.21 V at 5 V; 4.0 x 3.0 x 1.6 mm",
            (1.6 * MM, 4.0 * MM, 3.0 * MM),
            0.8 * MM,
            sensitivity=9.2,
            rest=1.65,
            output=(0.57, 2.78),
        ),
    }
)
for _variant in DRV5053:
    SENSORS = MappingProxyType({**SENSORS, f"drv5053-{_variant.lower()}": drv5053(_variant)})


def sensor_named(name: str, variant: str | None = None) -> Sensor:
    """A part by the profile's name (``drv5053`` takes its ``variant``)."""
    if name == "drv5053":
        return drv5053((variant or "RA").upper())
    return SENSORS[name]


def sources_text() -> str:
    """docs/build-a-board.md's list of the figures the physics uses and where each comes from
    (tools/physics_table.py prints it with the table)."""
    lines = [
        "- **magnets**: sintered NdFeB discs magnetised through their thickness; remanence "
        "by grade, the grade's lowest: "
        + ", ".join(f"{grade} {br:g} T" for grade, br in GRADES.items())
        + " (MMPA Standard 0100-00)",
        f"- **reed ratings to field**: {MT_PER_AT:g} mT an ampere-turn (Littelfuse AN102A); a "
        f"reed must see its rating's most x{REED_MARGIN:g}, and a lifted piece less than its "
        f"drop-out's least /{REED_MARGIN:g}",
        f"- **hall sensors**: the figure a piece must give is the sensor's need x{HALL_MARGIN:g} "
        "(sensitivity +-10 % over temperature, and the magnets' spread)",
    ]
    seen = set()
    for sensor in SENSORS.values():
        key = sensor.source
        if key in seen:
            continue
        seen.add(key)
        if sensor.name.startswith("drv5053"):
            variants = ", ".join(f"{v} {mv:+g}" for v, mv in DRV5053.items())
            lines.append(f"- **drv5053**: {sensor.source}; mV/mT by variant: {variants} (the "
                         "least of each, x0.9, is used)")  # fmt: skip
        else:
            lines.append(f"- **{sensor.name}**: {sensor.source}")
    return "\n".join(lines) + "\n"
