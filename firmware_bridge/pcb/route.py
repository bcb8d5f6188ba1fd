"""A two-layer grid router for the board's PCB: every net of the circuit in copper.

Pure like engine/: no I/O, no clock. The board is a grid of nodes ``pitch`` apart on two
layers, the top (F) preferring east-west runs and the bottom (B) north-south, so runs on the
two layers cross freely; a via joins them. Each node holds at most one net's copper. A net is
grown as a tree: each of its pads in turn is reached from the copper the net has already, by
an A* search over the nodes the net may use.

Why a grid, and why clearances are safe on it: at a pitch of 0.635 mm a 0.25 mm track beside
another on the next node keeps 0.385 mm apart, more than the fab's least space. What takes more
room (a wide supply track, a via) claims the nodes beside it, so no other net's copper centre
comes nearer than one diagonal. Pads are not on the grid: each pad's distance to every sample
point (nodes and the midpoints between them) is worked out once, and a net's track may only
pass where every other net's pad is at least the clearance and half its width away (with a
small margin for a pad's corner between two samples). Each pad is joined to its nearest
allowed node by a short stub, which counts as the pad's copper from then on.
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass, field

try:
    import numpy as np
except ImportError:  # the board tools' extra (magpylib brings it): a club's install has none
    np = None  # type: ignore[assignment]

MISSING = "the PCB's router needs numpy: pip install 'board-referee[board]' (make test installs it)"
FREE = -1
BLOCKED = -2
NO_NET = -3  # a pad on no net (an unused pin, a mounting hole): every net keeps clear of it
LAYERS = ("F", "B")
MARGIN = 0.05  # mm more than the clearance at sample points: a pad's corner between samples
VIA_COST = 8.0
WRONG_WAY = 2.5


Track = tuple[float, float, float, float, float, str, str]  # x1, y1, x2, y2, width, layer, net
Via = tuple[float, float, str]


@dataclass(frozen=True, slots=True)
class Pad:
    """A pad's copper, placed: its box on the board (mm, y down), its layers and its net."""

    ref: str
    number: str
    net: str | None
    layers: tuple[str, ...]
    box: tuple[float, float, float, float]  # x0, y0, x1, y1
    centre: tuple[float, float]
    round: bool = False
    outward: tuple[int, int] = (0, 1)  # the grid direction straight out of its part


@dataclass(frozen=True, slots=True)
class Rules:
    pitch: float
    clearance: float
    track: float
    via_diameter: float
    edge_clearance: float


@dataclass(slots=True)
class Routed:
    """The copper: segments (x1, y1, x2, y2, width, layer, net), vias (x, y, net), and the
    nets that could not be finished (each with the pad that was not reached)."""

    tracks: list[tuple[float, float, float, float, float, str, str]] = field(default_factory=list)
    vias: list[tuple[float, float, str]] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)


