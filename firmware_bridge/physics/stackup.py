"""How a board is built, from the piece's magnet down to the sensor: a profile's ``build:``
section (every key has a default: the guide's board), and every distance worked out from it.

Heights are taken with the playing surface's top at z = 0, up positive, in metres:

- the magnet sits in the piece's base, ``base_mm`` of the base's material under it, so its
  lower face is at z = base and its centre at base + thickness / 2;
- the top is ``top_mm`` thick: its underside is at z = -top;
- a hall sensor lies flat, its marked face up, under the cell's centre: against the top's
  underside (``mount: under-top``), its element at z = -top - element_depth; or on the base
  board at the bottom of the cavity, its leads through it (``mount: on-base``), its element at
  z = -top - cavity + thickness - element_depth. Deeper, it sees a weaker field, but one that
  keeps its sign across the whole cell: close under a small magnet the field through the
  sensor's face falls to nothing at about 1.4 times its depth off the centre, inside a cell
  a piece can stand anywhere in;
- a reed lies flat against the underside along the row (``mount: flat``, one end of its glass
  under the cell's centre, where a flat reed's drive is not cancelled by its other half), or
  stands upright under the centre (``mount: upright``). A reed's leads cannot be bent at the
  glass without cracking it: each is bent ``lead_bend_mm`` from it, so an upright reed's glass
  starts that far under the top, and needs that much again below it, and the lead's own
  thickness to turn, inside the battens' ``cavity_mm``.

A stack-up that does not fit is refused with the figures and what would fit.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from engine import ConfigError
from engine.config import Node
from firmware_bridge.link.profile import BoardProfile
from firmware_bridge.link.protocol import Sensing
from firmware_bridge.physics.parts import GRADES, MM, Magnet, Sensor, SensorKind, sensor_named

SHAPES = ("square", "hex", "diamond", "point")


class Mount(Enum):
    FLAT = "flat"  # a reed along the row, one end of the glass under the cell's centre
    FLAT_CENTRED = "flat-centred"  # a reed centred under the cell (a dead spot: refused)
    UPRIGHT = "upright"  # a reed standing under the cell's centre
    UNDER_TOP = "under-top"  # a hall sensor flat against the top's underside
    ON_BASE = "on-base"  # a hall sensor flat on the base board, at the cavity's bottom


@dataclass(frozen=True, slots=True)
class Stackup:
    """A board's build, in metres (a profile's ``build:``, with the guide's defaults)."""

    cell: float  # the distance between two neighbouring cells' centres
    top: float  # the playing surface's thickness
    cavity: float  # the room under the top, between the battens
    piece_diameter: float  # the largest piece's footprint
    base: float  # the piece's base material under its magnet
    magnet: Magnet
    sensor: Sensor
    mount: Mount
    lead_bend: float  # a reed's or a sensor's leads bent this far from its body
    led_offset: float  # the LED's centre from the cell's centre (towards a corner)
    led_size: float  # the LED's side: a 5 x 5 mm WS2812B, or a 2 x 2 mm WS2812B-2020
    lift: float  # a piece held this far above the top (clear of the pieces around) is off it
    where: str  # the profile's file, for the messages

    @property
    def magnet_centre(self) -> float:
        return self.base + self.magnet.thickness / 2

    @property
    def element_z(self) -> float:
        """A hall sensor's element, or a flat reed's axis."""
        if self.sensor.kind is SensorKind.REED:
            return -self.top - self.sensor.body[2] / 2
        if self.mount is Mount.ON_BASE:
            return -self.top - self.cavity + self.sensor.body[0] - self.sensor.element_depth
        return -self.top - self.sensor.element_depth

    @property
    def reed_span(self) -> tuple[float, float]:
        """An upright reed's glass: (top, bottom) z."""
        top = -self.top - self.lead_bend
        return top, top - self.sensor.body[1]

    @property
    def reach(self) -> float:
        """How far off its cell's centre a piece may stand and still be in its cell: the
        largest piece wholly inside, and never less than the guide's 5 mm."""
        return max((self.cell - self.piece_diameter) / 2, 5 * MM)

    def height_needed(self) -> float:
        """The room the sensor takes under the top, its leads turned down to the wiring."""
        sensor = self.sensor
        if sensor.kind is SensorKind.REED and self.mount is Mount.UPRIGHT:
            return self.lead_bend * 2 + sensor.body[1] + sensor.lead_diameter
        if self.mount is Mount.ON_BASE:  # its leads go down through the base
            return sensor.body[0]
        return sensor.body[0] + self.lead_bend + sensor.lead_diameter


