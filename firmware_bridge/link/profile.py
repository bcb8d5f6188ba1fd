"""Hardware profiles (``config/boards/*.yaml``): how a physical board is wired.

A profile says which sensor index and which LED index is which engine cell (so a club can
wire a board in any order, or turn it round), what the sensors can tell (occupancy, owner,
identity), which buttons exist, and the timing: the firmware's debounce and the host's settle
window. It also translates between sensor readings and what the reconciler compares: a
*token* per cell, the part of a piece the sensors can see.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from engine import Cell, Game, Piece, Player
from engine.config import Node
from firmware_bridge.link.protocol import Button, LedKind, Reading, Sensing
from firmware_bridge.link.wiring import PicoWiring, parse_wiring

Token = Hashable
"""What the sensors can see of a piece: True (occupancy), a Player (owner),
or (Player, kind) (identity). Pieces' state (a die's pips) is never visible."""

UNREADABLE: Token = "?"  # a reading that matches no piece (e.g. owner unknown on an owner board)

CORNERS = ("south-west", "south-east", "north-west", "north-east")


@dataclass(frozen=True, slots=True)
class BoardProfile:
    id: str
    game_id: str
    description: str
    sensing: Sensing
    led_kind: LedKind
    sensor_cells: tuple[Cell | None, ...]  # sensor index -> cell (None: a spare input)
    led_cells: tuple[Cell | None, ...]  # LED index -> cell
    buttons: frozenset[Button]
    settle: float  # seconds a sensed layout must be stable before the host acts on it
    debounce: float  # seconds the firmware filters a sensor before reporting it
    identity: Mapping[int, str]  # identity code -> piece kind
    baudrate: int
    sensor_of: Mapping[Cell, int]  # the inverse maps, computed once
    led_of: Mapping[Cell, int]
    pico: PicoWiring | None = None  # how a Pico is wired into it (None: an identity board)
    # How it is built (the ``build:`` section: its top, cavity, pieces and magnets), as
    # written: firmware_bridge/physics reads it; the referee never needs it.
    build: object = None
    source: str = ""

    @property
    def led_count(self) -> int:
        """The LEDs the board drives: one per entry of its LED wiring, none on a board
        without LEDs (its wiring still lists the cells, for the sensors' sake)."""
        return len(self.led_cells) if self.led_kind is not LedKind.NONE else 0

    # -- tokens ---------------------------------------------------------------------------
    def token(self, piece: Piece) -> Token:
        if self.sensing is Sensing.OCCUPANCY:
            return True
        if self.sensing is Sensing.OWNER:
            return piece.owner
        return (piece.owner, piece.kind)

    def tokens(self, layout: Mapping[Cell, Piece]) -> dict[Cell, Token]:
        """A layout as the sensors would see it (cells without a sensor are invisible)."""
        sensed = self.sensor_of
        return {c: self.token(p) for c, p in layout.items() if c in sensed}

    def reading_token(self, reading: Reading) -> Token | None:
        """The token a sensor reading shows (None: empty)."""
        if reading.code == 0:
            return None
        if self.sensing is Sensing.OCCUPANCY:
            return True
        if reading.code == 1:
            return UNREADABLE
        owner = Player.ONE if reading.code == 2 else Player.TWO
        if self.sensing is Sensing.OWNER:
            return owner
        kind = self.identity.get(reading.ident)
        return UNREADABLE if kind is None else (owner, kind)

    def reading(self, piece: Piece | None) -> Reading:
        """What this board's sensors report for ``piece`` (the emulator's side)."""
        if piece is None:
            return Reading(0, 0)
        if self.sensing is Sensing.OCCUPANCY:
            return Reading(1, 0)
        code = 2 if piece.owner is Player.ONE else 3
        if self.sensing is Sensing.OWNER:
            return Reading(code, 0)
        ident = next((i for i, kind in self.identity.items() if kind == piece.kind), 0)
        return Reading(code, ident)


def build_profile(data: object, game: Game, source: str) -> BoardProfile:
    node = Node(data, source)
    node.only_keys(
        "id", "game", "description", "sensing", "leds", "sensors", "led_wiring", "buttons",
        "settle_ms", "debounce_ms", "identity", "baudrate", "pico", "build",
    )  # fmt: skip
    game_id = node.get("game").text()
    if game_id != game.id:
        node.get("game").fail(f"this profile is for {game_id}, not {game.id}")
    sensing = Sensing[node.get("sensing").choice(("occupancy", "owner", "identity")).upper()]
    led_kind = LedKind[node.get("leds", "rgb").choice(("none", "mono", "rgb")).upper()]
    sensor_cells = _wiring(node.get("sensors"), game)
    led_cells = _wiring(node.get("led_wiring"), game) if node.has("led_wiring") else sensor_cells
    buttons: set[Button] = set()
    for button_node in node.get("buttons", []).elements():
        name = button_node.choice(tuple(b.name.lower() for b in Button))
        buttons.add(Button[name.upper()])
    identity: dict[int, str] = {}
    identity_node = node.get("identity", {})
    for kind, code_node in identity_node.items():
        game.kind_of(identity_node.key(kind))
        code = code_node.integer(1, 255)
        if code in identity:
            code_node.fail(f"identity code {code} is used twice")
        identity[code] = kind
    if sensing is Sensing.IDENTITY:
        missing = [k for k in game.pieces if k not in identity.values()]
        if missing:
            identity_node.fail(f"identity sensing needs a code for every kind; missing {missing}")
    debounce_ms = node.get("debounce_ms", 30).integer(0, 1000)
    pico = None
    if sensing is not Sensing.IDENTITY or node.has("pico"):
        pico = parse_wiring(
            node.get("pico", None), game, sensing=sensing, sensors=len(sensor_cells),
            leds=len(led_cells) if led_kind is not LedKind.NONE else 0, led_kind=led_kind,
            buttons=frozenset(buttons), debounce_ms=debounce_ms,
        )  # fmt: skip
    return BoardProfile(
        id=node.get("id").text(),
        game_id=game_id,
        description=str(node.get("description", "").value or ""),
        sensing=sensing,
        led_kind=led_kind,
        sensor_cells=sensor_cells,
        led_cells=led_cells,
        buttons=frozenset(buttons),
        settle=node.get("settle_ms", 300).integer(0, 10000) / 1000.0,
        debounce=debounce_ms / 1000.0,
        identity=MappingProxyType(identity),
        baudrate=node.get("baudrate", 115200).integer(300, 4000000),
        sensor_of=_inverse(sensor_cells),
        led_of=_inverse(led_cells),
        pico=pico,
        build=node.get("build", None).value,
        source=source,
    )


def _inverse(wiring: tuple[Cell | None, ...]) -> Mapping[Cell, int]:
    return MappingProxyType({cell: i for i, cell in enumerate(wiring) if cell is not None})


def _wiring(node: Node, game: Game) -> tuple[Cell | None, ...]:
    """Index -> cell, from an explicit list or from an order rule over the board's rows."""
    board = game.board
    if node.has("cells"):
        node.only_keys("cells")
        cells: list[Cell | None] = []
        for element in node.get("cells").elements():
            cells.append(None if element.value is None else game.cell_of(element))
        seen = [c for c in cells if c is not None]
        if len(seen) != len(set(seen)):
            node.get("cells").fail("a cell is wired twice")
        return tuple(cells)
    node.only_keys("order", "start", "serpentine", "skip")
    order = node.get("order", "rows").choice(("rows", "columns"))
    start = node.get("start", "south-west").choice(CORNERS)
    serpentine = node.get("serpentine", False).boolean()
    skip: set[Cell] = set()
    for element in node.get("skip", []).elements():
        name = element.text()
        if name == "blocked":
            skip |= board.blocked
        elif name in board.regions:
            skip |= board.regions[name]
        else:
            skip.add(game.cell_of(element))
    # Lines of cells (rows or columns) in the order the wiring visits them.
    along, across = (0, 1) if order == "rows" else (1, 0)
    north, east = start.startswith("north"), start.endswith("east")
    lines: dict[int, list[Cell]] = {}
    for cell, position in enumerate(board.coords):
        lines.setdefault(round(position[across] * 100), []).append(cell)
    first_line_high = north if order == "rows" else east
    first_cell_high = east if order == "rows" else north
    wiring: list[Cell | None] = []
    for number, key in enumerate(sorted(lines, reverse=first_line_high)):
        line = sorted(lines[key], key=lambda c: board.coords[c][along])
        reverse = first_cell_high != (serpentine and number % 2 == 1)
        if reverse:
            line.reverse()
        wiring.extend(c for c in line if c not in skip)
    return tuple(wiring)
