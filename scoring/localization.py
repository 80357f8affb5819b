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
  region is the target's own mask (``parts.mask_rle``, UMD and GAPartNet: the point's pixel
  (floor(x), floor(y)) is a mask pixel) where the row has one, else its box (``bbox_xyxy``, edges
  included: GUI, a re-ask part hidden in its image). The constants are scored the same way, the
  best constant being the offset inside the most target regions. Exact: with boxes only, a sweep
  over box edges; with masks, every mask pixel and box is a rectangle in the offset frame, and the
  plane cut at all their edges (each edge value and each open gap between neighbours its own cell,
  so closed boxes and half-open pixels are both counted right) is counted with 2-D prefix sums.

Above ``SEARCH_LIMIT`` rows (a full-scale bulk config) both searches run on an evenly spaced
subsample of the rows, and the constant found is scored on every row: a lower bound of the best
constant's figure, computed the way a model's answers are.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from groundbench.schemas import mask_rle

Row = Mapping[str, Any]
EPS = 1e-12  # distances are compared with <=; the candidates lie exactly on rims
EXACT_LIMIT = 150  # rows up to which the best constant at tau is searched exhaustively
GRID = 96  # above it, the lattice of candidate constants per axis
# Above this many rows both searches run on an evenly spaced subsample of this many rows (every
# row's count against every candidate is O(n^2): at UMD's full 58,572 bulk rows that was hours and
# gigabytes). The constant found is then scored on every row, so the figure stays an exact hit count
# of one constant: a lower bound of the best constant's, as the lattice search above EXACT_LIMIT is.
SEARCH_LIMIT = 4096


def target_part(row: Row) -> Mapping[str, Any] | None:
    target = row["target_part_id"]
    for part in row["parts"]:  # a plain loop: asked for every row, several times over
        if part["part_id"] == target:
            return part
    return None


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


CHUNK = 256  # candidates counted at a time: 256 x the targets' distances stay in the CPU's cache


def _within(dx: np.ndarray, dy: np.ndarray, squared: np.ndarray, limit: float) -> np.ndarray:
    """Per row of ``dx``/``dy`` (``squared``: dx * dx + dy * dy), how many pairs have
    ``np.hypot(dx, dy) <= limit``: the counts hypot gives, at a fraction of its cost. The squared distance
    (within a few ulps of hypot's square) decides every pair outside a 1e-9 relative band round the limit,
    and hypot itself the few pairs inside the band."""
    if limit < 0:
        return np.zeros(len(dx), dtype=np.int64)
    low, high = limit * limit * (1.0 - 1e-9), limit * limit * (1.0 + 1e-9)
    counts = np.count_nonzero(squared < low, axis=1)
    band = squared >= low
    band &= squared <= high
    if band.any():
        band_rows, band_cols = np.nonzero(band)
        exact = np.hypot(dx[band_rows, band_cols], dy[band_rows, band_cols]) <= limit
        counts += np.bincount(band_rows[exact], minlength=len(dx))
    return counts


PRUNE_PAIRS = 1 << 22  # candidates x targets above which candidates that cannot be the best are left out
SEEDS = 64  # candidates counted first (the highest bounds) to set the bar the others' bounds must reach
BINS_PER_TAU = 16  # the targets are binned in squares of tau / BINS_PER_TAU for the bounds


def _count_best(points: np.ndarray, targets: np.ndarray, tau: float) -> tuple[tuple[int, int], np.ndarray]:
    """The candidate covering the most targets (ties: the most with room to spare; then the first), and its
    (loose, tight) counts.

    A target is covered when ``np.hypot`` of its offset from the candidate is at most tau (loose: tau + EPS;
    tight: tau - 1e-9); :func:`_within` counts the same pairs without computing every hypot. Many candidates
    (a lattice over thousands of targets) are first bounded (:func:`_cover_bounds`): a candidate whose bound is
    below the loose count of one already counted cannot be the best nor tie it, so only the others are counted,
    in their order (the same candidate wins)."""
    if len(points) * len(targets) > PRUNE_PAIRS and len(points) > SEEDS and tau > 0 and math.isfinite(tau):
        bounds = _cover_bounds(points, targets, tau + EPS)
        if bounds is not None:
            seeds = np.sort(np.argsort(-bounds, kind="stable")[:SEEDS])
            (bar, _), _ = _count_best_of(points[seeds], targets, tau)
            return _count_best_of(points[bounds >= bar], targets, tau)
    return _count_best_of(points, targets, tau)


