"""What the faces are shown: the daemon's state as an immutable ``Snapshot`` (snapshot.py),
built in the main loop after each change and handed to every listener (the kiosk, the club's
MQTT feed, the emulated board's page). ``Daemon`` (daemon.py) is a ``Showing``: this half only
reads what the loop keeps, never changes the game.
"""

from __future__ import annotations

import functools
import time
from typing import TYPE_CHECKING, Any

from engine import NO_CELL, ConfigError, Game, Piece, Player, State
from engine.moves import PASS
from firmware_bridge import words
from firmware_bridge.link import catalog
from firmware_bridge.link.profile import BoardProfile
from firmware_bridge.link.protocol import Hello
from firmware_bridge.referee.snapshot import Connection, PieceView, Snapshot, board_picture

if TYPE_CHECKING:
    from firmware_bridge.referee.check import BoardCheck
    from firmware_bridge.referee.health import SensorHealth
    from firmware_bridge.referee.reconcile import Reconciler


class Showing:
    """The snapshot half of the daemon (see the module's docstring). What it reads of the
    daemon's state is declared here; daemon.py sets it."""

    game: Game
    profile: BoardProfile
    journal: Any
    rec: Reconciler
    clocks: Any  # clocks.GameClocks
    _flag_signals: Any  # timekeeping.Timekeeping's: a game lost on time, on the LEDs
    have_scan: bool
    moves: Any
    serial: int
    mismatch: str
    misfit: Hello | None = None  # the board connected that does not fit (its HELLO)
    switched_for: str | None
    switched_at: float = 0.0  # when a new game on another board was started (the loop's time)
    now: float
    alert: tuple[str, float | None]
    check: BoardCheck | None
    game_id: int
    people: tuple[str, str]
    notice: str
    health: SensorHealth
    link: Any
    board: Hello | None
    halted: str
    unpowered: bool
    port: str
    last_frame: float | None
    faults: list[tuple[float, int, str]]
    thinks: bool
    hints: bool
    computer_failed: str
    game_start: Any

    @property
    def state(self) -> State:
        raise NotImplementedError

    def snapshot(self) -> Snapshot:
        """What the faces show, as of now (main loop only)."""
        state, game, rec = self.state, self.game, self.rec
        names = game.board.names
        layout = state.layout()
        sensed_cells = set(rec.sensed)
        sensor_of = self.profile.sensor_of
        have = self.have_scan
        lifted = tuple(names[c] for c in sorted(layout)
                       if have and c in sensor_of and c not in sensed_cells)  # fmt: skip
        unexpected = tuple(sorted(sensed_cells - set(layout))) if have else ()
        ghosts = []  # what those pieces most likely are: the turn's earlier layouts tell
        misplaced = []  # ... or, for a piece put where the game has none, what the words say
        named = rec.named(rec.sensed) if unexpected else {}
        for cell in unexpected:
            piece = next((x[cell] for x in rec.turn_layouts if cell in x), None)
            if piece is not None and self.profile.token(piece) == rec.sensed.get(cell):
                ghosts.append(_view(game, names[cell], piece))
            elif (guess := named.get(cell)) is not None:
                misplaced.append(_view(game, names[cell], guess))
        last: tuple[str, ...] = ()
        if state.plies:
            move = state.history[-1]
            cells = [c for c in (move.frm, move.to) if c != NO_CELL] + list(move.cells)
            last = tuple(names[c] for c in cells)
        outcome = state.outcome()
        scores = state.scores()
        captured: tuple[list[str], list[str]] = ([], [])
        lost: tuple[list[str], list[str]] = ([], [])
        for _, pieces in self.moves:
            for piece in pieces:
                symbol = game.pieces[piece.kind].symbol
                captured[piece.owner.index].append(symbol)
                lost[piece.owner.index].append(piece.kind)
        self.serial += 1
        # An illegal move left on a board that is then unplugged is still there: the alert
        # stays until the board, back, shows it corrected.
        alert = rec.alert if not self.mismatch else ""
        if alert != self.alert[0]:
            self.alert = (alert, time.time() if alert else None)
        return Snapshot(
            serial=self.serial,
            at=time.time(),
            game_number=self.game_id,
            game_id=game.id,
            title=game.title,
            options=tuple((k, str(v)) for k, v in game.options.items()),
            players=game.player_names,
            people=self.people,
            profile=self.profile.id,
            sensing=self.profile.sensing.name.lower(),
            board=board_picture(game),
            pieces=tuple(
                PieceView(names[c], p.kind, game.pieces[p.kind].symbol, int(p.owner), p.state)
                for c, p in sorted(layout.items())
            ),
            lifted=lifted,
            unexpected=tuple(names[c] for c in unexpected),
            ghosts=tuple(ghosts),
            misplaced=tuple(misplaced),
            signals=tuple(
                (names[c], s.value)
                for c, s in sorted(
                    (
                        (rec.signals or self._flag_signals())
                        if self.check is None
                        else self.check.signals()
                    ).items()
                )
            ),
            last_move=last,
            status=self._status_sentence(),
            notice=self.notice,
            alert=alert,
            alert_since=self.alert[1],
            to_move=None if outcome is not None else int(state.to_move),
            acting=None if rec.acting is None or self.check is not None else int(rec.acting),
            phase=state.phase,
            deciding=state.deciding,
            scores=None if scores is None else (scores[Player.ONE], scores[Player.TWO]),
            details=self._details(),
            buttons=self._buttons(),
            captured=(tuple(captured[0]), tuple(captured[1])),
            lost=(words.lost(lost[0]), words.lost(lost[1])),
            started=self._started(),
            clocks=self.clocks.view(self.now),
            outcome=None
            if outcome is None
            else words.result(outcome, game.player_names, self.people),
            winner=None if outcome is None or outcome.winner is None else int(outcome.winner),
            moves=tuple(view for view, _ in self.moves),
            connection=self._connection(),
            check=None if self.check is None else self.check.view(),
            sensor_warnings=self.health.warnings(),
            sensor_brief=words.NO_SENSOR_POWER if self.unpowered else self.health.brief(),
            next_game=rec.next_game if outcome is not None else "",
        )

    def _started(self) -> str:
        """When this game was started, from the journal (read once a game)."""
        known = getattr(self, "_started_of", None)
        if known is None or known[0] != self.game_id:
            known = (self.game_id, self.journal.started(self.game_id) if self.game_id else "")
            self._started_of = known
        return str(known[1])

    def _details(self) -> tuple[str, ...]:
        """What is not on the board, in words: the pieces still to place (the player to
        move's piece by piece, the other's as a count: on a 7" screen the five kinds twice
        left room for two moves of the list), then the game's own lines (scores, caves, a
        piece's state)."""
        state = self.state
        mover = state.to_move
        lines = [words.reserve_line(self.game, self.people, p, counts, whole=p is mover)
                 for p in (mover, mover.other) if (counts := state.reserve(p))]  # fmt: skip
        return (*lines, *state.status_lines())

    def _buttons(self) -> tuple[str, ...]:
        """The board's buttons the game can use now (a face offers only these besides take
        back): PASS where passing is legal, SELECT and CONFIRM while look-alike moves are
        offered, CONFIRM for a change the sensors cannot see or a move that leaves the board
        as it is (lift, put back, CONFIRM)."""
        state, rec = self.state, self.rec
        if state.outcome() is not None or self.check is not None:
            return ()
        found = []
        if rec.computer_to_move:  # the board makes only the computer's move: its pass, or none
            if rec.planned == PASS:
                found.append("pass")
            if self.computer_failed:
                found.append("restart-computer")
            return tuple(found)
        if state.is_legal(PASS):  # the position's moves, listed once and kept
            found.append("pass")
        # A move that changes nothing the sensors see: known once the turn's paths are worked
        # out (the first hand on the board does it), never worked out here, in the snapshot.
        if rec.choosing or rec.adjust or rec.has_invisible_moves(cached_only=True):
            found.append("confirm")
        if rec.choosing:
            found.append("select")
        if self.thinks and self.hints and rec.hinted is None and not self.game_start:
            found.append("hint")
        if self.computer_failed:
            found.append("restart-computer")
        return tuple(found)

    def _swapping(self) -> bool:
        """A new game on another board was started moments ago: the board still connected is
        the last game's, being swapped (the built-in emulator swaps its own in about 3 s), so
        it is waited for, not called wrong."""
        return (self.switched_for is not None
                and self.now - self.switched_at < SWAP_GRACE)  # fmt: skip

    def _wrong_board(self) -> str:
        """The board connected does not fit this game's: said plainly (which board the game
        needs, which game's board is connected)."""
        hello = self.misfit
        if hello is None:
            return self.mismatch
        profile = self.profile
        return words.wrong_board(self.game.title, len(profile.sensor_cells),
                                 profile.sensing.name.lower(), board_id=hello.board_id,
                                 has=hello.sensors, fits=boards_fitting(hello))  # fmt: skip

    def _status_sentence(self) -> str:
        if self.mismatch:
            if self._swapping():
                return words.SWAPPING.format(title=self.game.title)
            return self._wrong_board()
        if self.link is None:
            return words.PLUG_IN.format(title=self.game.title)
        if self.board is None and self.halted:
            return _halted_sentence(self.halted)
        if self.board is None or not self.have_scan:
            return words.WAITING_FOR_BOARD.format(title=self.game.title)
        if self.check is not None:
            return words.CHECK_STATUS.format(instruction=self.check.instruction())
        # A sensor's warning is said beneath (``sensor_brief``), never in place of what the
        # players must do: an illegal move stays an illegal move for as long as it is there.
        return self.rec.status

    def _connection(self) -> Connection:
        port = self.port
        if self.mismatch and self._swapping():
            return Connection("connecting", port, words.SWAPPING.format(title=self.game.title),
                              last_frame=self.last_frame, faults=tuple(self.faults))  # fmt: skip
        if self.mismatch:
            return Connection("wrong-board", port, self._wrong_board(),
                              last_frame=self.last_frame, faults=tuple(self.faults))  # fmt: skip
        if self.link is None:
            return Connection("waiting", port, f"waiting for the board on {port}",
                              last_frame=self.last_frame, faults=tuple(self.faults))  # fmt: skip
        hello = self.board
        if hello is None:
            return Connection("connecting", port, f"port {port} open, waiting for the board",
                              last_frame=self.last_frame, faults=tuple(self.faults))  # fmt: skip
        return Connection("connected", port, f"board {hello.board_id} connected",
                          hello.board_id, hello.firmware, self.last_frame,
                          tuple(self.faults))  # fmt: skip


