"""Target boxes: source conventions -> absolute pixel xyxy on the continuous plane (pure functions).

Sources write boxes as corners (xyxy) or corner + size (xywh), in pixels or as 0-1 fractions of the
image. Fractions are detected (every value in [0, 1] and at least one not a whole number: a pixel
box such as [0, 0, 1, 1] stays in pixels), converted and noted. Boxes that leave the image are
clamped to it and noted; a box with no area (before or after clamping) is an error naming the row.
The clamped box is for drawing and geometry; the box as annotated (in pixels, not clamped) is kept
beside it, because every official GUI scorer checks answers against the annotated box.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from groundbench.errors import GroundBenchError

Box = tuple[float, float, float, float]


@dataclass(frozen=True)
class PixelBox:
    box: Box  # xyxy pixels, inside the image (clamped): drawing and geometry
    annotated: Box  # xyxy pixels as the source annotated it, not clamped: what official scorers check
    box_format: str  # how the source wrote it: xyxy, xywh, normalized_xyxy, normalized_xywh
    notes: tuple[str, ...]  # "normalized", "clamped"

    @property
    def clamped(self) -> bool:
        return "clamped" in self.notes


def finite_float(value: object) -> float | None:
    """``value`` as a finite float; None for booleans, non-numbers, NaN, infinities and integers too
    large for a float (JSON allows any number of digits; ``float()`` of such an int overflows)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if math.isfinite(number) else None


def shown(value: object, limit: int = 120) -> str:
    """``repr`` for an error message, cut short (a fuzzed value can be megabytes long)."""
    try:
        text = repr(value)
    except ValueError:  # an int with more digits than Python will print
        text = f"<{type(value).__name__} too large to print>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def read_box(value: object, where: str, field: str) -> Box:
    """Four finite numbers, or an error naming the row and the field."""
    if not isinstance(value, list | tuple) or len(value) != 4:
        raise GroundBenchError(where, field, f"expected a list of 4 numbers, got {shown(value)}")
    numbers = [finite_float(item) for item in value]
    if any(number is None for number in numbers):
        raise GroundBenchError(where, field, f"expected 4 finite numbers, got {shown(value)}")
    x0, y0, a, b = (float(n) for n in numbers if n is not None)
    return (x0, y0, a, b)


def is_normalized(box: Box) -> bool:
    return all(0.0 <= v <= 1.0 for v in box) and any(v != int(v) for v in box)


def to_pixels(raw: Box, corners: bool, width: int, height: int, where: str, field: str) -> PixelBox:
    """Convert a source box (``corners``: xyxy, else xywh) into a clamped pixel xyxy box."""
    notes: list[str] = []
    x0, y0, a, b = raw
    normalized = is_normalized(raw)
    if normalized:
        x0, a = x0 * width, a * width
        y0, b = y0 * height, b * height
        notes.append("normalized")
    x1, y1 = (a, b) if corners else (x0 + a, y0 + b)
    if not (x1 > x0 and y1 > y0):
        raise GroundBenchError(where, field, f"degenerate box {list(raw)}: expected x1 > x0 and y1 > y0")
    clamped = (max(0.0, x0), max(0.0, y0), min(float(width), x1), min(float(height), y1))
    if clamped != (x0, y0, x1, y1):
        notes.append("clamped")
        if not (clamped[2] > clamped[0] and clamped[3] > clamped[1]):
            raise GroundBenchError(
                where, field, f"box {list(raw)} lies outside the {width}x{height} image: nothing left after clamping"
            )
    fmt = ("normalized_" if normalized else "") + ("xyxy" if corners else "xywh")
    return PixelBox(box=clamped, annotated=(x0, y0, x1, y1), box_format=fmt, notes=tuple(notes))


def centre(box: Box) -> tuple[float, float]:
    return ((box[0] + box[2]) / 2.0, (box[1] + box[3]) / 2.0)


def point_in_box(point: tuple[float, float], box: Box) -> bool:
    """The GUI success rule for point answers: inside the box, edges included (every official scorer)."""
    return box[0] <= point[0] <= box[2] and box[1] <= point[1] <= box[3]


def coverage_precision(pred: Box, target: Box) -> tuple[float, float]:
    """PointerBench's box rule terms: overlap / target area and overlap / predicted area (continuous)."""
    iw = max(0.0, min(pred[2], target[2]) - max(pred[0], target[0]))
    ih = max(0.0, min(pred[3], target[3]) - max(pred[1], target[1]))
    inter = iw * ih
    target_area = (target[2] - target[0]) * (target[3] - target[1])
    pred_area = (pred[2] - pred[0]) * (pred[3] - pred[1])
    return (inter / target_area if target_area > 0 else 0.0, inter / pred_area if pred_area > 0 else 0.0)