def _cover_bounds(points: np.ndarray, targets: np.ndarray, radius: float) -> np.ndarray | None:
    """Per candidate, at least the number of targets within ``radius`` of it: the targets binned in squares of
    side s, summed over every square whose distance from the candidate's square is at most the radius, with a
    square's slack either way for a value rounded onto the other side of an edge (None: too many squares)."""
    side = radius / BINS_PER_TAU
    low = targets.min(axis=0)
    reach = BINS_PER_TAU + 3  # squares a covered target can be away, rounding slack included
    shape = np.floor((targets.max(axis=0) - low) / side).astype(np.int64) + 1 + 2 * reach
    if not np.isfinite(low).all() or not np.isfinite(shape).all() or int(shape[0]) * int(shape[1]) > 1 << 20:
        return None
    binned = np.floor((targets - low) / side).astype(np.int64) + reach
    counts = np.zeros((int(shape[0]), int(shape[1])), dtype=np.int64)
    np.add.at(counts, (binned[:, 0], binned[:, 1]), 1)
    # Sums over a row of squares are differences of running sums along it (a zero column first).
    padded = np.pad(counts, ((reach, reach), (reach + 1, reach)))
    running = padded.cumsum(axis=1)
    window = np.zeros_like(counts)
    height, width = counts.shape
    for i in range(-reach, reach + 1):
        # the squares j of row i within reach: the gap counts two squares' slack on each axis, not one
        free = (radius * (1 + 1e-6) / side) ** 2 - max(abs(i) - 2, 0) ** 2
        if free < 0:
            continue
        j = min(reach, int(math.isqrt(int(free))) + 2)
        while j + 1 <= reach and (j + 1 - 2) ** 2 <= free:
            j += 1
        rows = running[reach + i : reach + i + height]
        window += rows[:, reach + 1 + j : reach + 1 + j + width] - rows[:, reach - j : reach - j + width]
    # A candidate beyond the padded grid (or not finite) covers no target: any square's sum bounds its count.
    where = np.nan_to_num(np.floor((points - low) / side), nan=-1.0, posinf=-1.0, neginf=-1.0) + reach
    cells = np.clip(where, 0, shape - 1).astype(np.int64)
    return window[cells[:, 0], cells[:, 1]]


def _count_best_of(points: np.ndarray, targets: np.ndarray, tau: float) -> tuple[tuple[int, int], np.ndarray]:
    """:func:`_count_best` counting every candidate."""
    best: tuple[int, int] = (-1, -1)
    where = points[0]
    tx, ty = targets[:, 0][None, :], targets[:, 1][None, :]
    for start in range(0, len(points), CHUNK):
        chunk = points[start : start + CHUNK]
        dx, dy = chunk[:, 0][:, None] - tx, chunk[:, 1][:, None] - ty
        squared = dx * dx + dy * dy
        loose, tight = _within(dx, dy, squared, tau + EPS), _within(dx, dy, squared, tau - 1e-9)
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


