"""Localization figures a constant answer cannot game, and the constant answers scored the same way.

Every row is put in one frame: a location (x, y) becomes its offset from the image centre in units
of the image diagonal d, ((x - W/2) / d, (y - H/2) / d), the frame ``scoring.baselines.localization_tau``
is defined in. A *constant point* is one offset c used on every row (the point W/2 + c_x d, H/2 + c_y d).

- Best constant at tau: the constant whose point lies within tau of the most target points. tau is
  the median distance of the targets from their mean, so a constant at the mean already hits about
  half of them by construction; the best constant is the honest floor a model's hit rate at tau has
  to clear. Found exactly: an optimal disc of radius tau can be moved until it touches two target
  points on its rim (or centred on one), so the candidates are every target point and every
  intersection of two radius-tau circles around target points.
- Target region: the answer's point inside the target's own region, a threshold-free figure. The
  rows carry no pixel masks, so the region is the target's box (for UMD a ``from-mask`` box, the
  mask's tight box; for GAPartNet the part's box); the constants are scored the same way, the best
  constant being the offset inside the most target boxes (exact: a sweep over box edges).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

Row = Mapping[str, Any]
EPS = 1e-12  # distances are compared with <=; the candidates lie exactly on rims
EXACT_LIMIT = 150  # rows up to which the best constant at tau is searched exhaustively
GRID = 96  # above it, the lattice of candidate constants per axis


def target_part(row: Row) -> Mapping[str, Any] | None:
    return next((p for p in row["parts"] if p["part_id"] == row["target_part_id"]), None)


def target_point(row: Row) -> tuple[float, float] | None:
    part = target_part(row)
    point = None if part is None else part["point_xy"]
    return None if not point else (float(point[0]), float(point[1]))


def offset(row: Row, point: Sequence[float]) -> tuple[float, float]:
    d = math.hypot(row["width"], row["height"])
    return ((point[0] - row["width"] / 2.0) / d, (point[1] - row["height"] / 2.0) / d)


def constant_point(row: Row, c: Sequence[float]) -> tuple[float, float]:
    """The pixel a constant offset ``c`` names on this row."""
    d = math.hypot(row["width"], row["height"])
    return (row["width"] / 2.0 + c[0] * d, row["height"] / 2.0 + c[1] * d)


def _target_offsets(rows: Sequence[Row]) -> np.ndarray:
    points = [target_point(r) for r in rows]
    return np.array([offset(r, p) for r, p in zip(rows, points, strict=True) if p is not None], dtype=np.float64)


def _count_best(points: np.ndarray, targets: np.ndarray, tau: float) -> tuple[tuple[int, int], np.ndarray]:
    """The candidate covering the most targets (ties: the most with room to spare), and its (loose, tight) counts."""
    best: tuple[int, int] = (-1, -1)
    where = points[0]
    for start in range(0, len(points), 2048):
        chunk = points[start : start + 2048]
        gaps = np.hypot(*(chunk[:, None, :] - targets[None, :, :]).transpose(2, 0, 1))
        loose, tight = (gaps <= tau + EPS).sum(axis=1), (gaps <= tau - 1e-9).sum(axis=1)
        k = int((loose * (len(targets) + 1) + tight).argmax())
        if (int(loose[k]), int(tight[k])) > best:
            best, where = (int(loose[k]), int(tight[k])), chunk[k]
    return best, where


def _centroids(points: np.ndarray, targets: np.ndarray, tau: float) -> np.ndarray:
    gaps = np.hypot(*(points[:, None, :] - targets[None, :, :]).transpose(2, 0, 1))
    covered = gaps <= tau + EPS
    return (covered[:, :, None] * targets[None, :, :]).sum(axis=1) / np.maximum(covered.sum(axis=1), 1)[:, None]


def _exact_candidates(targets: np.ndarray, tau: float) -> np.ndarray:
    """Every target, every midpoint of two targets at most 2 tau apart and both intersections of their circles."""
    out = [targets]
    for anchor in targets:
        delta = targets - anchor
        dist = np.hypot(delta[:, 0], delta[:, 1])
        near = (dist > 0) & (dist <= 2 * tau)
        if near.any():
            mid = anchor + delta[near] / 2.0
            h = np.sqrt(np.maximum(tau * tau - (dist[near] / 2.0) ** 2, 0.0))
            normal = np.stack([-delta[near][:, 1], delta[near][:, 0]], axis=1) / dist[near][:, None]
            out += [mid, mid + normal * h[:, None], mid - normal * h[:, None]]
    return np.concatenate(out)


def _grid_candidates(targets: np.ndarray) -> np.ndarray:
    """Every target and a GRID x GRID lattice over the targets' bounding box."""
    xs = np.linspace(targets[:, 0].min(), targets[:, 0].max(), GRID)
    ys = np.linspace(targets[:, 1].min(), targets[:, 1].max(), GRID)
    lattice = np.stack(np.meshgrid(xs, ys), axis=-1).reshape(-1, 2)
    return np.concatenate([targets, lattice])


