"""Many points tested against a row list's target regions at once: ``localization.in_target_region`` of each.

A group's rows are tested again and again (every model's answers, the image centre, the object centre, the best
constant), and each test found the target part, its mask and the run lengths' sums anew. :class:`TargetRegions`
reads every row's region once (its box, or its mask's integer box and run lengths) and answers a list of
points, one per row, with numpy. The same answers: a point's pixel is (floor(x), floor(y))
inside the mask's box (``int`` of each box value), looked up among the run ends as ``bisect_right`` does, and a
box counts its edges. Anything this does not read exactly (a point that is not finite, a box that is not four
numbers, negative run lengths) is left to ``in_target_region`` row by row, which raises where it raised.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from groundbench.scoring.localization import Row, in_target_region, target_mask, target_part

NONE, BOX, MASK = 0, 1, 2  # a row's region: no target part, its box, its mask


CHUNK = 4096  # masks whose run ends are summed together at a time: a bounded temporary, whatever the rows


class TargetRegions:
    """The target regions of ``rows``, read once; :meth:`contains` tests one point per row. The masks' run
    lengths are the rows' own arrays (no copy is held): a query sums the ends of the masks its points fall in,
    ``CHUNK`` masks at a time."""

    def __init__(self, rows: Sequence[Row]) -> None:
        self.rows = rows
        n = len(rows)
        self.kind = np.zeros(n, dtype=np.int8)
        self.box = np.zeros((n, 4), dtype=np.float64)  # a box region: x0, x1, y0, y1 (sorted), edges included
        self.frame = np.zeros((n, 4), dtype=np.int64)  # a mask's box: x0, y0, x1, y1 (int of each value)
        self.counts: list[np.ndarray] = [_NO_RUNS] * n  # a mask's run lengths (the row's own array or list, read)
        self.exact = True  # False: some row is read row by row
        for i, row in enumerate(rows):
            part = target_part(row)
            if part is None:
                continue
            mask = target_mask(part)
            if mask is None:
                bbox = part["bbox_xyxy"]
                x0, x1 = sorted((bbox[0], bbox[2]))
                y0, y1 = sorted((bbox[1], bbox[3]))
                self.kind[i], self.box[i] = BOX, (x0, x1, y0, y1)
                continue
            lengths = np.asarray(mask[0], dtype=np.int64).reshape(-1)
            try:
                frame = [int(v) for v in mask[1]]
            except (TypeError, ValueError, OverflowError):
                frame = []
            if len(frame) != 4 or not len(lengths) or (lengths < 0).any():
                self.exact = False
                continue
            self.kind[i], self.frame[i], self.counts[i] = MASK, frame, lengths

    def contains(self, points: Sequence[Sequence[float] | None]) -> list[bool]:
        """``in_target_region(row, point)`` for each row and its point (None: no point)."""
        if len(points) != len(self.rows):
            raise ValueError("one point per row")
        plain = _plain_coordinates(points) if self.exact else None
        if plain is None:
            return [in_target_region(r, p) for r, p in zip(self.rows, points, strict=True)]
        given, x, y = plain
        out = np.zeros(len(points), dtype=bool)
        box = given & (self.kind == BOX)
        out[box] = (
            (self.box[box, 0] <= x[box])
            & (x[box] <= self.box[box, 1])
            & (self.box[box, 2] <= y[box])
            & (y[box] <= self.box[box, 3])
        )
        col, line = np.floor(x), np.floor(y)
        f = self.frame
        mask = given & (self.kind == MASK) & (f[:, 0] <= col) & (col < f[:, 2]) & (f[:, 1] <= line) & (line < f[:, 3])
        rows = np.flatnonzero(mask)
        for start in range(0, len(rows), CHUNK):
            chunk = rows[start : start + CHUNK]
            fm = f[chunk]
            index = (line[chunk].astype(np.int64) - fm[:, 1]) * (fm[:, 2] - fm[:, 0]) + (
                col[chunk].astype(np.int64) - fm[:, 0]
            )
            out[chunk] = _inside(index, [self.counts[i] for i in chunk])
        return out.tolist()


_NO_RUNS = np.zeros(0, dtype=np.int64)


def _inside(index: np.ndarray, counts: list[np.ndarray]) -> np.ndarray:
    """Whether each pixel index falls in an odd run of its mask's run lengths: ``bisect_right`` of the index
    among its mask's run ends, every mask's ends summed as one array. Each index is shifted by the pixels of
    the masks before its own, so the global ends at or below it are every earlier mask's runs and its own
    mask's count; an index at or past its mask's pixels is past every run of it."""
    runs = np.array([len(c) for c in counts], dtype=np.int64)
    ends = np.concatenate(counts)
    np.cumsum(ends, out=ends)
    first = np.cumsum(runs) - runs
    before = np.concatenate(([0], ends))  # before[k]: the pixels of every run before run k
    base, total = before[first], before[first + runs] - before[first]
    found = np.searchsorted(ends, base + index, side="right") - first
    found = np.where(index >= total, runs, found)
    return found % 2 == 1


def _plain_points(points: Sequence[Any]) -> bool:
    """Every point is None or starts with two finite plain numbers (read alike by numpy and ``math.floor``)."""
    for p in points:
        if p is not None and not (
            isinstance(p[0], int | float)
            and isinstance(p[1], int | float)
            and math.isfinite(p[0])
            and math.isfinite(p[1])
        ):
            return False
    return True


def _plain_coordinates(points: Sequence[Any]) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """(given, x, y) of the points, (0, 0) where a point is None; None unless every point is None or starts with
    two finite plain numbers. Points that numpy reads at once as pairs of numbers (answers, constants) are
    converted at once; any other (longer, lists of mixed kinds) are checked one by one (:func:`_plain_points`)."""
    pairs = [p for p in points if p is not None]
    try:
        xy = np.array(pairs) if pairs else np.zeros((0, 2))
    except (ValueError, TypeError):  # ragged
        xy = np.zeros(0, dtype=object)
    if not (xy.ndim == 2 and xy.shape[1] == 2 and xy.dtype.kind in "fi" and np.isfinite(xy).all()):
        if not _plain_points(points):
            return None
        xy = np.array([(p[0], p[1]) for p in pairs], dtype=np.float64)
    xy = xy.astype(np.float64, copy=False).reshape(-1, 2)
    given = np.fromiter((p is not None for p in points), dtype=bool, count=len(points))
    x, y = np.zeros(len(points)), np.zeros(len(points))
    x[given], y[given] = xy[:, 0], xy[:, 1]
    return given, x, y
