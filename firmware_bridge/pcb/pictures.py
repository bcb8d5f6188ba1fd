"""Pictures of the PCB, drawn from KiCad's own copper (filled zones, tracks, pads, holes):
the top and the bottom as a fab's board looks (green mask, white legend), and each copper
layer alone. PNG, one pixel per ``1 / SCALE`` mm."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from firmware_bridge.pcb.layout import Layout

SCALE = 4.0  # px a millimetre
BOARD = (18, 92, 48)
COPPER_UNDER_MASK = (40, 130, 60)
PAD = (214, 178, 92)
HOLE = (30, 30, 30)
SILK = (240, 240, 240)
BACKGROUND = (255, 255, 255)
TRACK_UNDER_MASK = (120, 190, 110)
LAYER_COLOURS = {"F": (200, 40, 30), "B": (30, 70, 200)}
PLANE_COLOURS = {"F": (245, 200, 195), "B": (200, 212, 245)}  # the ground plane, pale


def draw(
    copper: dict[str, Any], layout: Layout, out: Path, name: str, origin: float
) -> dict[str, Path]:
    from PIL import Image, ImageDraw  # the board tools' extra: imported when drawn

    size = (int(layout.width * SCALE) + 1, int(layout.height * SCALE) + 1)

    def xy(x: float, y: float) -> tuple[float, float]:
        return (x - origin) * SCALE, (y - origin) * SCALE

    written: dict[str, Path] = {}
    for side in ("F", "B"):
        image = Image.new("RGB", size, BOARD)
        pen = ImageDraw.Draw(image)
        _copper(pen, copper[side], xy, TRACK_UNDER_MASK, plane=COPPER_UNDER_MASK, gap=BOARD)
        for polygon in copper[side]["pads"]:
            pen.polygon([xy(*p[:2]) for p in polygon], fill=PAD)
        _holes(pen, copper, xy)
        if side == "F":
            for part in layout.parts:
                x0, y0, x1, y1 = (v * SCALE for v in part.courtyard)
                pen.rectangle((x0, y0, x1, y1), outline=SILK)
            for text in layout.texts:
                pen.text((float(text["x"]) * SCALE, float(text["y"]) * SCALE),  # type: ignore[arg-type]
                         str(text["text"]), fill=SILK, anchor="mm")  # fmt: skip
        else:
            image = image.transpose(Image.Transpose.FLIP_LEFT_RIGHT)  # as seen from below
        path = out / f"{name}-{'top' if side == 'F' else 'bottom'}.png"
        image.save(path)
        written["top" if side == "F" else "bottom"] = path
        layer = Image.new("RGB", size, BACKGROUND)
        pen = ImageDraw.Draw(layer)
        _copper(pen, copper[side], xy, LAYER_COLOURS[side], plane=PLANE_COLOURS[side],
                gap=BACKGROUND)  # fmt: skip
        for polygon in copper[side]["pads"]:
            pen.polygon([xy(*p[:2]) for p in polygon], fill=LAYER_COLOURS[side])
        _holes(pen, copper, xy, fill=BACKGROUND)
        path = out / f"{name}-{'F' if side == 'F' else 'B'}_Cu.png"
        layer.save(path)
        written[f"{side}_Cu"] = path
    return written


def _copper(
    pen: Any,
    layer: dict[str, Any],
    xy: Any,
    fill: tuple[int, int, int],
    *,
    plane: tuple[int, int, int],
    gap: tuple[int, int, int],
) -> None:
    """The ground plane in ``plane`` (its holes, the clearance round other nets, in ``gap``),
    then the tracks in ``fill`` over it, so a track reads apart from the plane."""
    for polygon in layer["zones"]:
        points = [xy(*p[:2]) for p in polygon]
        if len(points) >= 3:
            pen.polygon(points, fill=gap if len(polygon[0]) == 3 else plane)
    for x1, y1, x2, y2, width in layer["tracks"]:
        pen.line([xy(x1, y1), xy(x2, y2)], fill=fill, width=max(1, round(width * SCALE)))
        for x, y in ((x1, y1), (x2, y2)):
            r = width * SCALE / 2
            cx, cy = xy(x, y)
            pen.ellipse((cx - r, cy - r, cx + r, cy + r), fill=fill)


def _holes(pen: Any, copper: dict[str, Any], xy: Any, fill: tuple[int, int, int] = HOLE) -> None:
    for x, y in copper["vias"]:
        cx, cy = xy(x, y)
        pen.ellipse(
            (cx - 0.3 * SCALE, cy - 0.3 * SCALE, cx + 0.3 * SCALE, cy + 0.3 * SCALE), fill=PAD
        )
        pen.ellipse(
            (cx - 0.15 * SCALE, cy - 0.15 * SCALE, cx + 0.15 * SCALE, cy + 0.15 * SCALE), fill=fill
        )
    for x, y, drill in copper["holes"]:
        cx, cy = xy(x, y)
        r = drill / 2 * SCALE
        pen.ellipse((cx - r, cy - r, cx + r, cy + r), fill=fill)
