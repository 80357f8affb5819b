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


def best_constant_at_tau(rows: Sequence[Row], tau: float | None) -> tuple[int, tuple[float, float] | None]:
    """(targets within tau, offset) of the constant point that lands within ``tau`` of the most target points.

    Candidates: every target point, every intersection of two radius-tau circles around target points
    (an optimal disc can be moved until two targets sit on its rim), and every midpoint of two targets
    at most 2 tau apart, each also re-centred once on the mean of the targets it covers. Counting
    prefers candidates that cover their targets with room to spare, so the constant keeps its hits
    when it is turned back into pixels and scored like a model's answer (:func:`hits_at_tau`).
    Cost: O(n^3) for n rows.
    """
    targets = _target_offsets(rows)
    if tau is None or not len(targets):
        return 0, None
    best: tuple[int, int] = (-1, -1)
    where = (float(targets[0][0]), float(targets[0][1]))
    loose, tight = tau + EPS, tau - 1e-9
    for anchor in targets:
        candidates = [anchor[None, :]]
        delta = targets - anchor
        dist = np.hypot(delta[:, 0], delta[:, 1])
        near = (dist > 0) & (dist <= 2 * tau)
        if near.any():
            half = dist[near] / 2.0
            mid = anchor + delta[near] / 2.0
            h = np.sqrt(np.maximum(tau * tau - half * half, 0.0))
            normal = np.stack([-delta[near][:, 1], delta[near][:, 0]], axis=1) / dist[near][:, None]
            candidates += [mid, mid + normal * h[:, None], mid - normal * h[:, None]]
        points = np.concatenate(candidates)
        gaps = np.hypot(*(points[:, None, :] - targets[None, :, :]).transpose(2, 0, 1))
        covered = gaps <= loose
        centroids = (covered[:, :, None] * targets[None, :, :]).sum(axis=1) / covered.sum(axis=1)[:, None]
        points = np.concatenate([points, centroids])
        gaps = np.hypot(*(points[:, None, :] - targets[None, :, :]).transpose(2, 0, 1))
        score = (gaps <= loose).sum(axis=1) * (len(targets) + 1) + (gaps <= tight).sum(axis=1)
        k = int(score.argmax())
        key = (int((gaps[k] <= loose).sum()), int((gaps[k] <= tight).sum()))
        if key > best:
            best, where = key, (float(points[k][0]), float(points[k][1]))
    return best[0], where


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
