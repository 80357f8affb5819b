"""The figure a several-point family's own benchmark reports beside the headline's one point.

RoboPoint's Where2Place scorer (wentaoyuan/RoboPoint ``robopoint/eval/summarize_vqa.py``) scores an answer as the
mean, over every point it gives, of the mask at that point: a point outside the image counts 0 (it stays in the
denominator), a box ``(x0, y0, x1, y1)`` counts every pixel of ``[x0, x1) x [y0, y1)`` as a point, an answer with
no point scores 0; the benchmark figure is the mean over questions. Here the mask is the target's own
(``parts.mask_rle``), else its box (the rows without a mask), as ``localization_in_target_region`` reads it; a
point is the pixel (floor(x), floor(y)) of the row's frame (RoboPoint's points are already whole pixels:
``int(x * width)``). Where2Place's masks are JPEG images divided by 255 (values between 0 and 1 at their edges);
ours are exact, so a pixel counts 0 or 1.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from groundbench.schemas import mask_rle
from groundbench.scoring.localization import target_mask, target_part

Row = Mapping[str, Any]


def target_region_pixels(row: Row) -> np.ndarray | None:
    """The target's region as an image-sized boolean array (height x width): its mask, else the pixels whose
    corner lies in its box (edges included, as ``in_target_region`` reads a point); None without a target."""
    part = target_part(row)
    if part is None:
        return None
    height, width = int(row["height"]), int(row["width"])
    region = np.zeros((height, width), dtype=bool)
    mask = target_mask(part)
    if mask is not None:
        counts, box = mask
        x0, y0 = int(box[0]), int(box[1])
        crop = mask_rle.decode(counts, box, str(row.get("example_id", "row")))
        h, w = crop.shape
        region[y0 : y0 + h, x0 : x0 + w] = crop[: max(0, height - y0), : max(0, width - x0)]
        return region
    bx0, bx1 = sorted((part["bbox_xyxy"][0], part["bbox_xyxy"][2]))
    by0, by1 = sorted((part["bbox_xyxy"][1], part["bbox_xyxy"][3]))
    xs = (np.arange(width) >= bx0) & (np.arange(width) <= bx1)
    ys = (np.arange(height) >= by0) & (np.arange(height) <= by1)
    return ys[:, None] & xs[None, :]


def mean_of_points(row: Row, shapes: Sequence[Sequence[float]]) -> float:
    """Where2Place's per-answer score: (points inside the region) / (points given), boxes as their pixels."""
    region = target_region_pixels(row)
    if region is None or not shapes:
        return 0.0
    height, width = region.shape
    inside = total = 0
    for shape in shapes:
        if len(shape) == 2:
            x, y = math.floor(shape[0]), math.floor(shape[1])
            total += 1
            inside += int(0 <= x < width and 0 <= y < height and bool(region[y, x]))
            continue
        # numpy's mask[y0:y1, x0:x1] over the image: clipped to it, empty when reversed
        x0, y0, x1, y1 = (max(0, math.floor(v)) for v in shape)
        x0, x1, y0, y1 = min(x0, width), min(x1, width), min(y0, height), min(y1, height)
        if x1 > x0 and y1 > y0:
            total += (x1 - x0) * (y1 - y0)
            inside += int(region[y0:y1, x0:x1].sum())
    return inside / total if total else 0.0
