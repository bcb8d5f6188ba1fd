"""Board topology: names, neighbours by direction, rays, regions, zones, hex geometry."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine import NO_CELL, ConfigError, Player, hexgrid
from engine.board import OPPOSITE, Board, build_board
from engine.config import Node


def board(data: dict[str, object]) -> Board:
    return build_board(Node(data, "test.yaml", "board"))


def test_square_board_names_neighbours_and_rays() -> None:
    b = board({"kind": "square", "files": 9, "ranks": 9})
    assert b.size == 81 and b.names[0] == "a1" and b.names[-1] == "i9"
    e5 = b.cell("e5")
    assert b.names[b.step["N"][e5]] == "e6"
    assert b.names[b.step["SW"][e5]] == "d4"
    assert b.step["W"][b.cell("a3")] == NO_CELL
    assert [b.names[c] for c in b.rays["E"][b.cell("f2")]] == ["g2", "h2", "i2"]
    assert sorted(b.names[c] for c in b.adjacent[e5]) == ["d5", "e4", "e6", "f5"]


def test_square_board_with_diagonal_adjacency() -> None:
    b = board({"kind": "square", "files": 3, "ranks": 3, "adjacency": "all"})
    assert len(b.adjacent[b.cell("b2")]) == 8
    assert len(b.adjacent[b.cell("a1")]) == 3


def test_hex_rectangle_neighbours_match_axial_geometry() -> None:
    b = board({"kind": "hex", "rows": 6, "columns": 9})
    assert b.size == 54
    # Row 2 is shifted half a hex east: c2 touches c1 and d1 below, c3 and d3 above.
    c2 = b.cell("c2")
    assert {b.names[c] for c in b.adjacent[c2]} == {"b2", "d2", "c1", "d1", "c3", "d3"}
    assert b.names[b.step["NNE"][c2]] == "d3" and b.names[b.step["SSW"][c2]] == "c1"
    # Row 3 is not shifted: c3 touches b2 and c2 below.
    assert {b.names[c] for c in b.adjacent[b.cell("c3")]} == {"b3", "d3", "b2", "c2", "b4", "c4"}
    # The diagonal N is two rows up, straight above.
    assert b.names[b.step["N"][b.cell("c1")]] == "c3"


@given(st.integers(-20, 20), st.integers(-20, 20))
def test_hex_offset_conversion_round_trips(q: int, r: int) -> None:
    h = hexgrid.Hex(q, r)
    assert hexgrid.from_offset(*hexgrid.to_offset(h)) == h
    for direction in hexgrid.ADJACENT:
        assert h.distance(h.neighbour(direction)) == 1
        assert h.neighbour(direction).neighbour(OPPOSITE[direction]) == h
    for direction in hexgrid.DIAGONAL:
        assert h.distance(h.neighbour(direction)) == 2


def test_every_link_has_its_opposite_on_regular_boards() -> None:
    for data in (
        {"kind": "square", "files": 5, "ranks": 4},
        {"kind": "hex", "rows": 5, "columns": 4},
    ):
        b = board(data)
        for direction, table in b.step.items():
            for cell, target in enumerate(table):
                if target != NO_CELL:
                    assert b.step[OPPOSITE[direction]][target] == cell


def test_custom_board_with_reverse_links_and_a_ring_zone() -> None:
    b = board(
        {
            "kind": "custom",
            "cells": [{"name": "a", "at": [0, 0]}, {"name": "b", "at": [1, 0]}],
            "links": {"a": {"E": "b"}},
            "zones": {
                "ring": {
                    "cells": [{"name": "r1", "at": [0, 1]}, {"name": "r2", "at": [1, 1]}],
                    "links": {"r1": {"E": "r2", "S": "a"}, "r2": {"E": "r1"}},
                },
                "reserve-1": {"owner": 1},
            },
        }
    )
    assert b.names[b.step["W"][b.cell("b")]] == "a"  # reverse link added
    assert b.names[b.step["N"][b.cell("a")]] == "r1"
    # A ring's rays stop instead of looping forever.
    assert [b.names[c] for c in b.rays["E"][b.cell("r1")]] == ["r2"]
    assert b.zone_of[b.cell("r1")] == "ring"
    reserve = b.reserve_zone(Player.ONE)
    assert reserve is not None and reserve.is_pool
    assert b.reserve_zone(Player.TWO) is None


def test_regions_blocked_and_glyphs() -> None:
    b = board(
        {
            "kind": "square",
            "files": 3,
            "ranks": 3,
            "blocked": ["b2"],
            "regions": {"caves": ["a1"]},
            "glyphs": {"caves": "^"},
        }
    )
    assert b.blocked == {b.cell("b2")}
    assert b.region("caves") == {b.cell("a1")}
    assert b.cell("b2") not in b.playable()


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"kind": "round"}, "board.kind: expected one of square, hex, custom"),
        ({"kind": "square", "files": "nine", "ranks": 9}, "board.files: expected a whole number"),
        ({"kind": "square", "files": 0, "ranks": 9}, "board.files: expected a whole number >= 1"),
        ({"kind": "square", "files": 30, "ranks": 9}, "board.files: .*<= 23"),
        ({"kind": "square", "ranks": 9}, "board: missing key 'files'"),
        ({"kind": "square", "files": 3, "ranks": 3, "blocked": ["z9"]}, "unknown cell 'z9'"),
        ({"kind": "square", "files": 3, "ranks": 3, "colour": 1}, "unknown key 'colour'"),
        (
            {"kind": "custom", "cells": [{"name": "ax1", "at": [0, 0]}]},
            "cell name 'ax1' must be letters and digits only",
        ),
        (
            {"kind": "custom", "cells": [{"name": "a", "at": [0]}]},
            r"cells\[0\].at: expected a position",
        ),
        (
            {
                "kind": "custom",
                "cells": [{"name": "a", "at": [0, 0]}, {"name": "a", "at": [1, 0]}],
            },
            "duplicate cell name 'a'",
        ),
    ],
)
def test_bad_board_configs_name_the_key_and_problem(data: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError, match=f"^test.yaml: .*{message}"):
        board(data)


def test_pieces_are_always_true_so_compress_finds_occupied_cells() -> None:
    """Rules code scans boards with itertools.compress(range(size), cells)."""
    from itertools import compress

    from engine.pieces import Piece
    from engine.player import Player

    cells = [None, Piece("die", Player.ONE, 0), None, Piece("stone", Player.TWO)]
    assert list(compress(range(len(cells)), cells)) == [1, 3]
    assert Player.ONE.other is Player.TWO and Player.TWO.other is Player.ONE
    assert (Player.ONE.index, Player.TWO.index) == (0, 1)
