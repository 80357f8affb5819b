"""Geometry of affordance regions in a label map: pure functions on arrays."""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from groundbench.schemas.vocab import UMD_LABELS


@dataclass(frozen=True)
class Region:
    label_id: int
    action: str
    area: int
    bbox_xyxy: tuple[float, float, float, float]  # tight box on the pixel-edge plane
    point_xy: tuple[float, float]  # a pixel centre guaranteed inside the region
    axis_xy: tuple[float, ...]  # unit principal direction, () when isotropic
    point_in_mask: bool  # checked against the label map itself, not assumed


def tight_box(mask: np.ndarray) -> tuple[float, float, float, float] | None:
    rows = np.flatnonzero(mask.any(axis=1))
    if rows.size == 0:
        return None
    cols = np.flatnonzero(mask.any(axis=0))
    return (float(cols[0]), float(rows[0]), float(cols[-1] + 1), float(rows[-1] + 1))


def interior_point(mask: np.ndarray) -> tuple[float, float]:
    """The pixel farthest from the region's boundary (distance-transform maximum).

    Unlike a centroid it always lies inside the mask, also for concave regions (a mug's interior).
    The image border counts as boundary. Among pixels within half a pixel of the maximum (a bar's
    whole centre line ties) the one nearest the region's centroid wins, then row-major order.
    """
    padded = np.pad(mask.astype(np.uint8), 1)
    distance = cv2.distanceTransform(padded, cv2.DIST_L2, cv2.DIST_MASK_PRECISE)[1:-1, 1:-1]
    rows, cols = np.nonzero(distance >= distance.max() - 0.5)
    all_rows, all_cols = np.nonzero(mask)
    cy, cx = all_rows.mean(), all_cols.mean()
    best = int(np.argmin((rows - cy) ** 2 + (cols - cx) ** 2))
    return (float(cols[best]) + 0.5, float(rows[best]) + 0.5)


def principal_axis(mask: np.ndarray) -> tuple[float, ...]:
    """Unit direction of the region's largest spread, sign fixed so x > 0 (or y > 0 when x = 0)."""
    rows, cols = np.nonzero(mask)
    if rows.size < 2:
        return ()
    x = cols.astype(np.float64) - cols.mean()
    y = rows.astype(np.float64) - rows.mean()
    sxx, syy, sxy = float(x @ x), float(y @ y), float(x @ y)
    if math.isclose(sxx, syy) and math.isclose(sxy, 0.0, abs_tol=1e-9):
        return ()  # isotropic: no principal direction
    theta = 0.5 * math.atan2(2.0 * sxy, sxx - syy)
    dx, dy = math.cos(theta), math.sin(theta)
    if dx < 0 or (dx == 0 and dy < 0):
        dx, dy = -dx, -dy
    return (round(dx, 12), round(dy, 12))


def regions_of(labels: np.ndarray) -> list[Region]:
    """Every affordance present in the map, ordered by action name (the example-id order)."""
    regions = []
    counts = np.bincount(labels.ravel(), minlength=8)
    for label_id, action in UMD_LABELS.items():
        if counts[label_id] == 0:
            continue
        mask = labels == label_id
        box = tight_box(mask)
        assert box is not None  # counts[label_id] > 0
        point = interior_point(mask)
        regions.append(
            Region(
                label_id=label_id,
                action=action,
                area=int(counts[label_id]),
                bbox_xyxy=box,
                point_xy=point,
                axis_xy=principal_axis(mask),
                point_in_mask=bool(mask[int(point[1]), int(point[0])]),
            )
        )
    return sorted(regions, key=lambda r: r.action)


def secondary_actions(labels: np.ndarray, ranks: np.ndarray, label_id: int) -> tuple[str, ...]:
    """Affordances ranked 2 or 3 on at least half of the region's pixels, best rank first."""
    mask = labels == label_id
    total = int(mask.sum())
    found: list[tuple[float, int]] = []
    for other, _name in UMD_LABELS.items():
        if other == label_id or total == 0:
            continue
        values = ranks[..., other - 1][mask]
        secondary = (values == 2) | (values == 3)
        if int(secondary.sum()) * 2 >= total:
            found.append((float(np.median(values[secondary])), other))
    return tuple(UMD_LABELS[i] for _, i in sorted(found))