class Grid:
    """The board's nodes, what holds each, and every pad's distance to each sample point."""

    def __init__(self, width: float, height: float, rules: Rules, keepouts: list[Pad]) -> None:
        if np is None:
            raise RouteError(MISSING)
        self.rules = rules
        self.pitch = rules.pitch
        self.nx = int(width / rules.pitch) + 1
        self.ny = int(height / rules.pitch) + 1
        self.owner = np.full((2, self.ny, self.nx), FREE, dtype=np.int32)
        edge = math.ceil((rules.edge_clearance + rules.via_diameter / 2) / rules.pitch)
        self.owner[:, :edge, :] = BLOCKED
        self.owner[:, -edge:, :] = BLOCKED
        self.owner[:, :, :edge] = BLOCKED
        self.owner[:, :, -edge:] = BLOCKED
        # Pads' distances at half-pitch samples: the nearest pad's net and distance, and the
        # distance to the nearest pad of any other net.
        shape = (2, 2 * self.ny - 1, 2 * self.nx - 1)
        self.near_net = np.full(shape, FREE, dtype=np.int32)
        self.near = np.full(shape, np.inf, dtype=np.float32)
        self.other = np.full(shape, np.inf, dtype=np.float32)
        self.nets: dict[str, int] = {}
        for pad in keepouts:
            self.add_copper(pad.layers, pad.box, NO_NET, round_=pad.round)

    def net_id(self, net: str) -> int:
        return self.nets.setdefault(net, len(self.nets))

    def add_copper(
        self,
        layers: tuple[str, ...],
        box: tuple[float, float, float, float],
        net: int,
        *,
        round_: bool = False,
        reach: float = 1.6,
    ) -> None:
        """Count a pad's (or a stub's) copper in the distance fields, up to ``reach`` mm."""
        half = self.pitch / 2
        x0, y0, x1, y1 = box
        i0 = max(0, int((x0 - reach) / half))
        i1 = min(2 * self.nx - 2, int((x1 + reach) / half) + 1)
        j0 = max(0, int((y0 - reach) / half))
        j1 = min(2 * self.ny - 2, int((y1 + reach) / half) + 1)
        xs = np.arange(i0, i1 + 1) * half
        ys = np.arange(j0, j1 + 1) * half
        gx, gy = np.meshgrid(xs, ys)
        if round_ and abs((x1 - x0) - (y1 - y0)) < 1e-6:
            radius = (x1 - x0) / 2
            distance = np.hypot(gx - (x0 + x1) / 2, gy - (y0 + y1) / 2) - radius
        else:
            dx = np.maximum(np.maximum(x0 - gx, gx - x1), 0)
            dy = np.maximum(np.maximum(y0 - gy, gy - y1), 0)
            distance = np.hypot(dx, dy)
        distance = np.maximum(distance, 0).astype(np.float32)
        for layer in layers:
            k = LAYERS.index(layer)
            near_net = self.near_net[k, j0 : j1 + 1, i0 : i1 + 1]
            near = self.near[k, j0 : j1 + 1, i0 : i1 + 1]
            other = self.other[k, j0 : j1 + 1, i0 : i1 + 1]
            same = (near_net == net) & (net != NO_NET)
            closer = distance < near
            # Where this copper is nearer than the nearest so far, the old nearest becomes
            # "other" (if it was another net's); where it is not, it is "other" itself.
            new_other = np.where(
                same,
                other,
                np.where(closer, np.where(near_net == FREE, other, np.minimum(other, near)),
                         np.minimum(other, distance)),
            )  # fmt: skip
            new_near = np.where(same | closer, np.minimum(near, distance), near)
            new_net = np.where(~same & closer, net, near_net)
            other[...] = new_other
            near[...] = new_near
            near_net[...] = new_net

    def clear_of_pads(self, layer: int, net: int, radius: float) -> np.ndarray:
        """At each sample: every other net's pad is at least ``radius`` mm away."""
        foreign = np.where(self.near_net[layer] == net, self.other[layer], self.near[layer])
        if net == NO_NET:
            foreign = self.near[layer]
        ok: np.ndarray = foreign >= radius + MARGIN
        return ok


