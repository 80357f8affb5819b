"""Geometry of affordance regions in a label map: pure functions on arrays."""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from groundbench.converters.umd.vocab import UMD_LABELS
from groundbench.core.geometry import interior_point
from groundbench.schemas.mask_rle import encode


@dataclass(frozen=True)
class Region:
    label_id: int
    action: str
    area: int
    bbox_xyxy: tuple[float, float, float, float]  # tight box on the pixel-edge plane
    point_xy: tuple[float, float]  # a pixel centre guaranteed inside the region
    axis_xy: tuple[float, ...]  # unit principal direction, () when isotropic
    point_in_mask: bool  # checked against the label map itself, not assumed
    pieces: int = 1  # connected pieces (8-connectivity); 2 or more: the box spans a gap (e.g. occlusion)
    mask_rle: tuple[int, ...] = ()  # the mask over bbox_xyxy (schemas/mask_rle.py)


def _half_angle(x: float, y: float) -> tuple[float, float]:
    """(cos t, sin t) for t = atan2(y, x) / 2, by half-angle formulas: sqrt and division only (no libm, whose
    FMA variants differ between CPUs in the last bit), each branch free of cancellation."""
    r = math.sqrt(x * x + y * y)
    if x >= 0:
        c = math.sqrt((r + x) / (2.0 * r))
        return c, y / (2.0 * r * c)
    s = math.copysign(math.sqrt((r - x) / (2.0 * r)), y)
    return y / (2.0 * r * s), s


def _axis_from_moments(mu20: float, mu02: float, mu11: float) -> tuple[float, ...]:
    if math.isclose(mu20, mu02) and math.isclose(mu11, 0.0, abs_tol=1e-9):
        return ()  # isotropic: no principal direction
    dx, dy = _half_angle(mu20 - mu02, 2.0 * mu11)
    # Round first: cos(pi/2) is 6e-17, not 0, and its sign must not decide the direction.
    dx, dy = round(dx, 12) + 0.0, round(dy, 12) + 0.0
    if dx < 0 or (dx == 0 and dy < 0):
        dx, dy = -dx, -dy
    return (dx + 0.0, dy + 0.0)


def principal_axis(mask: np.ndarray) -> tuple[float, ...]:
    """Unit direction of the region's largest spread, sign fixed so x > 0 (or y > 0 when x = 0)."""
    moments = cv2.moments(mask.astype(np.uint8), binaryImage=True)
    if moments["m00"] < 2:
        return ()
    return _axis_from_moments(moments["mu20"], moments["mu02"], moments["mu11"])


def region_of(mask: np.ndarray, label_id: int, area: int, offset: tuple[int, int] = (0, 0)) -> Region:
    """Geometry of one label's mask, computed on the region's own crop (a frame is mostly background).

    ``mask`` may itself be a crop of the frame whose top-left pixel is ``offset`` (x, y) in the frame.
    """
    x, y, w, h = cv2.boundingRect(mask)  # tight box of the non-zero pixels
    crop = mask[y : y + h, x : x + w]
    moments = cv2.moments(crop, binaryImage=True)
    centroid = (moments["m10"] / moments["m00"], moments["m01"] / moments["m00"])
    px, py = interior_point(crop, centroid)
    # Outside its bounding box a region has no pixels, so the zero padding of the crop gives the
    # same distances as the whole frame would.
    inside = bool(crop[int(py), int(px)])  # checked against the label map itself, not assumed
    x, y = x + offset[0], y + offset[1]
    point = (px + x, py + y)
    axis = _axis_from_moments(moments["mu20"], moments["mu02"], moments["mu11"]) if area >= 2 else ()
    pieces = cv2.connectedComponents(np.ascontiguousarray(crop), connectivity=8)[0] - 1
    return Region(
        label_id=label_id,
        action=UMD_LABELS[label_id],
        area=area,
        bbox_xyxy=(float(x), float(y), float(x + w), float(y + h)),
        point_xy=point,
        axis_xy=axis,
        point_in_mask=inside,
        pieces=int(pieces),
        mask_rle=tuple(encode(crop)),  # the crop is the tight box: the same pixels as area and bbox_xyxy
    )


def labelled_rect(labels: np.ndarray) -> tuple[int, int, int, int]:
    """(x, y, w, h) of the labelled (non-zero) pixels; w = h = 0 when there are none."""
    if labels.flags.f_contiguous and not labels.flags.c_contiguous:
        # loadmat gives column-major maps: their transpose is row-major, so OpenCV needs no copy.
        y, x, h, w = cv2.boundingRect((labels.T > 0).view(np.uint8))
    else:
        x, y, w, h = cv2.boundingRect(np.ascontiguousarray(labels > 0).view(np.uint8))
    return x, y, w, h


def object_box(rect: tuple[int, int, int, int]) -> tuple[float, float, float, float] | None:
    """A :func:`labelled_rect` as a tight box on the pixel-edge plane; None when nothing is labelled."""
    x, y, w, h = rect
    return None if w == 0 or h == 0 else (float(x), float(y), float(x + w), float(y + h))


def regions_of(labels: np.ndarray, rect: tuple[int, int, int, int] | None = None) -> list[Region]:
    """Every affordance present in the map, ordered by action name (the example-id order).

    ``rect`` is the map's :func:`labelled_rect` when the caller has it already.
    """
    # Work on the object's bounding box only: every labelled pixel lies inside it, and a tool covers
    # a small part of the frame. The crop is copied C-contiguous (loadmat returns column-major
    # arrays, which OpenCV would otherwise copy again for every label).
    x, y, w, h = labelled_rect(labels) if rect is None else rect
    if w == 0 or h == 0:
        return []
    crop = np.ascontiguousarray(labels[y : y + h, x : x + w])
    regions = []
    for label_id in UMD_LABELS:
        # One uint8 comparison per label is cheaper than np.bincount, which widens the map to int64.
        mask = (crop == label_id).view(np.uint8)
        area = cv2.countNonZero(mask)
        if area:
            regions.append(region_of(mask, label_id, area, (x, y)))
    return sorted(regions, key=lambda r: r.action)


def secondary_actions(labels: np.ndarray, ranks: np.ndarray, label_id: int) -> tuple[str, ...]:
    """Affordances ranked 2 or 3 on at least half of the region's pixels, best rank first.

    ``labels`` and ``ranks`` may be crops of the frame (the object's box): only the region's pixels count.
    """
    mask = labels == label_id
    total = int(mask.sum())
    if total == 0:
        return ()
    # One gather, then every affordance's counts at once, along rows of the transposed copy (summing
    # down the 7-wide columns instead is ~10x slower).
    region = np.ascontiguousarray(ranks[mask].T)  # (7, pixels)
    twos, threes = (region == 2).sum(axis=1), (region == 3).sum(axis=1)
    found: list[tuple[float, int]] = []
    for other in UMD_LABELS:
        if other == label_id:
            continue
        n2, n3 = int(twos[other - 1]), int(threes[other - 1])
        if (n2 + n3) * 2 >= total:
            found.append((_median_of_twos_and_threes(n2, n3), other))
    return tuple(UMD_LABELS[i] for _, i in sorted(found))


def _median_of_twos_and_threes(twos: int, threes: int) -> float:
    """``np.median`` of ``twos`` 2s and ``threes`` 3s, from the counts (the sorted values are 2s, then 3s)."""
    size = twos + threes

    def at(index: int) -> int:
        return 2 if index < twos else 3

    if size % 2:
        return float(at(size // 2))
    return (at(size // 2 - 1) + at(size // 2)) / 2