def _view(game: Game, cell: str, piece: Piece) -> PieceView:
    """A piece as the pages draw it; one whose kind is not known has the symbol "?"."""
    kind = game.pieces.get(piece.kind)
    return PieceView(cell, piece.kind, kind.symbol if kind is not None else "?",
                     int(piece.owner), piece.state)  # fmt: skip


SWAP_GRACE = 10.0  # seconds a new game's board swap is waited for before a misfit is wrong


@functools.lru_cache(maxsize=16)
def _fitting(sensors: int, leds: int, sensing: str) -> tuple[str, ...]:
    """The games (titles) of the shipped profiles a board of these counts and sensing fits."""
    found: list[str] = []
    for profile_id in catalog.profile_ids():
        try:
            game = catalog.load_game(catalog.profile_game(profile_id))
            profile = catalog.load_profile(profile_id, game)
        except (ConfigError, OSError):
            continue
        if (len(profile.sensor_cells), len(profile.led_cells), profile.sensing.name.lower()) == (
                sensors, leds, sensing) and game.title not in found:  # fmt: skip
            found.append(game.title)
    return tuple(found)


def boards_fitting(hello: Hello) -> tuple[str, ...]:
    return _fitting(hello.sensors, hello.leds, hello.sensing.name.lower())


def _halted_sentence(text: str) -> str:
    """FAULT 6 in one line a kiosk shows whole; the fault itself, in the connection's faults,
    has the details (the error's words, the heap left)."""
    error = text.split("could not start: ", 1)[-1].split(":", 1)[0].split(" ", 1)[0]
    what = "out of memory" if error == "MemoryError" else error or "an error"
    return words.HALTED.format(what=what)