def _evenly_spaced(items: Any) -> Any:
    """SEARCH_LIMIT of ``items`` (an array or a list), evenly spaced, first and last included."""
    picks = np.linspace(0, len(items) - 1, SEARCH_LIMIT).round().astype(np.int64)
    return items[picks] if isinstance(items, np.ndarray) else [items[int(i)] for i in picks]


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
    figure is then a lower bound of the best constant's rate. Above ``SEARCH_LIMIT`` the search runs on
    an evenly spaced subsample and the constant found is counted on every target.
    """
    targets = _target_offsets(rows)
    if tau is None or not len(targets):
        return 0, None
    if len(targets) > SEARCH_LIMIT:
        _, where = _best_at_tau(_evenly_spaced(targets), tau)
        (loose, _), _ = _count_best(where[None, :], targets, tau)  # the found constant, counted on every row
    else:
        loose, where = _best_at_tau(targets, tau)
    return loose, (float(where[0]), float(where[1]))


def _best_at_tau(targets: np.ndarray, tau: float) -> tuple[int, np.ndarray]:
    if len(targets) <= EXACT_LIMIT:
        points = _exact_candidates(targets, tau)
        (loose, _), where = _count_best(np.concatenate([points, _centroids(points, targets, tau)]), targets, tau)
    else:
        (loose, _), where = _count_best(_grid_candidates(targets), targets, tau)
        (more, _), again = _count_best(_centroids(where[None, :], targets, tau), targets, tau)
        if more > loose:
            loose, where = more, again
    return loose, where


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


def target_mask(part: Mapping[str, Any]) -> tuple[Sequence[int], list[float]] | None:
    """(run lengths, visible box) of a part's own mask; None where the row has none. The run lengths as the row
    holds them: a list, or the read-only int64 array ``score``'s rows keep (``loaders.records.read_scored``)."""
    counts, box = part.get("mask_rle"), part.get("visible_bbox_xyxy")
    return None if counts is None or not box else (counts, list(box))


def region_geometry(rows: Sequence[Row]) -> str:
    """Which region the rows' targets are scored against: "mask", "box", or "mask (k rows), box (m rows)"."""
    kinds = [target_mask(p) is not None for p in (target_part(r) for r in rows) if p is not None]
    with_mask = sum(kinds)
    if with_mask == len(kinds):
        return "mask" if kinds else "box"
    return "box" if not with_mask else f"mask ({with_mask} rows), box ({len(kinds) - with_mask} rows)"


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
    """The point inside the target's region: a pixel of its own mask where the row has one, else
    inside its box (edges included)."""
    part = target_part(row)
    if point is None or part is None:
        return False
    mask = target_mask(part)
    if mask is not None:
        return mask_rle.contains(mask[0], mask[1], point)
    x0, x1 = sorted((part["bbox_xyxy"][0], part["bbox_xyxy"][2]))
    y0, y1 = sorted((part["bbox_xyxy"][1], part["bbox_xyxy"][3]))
    return x0 <= point[0] <= x1 and y0 <= point[1] <= y1


def _between(values: Sequence[float]) -> list[float]:
    """The values and the midpoints between neighbours: interior candidates survive float round trips."""
    ordered = sorted(set(values))
    return ordered + [(a + b) / 2.0 for a, b in zip(ordered, ordered[1:], strict=False)]


