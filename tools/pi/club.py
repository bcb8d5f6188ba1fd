"""The club's Pi, booted, and the parts of the check that run on it: the recipe as written,
the units as systemd runs them, and a club evening (tools/pi_check.py says what each does)."""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from types import TracebackType
from typing import Any

from pi import bundle, roots
from pi.boards import HostBoard, Table, device_for
from pi.machine import Machine, MachineError, Result, mount_overlay, overlay, unmount
from pi.measure import BenchBoard
from pi.recipe import Block, read_blocks, step
from pi.report import CannotRunHereError, Report
from pi.screen import debug_flags

ROOT = Path(__file__).resolve().parents[2]
RECIPE = "docs/raspberry-pi.md"
BROKER_DOC = "docs/mqtt.md"
CHECKOUT = "/opt/board-referee"
STATE = "/var/lib/board-referee"
CWD_MARK = "__PI_CHECK_CWD__="
SETTLE_MS = 300  # the boards' profiles' settle window: the hands give the referee that long
POWER_CUTS = 20
# The recipe's steps the check runs, in this order (docs/raspberry-pi.md, docs/mqtt.md)
RECIPE_STEPS = (
    "folder",
    "clone",
    "install",
    "dialout",
    "board",
    "service",
    "service-check",
    "second-board",
    "broker",
    "club",
    "backup-tools",
    "sd-card",
)