class Router:
    def __init__(self, grid: Grid) -> None:
        self.grid = grid
        self.routed = Routed()
        # States a pad's own fan-out joins to it (its via, on both layers), by (net, pad index).
        self.extra: dict[tuple[str, int], set[tuple[int, int]]] = {}
        self.fan_copper: dict[tuple[str, int], tuple[int, int]] = {}  # its track's, via's index
        self.ends: dict[str, set[tuple[int, int]]] = {}  # each net's paths' first and last states
        self.used: dict[str, set[tuple[int, int]]] = {}  # every state a net's copper passes
        self.stubs: list[tuple[tuple[int, int], Track]] = []  # a pad's stub, by its node

    def route(
        self,
        nets: dict[str, list[Pad]],
        widths: dict[str, float],
        order: list[str],
        rounds: int = 12,
    ) -> Routed:
        """Every net of ``order``; where one cannot be finished, the nets in its way are taken
        up, it is laid first, and they are laid again (up to ``rounds`` times)."""
        grid = self.grid
        for name in nets:
            grid.net_id(name)
        for pads in nets.values():
            for pad in pads:
                grid.add_copper(pad.layers, pad.box, grid.net_id(pad.net or ""), round_=pad.round)
        terminals = {name: [self._terminal(pad, widths.get(name)) for pad in pads]
                     for name, pads in nets.items()}  # fmt: skip
        self.copper: dict[str, tuple[list[Track], list[Via], list[None]]] = {}
        self.fanned: dict[str, tuple[list[Track], list[Via], list[None]]] = {}
        for name in order:
            self._escape(name, terminals[name])
        for name in order:
            if len(terminals[name]) > 1:
                self._fan_out(name, nets[name], terminals[name], widths.get(name, grid.rules.track))
        self.fixed = grid.owner.copy()  # pads, stubs, fan-outs: never taken up
        failed: dict[str, list[str]] = {}
        for name in order:
            failed_here = self._net(name, terminals[name], widths.get(name, grid.rules.track))
            if failed_here:
                failed[name] = failed_here
        for _ in range(rounds):
            if not failed:
                break
            name, misses = next(iter(failed.items()))  # noqa: RUF059
            in_way = self._in_way(name, terminals[name]) - {name}
            for other in (name, *in_way):
                self._take_up(other)
                failed.pop(other, None)
            for other in (name, *sorted(in_way, key=order.index)):
                failed_here = self._net(
                    other, terminals[other], widths.get(other, grid.rules.track)
                )
                if failed_here:
                    failed[other] = failed_here
        routed = self.routed
        grid = self.grid
        unused = {(name, kind, position) for (name, index), (track, via) in self.fan_copper.items()
                  if not self.extra[(name, index)] & self.used.get(name, set())
                  for kind, position in ((0, track), (1, via))}  # fmt: skip
        for (name, index), (track, _) in self.fan_copper.items():  # noqa: B007
            if (name, 0, track) not in unused:
                x1, y1 = self.fanned[name][0][track][:2]
                flat = round(y1 / grid.pitch) * grid.nx + round(x1 / grid.pitch)
                self.used.setdefault(name, set()).add((0, flat))
        # A pad's stub on a layer its net's copper leaves it by (a through-hole pad's on the
        # other layer would end in nothing).
        routed.tracks.extend(track for state, track in self.stubs
                             if state in self.used.get(track[6], set()))  # fmt: skip
        for name, (tracks, vias, _) in self.fanned.items():
            routed.tracks.extend(t for n, t in enumerate(tracks) if (name, 0, n) not in unused)
            routed.vias.extend(v for n, v in enumerate(vias) if (name, 1, n) not in unused)
        for tracks, vias, _ in self.copper.values():
            routed.tracks.extend(tracks)
            routed.vias.extend(vias)
        routed.failed = [miss for misses in failed.values() for miss in misses]
        return routed

    def _escape(self, name: str, terminals: list[tuple[int, int, tuple[int, ...]]]) -> None:
        """Keep each pad's free neighbours for its own net, so no other net's track or via
        walls a pad in before its net is laid."""
        grid = self.grid
        net = grid.net_id(name)
        for i, j, layers in terminals:
            for k in layers:
                for di, dj in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                    a, b = i + di, j + dj
                    if 0 <= a < grid.nx and 0 <= b < grid.ny and grid.owner[k, b, a] == FREE:
                        grid.owner[k, b, a] = net

    def _fan_out(
        self,
        name: str,
        pads: list[Pad],
        terminals: list[tuple[int, int, tuple[int, ...]]],
        width: float,
    ) -> None:
        """Take each surface pad's net out to a via a few nodes away, straight out from its
        part, so both layers reach it: a small part's pads (an LED's four) are otherwise walled
        in on the top layer by the first net laid past them. Alternate pads go 2 and 4 nodes out,
        so vias of neighbouring pins keep their distance."""
        grid = self.grid
        net = grid.net_id(name)
        radius = grid.rules.clearance + width / 2
        via_radius = max(radius, grid.rules.clearance + grid.rules.via_diameter / 2)
        self.fanned[name] = ([], [], [])
        for index, (pad, (i, j, layers)) in enumerate(zip(pads, terminals)):  # noqa: B905
            if layers != (0,):
                continue
            di, dj = pad.outward
            first = 2 + 2 * (self._pin_parity(pad) % 2)
            for reach in (first, first + 1, 6 - first + 2, 7):
                a, b = i + di * reach, j + dj * reach
                run = [(i + di * step, j + dj * step) for step in range(reach + 1)]
                if all(self._free_for(0, net, x, y, radius) for x, y in run) and all(
                    self._free_for(k, net, x, y, via_radius, claims=True)
                    for k in (0, 1)
                    for x, y in [(a, b)]
                ):
                    pitch = grid.pitch
                    self.fanned[name][0].append((i * pitch, j * pitch, a * pitch, b * pitch, width,
                                                 "F", name))  # fmt: skip
                    self.fanned[name][1].append((a * pitch, b * pitch, name))
                    for x, y in run:
                        grid.owner[0, y, x] = net
                    for k in (0, 1):
                        grid.owner[k, b, a] = net
                        for ci, cj in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                            if grid.owner[k, b + cj, a + ci] == FREE:
                                grid.owner[k, b + cj, a + ci] = net
                    # Only the via's bottom side joins the rest: reached on the top, the via
                    # would be joined on one layer only (and the top reaches the pad itself).
                    self.extra[(name, index)] = {(1, b * grid.nx + a)}
                    self.fan_copper[(name, index)] = (len(self.fanned[name][0]) - 1,
                                                      len(self.fanned[name][1]) - 1)  # fmt: skip
                    break

    @staticmethod
    def _pin_parity(pad: Pad) -> int:
        digits = "".join(ch for ch in pad.number if ch.isdigit())
        return int(digits) if digits else 0

    def _free_for(  # noqa: PLR0917
        self, k: int, net: int, i: int, j: int, radius: float, claims: bool = False
    ) -> bool:
        grid = self.grid
        if not (1 <= i < grid.nx - 1 and 1 <= j < grid.ny - 1):
            return False
        if grid.owner[k, j, i] not in (FREE, net):
            return False
        if claims and any(grid.owner[k, j + b, i + a] not in (FREE, net)
                          for a, b in ((1, 0), (-1, 0), (0, 1), (0, -1))):  # fmt: skip
            return False
        s = 2 * j, 2 * i
        foreign = grid.other[k][s] if grid.near_net[k][s] == net else grid.near[k][s]
        return bool(foreign >= radius + MARGIN)

    def _in_way(self, name: str, terminals: list[tuple[int, int, tuple[int, ...]]]) -> set[str]:
        """The nets whose laid copper is near the pads of ``name``."""
        grid = self.grid
        ids = {v: k for k, v in grid.nets.items()}
        found: set[str] = set()
        reach = 6
        for i, j, layers in terminals:  # noqa: B007
            window = grid.owner[
                :, max(0, j - reach) : j + reach + 1, max(0, i - reach) : i + reach + 1
            ]
            fixed = self.fixed[
                :, max(0, j - reach) : j + reach + 1, max(0, i - reach) : i + reach + 1
            ]
            laid = window[(window != fixed) & (window >= 0)]
            found.update(ids[int(v)] for v in np.unique(laid) if int(v) in ids)
        return found

    def _take_up(self, name: str) -> None:
        """Remove a net's laid copper (its pads, stubs and kept neighbours stay)."""
        grid = self.grid
        net = grid.net_id(name)
        laid = (grid.owner == net) & (self.fixed != net)
        grid.owner[laid] = self.fixed[laid]
        self.copper.pop(name, None)

    # -- pads to the grid ----------------------------------------------------------------

    def _terminal(self, pad: Pad, width: float | None) -> tuple[int, int, tuple[int, ...]]:
        """The node a pad is joined to (its stub drawn and counted as the pad's copper)."""
        grid = self.grid
        rules = grid.rules
        net = grid.net_id(pad.net or "")
        cx, cy = pad.centre
        w = max(width or rules.track, rules.track)
        radius = rules.clearance + w / 2
        layers = tuple(LAYERS.index(layer) for layer in pad.layers)
        candidates = []
        ci, cj = round(cx / grid.pitch), round(cy / grid.pitch)
        for dj in range(-3, 4):
            for di in range(-3, 4):
                i, j = ci + di, cj + dj
                candidates.append((math.hypot(i * grid.pitch - cx, j * grid.pitch - cy), i, j))
        candidates.sort()
        for _, i, j in candidates:
            if not (0 <= i < grid.nx and 0 <= j < grid.ny):
                continue
            ok = [k for k in layers if grid.owner[k, j, i] in (FREE, net)
                  and self._stub_clear(k, net, radius, (cx, cy), (i * grid.pitch, j * grid.pitch))]  # fmt: skip  # noqa: E501
            if not ok:
                continue
            x, y = i * grid.pitch, j * grid.pitch
            if math.hypot(x - cx, y - cy) > 0.001:
                for k in ok:
                    self.stubs.append(
                        ((k, j * grid.nx + i), (cx, cy, x, y, w, LAYERS[k], pad.net or ""))
                    )
                half = w / 2
                box = (min(cx, x) - half, min(cy, y) - half, max(cx, x) + half, max(cy, y) + half)
                grid.add_copper(tuple(LAYERS[k] for k in ok), box, net)
            for k in ok:
                grid.owner[k, j, i] = net
            return i, j, tuple(ok)
        raise RouteError(f"{pad.ref}.{pad.number} ({pad.net}): no room to join its pad")

    def _stub_clear(
        self, k: int, net: int, radius: float, a: tuple[float, float], b: tuple[float, float]
    ) -> bool:
        grid = self.grid
        half = grid.pitch / 2
        foreign = None
        for step in range(5):
            t = step / 4
            x, y = a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t
            i, j = round(x / half), round(y / half)
            if grid.near_net[k, j, i] == net:  # noqa: SIM108
                foreign = grid.other[k, j, i]
            else:
                foreign = grid.near[k, j, i]
            # a sample's distance less the way to the true point
            if foreign - math.hypot(i * half - x, j * half - y) < radius + MARGIN:
                return False
        return True

    # -- one net ------------------------------------------------------------------------

    def _masks(self, net: int, width: float) -> tuple[list[bytes], list[bytes], list[bytes], bytes]:
        """Where the net may put a node, a run east-west, a run north-south (each layer), and a
        via. Flattened to bytes: the search reads them a million times."""
        grid = self.grid
        rules = grid.rules
        wide = width > rules.track + 1e-9
        radius = rules.clearance + width / 2
        nodes, east, north = [], [], []
        taken = (grid.owner != FREE) & (grid.owner != net)
        for k in range(2):
            pads_ok = grid.clear_of_pads(k, net, radius)
            node_ok = ~taken[k] & pads_ok[::2, ::2]
            if wide:
                node_ok &= ~_dilate(taken[k])
            h = pads_ok[::2, 1::2]  # the midpoint east of each node
            v = pads_ok[1::2, ::2]  # ... and south of it
            east_ok = np.zeros_like(node_ok)
            east_ok[:, :-1] = node_ok[:, :-1] & node_ok[:, 1:] & h
            south_ok = np.zeros_like(node_ok)
            south_ok[:-1, :] = node_ok[:-1, :] & node_ok[1:, :] & v
            nodes.append(node_ok.astype(np.uint8).tobytes())
            east.append(east_ok.astype(np.uint8).tobytes())
            north.append(south_ok.astype(np.uint8).tobytes())
        via_radius = rules.clearance + rules.via_diameter / 2
        via_ok = np.ones((grid.ny, grid.nx), dtype=bool)
        for k in range(2):
            via_ok &= ~taken[k] & ~_dilate(taken[k])
            via_ok &= grid.clear_of_pads(k, net, max(via_radius, radius))[::2, ::2]
            via_ok &= grid.near[k, ::2, ::2] >= rules.via_diameter / 2 + MARGIN  # no via in a pad
        return nodes, east, north, via_ok.astype(np.uint8).tobytes()

    def _net(
        self, name: str, terminals: list[tuple[int, int, tuple[int, ...]]], width: float
    ) -> list[str]:
        """Lay one net; what it could not reach."""
        grid = self.grid
        self.copper[name] = ([], [], [])
        self.ends[name] = set()
        self.used[name] = set()
        misses: list[str] = []
        if len(terminals) < 2:
            return misses
        net = grid.net_id(name)
        nodes, east, south, vias = self._masks(net, width)
        nx = grid.nx
        tree: set[tuple[int, int]] = set()  # (layer, flat index)
        first = terminals[0]
        for k in first[2]:
            tree.add((k, first[1] * nx + first[0]))
        tree.update(self.extra.get((name, 0), ()))
        todo = _prim_order(terminals)
        for index in todo:
            i, j, layers = terminals[index]
            flat = j * nx + i
            goal = {(k, flat) for k in layers} | self.extra.get((name, index), set())
            if goal & tree:
                tree.update(goal)
                continue
            path = _astar(tree, goal, (i, j), nx, grid.ny, nodes, east, south, vias)
            if path is None:
                misses.append(f"{name} to ({i * grid.pitch:.2f}, {j * grid.pitch:.2f})")
                continue
            # The net's own copper and claims leave its masks as they were.
            self._lay(name, net, path, width)
            self.ends.setdefault(name, set()).update((path[0], path[-1]))
            self.used.setdefault(name, set()).update(path)
            tree.update(path)
            tree.update(goal)
        return misses

    def _lay(self, name: str, net: int, path: list[tuple[int, int]], width: float) -> None:
        """Copper along ``path`` (from the tree to the pad): straight runs merged, vias where
        the layer changes, and the nodes (and what they claim) marked as the net's."""
        grid = self.grid
        nx, pitch = grid.nx, grid.pitch
        wide = width > grid.rules.track + 1e-9

        def xy(flat: int) -> tuple[float, float]:
            return (flat % nx) * pitch, (flat // nx) * pitch

        def segment(a: tuple[int, int], b: tuple[int, int]) -> None:
            x1, y1 = xy(a[1])
            x2, y2 = xy(b[1])
            self.copper[name][0].append((x1, y1, x2, y2, width, LAYERS[a[0]], name))

        run = 0
        for index in range(1, len(path)):
            a, b = path[index - 1], path[index]
            if a[0] != b[0]:  # a via: the same node on the other layer
                if index - 1 > run:
                    segment(path[run], a)
                self.copper[name][1].append((*xy(a[1]), name))
                run = index
            elif index - 1 > run and (a[1] - path[index - 2][1]) != (b[1] - a[1]):
                segment(path[run], a)
                run = index - 1
        if len(path) - 1 > run:
            segment(path[run], path[-1])
        for position, (layer, flat) in enumerate(path):
            j, i = divmod(flat, nx)
            grid.owner[layer, j, i] = net
            claim = wide or (
                position + 1 < len(path) and path[position + 1][0] != layer
            ) or (position > 0 and path[position - 1][0] != layer)  # fmt: skip
            if claim:
                for k in (0, 1) if not wide else (layer,):
                    for di, dj in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                        ci, cj = i + di, j + dj
                        if 0 <= ci < nx and 0 <= cj < grid.ny and grid.owner[k, cj, ci] == FREE:
                            grid.owner[k, cj, ci] = net
                    if grid.owner[k, j, i] == FREE:
                        grid.owner[k, j, i] = net


class RouteError(ValueError):
    """A pad the layout left no room to join, or a net the router could not finish."""


def _dilate(mask: np.ndarray) -> np.ndarray:
    grown = mask.copy()
    grown[1:, :] |= mask[:-1, :]
    grown[:-1, :] |= mask[1:, :]
    grown[:, 1:] |= mask[:, :-1]
    grown[:, :-1] |= mask[:, 1:]
    return grown


def _prim_order(terminals: list[tuple[int, int, tuple[int, ...]]]) -> list[int]:
    """The order to reach a net's pads in: each time the pad nearest those reached."""
    reached = [0]
    left = set(range(1, len(terminals)))
    best = {k: abs(terminals[k][0] - terminals[0][0]) + abs(terminals[k][1] - terminals[0][1])
            for k in left}  # fmt: skip
    while left:
        k = min(left, key=best.__getitem__)
        left.discard(k)
        reached.append(k)
        for other in left:
            d = abs(terminals[k][0] - terminals[other][0]) + abs(
                terminals[k][1] - terminals[other][1]
            )
            best[other] = min(best[other], d)
    return reached[1:]


def _astar(  # noqa: PLR0917
    tree: set[tuple[int, int]],
    goal: set[tuple[int, int]],
    target: tuple[int, int],
    nx: int,
    ny: int,
    nodes: list[bytes],
    east: list[bytes],
    south: list[bytes],
    vias: bytes,
) -> list[tuple[int, int]] | None:
    """The cheapest way from any node of ``tree`` to ``goal`` (weighted A*: fast, near best)."""
    ti, tj = target
    came: dict[tuple[int, int], tuple[int, int] | None] = {}
    cost: dict[tuple[int, int], float] = {}
    heap: list[tuple[float, float, tuple[int, int]]] = []
    for state in tree:
        j, i = divmod(state[1], nx)
        cost[state] = 0.0
        came[state] = None
        heapq.heappush(heap, (1.5 * (abs(i - ti) + abs(j - tj)), 0.0, state))
    limit = 4_000_000
    while heap and limit:
        limit -= 1
        _, g, state = heapq.heappop(heap)
        if g > cost.get(state, math.inf):
            continue
        if state in goal:
            path = [state]
            while (prior := came[path[-1]]) is not None:
                path.append(prior)
            path.reverse()
            while len(path) > 1 and path[1] in tree:  # start where the path leaves the tree
                path.pop(0)
            return path
        layer, flat = state
        j, i = divmod(flat, nx)
        steps = []
        if i + 1 < nx and east[layer][flat]:
            steps.append(((layer, flat + 1), 1.0 if layer == 0 else WRONG_WAY))
        if i > 0 and east[layer][flat - 1]:
            steps.append(((layer, flat - 1), 1.0 if layer == 0 else WRONG_WAY))
        if j + 1 < ny and south[layer][flat]:
            steps.append(((layer, flat + nx), 1.0 if layer == 1 else WRONG_WAY))
        if j > 0 and south[layer][flat - nx]:
            steps.append(((layer, flat - nx), 1.0 if layer == 1 else WRONG_WAY))
        if vias[flat] and nodes[1 - layer][flat]:
            steps.append(((1 - layer, flat), VIA_COST))
        for nxt, step in steps:
            new = g + step
            if new < cost.get(nxt, math.inf):
                cost[nxt] = new
                came[nxt] = state
                nj, ni = divmod(nxt[1], nx)
                heapq.heappush(heap, (new + 1.5 * (abs(ni - ti) + abs(nj - tj)), new, nxt))
    return None
