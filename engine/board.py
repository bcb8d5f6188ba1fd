"""Board topology: cells with stable names, named-direction neighbours, rays, regions and zones.

Everything is computed once when a game is loaded, so rules code only does table lookups:
``board.step[d][cell]`` is the neighbour in direction ``d`` (or ``NO_CELL``) and
``board.rays[d][cell]`` the cells met walking that way to the edge.

Three kinds of board are built from config:
- ``square``: files x ranks, names ``a1`` .. (file letter, rank number), rank 1 at the south;
  directions N E S W NE NW SE SW; ``adjacency`` is ``orthogonal`` (default) or ``all``.
- ``hex``: pointy-topped hexes in a rectangle of ``rows`` x ``columns``, odd rows shifted half
  a hex east; names ``a1`` .. (index within the row, row number from the south). Directions
  come from ``engine.hexgrid``: six adjacent, six diagonal.
- ``custom``: cells listed with drawing positions and explicit links, for irregular boards.
Any kind may add ``zones``: extra cells outside the main grid with their own links (a burrow
ring), or pools with no cells (a player's reserve of unplaced pieces, kept beside the board).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from engine import hexgrid
from engine.config import Node
from engine.moves import NO_CELL, Cell
from engine.player import Player

SQUARE_DIRECTIONS: dict[str, tuple[int, int]] = {
    "N": (0, 1),
    "E": (1, 0),
    "S": (0, -1),
    "W": (-1, 0),
    "NE": (1, 1),
    "SE": (1, -1),
    "SW": (-1, -1),
    "NW": (-1, 1),
}
ORTHOGONAL = ("N", "E", "S", "W")

OPPOSITE: dict[str, str] = {
    "N": "S",
    "S": "N",
    "E": "W",
    "W": "E",
    "NE": "SW",
    "SW": "NE",
    "NW": "SE",
    "SE": "NW",
    "NNE": "SSW",
    "SSW": "NNE",
    "NNW": "SSE",
    "SSE": "NNW",
    "ENE": "WSW",
    "WSW": "ENE",
    "ESE": "WNW",
    "WNW": "ESE",
}

_NAME = re.compile(r"^[A-Za-wyz0-9][A-Za-wyz0-9]*$")
_FILES = "abcdefghijklmnopqrstuvw"  # no 'x': it is the capture sign in move notation


@dataclass(frozen=True, slots=True)
class Zone:
    """Cells outside the main grid, or a pool with no cells (a reserve beside the board)."""

    name: str
    owner: Player | None
    cells: tuple[Cell, ...]

    @property
    def is_pool(self) -> bool:
        return not self.cells


class Board:
    """Immutable topology. Cells are ints ``0 .. size-1``; ``names`` maps them to text."""

    __slots__ = (
        "adjacency",
        "adjacent",
        "blocked",
        "coords",
        "directions",
        "glyphs",
        "index",
        "kind",
        "names",
        "rays",
        "regions",
        "shape",
        "size",
        "step",
        "terrain",
        "zone_of",
        "zones",
    )

    def __init__(
        self,
        *,
        kind: str,
        names: list[str],
        coords: list[tuple[float, float]],
        links: dict[str, list[Cell]],
        adjacency: tuple[str, ...],
        blocked: frozenset[Cell],
        regions: dict[str, frozenset[Cell]],
        zones: dict[str, Zone],
        glyphs: dict[str, str],
        shape: str = "point",
        terrain: dict[str, str] | None = None,
    ) -> None:
        self.kind = kind
        # How one grid cell is drawn around its centre (for pictures of the board, not for
        # rules): "square", "diamond" (a square turned 45 degrees), "hex" (pointy-topped) or
        # "point" (a custom board's spot). Zone cells are always drawn as spots.
        self.shape = shape
        self.names: tuple[str, ...] = tuple(names)
        self.size = len(names)
        self.index: Mapping[str, Cell] = MappingProxyType({n: i for i, n in enumerate(names)})
        self.coords: tuple[tuple[float, float], ...] = tuple(coords)
        self.directions: tuple[str, ...] = tuple(links)
        self.adjacency = adjacency
        self.step: Mapping[str, tuple[Cell, ...]] = MappingProxyType(
            {d: tuple(table) for d, table in links.items()}
        )
        self.rays: Mapping[str, tuple[tuple[Cell, ...], ...]] = MappingProxyType(
            {d: tuple(_ray(table, c) for c in range(self.size)) for d, table in links.items()}
        )
        self.adjacent: tuple[tuple[Cell, ...], ...] = tuple(
            tuple(self.step[d][c] for d in adjacency if self.step[d][c] != NO_CELL)
            for c in range(self.size)
        )
        self.blocked = blocked
        self.regions: Mapping[str, frozenset[Cell]] = MappingProxyType(dict(regions))
        self.zones: Mapping[str, Zone] = MappingProxyType(dict(zones))
        zone_of: dict[Cell, str] = {}
        for zone in zones.values():
            for cell in zone.cells:
                zone_of[cell] = zone.name
        self.zone_of: Mapping[Cell, str] = MappingProxyType(zone_of)
        self.glyphs: Mapping[str, str] = MappingProxyType(dict(glyphs))
        # What players see on a real board, in words, per region (or "blocked"): the kiosk
        # shades and keys these. Regions without words are for the rules only.
        self.terrain: Mapping[str, str] = MappingProxyType(dict(terrain or {}))

    def __repr__(self) -> str:
        return f"Board({self.kind}, {self.size} cells)"

    def cell(self, name: str) -> Cell:
        """The cell called ``name``; KeyError if there is none."""
        return self.index[name]

    def name(self, cell: Cell) -> str:
        return self.names[cell]

    def region(self, name: str) -> frozenset[Cell]:
        return self.regions.get(name, frozenset())

    def playable(self) -> list[Cell]:
        return [c for c in range(self.size) if c not in self.blocked]

    def reserve_zone(self, player: Player) -> Zone | None:
        for zone in self.zones.values():
            if zone.is_pool and zone.owner is player:
                return zone
        return None


def _ray(table: list[Cell] | tuple[Cell, ...], start: Cell) -> tuple[Cell, ...]:
    ray: list[Cell] = []
    seen = {start}
    cell = table[start]
    while cell != NO_CELL and cell not in seen:
        ray.append(cell)
        seen.add(cell)
        cell = table[cell]
    return tuple(ray)


# -- building from config ----------------------------------------------------------------------


class _Builder:
    """Accumulates cells and links before freezing them into a Board."""

    def __init__(self) -> None:
        self.names: list[str] = []
        self.coords: list[tuple[float, float]] = []
        self.links: dict[str, dict[Cell, Cell]] = {}

    def add_cell(self, node: Node, name: str, at: tuple[float, float]) -> Cell:
        if not _NAME.match(name):
            node.fail(
                f"cell name {name!r} must be letters and digits only (no lower-case 'x', "
                "which is the capture sign)"
            )
        if name in self.names:
            node.fail(f"duplicate cell name {name!r}")
        self.names.append(name)
        self.coords.append(at)
        return len(self.names) - 1

    def link(self, a: Cell, direction: str, b: Cell) -> None:
        self.links.setdefault(direction, {})[a] = b

    def lookup(self, node: Node) -> Cell:
        name = node.text()
        if name not in self.names:
            node.fail(f"unknown cell {name!r}")
        return self.names.index(name)

    def tables(self) -> dict[str, list[Cell]]:
        size = len(self.names)
        tables: dict[str, list[Cell]] = {}
        for direction, mapping in self.links.items():
            table = [NO_CELL] * size
            for a, b in mapping.items():
                table[a] = b
            tables[direction] = table
        return tables


def build_board(node: Node) -> Board:
    """Build a Board from the ``board`` section of a game description."""
    kind = node.get("kind").choice(("square", "hex", "custom"))
    builder = _Builder()
    if kind == "square":
        node.only_keys(
            "kind", "files", "ranks", "adjacency", "naming", "rotate", "origin", *_COMMON
        )
        adjacency = _build_square(node, builder)
        shape = "diamond" if node.get("rotate", 0).value == 45 else "square"
    elif kind == "hex":
        node.only_keys("kind", "shape", "rows", "columns", "size", "sides", "naming", *_COMMON)
        adjacency = _build_hex(node, builder)
        shape = "hex"
    else:
        node.only_keys("kind", "cells", "links", "adjacency", *_COMMON)
        adjacency = _build_custom(node, builder)
        shape = "point"

    zones = _build_zones(node.get("zones", {}), builder)
    blocked = frozenset(builder.lookup(n) for n in node.get("blocked", []).elements())
    regions: dict[str, frozenset[Cell]] = {}
    for region_name, region_node in node.get("regions", {}).items():
        regions[region_name] = frozenset(builder.lookup(n) for n in region_node.elements())
    glyphs: dict[str, str] = {}
    for region_name, glyph_node in _per_region(node.get("glyphs", {}), regions):
        glyph = glyph_node.text()
        if len(glyph) > 2:
            glyph_node.fail("a glyph is one or two characters")
        glyphs[region_name] = glyph
    terrain = {name: words.text() for name, words in _per_region(node.get("terrain", {}), regions)}
    return Board(
        kind=kind,
        names=builder.names,
        coords=builder.coords,
        links=builder.tables(),
        adjacency=adjacency,
        blocked=blocked,
        regions=regions,
        zones=zones,
        glyphs=glyphs,
        shape=shape,
        terrain=terrain,
    )


_COMMON = ("blocked", "regions", "glyphs", "terrain", "zones")


def _per_region(node: Node, regions: Mapping[str, frozenset[Cell]]) -> Iterator[tuple[str, Node]]:
    """The entries of a mapping keyed by region (or "blocked"), each checked to name one."""
    for region_name, child in node.items():
        if region_name not in regions and region_name != "blocked":
            child.fail(f"no region called {region_name!r}")
        yield region_name, child


# Square directions on a board turned 45 degrees anticlockwise (Ludii's "(rotate 45 (square n))"):
# (rank step, file step) of each compass name after the turn.
DIAMOND_DIRECTIONS: dict[str, tuple[int, int]] = {
    "N": (1, 1),
    "NE": (0, 1),
    "E": (-1, 1),
    "SE": (-1, 0),
    "S": (-1, -1),
    "SW": (0, -1),
    "W": (1, -1),
    "NW": (1, 0),
}


def _file_letters(naming: str) -> str:
    return _FILES.upper() if naming == "ludii" else _FILES


def _build_square(node: Node, builder: _Builder) -> tuple[str, ...]:
    files = node.get("files").integer(1, len(_FILES))
    ranks = node.get("ranks").integer(1, 99)
    adjacency_kind = node.get("adjacency", "orthogonal").choice(("orthogonal", "all"))
    letters = _file_letters(node.get("naming", "offset").choice(("offset", "ludii")))
    rotate = node.get("rotate", 0).integer()
    if rotate not in (0, 45):
        node.get("rotate").fail("a square board is drawn straight (0) or as a diamond (45)")
    # ``origin: b2`` names the south-west cell, for a grid that sits inside a frame of zone
    # cells (the Lion Game's field inside its burrow ring): names and positions shift with it.
    file0, rank0 = 0, 0
    if node.has("origin"):
        origin = node.get("origin")
        match = re.match(r"^([A-Za-z])([0-9]{1,2})$", origin.text())
        if not match or match.group(1) not in letters or rotate:
            origin.fail(f"an origin is a cell name like b2 (letters {letters[0]}..), unrotated")
        file0, rank0 = letters.index(match.group(1)), int(match.group(2)) - 1
        if file0 + files > len(letters):
            origin.fail("the board runs out of file letters")
    directions = DIAMOND_DIRECTIONS if rotate == 45 else {
        name: (dr, df) for name, (df, dr) in SQUARE_DIRECTIONS.items()
    }  # fmt: skip
    cell_at: dict[tuple[int, int], Cell] = {}
    for rank in range(ranks):
        for file in range(files):
            at = (float(file + file0), float(rank + rank0))
            if rotate == 45:
                at = ((file - rank) * 0.7071067811865476, (file + rank) * 0.7071067811865476)
            name = f"{letters[file + file0]}{rank + rank0 + 1}"
            cell_at[rank, file] = builder.add_cell(node, name, at)
    for (rank, file), cell in cell_at.items():
        for direction, (dr, df) in directions.items():
            builder.links.setdefault(direction, {})
            target = cell_at.get((rank + dr, file + df))
            if target is not None:
                builder.link(cell, direction, target)
    if adjacency_kind == "orthogonal":
        return ("N", "E", "S", "W") if rotate == 0 else ("NE", "SE", "SW", "NW")
    return tuple(directions)


def _build_hex(node: Node, builder: _Builder) -> tuple[str, ...]:
    """Hex boards as Ludii builds them: cells on the lattice of ``hexgrid``, ordered bottom
    row first and west to east; ``naming: ludii`` gives Ludii's labels (column letter from the
    lattice column, row number from the bottom), ``offset`` names a cell by its place in its
    row."""
    shape = node.get("shape", "rectangle").choice(("rectangle", "hexagon", "limping", "triangle"))
    naming = node.get("naming", "offset").choice(("offset", "ludii"))
    lattice = _hex_lattice(node, shape)
    if len(lattice) > len(_FILES) * 99:
        node.fail("the board is too large")
    lattice.sort(key=lambda rc: (rc[0], rc[1] - rc[0] / 2))
    low_row = min(r for r, _ in lattice)
    low_col = min(c for _, c in lattice)
    if max(c for _, c in lattice) - low_col >= len(_FILES) and naming == "ludii":
        node.fail(f"a board at most {len(_FILES)} columns wide can be named")
    letters = _file_letters(naming)
    place_in_row: dict[int, int] = {}
    cell_at: dict[hexgrid.Hex, Cell] = {}
    for row, col in lattice:
        index = place_in_row.get(row, 0)
        place_in_row[row] = index + 1
        letter = letters[col - low_col] if naming == "ludii" else letters[index]
        h = hexgrid.Hex(col - row, row)  # axial: Ludii's lattice column is q + r
        cell_at[h] = builder.add_cell(node, f"{letter}{row - low_row + 1}", hexgrid.centre(h))
    for h, cell in cell_at.items():
        for direction in hexgrid.ALL_DIRECTIONS:
            builder.links.setdefault(direction, {})
            target = cell_at.get(h.neighbour(direction))
            if target is not None:
                builder.link(cell, direction, target)
    return tuple(hexgrid.ADJACENT)


def _hex_lattice(node: Node, shape: str) -> list[tuple[int, int]]:
    """(row, column) of every cell, columns as in Ludii's hex lattice."""
    if shape == "rectangle":
        rows = node.get("rows").integer(1, 99)
        columns = node.get("columns").integer(1, len(_FILES))
        return [(r, i + (r + 1) // 2) for r in range(rows) for i in range(columns)]
    if shape == "triangle":
        size = node.get("size").integer(1, len(_FILES))
        return [(r, c) for r in range(size) for c in range(size) if r <= c]
    if shape == "limping":
        size = node.get("size").integer(1, 12)
        sides = [size, size + 1]
    else:
        sides = [n.integer(1, 12) for n in node.get("sides").elements()]
        if len(sides) != 2:
            node.get("sides").fail("a hexagon has two side lengths, like [2, 4]")
    return hexgrid.hexagon_cells(sides[0], sides[1])


def _position(node: Node) -> tuple[float, float]:
    parts = node.elements()
    if len(parts) != 2:
        node.fail("expected a position [x, y]")
    values: list[float] = []
    for part in parts:
        if isinstance(part.value, bool) or not isinstance(part.value, int | float):
            part.fail(f"expected a number, got {part.value!r}")
        values.append(float(part.value))
    return values[0], values[1]


def _add_listed_cells(node: Node, builder: _Builder) -> None:
    for cell_node in node.elements():
        cell_node.only_keys("name", "at")
        builder.add_cell(cell_node, cell_node.get("name").text(), _position(cell_node.get("at")))


def _add_links(node: Node, builder: _Builder) -> None:
    """``{cell: {direction: other}}``; the reverse link is added for compass directions."""
    explicit: set[tuple[Cell, str]] = set()
    pending: list[tuple[Cell, str, Cell]] = []
    for name, targets in node.items():
        source = builder.lookup(node.key(name))
        for direction, target_node in targets.items():
            if not re.match(r"^[A-Z]{1,3}$", direction):
                target_node.fail("a direction is one to three capital letters, like N or NNE")
            target = builder.lookup(target_node)
            builder.link(source, direction, target)
            explicit.add((source, direction))
            pending.append((source, direction, target))
    for source, direction, target in pending:
        back = OPPOSITE.get(direction)
        if back is not None and (target, back) not in explicit:
            builder.link(target, back, source)


def _build_custom(node: Node, builder: _Builder) -> tuple[str, ...]:
    _add_listed_cells(node.get("cells"), builder)
    _add_links(node.get("links", {}), builder)
    adjacency = tuple(node.get("adjacency", list(builder.links)).text_list())
    for direction in adjacency:
        builder.links.setdefault(direction, {})
    return adjacency


def _build_zones(node: Node, builder: _Builder) -> dict[str, Zone]:
    zones: dict[str, Zone] = {}
    pending_links: list[Node] = []
    for zone_name, zone_node in node.items():
        zone_node.only_keys("owner", "cells", "links")
        owner: Player | None = None
        if zone_node.has("owner"):
            owner_node = zone_node.get("owner")
            try:
                owner = Player.parse(owner_node.value)
            except ValueError as exc:
                owner_node.fail(str(exc))
        first = len(builder.names)
        if zone_node.has("cells"):
            _add_listed_cells(zone_node.get("cells"), builder)
        zones[zone_name] = Zone(zone_name, owner, tuple(range(first, len(builder.names))))
        if zone_node.has("links"):
            pending_links.append(zone_node.get("links"))
    for links in pending_links:  # after all zones exist, so links may cross zones
        _add_links(links, builder)
    return zones
