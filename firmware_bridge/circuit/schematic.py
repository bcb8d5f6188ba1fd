"""The circuit drawn as a schematic a person can read: an SVG in the net-label style (each
part a box with its numbered pins, each pin's wire ending in the name of its net: every pin
with the same label is joined), grouped as the guide builds the board: power, the Pico,
the multiplexers, the sensors, the LEDs, the buttons, and the small parts."""

from __future__ import annotations

from html import escape

from firmware_bridge.circuit import components as c
from firmware_bridge.circuit.model import Circuit, Node, Part, PinSpec

WIDTH = 1800
PIN_H = 16
STUB = 18
CHAR_W = 6.6  # 11 px DejaVu Sans, about
MARGIN = 30
SECTIONS = (
    "Power in",
    "The Pico",
    "Multiplexers",
    "Sensors",
    "LED chain",
    "Buttons",
    "Resistors and capacitors",
)


def section(part: Part) -> str:
    spec = part.spec
    if spec.price == "pico":
        return "The Pico"
    if spec is c.MUX:
        return "Multiplexers"
    if spec in c.SENSORS.values():
        return "Sensors"
    if spec in (c.WS2812B, c.SHIFTER, c.LOAD_SWITCH, c.CAP_LED, c.CAP_CT):
        return "LED chain"
    if spec is c.BUTTON:
        return "Buttons"
    if spec.price in (
        "jack",
        "fuse",
        "pmos",
        "schottky",
        "cap_1000u",
        "ldo_ap2112k",
        "ldo_ams1117",
        "buck",
    ):
        return "Power in"
    return "Resistors and capacitors"


def _sides(part: Part) -> tuple[list[PinSpec], list[PinSpec]]:
    pins = list(part.spec.pins)
    if part.spec.price == "pico":  # as the board lies: 1-20 down its left, 40-21 its right
        by_number = {int(p.number): p for p in pins}
        return [by_number[n] for n in range(1, 21)], [by_number[n] for n in range(40, 20, -1)]
    if part.spec is c.MUX:
        left = [part.spec.pin(f"C{n}") for n in range(16)]
        return left, [p for p in pins if p not in left]
    half = (len(pins) + 1) // 2
    return pins[:half], pins[half:]


class _Drawing:
    def __init__(self) -> None:
        self.items: list[str] = []

    def text(
        self,
        x: float,
        y: float,
        words: str,
        size: int = 11,
        *,
        anchor: str = "start",
        fill: str = "#111",
        weight: str = "normal",
    ) -> None:
        self.items.append(
            f'<text x="{x:.0f}" y="{y:.0f}" font-size="{size}" '
            f'text-anchor="{anchor}" fill="{fill}" font-weight="{weight}">'
            f"{escape(words)}</text>"
        )

    def line(self, x1: float, y1: float, x2: float, y2: float, colour: str = "#333") -> None:
        self.items.append(
            f'<line x1="{x1:.0f}" y1="{y1:.0f}" x2="{x2:.0f}" y2="{y2:.0f}" '
            f'stroke="{colour}" stroke-width="1.2"/>'
        )

    def box(self, x: float, y: float, w: float, h: float) -> None:
        self.items.append(
            f'<rect x="{x:.0f}" y="{y:.0f}" width="{w:.0f}" height="{h:.0f}" '
            'fill="#fffdf2" stroke="#222" stroke-width="1.5"/>'
        )


def _size(circuit: Circuit, part: Part) -> tuple[float, float, float, float]:
    """Width and height of the part's box, and the room its labels take each side."""
    left, right = _sides(part)
    nets = circuit.pin_nets()

    def label(pin: PinSpec) -> float:
        return len(nets.get(Node(part.ref, pin.name), "x")) * CHAR_W + STUB + 6

    names = max((len(p.name) + len(p.number) + 2 for p in (*left, *right)), default=4)
    inner = max(names * CHAR_W * (2 if right else 1) + 16, len(part.spec.name) * CHAR_W + 10, 70)
    height = max(len(left), len(right)) * PIN_H + 10
    return (
        inner,
        height,
        max((label(p) for p in left), default=0),
        max((label(p) for p in right), default=0),
    )


def _draw_part(d: _Drawing, circuit: Circuit, part: Part, x: float, y: float) -> None:
    inner, height, left_room, _ = _size(circuit, part)
    bx = x + left_room
    title = f"{part.ref}  {part.value or part.spec.name}"
    d.text(bx, y + 12, title, 12, weight="bold")
    top = y + 18
    d.box(bx, top, inner, height)
    nets = circuit.pin_nets()
    left, right = _sides(part)
    for side, pins in ((-1, left), (1, right)):
        for row, pin in enumerate(pins):
            py = top + 13 + row * PIN_H
            edge = bx if side < 0 else bx + inner
            end = edge + side * STUB
            net = nets.get(Node(part.ref, pin.name))
            inside = f"{pin.number} {pin.name}" if side < 0 else f"{pin.name} {pin.number}"
            d.text(
                edge - side * 4,
                py + 4,
                inside,
                10,
                anchor="start" if side < 0 else "end",
                fill="#555",
            )
            if net is None:
                d.text(edge + side * 8, py + 4, "\u00d7", 12, anchor="middle", fill="#999")
                continue
            d.line(edge, py, end, py)
            d.text(
                end + side * 3,
                py + 4,
                net,
                11,
                anchor="end" if side < 0 else "start",
                fill="#1d4ed8",
            )
    if part.note:
        d.text(bx, top + height + 14, part.note[:60], 10, fill="#6b5a3a")


def schematic_svg(circuit: Circuit, title: str) -> str:
    d = _Drawing()
    d.text(MARGIN, 34, title, 20, weight="bold")
    d.text(
        MARGIN,
        56,
        "Pins with the same blue label are joined. \u00d7 marks a pin left "
        "unconnected. Pin numbers are the package's (docs/build-a-board.md §3).",
        12,
    )
    y = 80.0
    for name in SECTIONS:
        parts = [p for p in circuit.parts.values() if section(p) == name]
        if not parts:
            continue
        y += 20
        d.text(MARGIN, y, name, 16, weight="bold")
        d.line(MARGIN, y + 6, WIDTH - MARGIN, y + 6, "#b8a77a")
        y += 16
        x, row_h = float(MARGIN), 0.0
        for part in parts:
            inner, height, left_room, right_room = _size(circuit, part)
            width = left_room + inner + right_room
            if x + width > WIDTH - MARGIN and x > MARGIN:
                x, y, row_h = float(MARGIN), y + row_h, 0.0
            _draw_part(d, circuit, part, x, y)
            x += width + 24
            row_h = max(row_h, height + 40)
        y += row_h
    height_px = y + MARGIN
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height_px:.0f}" '
        f'viewBox="0 0 {WIDTH} {height_px:.0f}" font-family="DejaVu Sans, sans-serif">\n'
        f'<rect width="100%" height="100%" fill="#ffffff"/>\n' + "\n".join(d.items) + "\n</svg>\n"
    )
