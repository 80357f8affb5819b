"""Shared 2-D geometry on the pixel-edge plane (pixel (c, r) covers [c, c+1) x [r, r+1)): the tight box of
a mask, the IoU of two boxes and a point guaranteed inside a mask. Used by the converters (UMD, GAPartNet)
and by scoring; pure functions on arrays and tuples."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

Box = tuple[float, float, float, float]  # x0, y0, x1, y1


def mask_box(mask: np.ndarray) -> Box | None:
    """Tight box of a mask's non-zero pixels: [min col, min row, max col + 1, max row + 1]; None if empty."""
    rows = np.flatnonzero(mask.any(axis=1))
    if rows.size == 0:
        return None
    cols = np.flatnonzero(mask.any(axis=0))
    return (float(cols[0]), float(rows[0]), float(cols[-1] + 1), float(rows[-1] + 1))


def _area(box: Sequence[float]) -> float:
    return abs(box[2] - box[0]) * abs(box[3] - box[1])


def box_iou(a: Sequence[float], b: Sequence[float]) -> float:
    """Intersection over union of two boxes (corners in either order); 0 when they do not overlap."""
    ax0, ax1 = sorted((a[0], a[2]))
    ay0, ay1 = sorted((a[1], a[3]))
    bx0, bx1 = sorted((b[0], b[2]))
    by0, by1 = sorted((b[1], b[3]))
    inter = max(0.0, min(ax1, bx1) - max(ax0, bx0)) * max(0.0, min(ay1, by1) - max(ay0, by0))
    union = _area(a) + _area(b) - inter
    return inter / union if union > 0 else 0.0


def interior_point(mask: np.ndarray, centroid: tuple[float, float] | None = None) -> tuple[float, float]:
    """The pixel farthest from the region's boundary (distance-transform maximum).

    Unlike a centroid it always lies inside the mask, also for concave regions (a mug's interior).
    The image border counts as boundary. Among pixels within half a pixel of the maximum (a bar's
    whole centre line ties) the one nearest the region's centroid wins, then row-major order.
    """
    import cv2  # here, not at the top: scoring imports this module for box_iou and needs no OpenCV

    # Work on the mask's own box: outside it there are only zeros, and the nearest zero of a pixel
    # inside is never farther than the one-pixel zero ring around the box (clamping a zero's
    # coordinates to the ring brings it no farther), so the distances equal the whole frame's.
    # Coordinates are moved back to the frame before any arithmetic, so the result is identical.
    mask = mask.view(np.uint8) if mask.dtype == bool else mask.astype(np.uint8, copy=False)
    x, y, w, h = cv2.boundingRect(mask)
    crop = mask[y : y + h, x : x + w]
    padded = np.pad(crop, 1)
    distance = cv2.distanceTransform(padded, cv2.DIST_L2, cv2.DIST_MASK_PRECISE)[1:-1, 1:-1]
    rows, cols = np.nonzero(distance >= distance.max() - 0.5)
    rows, cols = rows + y, cols + x
    if centroid is None:
        all_rows, all_cols = np.nonzero(crop)
        centroid = (float((all_cols + x).mean()), float((all_rows + y).mean()))
    cx, cy = centroid
    best = int(np.argmin((rows - cy) ** 2 + (cols - cx) ** 2))
    return (float(cols[best]) + 0.5, float(rows[best]) + 0.5)