def _best_in_boxes(rows: Sequence[Row]) -> tuple[float, float] | None:
    """The offset inside the most target boxes: for each candidate x (the boxes' x edges and the midpoints
    between them, in order), the y inside the most boxes spanning x, by a sweep over their y edges. The first x
    with the most boxes wins; at it, the first y where the count peaks, moved to the middle of the gap after."""
    found = [b for b in (target_box_offsets(r) for r in rows) if b is not None]
    if not found:
        return None
    boxes = np.array(found, dtype=np.float64)
    # The sweep's events (a box's y0 opens it, its y1 closes it) sorted once, opening before closing at one
    # value (the boxes are closed); each x keeps the events of the boxes spanning it, in this order.
    values = np.concatenate([boxes[:, 1], boxes[:, 3]])
    closing = np.repeat(np.array([0, 1]), len(boxes))
    order = np.lexsort((closing, values))
    values, owner = values[order], np.tile(np.arange(len(boxes)), 2)[order]
    step = np.where(closing[order] == 0, 1, -1).astype(np.int32)
    candidates = _between(boxes[:, [0, 2]].ravel().tolist())
    best, where = 0, None
    for start in range(0, len(candidates), _SWEEP_CHUNK):
        xs = np.array(candidates[start : start + _SWEEP_CHUNK], dtype=np.float64)[:, None]
        spans = ((boxes[:, 0] <= xs) & (xs <= boxes[:, 2]))[:, owner]  # (x, event): the event's box spans x
        # Depth after each event, the others' events counted as 0: its first maximum is at the event (one of
        # this x's) where the count first peaks.
        depth = np.cumsum(step * spans, axis=1, dtype=np.int32)
        peaks = depth.argmax(axis=1)
        counts = depth[np.arange(len(xs)), peaks]
        for i in np.flatnonzero(counts > best):
            if counts[i] <= best:
                continue
            at, mine = int(peaks[i]), np.flatnonzero(spans[i, int(peaks[i]) + 1 :])
            value = float(values[at])
            following = float(values[at + 1 + mine[0]]) if len(mine) else value
            best, where = int(counts[i]), (float(xs[i, 0]), (value + following) / 2.0 if following > value else value)
    return where


_SWEEP_CHUNK = 128  # candidate x values swept at once: a (128, 2 x boxes) table of events


# One target region in the offset frame: rectangles (x0, x1, y0, y1), closed (a box) or half-open
# [x0, x1) x [y0, y1) (mask pixels: a point belongs to pixel (floor(x), floor(y))).
_Rects = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, bool]


def _region_rects(row: Row) -> _Rects | None:
    part = target_part(row)
    if part is None:
        return None
    d = math.hypot(row["width"], row["height"])
    mask = target_mask(part)
    if mask is None:
        x0, x1 = sorted((part["bbox_xyxy"][0], part["bbox_xyxy"][2]))
        y0, y1 = sorted((part["bbox_xyxy"][1], part["bbox_xyxy"][3]))
        runs = np.array([[y0, x0, x1, y1]], dtype=np.float64)
        closed = True
    else:
        pixel = mask_rle.row_runs(mask[0], mask[1], str(row.get("example_id", "row"))).astype(np.float64)
        runs = np.column_stack([pixel, pixel[:, 0] + 1.0])  # (row, first col, last col + 1, row + 1)
        closed = False
    # The offsets of :func:`offset`, vectorized.
    cx, cy = row["width"] / 2.0, row["height"] / 2.0
    return (runs[:, 1] - cx) / d, (runs[:, 2] - cx) / d, (runs[:, 0] - cy) / d, (runs[:, 3] - cy) / d, closed


def _cells(values: tuple[np.ndarray, np.ndarray], edges: np.ndarray, closed_end: bool) -> tuple[np.ndarray, np.ndarray]:
    """First and last cell of each span on an axis cut at ``edges``: cell 2i is the edge value itself,
    cell 2i + 1 the open gap after it. A half-open span [a, b) stops before b's cell."""
    lo = 2 * np.searchsorted(edges, values[0])
    hi = 2 * np.searchsorted(edges, values[1]) - (0 if closed_end else 1)
    return lo, hi


