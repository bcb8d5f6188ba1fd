"""``board-referee firmware ...``: the Pico firmware's config, install, host run and benchmark.

- ``config``: board.json for a profile (what the Pico reads at power-on).
- ``uf2``: one UF2 file holding MicroPython, the compiled firmware and board.json, to drag
  onto a Pico in BOOTSEL mode (no MicroPython, mpremote or Thonny needed first).
- ``flash``: install the firmware and board.json on a Pico with mpremote (updates over USB).
- ``chip``: that UF2 on an emulated RP2040 on a simulated board behind a pty, driven like
  ``board-referee emulate``.
- ``host``: run the firmware in MicroPython's Unix port on a simulated board behind a pty,
  driven like ``board-referee emulate``.
- ``bench``: the firmware's budgets, measured in MicroPython (here, or on a Pico).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from engine import ConfigError, Game
from firmware_bridge.boards.firmware_files import board_config, config_text
from firmware_bridge.commands.common import Subparsers, parse_options
from firmware_bridge.link import catalog
from firmware_bridge.link.profile import BoardProfile
from firmware_bridge.link.wiring import LED_DROP_LIMIT_V, USB_LIMIT_MA, power_figures

BOARD_ID = r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}"


def add_parser(sub: Subparsers, common: argparse.ArgumentParser) -> None:
    add_arguments(sub, common, lambda args: args.run(args, parse_options(args.option)))


def add_arguments(
    sub: argparse._SubParsersAction[argparse.ArgumentParser],
    common: argparse.ArgumentParser,
    handler: Callable[[argparse.Namespace], int],
) -> None:
    firmware = sub.add_parser(
        "firmware",
        parents=[common],
        help="the Raspberry Pi Pico firmware: uf2, config, parts, flash, host, chip, bench "
        "(docs/build-a-board.md)",
        description="The board firmware for a Raspberry Pi Pico (MicroPython).",
    )
    actions = firmware.add_subparsers(dest="action", required=True, metavar="ACTION")

    config = actions.add_parser("config", parents=[common], help="write board.json for a profile")
    _profile_arguments(config)
    config.add_argument(
        "--output",
        "-o",
        default="board.json",
        help="where to write it (default board.json; - for stdout)",
    )
    config.set_defaults(handler=handler, run=_config)

    parts = actions.add_parser(
        "parts", parents=[common],
        help="the board's parts list with estimated prices (docs/build-a-board.md, Parts)",
    )  # fmt: skip
    _profile_arguments(parts)
    parts.set_defaults(handler=handler, run=_parts)

    physics = actions.add_parser(
        "physics", parents=[common],
        help="whether every cell reads every piece: the magnets, sensors and board worked out "
        "cell by cell (docs/build-a-board.md §4); 1 when a cell would not",
    )  # fmt: skip
    _profile_arguments(physics)
    physics.add_argument(
        "--pictures", metavar="DIR", help="also draw a cell's stack-up and its margin map (SVG)"
    )
    physics.set_defaults(handler=handler, run=_physics)

    circuit = actions.add_parser(
        "circuit", parents=[common],
        help="the board's circuit: its netlist, parts list with prices, schematic, and rules "
        "check (docs/build-a-board.md, The circuit, checked)",
    )  # fmt: skip
    _profile_arguments(circuit)
    circuit.add_argument("--output", "-o", default="circuit",
                         help="the folder to write into (default ./circuit)")  # fmt: skip
    circuit.set_defaults(handler=handler, run=_circuit)

    pcb = actions.add_parser(
        "pcb", parents=[common],
        help="the board's printed circuit board: a KiCad 6 board, checked by KiCad, with its "
        "Gerber, drill, BOM and placement files (docs/build-a-board.md, Order the board)",
        description="The board's PCB, made from its circuit: KiCad 6 (Debian's kicad and "
        "kicad-footprints) builds it, checks it with its design rules check and plots it.",
    )  # fmt: skip
    _profile_arguments(pcb)
    pcb.add_argument("--output", "-o", default="pcb",
                     help="the folder to write into (default ./pcb)")  # fmt: skip
    pcb.set_defaults(handler=handler, run=_pcb)

    uf2 = actions.add_parser(
        "uf2",
        parents=[common],
        help="write one UF2 file that installs MicroPython, the firmware and board.json",
        description="One UF2 file for a new Pico: MicroPython (the version the firmware is "
        "built for), the compiled firmware and the board's board.json. Hold BOOTSEL while "
        "plugging the Pico in and drag the file onto the RPI-RP2 drive: the Pico restarts "
        "as the board. It replaces everything on the Pico, calibration.json included.",
    )
    _profile_arguments(uf2)
    uf2.add_argument("--output", "-o", required=True, help="the UF2 file to write")
    uf2.add_argument(
        "--micropython",
        metavar="FILE",
        help="another MicroPython UF2 for the RP2040 to build on (default: the pinned v1.23.0; "
        "its .mpy version must be the one mpy-cross writes)",
    )
    uf2.set_defaults(handler=handler, run=_uf2)

    flash = actions.add_parser(
        "flash",
        parents=[common],
        help="install the firmware and board.json on a Pico (mpremote)",
        description="Install the firmware and the board's board.json on a Raspberry Pi Pico "
        "running MicroPython, with mpremote. A board that runs the referee firmware must be "
        "started in maintenance mode first: hold CONFIRM while plugging it in.",
    )
    _profile_arguments(flash)
    flash.add_argument(
        "--port", default="auto", help="the Pico's serial port (default: auto, the one Pico on USB)"
    )
    flash.add_argument(
        "--source",
        action="store_true",
        help="copy the .py sources, not modules compiled with mpy-cross",
    )
    flash.add_argument(
        "--no-reset",
        action="store_true",
        help="leave the Pico at its prompt afterwards (default: reset it into the firmware)",
    )
    flash.add_argument(
        "--dry-run", action="store_true", help="print the mpremote commands instead of running them"
    )
    flash.set_defaults(handler=handler, run=_flash)

    bench = actions.add_parser(
        "bench",
        parents=[common],
        help="the firmware's budgets, measured on a Pico (or here)",
        description="Run the firmware's benchmark (firmware/bench.py) where the firmware runs: "
        "on a Pico with mpremote (the board in maintenance mode: CONFIRM held while plugging "
        "it in), or with --host in MicroPython's Unix port for a profile. It prints the heap "
        "the board holds and peaks at, and the time to send a SCAN, apply an LED_DELTA, draw "
        "the LEDs and read a sensor (docs/firmware.md says what to expect).",
    )
    bench.add_argument("--port", default="auto", help="the Pico (default: auto)")
    bench.add_argument(
        "--host", action="store_true", help="run it here, in MicroPython's Unix port, for --board"
    )
    bench.add_argument("--board", help="with --host: the board's hardware profile")
    bench.add_argument("--game", help="with --host: the profile's game")
    bench.add_argument("--option", action="append", default=[], metavar="KEY=VALUE")
    bench.add_argument("--loops", type=int, default=500, help="refereeing loops to time")
    bench.set_defaults(handler=handler, run=_bench)

    host = actions.add_parser(
        "host",
        parents=[common],
        help="run the firmware in MicroPython's Unix port on a simulated board behind a pty",
        description="The Pico firmware, unmodified, in MicroPython's Unix port, on a simulated "
        "board: the same commands and JSON events as board-referee emulate (docs/emulator.md).",
    )
    from firmware_bridge.commands.emulate import add_arguments as table_arguments

    table_arguments(host, firmware=True)
    host.add_argument(
        "--flash",
        metavar="DIR",
        help="the folder standing for the Pico's flash (kept between runs; default: a new one)",
    )
    host.add_argument(
        "--calibrate",
        action="store_true",
        help="calibrate at the first power-on, as a builder does (hold SELECT, "
        "clear the board, CONFIRM)",
    )
    host.add_argument(
        "--heap", metavar="SIZE", help="MicroPython's heap, e.g. 64K (default: the Unix port's 2M)"
    )
    host.add_argument("--board-id", help="the board id the firmware says in HELLO")
    host.add_argument(
        "--source",
        action="store_true",
        help="install the .py sources, not modules compiled with mpy-cross",
    )
    host.set_defaults(handler=handler, run=_host)

    chip = actions.add_parser(
        "chip",
        parents=[common],
        help="run the firmware's UF2 on an emulated RP2040 on a simulated board behind a pty",
        description="The board's UF2 (as firmware uf2 writes it) on an emulated RP2040 "
        "(rp2040js, in Node.js) inside a pin-level model of the board: the same commands and "
        "JSON events as board-referee emulate (docs/emulator.md).",
    )
    table_arguments(chip, firmware=True)
    chip.add_argument(
        "--flash", metavar="DIR", help="a folder for the board's UF2 (default: a new one)"
    )
    chip.add_argument("--board-id", help="the board id the firmware says in HELLO")
    chip.add_argument("--micropython", metavar="FILE", help="another MicroPython UF2 to build on")
    chip.add_argument(
        "--uf2",
        metavar="FILE",
        help="run this UF2 file as it is (one firmware uf2 wrote for the same --board)",
    )
    chip.add_argument(
        "--pullup",
        type=int,
        default=0,
        metavar="OHMS",
        help="an external pull-up on a switch board's signal line (default: none, the pad's own)",
    )
    chip.set_defaults(handler=handler, run=_chip)


def _profile_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--board", required=True, help="the board's hardware profile")
    parser.add_argument("--game", help="the profile's game (default: the one it names)")
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a game option that changes the board (e.g. board=5-limp)",
    )
    parser.add_argument(
        "--board-id",
        help="a name for the board, said in HELLO (letters, "
        "digits, '.', '_' and '-'; default: pico- and the Pico's serial number)",
    )


def load(args: argparse.Namespace, options: dict[str, str]) -> tuple[Game, BoardProfile]:
    directory = catalog.config_dir(args.config_dir)
    game_id = args.game or catalog.profile_game(args.board, directory)
    game = catalog.load_game(game_id, options, directory)
    return game, catalog.load_profile(args.board, game, directory)


def _board_id(args: argparse.Namespace) -> str | None:
    import re

    if args.board_id is not None and not re.fullmatch(BOARD_ID, args.board_id):
        raise ConfigError(f"--board-id {args.board_id!r}: letters, digits, '.', '_' and '-' only")
    return args.board_id  # type: ignore[no-any-return]


def physics_problems(profile: BoardProfile, game: Game) -> list[str]:
    """What the board's physics check finds wrong (``firmware config`` and ``circuit`` refuse
    a board with any), or a note that it could not run here (no magpylib: the board tools'
    extra), which does not refuse."""
    from firmware_bridge.physics.check import check_profile
    from firmware_bridge.physics.field import magpylib

    if profile.pico is None:
        return []  # not a magnetic board (board_config refuses a board the Pico cannot read)
    try:
        magpylib()
    except ConfigError as exc:
        print(f"note: not checked whether every cell reads every piece: {exc}", file=sys.stderr)
        return []
    return list(check_profile(profile, game).problems)


def refuse_physics(profile: BoardProfile, game: Game) -> None:
    problems = physics_problems(profile, game)
    if problems:
        raise ConfigError(
            f"board profile {profile.id} would not read every piece: {problems[0]}"
            + (f" (and {len(problems) - 1} more: board-referee firmware physics --board "
               f"{profile.id})" if len(problems) > 1 else "")
        )  # fmt: skip


def waits_problems(profile: BoardProfile, game: Game) -> list[str]:
    """The firmware's waits (settle_us, screen_us) against the sensor line as ngspice
    simulates it: the one check ``firmware config`` and ``firmware circuit`` both make. No
    ngspice here: a note, not a refusal."""
    from firmware_bridge.circuit.board import board_circuit
    from firmware_bridge.circuit.spice import SpiceError
    from firmware_bridge.circuit.spice import check as simulate

    wiring = profile.pico
    if wiring is None:
        return []
    try:
        settled = simulate(board_circuit(profile, game), wiring, len(profile.sensor_cells))
    except SpiceError as exc:
        print(f"note: the sensor line was not simulated: {exc}", file=sys.stderr)
        return []
    return [
        f"{case.case}: the line takes {case.needed_us:g} µs to settle, and the firmware "
        f"waits {us} µs ({wait}): fewer sensors on a SIG line (more signal pins), a part "
        "that drives its output harder, or the guide's pull resistor"
        for case in settled
        for wait, us in case.allowed_us.items()
        if case.needed_us > us
    ]


def _physics(args: argparse.Namespace, options: dict[str, str]) -> int:
    from firmware_bridge.physics.check import check_profile, report_lines

    game, profile = load(args, options)
    board_config(profile, game, None, catalog.config_dir(args.config_dir))  # one it can build
    verdict = check_profile(profile, game)
    print("\n".join(report_lines(verdict)))
    if args.pictures:
        from firmware_bridge.physics.pictures import write_pictures

        for path in write_pictures(verdict, profile, game, Path(args.pictures)):
            print(f"wrote {path}")
    return 0 if verdict.ok else 1


def _config(args: argparse.Namespace, options: dict[str, str]) -> int:
    game, profile = load(args, options)
    config = board_config(profile, game, _board_id(args), catalog.config_dir(args.config_dir))
    refuse_physics(profile, game)
    short = waits_problems(profile, game)
    if short:
        raise ConfigError(f"board profile {profile.id}: its sensor line is slower than the "
                          f"firmware's waits: {short[0]}")  # fmt: skip
    text = config_text(config)
    if args.output == "-":
        sys.stdout.write(text)
        return 0
    path = Path(args.output)
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{path}: cannot write: {exc.strerror or exc}") from exc
    wiring = profile.pico
    assert wiring is not None  # board_config refused a board without one
    leds = profile.led_count
    power = {**config["power"], **power_figures(wiring, len(profile.sensor_cells), leds)}
    print(
        f"wrote {path} for profile {profile.id} ({len(profile.sensor_cells)} sensors, "
        f"{len(profile.led_cells)} LEDs; the lit LEDs may draw {power['led_budget_ma']} mA of "
        f"the {power['supply_ma']} mA supply)"
    )
    print(_rail_text(power))
    rails = power["rails_ma"]
    five = "VBUS (USB)" if power["supply_ma"] <= USB_LIMIT_MA else "the 5 V supply"
    said = [f"{five} {rails['5v'] / 1000:.2f} A of {power['supply_ma'] / 1000:g} A",
            f"the Pico's 3V3 pin {rails['3V3']:g} mA"]  # fmt: skip
    if "sensors_3v3" in rails:
        said.append(f"the sensors' 3.3 V {rails['sensors_3v3']:g} mA")
    print("at most, each rail: " + "; ".join(said))
    if power["supply_ma"] <= USB_LIMIT_MA:
        print(
            "on a Raspberry Pi 5 with a 3 A supply its USB ports give 600 mA together: one "
            "USB-powered board per Pi, or the Pi's 5 A supply (docs/build-a-board.md §5)"
        )
    if power.get("led_chain_ma"):
        feeds = power["led_feeds"]
        print(
            f"the LED chain: up to {power['led_chain_ma'] / 1000:.2f} A on {power['led_wire_awg']} "
            f"AWG 5 V and ground, fed at {feeds} point{'s' if feeds != 1 else ''}: its far end "
            f"drops {power['led_drop_v']:g} V ({LED_DROP_LIMIT_V} V at most; docs/build-a-board.md "
            "§5); "
            + ("its ground goes back to the supply's negative terminal by its own wire, "
               "never through the Pico"
               if power["supply_ma"] > USB_LIMIT_MA else
               "on USB power its current can only go back through the USB cable: run its "
               "ground by its own wire to the Pico's GND pin 38, beside VBUS, never along the "
               "sensors' and multiplexers' ground")
        )  # fmt: skip
        if power.get("usb_inrush_ma") is not None:
            print(
                f"the LED chain's capacitors, {power['led_capacitance_uf']:g} µF, go behind a "
                f"soft-start load switch on VBUS (10 ms rise): they draw {power['usb_inrush_ma']} "
                "mA while it rises, and VBUS itself shows no more than USB's 10 µF at plug-in"
            )
    return 0


def _parts(args: argparse.Namespace, options: dict[str, str]) -> int:
    """The parts one board takes, with what they cost (estimates, dated)."""
    game, profile = load(args, options)
    board_config(profile, game, None, catalog.config_dir(args.config_dir))  # one it can build
    from firmware_bridge.circuit.bill import parts_text

    sys.stdout.write(f"{game.title}, board profile {profile.id}:\n{parts_text(profile, game)}")
    return 0


def _circuit(args: argparse.Namespace, options: dict[str, str]) -> int:
    """Write the board's circuit files and check it; 1 when the check finds a problem."""
    from firmware_bridge.circuit.board import board_circuit
    from firmware_bridge.circuit.erc import check, report
    from firmware_bridge.circuit.outputs import bom_csv, connections_text, kicad_netlist
    from firmware_bridge.circuit.schematic import schematic_svg
    from firmware_bridge.circuit.spice import SpiceError, settling_text
    from firmware_bridge.circuit.spice import check as simulate

    game, profile = load(args, options)
    board_config(profile, game, None, catalog.config_dir(args.config_dir))  # one it can build
    refuse_physics(profile, game)
    circuit = board_circuit(profile, game)
    problems = check(circuit)
    folder = Path(args.output)
    wiring = profile.pico
    assert wiring is not None  # board_config refused a board without one
    try:  # the same simulation as waits_problems (firmware config), with its figures
        settled = simulate(circuit, wiring, len(profile.sensor_cells))
        line = settling_text(settled)
    except SpiceError as exc:
        settled, line = [], f"the sensor line was not simulated: {exc}\n"
    files = {
        f"{profile.id}.net": kicad_netlist(circuit, f"board profile {profile.id}"),
        f"{profile.id}-connections.txt": connections_text(circuit),
        f"{profile.id}-bom.csv": bom_csv(circuit, profile, game),
        f"{profile.id}-erc.txt": report(circuit, problems) + line,
    }
    try:  # schemdraw: the board tools' extra, as magpylib is
        files[f"{profile.id}.svg"] = schematic_svg(
            circuit, f"{game.title}: board profile {profile.id}"
        )
    except ImportError as exc:
        print(f"no schematic: {exc}", file=sys.stderr)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for name, text in files.items():
            (folder / name).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{folder}: cannot write: {exc.strerror or exc}") from exc
    print(f"wrote {', '.join(files)} into {folder}")
    sys.stdout.write(files[f"{profile.id}-erc.txt"])
    short = any(s.needed_us > us for s in settled for us in s.allowed_us.values())
    return 1 if problems or short else 0