def best_constant_at_tau(rows: Sequence[Row], tau: float | None) -> tuple[int, tuple[float, float] | None]:
    """(targets within tau, offset) of the constant point that lands within ``tau`` of the most target points.

    Up to ``EXACT_LIMIT`` rows the search is exact: an optimal disc can be moved until two targets sit
    on its rim (or it is centred on one), so the candidates are every target point, every
    intersection of two radius-tau circles around targets, and (room to spare) their midpoints, each
    also re-centred on the mean of the targets it covers. Counting prefers candidates that cover
    their targets with room to spare, so the constant keeps its hits when it is turned back into
    pixels and scored like a model's answer (:func:`hits_at_tau`). Cost O(n^3). Above the limit the
    candidates are the targets and a ``GRID`` x ``GRID`` lattice over them (then re-centred): the
    figure is then a lower bound of the best constant's rate.
    """
    targets = _target_offsets(rows)
    if tau is None or not len(targets):
        return 0, None
    if len(targets) <= EXACT_LIMIT:
        points = _exact_candidates(targets, tau)
        (loose, _), where = _count_best(np.concatenate([points, _centroids(points, targets, tau)]), targets, tau)
    else:
        (loose, _), where = _count_best(_grid_candidates(targets), targets, tau)
        (more, _), again = _count_best(_centroids(where[None, :], targets, tau), targets, tau)
        if more > loose:
            loose, where = more, again
    return loose, (float(where[0]), float(where[1]))


def hits_at_tau(rows: Sequence[Row], c: Sequence[float] | None, tau: float | None) -> int:
    """Rows on which the constant point ``c`` lies within ``tau`` (image diagonals) of the target point,
    computed exactly as a model's answer is scored."""
    if c is None or tau is None:
        return 0
    hits = 0
    for row in rows:
        target, point = target_point(row), constant_point(row, c)
        if target is not None:
            hits += (
                math.hypot(point[0] - target[0], point[1] - target[1]) / math.hypot(row["width"], row["height"]) <= tau
            )
    return hits


def target_box_offsets(row: Row) -> tuple[float, float, float, float] | None:
    part = target_part(row)
    if part is None:
        return None
    x0, y0 = offset(
        row, (min(part["bbox_xyxy"][0], part["bbox_xyxy"][2]), min(part["bbox_xyxy"][1], part["bbox_xyxy"][3]))
    )
    x1, y1 = offset(
        row, (max(part["bbox_xyxy"][0], part["bbox_xyxy"][2]), max(part["bbox_xyxy"][1], part["bbox_xyxy"][3]))
    )
    return (x0, y0, x1, y1)


def in_target_region(row: Row, point: Sequence[float] | None) -> bool:
    """The point inside the target's region (its box, edges included: the rows carry no masks)."""
    part = target_part(row)
    if point is None or part is None:
        return False
    x0, x1 = sorted((part["bbox_xyxy"][0], part["bbox_xyxy"][2]))
    y0, y1 = sorted((part["bbox_xyxy"][1], part["bbox_xyxy"][3]))
    return x0 <= point[0] <= x1 and y0 <= point[1] <= y1


def _best_stab(intervals: Sequence[tuple[float, float]]) -> tuple[int, float | None]:
    """(most closed intervals one value lies in, a value inside all of them, away from their ends when possible)."""
    events = sorted([(lo, 0) for lo, _ in intervals] + [(hi, 1) for _, hi in intervals])
    best, where, current = 0, None, 0
    for index, (value, kind) in enumerate(events):
        current += 1 if kind == 0 else -1
        if kind == 0 and current > best:
            following = events[index + 1][0] if index + 1 < len(events) else value
            best, where = current, (value + following) / 2.0 if following > value else value
    return best, where


def _between(values: Sequence[float]) -> list[float]:
    """The values and the midpoints between neighbours: interior candidates survive float round trips."""
    ordered = sorted(set(values))
    return ordered + [(a + b) / 2.0 for a, b in zip(ordered, ordered[1:], strict=False)]


def best_constant_in_region(rows: Sequence[Row]) -> tuple[int, tuple[float, float] | None]:
    """(rows, offset) of the constant point inside the most target boxes, counted by scoring it."""
    boxes = [b for b in (target_box_offsets(r) for r in rows) if b is not None]
    best, where = 0, None
    for x in _between([v for b in boxes for v in (b[0], b[2])]):
        column = [(b[1], b[3]) for b in boxes if b[0] <= x <= b[2]]
        count, y = _best_stab(column)
        if count > best and y is not None:
            best, where = count, (x, y)
    if where is None:
        return 0, None
    return sum(in_target_region(r, constant_point(r, where)) for r in rows), where