def _all_region_rects(rows: Sequence[Row]) -> tuple[np.ndarray, ...] | None:
    """Every rectangle of every row's region (:func:`_region_rects`, all rows at once: the masks' runs read off
    their run lengths together), as arrays x0, x1, y0, y1, closed; None when no row has a target part. A bad
    mask is left to :func:`_region_rects`, which names it."""
    boxes: list[list[float]] = []  # (y0, x0, x1, y1, cx, cy, d) of each box region
    masks: list[tuple[Sequence[int], list[float], float, float, float]] = []  # (counts, box, cx, cy, d)
    for row in rows:
        part = target_part(row)
        if part is None:
            continue
        frame = (row["width"] / 2.0, row["height"] / 2.0, math.hypot(row["width"], row["height"]))  # cx, cy, d
        mask = target_mask(part)
        if mask is None:
            bx0, bx1 = sorted((part["bbox_xyxy"][0], part["bbox_xyxy"][2]))
            by0, by1 = sorted((part["bbox_xyxy"][1], part["bbox_xyxy"][3]))
            boxes.append([by0, bx0, bx1, by1, *frame])
        else:
            masks.append((mask[0], mask[1], *frame))
    if not boxes and not masks:
        return None
    mask_runs = _mask_runs(masks)
    if mask_runs is None:  # a bad mask: the row-by-row path, which raises naming the row
        regions = [r for r in (_region_rects(row) for row in rows) if r is not None]
        return tuple(np.concatenate([np.asarray(r[k], dtype=np.float64) for r in regions]) for k in range(4)) + (
            np.concatenate([np.full(len(r[0]), r[4]) for r in regions]),
        )
    box = np.array(boxes, dtype=np.float64).reshape(-1, 7)
    y, x0, x1, y1, cx, cy, d = (np.concatenate([box[:, k], mask_runs[k]]) for k in range(7))
    closed = np.concatenate([np.ones(len(box), dtype=bool), np.zeros(len(mask_runs[0]), dtype=bool)])
    return (x0 - cx) / d, (x1 - cx) / d, (y - cy) / d, (y1 - cy) / d, closed


def _mask_runs(
    masks: Sequence[tuple[Sequence[int], list[float], float, float, float]],
) -> tuple[np.ndarray, ...] | None:
    """(row, first col, last col + 1, row + 1, cx, cy, d) of every horizontal run of every mask, in image
    pixels (``mask_rle.row_runs`` of each, at once), as seven float arrays; None when a mask's run lengths do
    not cover its box."""
    if not masks:
        return tuple(np.zeros(0, dtype=np.float64) for _ in range(7))
    sizes = []
    for _, box, _, _, _ in masks:
        if (
            len(box) != 4
            or any(not math.isfinite(v) or v != int(v) for v in box)
            or box[2] <= box[0]
            or box[3] <= box[1]
        ):
            return None
        sizes.append((int(box[0]), int(box[1]), int(box[2]) - int(box[0]), int(box[3]) - int(box[1])))
    frame = np.array(sizes, dtype=np.int64).reshape(-1, 4)
    bx, by, w, h = frame[:, 0], frame[:, 1], frame[:, 2], frame[:, 3]
    per_mask = np.array([len(m[0]) for m in masks], dtype=np.int64)
    lengths = np.concatenate([np.asarray(m[0], dtype=np.int64).reshape(-1) for m in masks])
    mask_of = np.repeat(np.arange(len(masks)), per_mask)
    first = np.cumsum(per_mask) - per_mask  # index of each mask's first run
    totals = np.bincount(mask_of, weights=lengths, minlength=len(masks))  # exact: far below 2**53
    if (lengths < 0).any() or (totals != w * h).any():
        return None
    running = np.cumsum(lengths)  # every mask has runs here (its box has pixels)
    ends = running - np.repeat(running[first] - lengths[first], per_mask)  # each run's end inside its own mask
    inside = ((np.arange(len(lengths)) - first[mask_of]) % 2 == 1) & (lengths > 0)
    starts, stops, owner = (ends - lengths)[inside], ends[inside], mask_of[inside]
    if starts.size > 1:  # a 1-run starting where the last one stopped, in the same mask, continues it
        joined = np.concatenate(([True], (starts[1:] != stops[:-1]) | (owner[1:] != owner[:-1])))
        starts, stops, owner = starts[joined], stops[np.concatenate((joined[1:], [True]))], owner[joined]
    width = w[owner]
    first_row, last_row = starts // width, (stops - 1) // width
    pieces = last_row - first_row + 1
    run = np.repeat(np.arange(len(starts)), pieces)
    line = first_row[run] + (np.arange(len(run)) - np.repeat(np.cumsum(pieces) - pieces, pieces))
    width, owner = width[run], owner[run]
    begin = np.maximum(starts[run], line * width) - line * width
    end = np.minimum(stops[run], (line + 1) * width) - line * width
    meta = np.array([m[2:] for m in masks], dtype=np.float64).reshape(-1, 3)
    row = (line + by[owner]).astype(np.float64)
    first_col, stop_col = (begin + bx[owner]).astype(np.float64), (end + bx[owner]).astype(np.float64)
    return (row, first_col, stop_col, row + 1.0, meta[owner, 0], meta[owner, 1], meta[owner, 2])