def _pcb(args: argparse.Namespace, options: dict[str, str]) -> int:
    """Write the board's PCB and its fabrication files; 1 when KiCad's check finds a fault."""
    from firmware_bridge.pcb.kicad import KicadError
    from firmware_bridge.pcb.make import PcbError, make_pcb

    game, profile = load(args, options)
    board_config(profile, game, None, catalog.config_dir(args.config_dir))  # one it can build
    refuse_physics(profile, game)
    folder = Path(args.output)
    try:
        result = make_pcb(profile, game, folder)
    except (PcbError, KicadError) as exc:
        print(f"board-referee: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        raise ConfigError(f"{folder}: cannot write: {exc.strerror or exc}") from exc
    print(result.summary())
    for kind, path in result.files.items():
        print(f"  {kind}: {path}")
    return 0


# What each sensor part may be powered from, said beside the regulator it needs.
SUPPLY_NOTES = {
    "drv5053": "DRV5053s may take 5 V directly: their output stays under 1.8 V; ",
    "ss49e": "never 5 V for an SS49E: its output follows its supply, up to about 4 V on a "
    "3.3 V multiplexer and the Pico's ADC pin; ",
    "linear-hall": "a linear hall sensor whose output follows its supply stays on 3.3 V; ",
}


def _rail_text(power: dict[str, Any]) -> str:
    """What the Pico's 3V3 pin carries, and the regulator the sensors need when it is too much."""
    said = (
        f"the 3.3 V rail: {power['rail_3v3_ma']:g} mA of the {power['rail_3v3_limit_ma']} mA "
        "the Pico's 3V3 pin may give"
    )
    if power["sensor_regulator"]:
        said += (
            f": too much. Power the sensors from a separate 3.3 V regulator fed from the 5 V "
            f"supply, e.g. {power['sensor_regulator']} ("
            f"{SUPPLY_NOTES.get(power.get('sensor_part', ''), '')}docs/build-a-board.md §5)"
        )
        if "sensor_regulator_w" in power:
            junction = power.get("sensor_regulator_junction_c")
            said += f"; it turns {power['sensor_regulator_w']:g} W into heat" + (
                f", its junction about {junction} °C in 40 °C air under the board"
                if junction
                else ", a buck module: it stays cool"
            )
    return said


def _uf2(args: argparse.Namespace, options: dict[str, str]) -> int:
    from firmware_bridge.boards.uf2 import build_uf2

    game, profile = load(args, options)
    config = board_config(profile, game, _board_id(args), catalog.config_dir(args.config_dir))
    micropython = Path(args.micropython) if args.micropython else None
    data = build_uf2(config, micropython)
    path = Path(args.output)
    try:
        path.write_bytes(data)
    except OSError as exc:
        raise ConfigError(f"{path}: cannot write: {exc.strerror or exc}") from exc
    print(
        f"wrote {path} ({len(data) // 1024} KB) for profile {profile.id}: hold BOOTSEL while "
        "plugging the Pico in, then copy the file onto the RPI-RP2 drive"
    )
    return 0


def _flash(args: argparse.Namespace, options: dict[str, str]) -> int:
    from firmware_bridge.commands.flash import flash

    game, profile = load(args, options)
    config = board_config(profile, game, _board_id(args), catalog.config_dir(args.config_dir))
    flash(
        config, args.port, compiled=not args.source, reset=not args.no_reset, dry_run=args.dry_run
    )
    return 0


def _bench(args: argparse.Namespace, options: dict[str, str]) -> int:
    import tempfile

    from firmware_bridge.boards.firmware_files import bench_script, install

    if args.loops < 1:
        raise ConfigError("--loops must be at least 1")
    if args.host:
        from firmware_bridge.boards.micropython import run_bench

        if not args.board:
            raise ConfigError("firmware bench --host needs --board PROFILE")
        game, profile = load(args, options)
        with tempfile.TemporaryDirectory(prefix="board-referee-bench-") as tmp:
            folder = Path(tmp)
            install(folder, board_config(profile, game, "bench"), compiled=True, host=True)
            wiring = profile.pico
            rest = wiring.bands.centre if wiring is not None else 0
            result = run_bench(folder, args.loops, [rest] * len(profile.sensor_cells))
        if result.returncode != 0:
            raise ConfigError(f"the benchmark failed: {result.stderr.strip() or result.stdout}")
        sys.stdout.write(result.stdout)
        print("(MicroPython's Unix port on this machine: 8-byte words, a desktop processor)")
        return 0
    from firmware_bridge.commands.flash import MAINTENANCE, Flasher, find_pico

    port = find_pico() if args.port == "auto" else args.port
    flasher = Flasher(port)
    import subprocess

    with tempfile.TemporaryDirectory(prefix="board-referee-bench-") as tmp:
        script = Path(tmp) / "run_bench.py"  # runs the bench.py installed on the Pico
        script.write_text(bench_script(args.loops), encoding="utf-8")
        result = subprocess.run(
            flasher.command("run", str(script)),
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
    if result.returncode != 0:
        said = (result.stderr or result.stdout).strip().splitlines()
        raise ConfigError(
            f"the benchmark on {port} failed: {said[-1] if said else ''}{MAINTENANCE}"
        )
    sys.stdout.write(result.stdout)
    return 0


def _host(args: argparse.Namespace, options: dict[str, str]) -> int:
    from firmware_bridge.boards.board import Board
    from firmware_bridge.boards.micropython import MicroPythonBoard
    from firmware_bridge.commands.emulate import run as run_table

    board_id = _board_id(args)
    flash = Path(args.flash) if args.flash else None

    def make(game: Game, profile: BoardProfile, link: Path) -> Board:
        return MicroPythonBoard(
            game,
            profile,
            link_path=link,
            flash=flash,
            seed=args.seed,
            calibrate=args.calibrate,
            heap=args.heap,
            compiled=not args.source,
            board_id=board_id,
        )

    return run_table(args, options, make)


def _chip(args: argparse.Namespace, options: dict[str, str]) -> int:
    from firmware_bridge.boards.board import Board
    from firmware_bridge.boards.chip import ChipBoard
    from firmware_bridge.commands.emulate import run as run_table

    board_id = _board_id(args)
    flash = Path(args.flash) if args.flash else None
    micropython = Path(args.micropython) if args.micropython else None
    if args.pullup < 0:
        raise ConfigError("--pullup must be 0 (none) or a resistance in ohms")

    def make(game: Game, profile: BoardProfile, link: Path) -> Board:
        return ChipBoard(
            game,
            profile,
            link_path=link,
            flash=flash,
            seed=args.seed,
            board_id=board_id,
            micropython=micropython,
            uf2=Path(args.uf2) if args.uf2 else None,
            pullup=args.pullup,
        )

    return run_table(args, options, make)
