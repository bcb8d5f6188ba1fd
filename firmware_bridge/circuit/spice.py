"""The sensor line simulated in ngspice: how long the SIG line takes to settle after the
multiplexers switch, against the waits the firmware is configured with (``settle_us``,
``screen_us`` in board.json, from link/wiring.py).

The line is taken from the circuit: the Pico's signal pin, the pull resistor on it, and the
multiplexers whose common pins share it (each adds its switch capacitance). A cell's sensor
reaches it through one channel's on-resistance. Each case starts with the line where the
previous cell left it and switches to the next cell at t = 0:

- ``live``: a live sensor drives the line from the far end of its range to its own reading
  (a linear sensor sources and sinks at most 300 µA, a DRV5053's datasheet limit; a switch is
  a short to ground, or open and lifted by the pull-up). The firmware's screening read after
  ``screen_us`` must find it within its quiet band: a linear reading within the hysteresis of
  where it settles, a switch past the RP2040's input threshold. ``settle_us`` must too.
- ``broken``: the next cell's wire is broken. A linear line must fall from the highest reading
  a sensor gives to below ``fault_low`` (read as a fault, never a piece) within ``settle_us``;
  a switch line must rise past the input threshold through the pad's own pull-up alone (a
  board built without the external resistor) within ``settle_us``.

ngspice runs as its own process (``ngspice -b``); the waveform comes back through ``wrdata``.
"""

from __future__ import annotations

import math
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from firmware_bridge.circuit import components as c
from firmware_bridge.circuit.model import Circuit, Node, PinKind
from firmware_bridge.link.wiring import (
    PARTS,
    PULL_UP_WORST_OHMS,
    SENSOR_SOURCE_AMPS,
    PicoWiring,
    line_farads,
    screen_us,
    settle_us,
)

RAIL_V = 3.3
ADC_FULL = 65535
MUX_ON_OHMS = 180  # CD74HC4067 at 3.3 V, its worst (TI SCHS209: 70 ohm typical at 4.5 V)
CHANNEL_PF = 10  # a channel's own switch capacitance, and
SENSOR_WIRE_PF = 20  # the wire from the cell's sensor
ADC_SAMPLE_PF = 1  # the RP2040 ADC's sampling capacitor, behind about 1 kohm
VIH_V = 0.625 * RAIL_V  # the RP2040's input-high threshold at 3.3 V (datasheet, GPIO)
VIL_V = 0.8
SENSOR_OUT_OHMS = 100
# A linear sensor's output range at 3.3 V (datasheets: a DRV5053 0.2-1.8 V whatever its
# supply; a ratiometric part within 0.2 V of its rails).
RATIOMETRIC = (0.2, RAIL_V - 0.2)


class SpiceError(Exception):
    """ngspice is missing or failed."""


@dataclass(frozen=True, slots=True)
class Line:
    """The SIG line of one board, as the circuit has it."""

    muxes: int  # multiplexer common pins on the line
    pull_ohms: float  # its pull resistor (0: none fitted)
    pull_up: bool
    linear: bool
    part: str

    @property
    def farads(self) -> float:
        return line_farads(self.muxes)


@dataclass(frozen=True, slots=True)
class Case:
    name: str
    deck: str
    start_v: float
    target: str  # what settled means: "within", "below", "above"
    level_v: float  # the band's width (within) or the threshold
    live: bool = True  # a live sensor: the screening read must find it settled too


@dataclass(frozen=True, slots=True)
class Settling:
    case: str
    needed_us: float  # the simulated time to settle
    allowed_us: dict[str, int]  # the firmware's waits that must cover it


def _ohms(value: str) -> float:
    scale = {"k": 1e3, "M": 1e6}.get(value[-1:], 1.0)
    return float(value.rstrip("kM")) * scale


def sensor_line(circuit: Circuit, wiring: PicoWiring) -> Line:
    """The first SIG line: the multiplexers on it and its pull resistor, from the circuit."""
    nets = circuit.pin_nets()
    pico = circuit.pico()
    net = nets[Node(pico.ref, f"GP{wiring.signal[0]}")]
    muxes = [n for n in circuit.nets[net] if circuit.parts[n.ref].spec is c.MUX]
    if wiring.bank_select:  # behind the second level: its common, and the bank's through it
        muxes = [*muxes, *muxes]
    pull_ohms, pull_up = 0.0, False
    for node in circuit.nets[net]:
        part = circuit.parts[node.ref]
        if part.spec is c.RESISTOR:
            other = "2" if node.pin == "1" else "1"
            pull_ohms = _ohms(part.value)
            pull_up = nets.get(Node(part.ref, other)) != "GND"
    linear = circuit.kind(Node(pico.ref, f"GP{wiring.signal[0]}")) is PinKind.ANALOG_IN
    return Line(len(muxes), pull_ohms, pull_up, linear, wiring.part.name)