def _best_in_regions(rows: Sequence[Row]) -> tuple[float, float] | None:
    """The offset inside the most target regions (masks or boxes): counted on the plane cut at every
    rectangle edge, with a 2-D prefix sum. A row's rectangles are disjoint, so a row counts once."""
    found = _all_region_rects(rows)
    if found is None:
        return None
    x0, x1, y0, y1, closed = found
    xs, ys = np.unique(np.concatenate([x0, x1])), np.unique(np.concatenate([y0, y1]))
    open_end = (~closed).astype(np.int64)  # a half-open span [a, b) stops before b's cell
    c0, c1 = 2 * np.searchsorted(xs, x0), 2 * np.searchsorted(xs, x1) - open_end
    r0, r1 = 2 * np.searchsorted(ys, y0), 2 * np.searchsorted(ys, y1) - open_end
    shape = (2 * len(ys) + 1, 2 * len(xs) + 1)
    # Each rectangle's four corner marks (+1 at its first cell and past its last, -1 at the two others),
    # summed per cell by counting the flat cell indices.
    width, size = shape[1], shape[0] * shape[1]
    plus = np.concatenate([r0 * width + c0, (r1 + 1) * width + c1 + 1])
    minus = np.concatenate([r0 * width + c1 + 1, (r1 + 1) * width + c0])
    marks = np.bincount(plus, minlength=size) - np.bincount(minus, minlength=size)
    counts = marks.reshape(shape).cumsum(axis=0).cumsum(axis=1)[:-1, :-1]
    best = counts.max()
    if best <= 0:
        return None
    # Prefer an open cell on both axes: its centre stays inside every region through float round trips.
    interior = counts[1::2, 1::2]
    if (interior == best).any():
        i, j = np.unravel_index(int(np.argmax(interior == best)), interior.shape)
        row_cell, col_cell = 2 * int(i) + 1, 2 * int(j) + 1
    else:
        i, j = np.unravel_index(int(np.argmax(counts == best)), counts.shape)
        row_cell, col_cell = int(i), int(j)

    def value(cell: int, edges: np.ndarray) -> float:
        return float(edges[cell // 2]) if cell % 2 == 0 else float((edges[cell // 2] + edges[cell // 2 + 1]) / 2.0)

    return (value(col_cell, xs), value(row_cell, ys))


def best_constant_in_region(rows: Sequence[Row]) -> tuple[int, tuple[float, float] | None]:
    """(rows, offset) of the constant point inside the most target regions, counted by scoring it."""
    where = best_region_offset(rows)
    if where is None:
        return 0, None
    return sum(in_target_region(r, constant_point(r, where)) for r in rows), where


def best_region_offset(rows: Sequence[Row]) -> tuple[float, float] | None:
    """The offset of :func:`best_constant_in_region`, not counted (for a caller that scores it on the rows in one
    go, ``scoring.regions.TargetRegions``)."""
    with_mask = any(target_mask(p) is not None for p in (target_part(r) for r in rows) if p is not None)
    searched = _evenly_spaced(rows) if len(rows) > SEARCH_LIMIT else rows
    return _best_in_regions(searched) if with_mask else _best_in_boxes(searched)