def parse_build(profile: BoardProfile) -> Stackup:
    """The profile's ``build:`` section; ConfigError naming the key for one that is wrong or
    a stack-up that does not fit."""
    node = Node(profile.build if profile.build is not None else {}, profile.source, "build")
    node.only_keys(
        "cell_mm", "top_mm", "cavity_mm", "piece", "sensor", "led_offset_mm", "led_mm", "lift_mm"
    )
    piece = node.get("piece", {})
    piece.only_keys("diameter_mm", "base_mm", "magnet")
    magnet_node = piece.get("magnet", {})
    magnet_node.only_keys("diameter_mm", "thickness_mm", "grade")
    grade = magnet_node.get("grade", "N35").choice(tuple(GRADES))
    magnet = Magnet(
        _mm(magnet_node.get("diameter_mm", 6), 1, 30),
        _mm(magnet_node.get("thickness_mm", 3), 0.5, 20),
        grade,
    )
    wiring = profile.pico
    part = wiring.part.name if wiring is not None else "reed"
    sensor_node = node.get("sensor", {})
    sensor_node.only_keys("variant", "mount", "lead_bend_mm", "pull_in_at", "drop_out_at")
    variant = None
    if part == "drv5053":
        variant = sensor_node.get("variant", "RA").choice(("OA", "PA", "RA", "VA", "CA", "EA"))
    elif sensor_node.has("variant"):
        sensor_node.get("variant").fail(f"a {part} has no variants (only a drv5053 has)")
    try:
        sensor = sensor_named(part, variant)
    except KeyError:
        raise ConfigError(
            f"{profile.source}: pico.sensor: the physics of a {part} is not "
            "modelled: use reed, drv5033, drv5053 or ss49e"
        ) from None
    if sensor.kind is SensorKind.REED:
        sensor = _reed_rating(sensor, sensor_node)
    reed = sensor.kind is SensorKind.REED
    default_mount = "upright" if reed else "on-base"
    mounts = ("flat", "flat-centred", "upright") if reed else ("under-top", "on-base")
    mount = Mount(sensor_node.get("mount", default_mount).choice(mounts))
    cell = _mm(node.get("cell_mm", 40), 10, 200)
    stack = Stackup(
        cell=cell,
        top=_mm(node.get("top_mm", 3), 0.5, 30),
        cavity=_mm(node.get("cavity_mm", 15), 2, 100),
        piece_diameter=_mm(piece.get("diameter_mm", 25), 5, 200),
        base=_mm(piece.get("base_mm", 0.5), 0, 30),
        magnet=magnet,
        sensor=sensor,
        mount=mount,
        lead_bend=_mm(sensor_node.get("lead_bend_mm", 2), 0.5, 10),
        led_offset=_mm(node.get("led_offset_mm", 16), 0, 100),
        led_size=_led_size(node),
        lift=_mm(node.get("lift_mm", 30), 2, 100),
        where=profile.source,
    )
    if stack.piece_diameter > cell:
        piece.get("diameter_mm").fail(
            f"a {stack.piece_diameter / MM:g} mm piece is wider than its {cell / MM:g} mm cell"
        )
    if stack.magnet.diameter > stack.piece_diameter:
        magnet_node.get("diameter_mm").fail("the magnet is wider than the piece")
    needed = stack.height_needed()
    if needed > stack.cavity:
        how = (
            f"an upright {sensor.body[1] / MM:g} mm reed with its leads bent "
            f"{stack.lead_bend / MM:g} mm from the glass takes {needed / MM:.1f} mm under the "
            f"top ({stack.lead_bend / MM:g} + {sensor.body[1] / MM:g} + "
            f"{stack.lead_bend / MM:g} + the lead's {sensor.lead_diameter / MM:g} to turn)"
            if mount is Mount.UPRIGHT
            else f"the {sensor.name} takes {needed / MM:.1f} mm under the top"
        )
        fix = (
            f"lay it flat (build.sensor.mount: flat) or use battens of "
            f"{needed / MM:.0f} mm or more (build.cavity_mm)"
        )
        node.get("cavity_mm", stack.cavity / MM).fail(
            f"{how}, more than the {stack.cavity / MM:g} mm cavity: {fix}"
        )
    if profile.sensing is Sensing.OWNER and sensor.kind is not SensorKind.LINEAR:
        sensor_node.fail("an owner board needs linear hall sensors")
    return stack


def _reed_rating(sensor: Sensor, node: Node) -> Sensor:
    """A reed whose builder names its own rating (the AT range on its packet)."""
    from dataclasses import replace

    pull = _at_range(node, "pull_in_at", sensor.pull_in_at)
    drop = _at_range(node, "drop_out_at", sensor.drop_out_at)
    if drop[1] >= pull[1]:
        node.get("drop_out_at").fail("a reed drops out at less than it pulls in")
    return replace(sensor, pull_in_at=pull, drop_out_at=drop)


def _at_range(node: Node, key: str, default: tuple[float, float]) -> tuple[float, float]:
    if not node.has(key):
        return default
    parts = node.get(key).elements()
    if len(parts) != 2:
        node.get(key).fail("expected [least, most] ampere-turns, e.g. [10, 15]")
    low, high = (_number(p, 1, 200) for p in parts)
    if low > high:
        node.get(key).fail("expected [least, most]: the least first")
    return low, high


def _number(node: Node, low: float, high: float) -> float:
    value = node.value
    if isinstance(value, bool) or not isinstance(value, int | float):
        node.fail(f"expected a number, got {value!r}")
    if not low <= float(value) <= high:
        node.fail(f"expected {low:g} to {high:g}, got {value}")
    return float(value)


LEDS = {5: "WS2812B", 2: "WS2812B-2020"}  # the LED's side (mm) and the part it is


def _led_size(node: Node) -> float:
    """``build.led_mm``: the LED's side, 5 (a WS2812B, a strip's) or 2 (a WS2812B-2020)."""
    led = node.get("led_mm", 5)
    if led.value not in LEDS or isinstance(led.value, bool):
        led.fail(f"expected 5 (a WS2812B) or 2 (a WS2812B-2020), got {led.value!r}")
    return float(led.value) * MM


def _mm(node: Node, low: float, high: float) -> float:
    """A length in millimetres, as metres."""
    return _number(node, low, high) * MM
