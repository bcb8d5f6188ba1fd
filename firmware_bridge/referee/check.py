"""The board check: for a newly built or suspect board, every cell in turn.

It lights a cell and asks for a piece on it (one of each player's, on a board that senses
owners), then for the piece to be lifted, and notes what the sensors did: a dead sensor
(nothing read), a stuck one (a piece read with none there, or still read after the lift), two
cells swapped in the wiring (each read by the other's sensor), a sensor wired to another
cell's input, the wrong polarity (the other player's piece read), a reading between the bands
(a weak magnet), a noisy sensor (changes with nothing moved), and an LED the player says did
not light (PASS). The report names cells, not indexes, and says what to fix.

Pure logic like the reconciler: no I/O, no clock (``now`` is passed in). The daemon runs it in
its check mode, for ``board-referee check`` and for the kiosk's "Check the board".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any

from engine import Cell, Game, Player
from firmware_bridge import words
from firmware_bridge.link.leds import Signal
from firmware_bridge.link.profile import BoardProfile
from firmware_bridge.link.protocol import Button, Reading, Sensing

HOLD = 0.6  # seconds another cell's sensor must keep reading a piece to count as the reader
NOISY_AFTER = 3  # changes with nothing moved that make a sensor noisy


class Kind(Enum):
    STUCK = "stuck"
    DEAD = "dead"
    STAYS = "stays"
    SWAPPED = "swapped"
    MISWIRED = "miswired"
    POLARITY = "polarity"
    WEAK = "weak"
    NOISY = "noisy"
    LED = "led"
    FAULT = "fault"


@dataclass(frozen=True, slots=True)
class Finding:
    cell: str
    kind: Kind
    seen: str  # what the check saw, in words
    fix: str  # what to do about it

    def to_json(self) -> dict[str, str]:
        return {"cell": self.cell, "kind": self.kind.value, "seen": self.seen, "fix": self.fix}


class Phase(Enum):
    CLEAR = "clear"
    PLACE = "place"
    LIFT = "lift"
    DONE = "done"


@dataclass(frozen=True, slots=True)
class CheckView:
    """What the faces show of a check in progress (or finished)."""

    phase: str
    cell: str | None
    owner: str | None  # whose piece to put down, on an owner board
    instruction: str
    done: int  # steps done of ``total`` (a step: one piece on one cell)
    total: int
    findings: tuple[Finding, ...]
    summary: str

    def to_json(self) -> dict[str, Any]:
        return {
            "phase": self.phase,
            "cell": self.cell,
            "owner": self.owner,
            "instruction": self.instruction,
            "done": self.done,
            "total": self.total,
            "findings": [f.to_json() for f in self.findings],
            "summary": self.summary,
        }


class BoardCheck:
    def __init__(self, game: Game, profile: BoardProfile, cells: Sequence[Cell] | None = None):
        self.game = game
        self.profile = profile
        names = game.board.names
        coords = game.board.coords
        wired = [c for c in profile.sensor_of if cells is None or c in cells]
        # South-west first, row by row: the order a person works across a board.
        self.cells = sorted(wired, key=lambda c: (round(coords[c][1], 3), coords[c][0]))
        self.names = names
        owner_board = profile.sensing is not Sensing.OCCUPANCY
        self.owners: tuple[Player | None, ...] = (
            (Player.ONE, Player.TWO) if owner_board else (None,)
        )
        self.readings: list[Reading] = []
        self.phase = Phase.CLEAR
        self.position = 0  # index into the steps: cell * len(owners) + owner
        self.watch: int | None = None  # the sensor whose reading the lift must clear
        self.candidate: tuple[int, float] | None = None  # another cell's sensor, since when
        self.flips = 0  # changes of the watched sensor in this step
        self.changes: dict[int, int] = {}  # changes of sensors no step involved
        self.out: set[int] = set()  # sensors the board reports out of every band now
        self.stuck: set[Cell] = set()
        self.read_by: dict[Cell, Cell] = {}  # a piece on this cell was read by that cell's sensor
        self.reversed: dict[Cell, set[Player]] = {}  # whose pieces a cell read as the other's
        self.right: dict[Cell, set[Player]] = {}  # ... and whose it read right
        self.dark_said: set[Cell] = set()
        self.findings: list[Finding] = []
        self.skipped: list[str] = []

    # -- what the faces show ----------------------------------------------------------------
    @property
    def total(self) -> int:
        return len(self.cells) * len(self.owners)

    @property
    def finished(self) -> bool:
        return self.phase is Phase.DONE

    def current(self) -> tuple[Cell, Player | None] | None:
        if self.phase not in (Phase.PLACE, Phase.LIFT) or self.position >= self.total:
            return None
        cell = self.cells[self.position // len(self.owners)]
        return cell, self.owners[self.position % len(self.owners)]

    def signals(self) -> dict[Cell, Signal]:
        if self.phase is Phase.CLEAR:
            return {c: Signal.ILLEGAL for c in self._occupied()}
        step = self.current()
        if step is None:
            return {}
        return {step[0]: Signal.MOVE_TO if self.phase is Phase.PLACE else Signal.MOVE_FROM}

    def view(self) -> CheckView:
        step = self.current()
        cell = self.names[step[0]] if step else None
        owner = None
        if step and step[1] is not None:
            owner = self.game.player_names[step[1].index]
        return CheckView(
            self.phase.value,
            cell,
            owner,
            self.instruction(),
            min(self.position, self.total),
            self.total,
            tuple(self.findings),
            self.summary(),
        )

    def instruction(self) -> str:
        if self.phase is Phase.CLEAR:
            lit = [self.names[c] for c in sorted(self._occupied())]
            still = words.CHECK_STILL.format(cells=", ".join(lit)) if lit else ""
            return words.CHECK_CLEAR.format(still=still)
        if self.phase is Phase.DONE:
            return words.CHECK_DONE.format(summary=self.summary())
        step = self.current()
        assert step is not None
        name = self.names[step[0]]
        piece = (
            words.CHECK_A_PIECE
            if step[1] is None
            else words.CHECK_ONE_OF.format(side=self.game.player_names[step[1].index])
        )
        if self.phase is Phase.PLACE:
            return words.CHECK_PLACE.format(piece=piece, cell=name)
        return words.CHECK_LIFT.format(cell=name)

    def summary(self) -> str:
        if self.phase is not Phase.DONE:
            return words.CHECK_SO_FAR.format(done=min(self.position, self.total),
                                             total=self.total)  # fmt: skip
        bad = sorted({f.cell for f in self.findings})
        skipped = [c for c in self.skipped if c not in bad]
        good = len(self.cells) - len(bad) - len(skipped)
        if not bad and not skipped:
            return words.CHECK_ALL_GOOD.format(good=good)
        text = words.CHECK_GOOD.format(good=good, cells=len(self.cells))
        if bad:
            text += words.CHECK_TO_FIX.format(cells=", ".join(bad))
        if skipped:
            text += words.CHECK_SKIPPED.format(cells=", ".join(skipped))
        return text

    def report(self) -> list[str]:
        lines = [self.summary()]
        for finding in self.findings:
            lines.append(f"{finding.cell}: {finding.seen}. {finding.fix}")
        if self.skipped:
            lines.append(words.CHECK_SKIPPED_LINE.format(cells=", ".join(self.skipped)))
        return lines

    # -- inputs ---------------------------------------------------------------------------
    def observe(self, readings: Sequence[Reading], now: float) -> None:
        """Every sensor's reading, after any change."""
        before = self.readings or list(readings)
        self.readings = list(readings)
        changed = [
            s for s, (a, b) in enumerate(zip(before, readings, strict=False)) if a.code != b.code
        ]
        if self.phase is Phase.CLEAR or self.phase is Phase.DONE:
            return
        step = self.current()
        assert step is not None
        cell, owner = step
        own = self.profile.sensor_of[cell]
        for sensor in changed:
            if sensor == self.watch or (self.phase is Phase.PLACE and sensor == own):
                self.flips += 1
            elif self.candidate is not None and sensor == self.candidate[0]:
                if readings[sensor].code == 0:
                    self.candidate = None
                    self._noise(sensor)
            elif self.phase is Phase.PLACE and readings[sensor].code != 0:
                if self.candidate is None and not self._noisy(sensor):
                    self.candidate = (sensor, now)
                else:
                    self._noise(sensor)
            else:
                self._noise(sensor)
        if self.phase is Phase.PLACE and readings[own].code != 0 and own not in self.out:
            # (An out-of-band sensor keeps its last good reading: a wire that broke under a
            # piece still reads it. Its cell waits for CONFIRM: nothing is seen there.)
            self._placed(cell, owner, own)
        elif self.phase is Phase.LIFT and self.watch is not None and readings[self.watch].code == 0:
            self._next(now)
        self.tick(now)

    def tick(self, now: float) -> None:
        """A piece read by another cell's sensor for long enough names that sensor."""
        if self.phase is not Phase.PLACE or self.candidate is None:
            return
        sensor, since = self.candidate
        if now - since >= HOLD and self.readings[sensor].code != 0:
            step = self.current()
            assert step is not None
            other = self.profile.sensor_cells[sensor]
            if other is not None:
                self.read_by[step[0]] = other
            self.candidate = None
            self.phase = Phase.LIFT
            self.watch = sensor

    def press(self, button: Button, now: float) -> None:
        if button is Button.CONFIRM:
            self.confirm(now)
        elif button is Button.PASS:
            self.dark(now)
        elif button is Button.SELECT:
            self.skip(now)

    def confirm(self, now: float) -> None:
        """CONFIRM: the board is clear; or the piece is down (lifted) and nothing happened."""
        if self.phase is Phase.CLEAR:
            # A sensor the board reports out of every band (FAULT 1) keeps its last good
            # reading: a broken wire under a piece is not a stuck sensor, it is that fault.
            for cell in sorted(self._occupied() - self._faulted()):
                self.stuck.add(cell)
                self._find(cell, Kind.STUCK, *self._stuck(cell))
            self.phase = Phase.PLACE
            self._skip_stuck(now)
            return
        step = self.current()
        if step is None:
            return
        cell = step[0]
        if self.phase is Phase.PLACE:
            self._find(cell, Kind.DEAD, *words.check_finding("dead", input=self._input(cell)))
            self._next(now, whole_cell=True)
        elif self.phase is Phase.LIFT:
            self._find(cell, Kind.STAYS, *words.check_finding("stays"))
            self._next(now)

    def dark(self, now: float) -> None:
        """PASS: the lit cell's LED did not come on."""
        step = self.current()
        if step is None or step[0] in self.dark_said:
            return
        cell = step[0]
        self.dark_said.add(cell)
        led = self.profile.led_of.get(cell)
        where = f"LED {led}" if led is not None else "its LED"
        self._find(cell, Kind.LED, *words.check_finding("led", led=where))

    def skip(self, now: float) -> None:
        """SELECT: leave this cell out (a piece missing, a cell to look at later)."""
        step = self.current()
        if step is None:
            return
        self.skipped.append(self.names[step[0]])
        self._next(now, whole_cell=True)

    def fault(self, sensor: int, now: float) -> None:
        """The board reported sensor ``sensor`` out of every band (FAULT 1)."""
        self.out.add(sensor)
        cells = self.profile.sensor_cells
        cell = cells[sensor] if 0 <= sensor < len(cells) else None
        if cell is None or any(
            f.kind is Kind.FAULT and f.cell == self.names[cell] for f in self.findings
        ):
            return
        self._find(cell, Kind.FAULT, *words.check_finding("fault", input=self._input(cell)))

    def back(self, sensor: int) -> None:
        """The board reported sensor ``sensor`` in a band again (FAULT 2): its readings count
        again (the fault it had stays in the report)."""
        self.out.discard(sensor)

    # -- steps ------------------------------------------------------------------------------
    def _placed(self, cell: Cell, owner: Player | None, sensor: int) -> None:
        code = self.readings[sensor].code
        if owner is not None:
            want = 2 if owner is Player.ONE else 3
            if code == 1:
                self._find(cell, Kind.WEAK, *words.check_finding("weak"))
            elif code != want:
                self.reversed.setdefault(cell, set()).add(owner)
            else:
                self.right.setdefault(cell, set()).add(owner)
        self.candidate = None
        self.phase = Phase.LIFT
        self.watch = sensor

    def _next(self, now: float, *, whole_cell: bool = False) -> None:
        if self.flips > 4:
            step = self.current()
            if step is not None:
                said = words.check_finding("noisy_piece", count=self.flips,
                                           input=self._input(step[0]))  # fmt: skip
                self._find(step[0], Kind.NOISY, *said)
        self.flips = 0
        self.watch = None
        self.candidate = None
        if whole_cell:
            per = len(self.owners)
            self.position = (self.position // per + 1) * per
        else:
            self.position += 1
        self.phase = Phase.PLACE
        self._skip_stuck(now)

    def _skip_stuck(self, now: float) -> None:
        per = len(self.owners)
        while self.position < self.total and self.cells[self.position // per] in self.stuck:
            self.position += 1
        if self.position >= self.total:
            self._finish()

    def _finish(self) -> None:
        self.phase = Phase.DONE
        # Two cells each read by the other's sensor: their wires are swapped.
        merged: set[Cell] = set()
        for a, b in sorted(self.read_by.items()):
            if a in merged:
                continue
            if self.read_by.get(b) == a:
                merged |= {a, b}
                wired = {"input_a": self._input(a), "input_b": self._input(b)}
                said = words.check_finding("swapped", a=self.names[a], b=self.names[b], **wired)
                self._find(a, Kind.SWAPPED, *said)
            else:
                wired = {"input_a": self._input(a), "input_b": self._input(b)}
                said = words.check_finding("miswired", a=self.names[a], b=self.names[b], **wired)
                self._find(a, Kind.MISWIRED, *said)
        names = self.game.player_names
        for cell, owners in sorted(self.reversed.items()):
            if not self.right.get(cell):  # every player's piece read as the other's
                said = words.check_finding("polarity", cell=self.names[cell])
                self._find(cell, Kind.POLARITY, *said)
            else:
                owner = min(owners)
                said = words.check_finding("weak_one", other=names[1 - owner.index],
                                           asked=names[owner.index])  # fmt: skip
                self._find(cell, Kind.WEAK, *said)
        for sensor, count in sorted(self.changes.items()):
            noisy = self.profile.sensor_cells[sensor]
            if count >= NOISY_AFTER and noisy is not None:
                said = words.check_finding("noisy_idle", count=count, input=self._input(noisy))
                self._find(noisy, Kind.NOISY, *said)
        order = {c: i for i, c in enumerate(self.cells)}
        index = self.game.board.index
        self.findings.sort(key=lambda f: order.get(index[f.cell], -1))

    # -- helpers ------------------------------------------------------------------------------
    def _faulted(self) -> set[Cell]:
        """Cells whose sensor the board reported out of every band."""
        named = {f.cell for f in self.findings if f.kind is Kind.FAULT}
        return {cell for cell, name in enumerate(self.names) if name in named}

    def _occupied(self) -> set[Cell]:
        cells = self.profile.sensor_cells
        found: set[Cell] = set()
        for sensor, reading in enumerate(self.readings):
            cell = cells[sensor] if sensor < len(cells) else None
            if reading.code != 0 and cell is not None:
                found.add(cell)
        return found

    def _noise(self, sensor: int) -> None:
        self.changes[sensor] = self.changes.get(sensor, 0) + 1

    def _noisy(self, sensor: int) -> bool:
        return self.changes.get(sensor, 0) >= NOISY_AFTER - 1

    def _find(self, cell: Cell, kind: Kind, seen: str, fix: str) -> None:
        name = self.names[cell]
        if any(f.cell == name and f.kind is kind for f in self.findings):
            return
        self.findings.append(Finding(name, kind, seen, fix))

    def _input(self, cell: Cell) -> str:
        sensor = self.profile.sensor_of.get(cell)
        wiring = self.profile.pico
        if sensor is None:
            return "its sensor input"
        return wiring.input_of(sensor) if wiring is not None else f"sensor input {sensor}"

    def _stuck(self, cell: Cell) -> tuple[str, str]:
        if self.profile.pico is not None and self.profile.pico.part.kind == "linear":
            return words.check_finding("stuck_linear")
        return words.check_finding("stuck_switch", input=self._input(cell))