def _deck(line: Line, *, drive: str, start_v: float, stop_us: float, pad_pull: bool) -> str:
    """A transient from the switch: ``drive`` is the new cell's sensor, as SPICE lines between
    node ``cell`` and ground."""
    pull = ""
    if line.pull_ohms:
        pull = f"Rpull line {'rail' if line.pull_up else '0'} {line.pull_ohms:g}\n"
    if pad_pull:
        pull += f"Rpad line rail {PULL_UP_WORST_OHMS}\n"
    step = max(stop_us / 4000, 0.001)
    return (
        "* the SIG line after the multiplexers switch\n"
        f"Vrail rail 0 DC {RAIL_V}\n"
        f"Cline line 0 {line.farads:.4g} IC={start_v}\n"
        f"Ccell cell 0 {(CHANNEL_PF + SENSOR_WIRE_PF) * 1e-12:.4g} IC={start_v}\n"
        f"Ron cell line {MUX_ON_OHMS}\n"
        f"Radc line adc 1k\nCadc adc 0 {ADC_SAMPLE_PF}p IC={start_v}\n"
        f"{pull}{drive}"
        ".control\n"
        f"tran {step:.4g}u {stop_us:.4g}u uic\n"
        "wrdata out.txt v(line)\n"
        "quit\n.endc\n.end\n"
    )


def cases(line: Line, band_v: float) -> list[Case]:
    """The worst cases of the line (see the module's text); ``band_v``: how near its final
    value a linear reading must be to be quiet (the profile's hysteresis)."""
    tau_us = max(line.pull_ohms or PULL_UP_WORST_OHMS, 1.0) * line.farads * 1e6
    slew_us = line.farads * RAIL_V / SENSOR_SOURCE_AMPS * 1e6
    stop = 20 * max(tau_us, slew_us, 1.0)
    found = []
    if line.linear:
        low, high = PARTS[line.part].output or RATIOMETRIC
        for name, start, to in (("live, rising", low, high), ("live, falling", high, low)):
            drive = (f"Vs s 0 DC {to}\n"
                     f"Bs 0 cell I=min({SENSOR_SOURCE_AMPS}, max(-{SENSOR_SOURCE_AMPS}, "
                     f"(v(s)-v(cell))/{SENSOR_OUT_OHMS})))\n")  # fmt: skip
            deck = _deck(line, drive=drive, start_v=start, stop_us=stop, pad_pull=False)
            found.append(Case(name, deck, start, "within", band_v))
        deck = _deck(line, drive="", start_v=high, stop_us=stop, pad_pull=False)
        found.append(Case("broken wire", deck, high, "below", 1000 / ADC_FULL * RAIL_V, live=False))
        return found
    short = "Rswitch cell 0 1\n"  # a closed reed: a short to ground through its contacts
    deck = _deck(line, drive=short, start_v=RAIL_V, stop_us=stop, pad_pull=True)
    found.append(Case("live, closing", deck, RAIL_V, "below", VIL_V))
    deck = _deck(line, drive="", start_v=0.0, stop_us=stop, pad_pull=True)
    found.append(Case("live, opening", deck, 0.0, "above", VIH_V))
    bare = Line(line.muxes, 0.0, True, False, line.part)  # no external pull-up fitted
    slow = 20 * PULL_UP_WORST_OHMS * line.farads * 1e6
    deck = _deck(bare, drive="", start_v=0.0, stop_us=slow, pad_pull=True)
    found.append(Case("without the pull-up", deck, 0.0, "above", VIH_V, live=False))
    return found


def run(deck: str) -> list[tuple[float, float]]:
    """ngspice's waveform of v(line): (seconds, volts)."""
    if shutil.which("ngspice") is None:
        raise SpiceError("ngspice is not installed (Debian: apt-get install ngspice)")
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "line.cir").write_text(deck, encoding="ascii")
        done = subprocess.run(["ngspice", "-b", "line.cir"], cwd=folder, capture_output=True,
                              text=True, timeout=60, check=False)  # fmt: skip
        out = Path(folder) / "out.txt"
        if done.returncode != 0 or not out.exists():
            raise SpiceError(f"ngspice failed: {(done.stderr or done.stdout)[-500:]}")
        points = []
        for row in out.read_text().split("\n"):
            fields = row.split()
            if len(fields) >= 2:
                points.append((float(fields[0]), float(fields[1])))
    return points


def settle_time_us(case: Case, points: list[tuple[float, float]]) -> float:
    """When the line enters the case's band for good (after which it stays there)."""
    final = points[-1][1]

    def inside(volts: float) -> bool:
        if case.target == "within":
            return abs(volts - final) <= case.level_v
        if case.target == "below":
            return volts < case.level_v
        return volts > case.level_v

    entered = math.inf
    for seconds, volts in points:
        entered = min(entered, seconds) if inside(volts) else math.inf
    return entered * 1e6


def settling_text(found: list[Settling]) -> str:
    """The simulation's result for a person: each case against the waits that must cover it."""
    rows = []
    for item in found:
        waits = ", ".join(f"{name} {us} µs" for name, us in item.allowed_us.items())
        short = [name for name, us in item.allowed_us.items() if us < item.needed_us]
        verdict = f"TOO SHORT: {', '.join(short)}" if short else "covered"
        rows.append(f"  {item.case}: settles in {item.needed_us:g} µs ({waits}): {verdict}")
    return "the sensor line, simulated in ngspice:\n" + "\n".join(rows) + "\n"


def check(circuit: Circuit, wiring: PicoWiring, sensors: int) -> list[Settling]:
    """Each case's simulated settling, with the firmware's waits that must cover it."""
    line = sensor_line(circuit, wiring)
    settle, screen = settle_us(wiring, sensors), screen_us(wiring, sensors)
    band = wiring.bands.hysteresis / ADC_FULL * RAIL_V
    found = []
    for case in cases(line, band):
        needed = settle_time_us(case, run(case.deck))
        waits = {"screen_us": screen, "settle_us": settle} if case.live else {"settle_us": settle}
        found.append(Settling(case.name, round(needed, 2), waits))
    return found