class Club:
    """The check's Pi with its two boards, for the length of a ``with``."""

    def __init__(self, report: Report, parts: set[str], *, keep: bool = False) -> None:
        self.report = report
        self.parts = parts
        self.keep = keep
        self.cache = roots.cache_dir()
        self.cache.mkdir(parents=True, exist_ok=True)
        self.work = Path(tempfile.mkdtemp(prefix="run-", dir=self.cache))
        self.logs = self.work / "logs"
        self.logs.mkdir()
        self.stick = self.work / "stick"
        self.blocks = read_blocks(ROOT, RECIPE) + read_blocks(ROOT, BROKER_DOC)
        self.cwd = "~"
        self.tables: list[Table] = []
        self.boards: list[HostBoard] = []
        self.machine: Machine | None = None
        self.bench: BenchBoard | None = None
        self.stack = contextlib.ExitStack()

    # -- set-up ------------------------------------------------------------------------------
    def __enter__(self) -> Club:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self.keep and self.machine is not None and self.machine.running:
            print(
                f"the Pi is left running: its root is {self.machine.root}; enter it with "
                f"nsenter -t {self.machine.leader} -a; stop it with nsenter -t "
                f"{self.machine.leader} -a systemctl poweroff"
            )
            self.stack.pop_all()  # the Pi's root stays mounted
            return
        if self.machine is not None:
            self.machine.poweroff()
        for board in self.boards:
            board.close()
        if self.bench is not None:
            self.bench.close()
        self.stack.close()
        shutil.rmtree(self.work, ignore_errors=True)

    def run(self) -> None:
        parts = self.parts
        self.images()
        self.boot()
        self.recipe()
        if "units" in parts:
            self.units()
        if "evening" in parts:
            self.evening()
        if "kiosk" in parts:
            from pi.screen import check_screen

            check_screen(self)
        if "start" in parts:
            from pi.measure import start_time

            start_time(self, self.bench)
        if "sd-card" in parts:
            from pi.measure import sd_card

            sd_card(self)

    def images(self) -> None:
        with self.report.step("images: the Pi's system (Debian bookworm, cached)"):
            self.base = roots.build_base("amd64", self.report.say)
            packages = step(self.blocks, "packages")
            key = roots.digest(self.base.name, packages.text)
            self.packages = self.cache / f"packages-amd64-{key}"
            if (self.packages / ".done").exists():
                self.report.say(f"system packages {self.packages.name}: cached")
            else:
                self._build_packages(packages)
            roots.prune({self.base, self.packages})

    def _build_packages(self, block: Block) -> None:
        """The recipe's step 1 run once in the base image: its upper layer is kept."""
        work = self.cache / f"build-{self.packages.name}"
        shutil.rmtree(work, ignore_errors=True)
        began = time.monotonic()
        with overlay([self.base], work) as root:
            machine = Machine(root, self.logs / "packages-boot.log")
            machine.boot()
            try:
                self.run_block(block, machine)
                machine.root_run("apt-get clean").check()
            finally:
                machine.poweroff()
        shutil.rmtree(self.packages, ignore_errors=True)
        (work / "upper").rename(self.packages)
        (self.packages / ".done").write_text(f"{time.monotonic() - began:.0f} s\n")
        shutil.rmtree(work, ignore_errors=True)
        self.report.say(
            f"system packages {self.packages.name}: built in "
            f"{time.monotonic() - began:.0f} s (the recipe's step 1)"
        )

    def boot(self) -> None:
        with self.report.step("boot: two boards on USB, the Pi booted by systemd"):
            self.base_commit = bundle.working_tree_commit()
            bundle.write_bundle(self.base_commit, self.stick, self.work)
            os.chown(self.stick, 1000, 1000)  # the stick, mounted by the desktop for its user
            for index, (game, board_id) in enumerate(
                (("three-dragons", "table1"), ("vanguard", "table2"))
            ):
                host = HostBoard(self.work / f"board{index}", game, game, board_id, SETTLE_MS)
                self.boards.append(host)
            devices = [device_for(b, i, f"e66141040353a5{i}c") for i, b in enumerate(self.boards)]
            if "start" in self.parts:  # a third board, for timing the referee's start
                self.bench = BenchBoard(self.work / "bench")
                devices.append(self.bench.device())
            root = mount_overlay([self.packages, self.base], self.work / "layers")
            self.stack.callback(unmount, root)
            roots.trust_host_authorities(root)
            debug_flags(root)
            (root / "etc/usb-serial-names").write_text(
                "".join(f"{Path(d.name).name} {d.by_id}\n" for d in devices)
            )
            self.machine = Machine(
                root, self.logs / "boot.log", devices, binds=[(str(self.stick), "/media/pi/STICK")]
            )
            took = self.machine.boot()
            self.report.say(f"booted to multi-user in {took:.1f} s")
            for game, board in zip(("three-dragons", "vanguard"), self.boards, strict=True):
                self.tables.append(Table(self.machine, board, game, seed=len(self.tables) + 1))

    @property
    def pi(self) -> Machine:
        assert self.machine is not None
        return self.machine

    # -- the recipe --------------------------------------------------------------------------
    def run_block(self, block: Block, machine: Machine | None = None) -> Result:
        """A block of the recipe as its user types it, in the folder the last one left."""
        machine = machine or self.pi
        log = self.logs / f"{block.name}.log"
        script = f'cd {self.cwd}\n{block.commands}\necho "{CWD_MARK}$(pwd)"\n'
        result = machine.user_run(script, timeout=1800)
        log.write_text(f"$ {block.where}\n{block.text}\n{result.stdout}\n{result.stderr}")
        if result.returncode != 0:
            raise MachineError(
                f"{block.where} ({block.name}) failed ({result.returncode}); its "
                f"output ends:\n{(result.stdout + result.stderr)[-2500:]}"
            )
        for line in result.stdout.splitlines():
            if line.startswith(CWD_MARK):
                self.cwd = shlex.quote(line[len(CWD_MARK) :])
        if block.until:
            self._until(block, machine)
        return result

    def _until(self, block: Block, machine: Machine) -> None:
        """The block's last line, left running until it says ``block.until``, then Ctrl-C (to
        its whole process group, as a terminal sends it); it must end cleanly."""
        log = self.logs / f"{block.name}-last.log"
        pidfile = f"/tmp/pi-check-{block.name}.pid"
        command = (
            f"bash -c {shlex.quote(f'cd {self.cwd} && echo $$ > {pidfile} && exec {block.last}')}"
        )
        proc = machine.user_start(command, log)
        try:
            machine.wait_for(
                f"{block.until!r} from `{block.last}`",
                lambda: block.until in log.read_text(errors="replace") or proc.poll() is not None,
                timeout=300,
            )
            if proc.poll() is not None:
                raise MachineError(
                    f"`{block.last}` ended ({proc.returncode}) before saying "
                    f"{block.until!r}:\n{log.read_text()[-2500:]}"
                )
            machine.root_run(
                f"/bin/kill -s INT -- -$(ps -o pgid= -p $(cat {pidfile}) | tr -d ' ')"
            ).check()
            code = proc.wait(30)
        finally:
            if proc.poll() is None:
                proc.kill()
        text = log.read_text(errors="replace")
        if code != 0 or "Traceback" in text:
            raise MachineError(
                f"`{block.last}` did not stop cleanly on Ctrl-C ({code}):\n{text[-2500:]}"
            )
        self.report.say(
            f"{block.name}: `{block.last.split('#')[0].strip()}` said "
            f"{block.until!r}, stopped on Ctrl-C"
        )

    def recipe(self) -> None:
        order = RECIPE_STEPS
        named = {b.name for b in self.blocks if b.name}
        unknown = named - set(order) - {"packages", "backup"}
        if unknown:
            raise MachineError(f"recipe steps the check does not know: {sorted(unknown)}")
        for block in self.blocks:
            if block.skipped:
                self.report.say(f"{block.where}: not run here: {block.skipped}")
        for name in order:
            block = step(self.blocks, name)
            with self.report.step(f"recipe: {name} ({block.where})"):
                result = self.run_block(block)
                if name == "install":
                    engine = [
                        line for line in result.stdout.splitlines() if line.startswith("installed;")
                    ]
                    self.report.figure(
                        f"make install on the Pi: {result.seconds:.0f} s; "
                        f"{engine[-1] if engine else 'no engine line'}"
                    )
                if name in ("service", "second-board", "club"):
                    self.wait_referees()

    def wait_referees(self, timeout: float = 90) -> None:
        """Until every installed referee is active and has its board."""
        boards = [
            t.board_id
            for t in self.tables
            if self.pi.path(f"/etc/board-referee/{t.board_id}.env").exists()
        ]
        for board in boards:
            self.pi.wait_for(
                f"board-referee@{board} to be active",
                lambda b=board: (
                    self.pi.unit(
                        f"board-referee@{b}.service",
                        "ActiveState",
                    )["ActiveState"]
                    == "active"
                ),
                timeout=timeout,
            )

    # -- the units ---------------------------------------------------------------------------
    def unit_faults(self, referee: str, kiosk: str | None) -> list[str]:
        """What is wrong with how systemd runs a referee's unit (and its kiosk's): the
        properties a club's Pi relies on, read back from systemd."""
        faults = []
        props = self.pi.unit(
            referee, "User", "Restart", "Type", "After", "Wants", "WatchdogUSec", "ActiveState"
        )
        if props.get("User") != "pi":
            faults.append(f"{referee} runs as {props.get('User') or 'root'}, not pi")
        if props.get("Restart") not in ("on-failure", "always"):
            faults.append(
                f"{referee} is not restarted when it fails (Restart={props.get('Restart')})"
            )
        watchdog = props.get("WatchdogUSec", "0") not in ("0", "infinity")
        if props.get("Type") != "notify" or (props.get("ActiveState") == "active" and not watchdog):
            faults.append(
                f"{referee} has no watchdog (Type={props.get('Type')}, "
                f"WatchdogUSec={props.get('WatchdogUSec')})"
            )
        if "network-online.target" not in props.get("After", "").split():
            faults.append(f"{referee} may start before the network (After={props.get('After')})")
        if kiosk is not None:
            screen = self.pi.unit(kiosk, "User", "Restart", "After", "Wants")
            if screen.get("User") != "pi":
                faults.append(
                    f"{kiosk} runs as {screen.get('User') or 'root'}, not the desktop's pi"
                )
            if referee not in screen.get("After", "").split():
                faults.append(f"{kiosk} may start before its referee (After={screen.get('After')})")
            if referee not in screen.get("Wants", "").split():
                faults.append(f"{kiosk} does not pull its referee in")
            if screen.get("Restart") != "always":
                faults.append(
                    f"{kiosk} is not restarted when the browser ends "
                    f"(Restart={screen.get('Restart')})"
                )
        return faults

    def units(self) -> None:
        pi = self.pi
        with self.report.step("units: order, user and restart policy, as systemd runs them"):
            faults = self.unit_faults(
                "board-referee@table1.service", "board-referee-kiosk@table1.service"
            )
            faults += self.unit_faults("board-referee@table2.service", None)
            if faults:
                raise MachineError("; ".join(faults))
        with self.report.step("units: a broken copy of each is refused by the same check"):
            units = pi.path("/etc/systemd/system")
            referee = (units / "board-referee@.service").read_text()
            kiosk = (units / "board-referee-kiosk@.service").read_text()
            broken = {
                "Restart=no": referee.replace("Restart=on-failure", "Restart=no"),
                "User=root": referee.replace("User=pi", "User=root"),
                "no After=": referee.replace("After=network-online.target\n", ""),
            }
            for what, text in broken.items():
                (units / "pi-check-broken@.service").write_text(text)
                pi.root_run("systemctl daemon-reload").check()
                found = self.unit_faults("pi-check-broken@x.service", None)
                if len(found) != 1:
                    raise MachineError(f"a unit with {what}: {found or 'passed the check'}")
                self.report.say(f"a copy with {what}: {found[0]}")
            (units / "pi-check-broken-kiosk@.service").write_text(
                kiosk.replace(
                    "After=board-referee@%i.service graphical.target", "After=graphical.target"
                )
            )
            pi.root_run("systemctl daemon-reload").check()
            found = self.unit_faults(
                "board-referee@table1.service", "pi-check-broken-kiosk@table1.service"
            )
            if len(found) != 1 or "before its referee" not in found[0]:
                raise MachineError(f"a kiosk unit without After= passed the check: {found}")
            self.report.say(f"a kiosk copy without its After=: {found[0]}")
            for name in ("pi-check-broken@.service", "pi-check-broken-kiosk@.service"):
                (units / name).unlink()
            pi.root_run("systemctl daemon-reload").check()
        with self.report.step("units: the state folder's owner, the serial ports' group"):
            owner = pi.root_run(
                f"stat -c %U {STATE} {STATE}/board-referee "
                f"{STATE}/board-referee/journal-table1.sqlite3"
            ).check()
            if set(owner.stdout.split()) != {"pi"}:
                raise MachineError(f"the state folder and journal belong to {owner.stdout.split()}")
            ports = pi.root_run("stat -L -c '%n %G %a' /dev/serial/by-id/* /dev/ttyACM*").check()
            for line in ports.stdout.splitlines():
                name, group, mode = line.split()
                if group != "dialout" or mode != "660":
                    raise MachineError(f"{name} is {group} {mode}, not dialout 660")
            groups = pi.root_run("id -nG pi").check().stdout.split()
            if "dialout" not in groups:
                raise MachineError(f"pi is not in dialout ({groups})")
            for table in self.tables:
                status = pi.root_run(
                    f"systemctl status board-referee@{table.board_id} --no-pager -n 0"
                ).stdout
                self.report.say(
                    next(
                        (ln.strip() for ln in status.splitlines() if "Status:" in ln),
                        status.splitlines()[0],
                    )
                )

    # -- the evening -------------------------------------------------------------------------
    def evening(self) -> None:
        pi = self.pi
        one, two = self.tables
        with self.report.step("evening: a game on each board"):
            for _ in range(3):
                one.play(2)
                two.play(2)
            for table in self.tables:
                if not table.played:
                    raise MachineError(f"no move played at {table.board_id}")
            self.report.say(f"table1: {' '.join(one.played)}; table2: {' '.join(two.played)}")
        with self.report.step("evening: a referee killed (kill -9): systemd restarts it"):
            unit = "board-referee@table1.service"
            before = pi.unit(unit, "MainPID", "NRestarts")
            pi.root_run(f"systemctl kill -s KILL {unit}").check()

            def back() -> bool:
                now = pi.unit(unit, "ActiveState", "MainPID")
                return now["ActiveState"] == "active" and now["MainPID"] not in (
                    "0",
                    before["MainPID"],
                )

            took = pi.wait_for(
                "the killed referee to be back",
                back,
                timeout=60,
                every=0.05,
            )
            restarts = int(pi.unit(unit, "NRestarts")["NRestarts"]) - int(before["NRestarts"])
            if restarts != 1:
                raise MachineError(f"systemd restarted it {restarts} times")
            one.put_right()
            one.play(2)
            self.report.say(f"back and ready {took:.1f} s after the kill; the game went on")
        self.broker_outage()
        self.power_cuts()
        self.update()
        self.backup()

    def backup(self) -> None:
        """§6's backup script, run while the referees play on: the stick's copies hold every
        move, and ``records --journal COPY`` reads them."""
        with self.report.step("evening: the journals backed up to the stick, and read back"):
            self.run_block(step(self.blocks, "backup"))
            for table in self.tables:
                copies = sorted(self.stick.glob(f"journal-{table.board_id}-*.sqlite3"))
                if not copies:
                    raise MachineError(f"no backup of {table.board_id}'s journal on the stick")
                inside = f"/media/pi/STICK/{copies[-1].name}"
                listed = self.pi.user_run(
                    f"/opt/board-referee/.venv/bin/board-referee records --journal {inside}"
                ).check()
                copy = Table(self.pi, table.board, table.game.id, seed=0)
                copy.journal_path = copies[-1]
                if copy.moves() != table.moves():
                    raise MachineError(f"the backup of {table.board_id} has {len(copy.moves())} "
                                       f"moves, the journal {len(table.moves())}")  # fmt: skip
                self.report.say(f"{copies[-1].name}: {len(copy.moves())} moves; records: "
                                f"{listed.stdout.strip().splitlines()[-1][:80]}")  # fmt: skip

    def broker_outage(self) -> None:
        pi = self.pi
        one, two = self.tables
        with self.report.step("evening: the club's broker stopped and started"):
            before = {
                t.board_id: pi.unit(f"board-referee@{t.board_id}.service", "MainPID")
                for t in self.tables
            }
            pi.root_run("systemctl stop mosquitto").check()
            one.play(1)
            two.play(1)
            pi.root_run("systemctl start mosquitto").check()
            for table in (one,):  # the board the recipe gave a broker login (§4b)
                state = self.retained_state(table.board_id, len(table.played))
                if len(state.get("moves") or []) != len(table.played):
                    raise MachineError(
                        f"{table.board_id}'s state on the broker has "
                        f"{len(state.get('moves') or [])} moves, not {len(table.played)}"
                    )
            after = {
                t.board_id: pi.unit(f"board-referee@{t.board_id}.service", "MainPID")
                for t in self.tables
            }
            if after != before:
                raise MachineError(f"a referee restarted with the broker: {before} -> {after}")
            self.report.say("both referees kept their games and published them again")

    def retained_state(self, board: str, moves: int, timeout: float = 60) -> dict[str, Any]:
        """The board's state as the club view reads it from the broker, once it shows
        ``moves`` moves."""
        found: dict[str, Any] = {}

        def check() -> bool:
            nonlocal found
            done = self.pi.root_run(
                f"mosquitto_sub -h club-pi -u club -P CLUB-PASSWORD -C 1 -W 5 "
                f"-t board-referee/v1/{board}/state",
                timeout=15,
            )
            try:
                found = json.loads(done.stdout)
            except json.JSONDecodeError:
                return False
            return len(found.get("moves") or []) == moves

        self.pi.wait_for(f"{board}'s state on the broker", check, timeout=timeout, every=1)
        return found

    def power_cuts(self) -> None:
        pi = self.pi
        with self.report.step(f"evening: the power cut {POWER_CUTS} times mid-game"):
            kinds = ("between moves", "a piece in the hand", "a move just put down")
            lost = 0
            boots: list[float] = []
            for cut in range(POWER_CUTS):
                table = self.tables[cut % 2]
                kind = kinds[cut % 3]
                if table.next_move() is None:  # that game is over: the other board's
                    table = self.tables[(cut + 1) % 2]
                text = table.next_move()
                if text is None:
                    raise CannotRunHereError("both games ended before the power cuts")
                journaled = {t.board_id: t.moves() for t in self.tables}
                in_hand = ""
                if kind == "a piece in the hand" and "-" in text:
                    source, target = text.split("-", 1)
                    table.board.do(f"lift {source}")
                    in_hand = target
                elif kind == "a move just put down":
                    table.start_move(text)
                pi.power_cut()
                if in_hand:  # the player puts it down while the Pi is dark
                    table.board.do(f"place {in_hand.split('x')[0]}")
                boots.append(pi.boot())
                self.wait_referees()
                for other in self.tables:
                    now = other.moves()
                    before = journaled[other.board_id]
                    if now[: len(before)] != before:
                        lost += 1
                        raise MachineError(f"{other.board_id} lost moves: {before} -> {now}")
                    if other.integrity() != "ok":
                        raise MachineError(f"{other.board_id}'s journal: {other.integrity()}")
                for other in self.tables:
                    other.put_right()
                for other in self.tables:
                    other.play(1)
            for table in self.tables:
                if table.moves() != table.played:
                    raise MachineError(
                        f"{table.board_id}: journal {table.moves()} != played {table.played}"
                    )
            self.report.figure(
                f"power cuts: {POWER_CUTS}, moves lost: {lost}; boot to multi-user "
                f"{sorted(boots)[len(boots) // 2]:.1f} s (median); table1 "
                f"{len(self.tables[0].played)} moves, table2 {len(self.tables[1].played)}"
            )

    def update(self) -> None:
        pi = self.pi
        one = self.tables[0]
        with self.report.step("evening: git pull && make install, restart mid-game"):
            bundle.write_bundle(bundle.update_commit(self.base_commit), self.stick, self.work)
            done = pi.user_run(f"cd {CHECKOUT} && git pull && make install", timeout=1800)
            (self.logs / "update.log").write_text(done.stdout + done.stderr)
            done.check()
            if not pi.path(f"{CHECKOUT}/{bundle.UPDATE_FILE}").exists():
                raise MachineError("git pull did not bring the update")
            pi.user_run("sudo systemctl restart 'board-referee@*'").check()
            self.wait_referees()
            for table in self.tables:
                table.put_right()
            one.play(2)
            self.report.say(
                f"updated in {done.seconds:.0f} s; table1's game went on ({len(one.played)} moves)"
            )


def run_quiet(command: list[str]) -> str:
    return subprocess.run(command, capture_output=True, text=True, check=True).stdout
