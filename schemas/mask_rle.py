"""``parts.mask_rle``: a part's own mask, stored losslessly as run lengths over its visible box.

Encoding (pure functions; the converters write it, scoring reads it):

- The mask is cut to the part's visible box ``visible_bbox_xyxy`` = [x0, y0, x1, y1] (integers: the
  mask's tight box), a crop of w = x1 - x0 columns and h = y1 - y0 rows.
- The crop's pixels are read row-major (row y0 first, left to right inside each row, then the next
  row) and written as the lengths of alternating runs of 0 (outside the mask) and 1 (inside),
  starting with a 0-run (0 when the first pixel is inside). Runs cross row ends freely.
- So the counts add up to w * h, the odd-position counts (the 1-runs) add up to ``mask_area``, and
  pixel (col, row) of the image is inside the mask when it lies in the box and its index
  (row - y0) * w + (col - x0) falls in a 1-run.

Like COCO's uncompressed RLE, but over the visible box and row-major (COCO runs column-major over
the whole image): a mask costs one number per run, not one per pixel of the frame.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Sequence

import numpy as np

from groundbench.errors import GroundBenchError

FIELD = "parts.mask_rle"


def encode(crop: np.ndarray) -> list[int]:
    """Run lengths of a 2-D crop (non-zero = inside), row-major, starting with a 0-run."""
    flat = np.ascontiguousarray(crop).reshape(-1) != 0
    if flat.size == 0:
        return []
    changes = np.flatnonzero(flat[1:] != flat[:-1]) + 1
    bounds = np.concatenate(([0], changes, [flat.size]))
    runs = [int(v) for v in np.diff(bounds)]
    return [0, *runs] if flat[0] else runs


def encode_in_box(mask: np.ndarray, box: Sequence[float]) -> list[int]:
    """Run lengths of a whole-frame mask over its visible box ``[x0, y0, x1, y1]`` (integer edges)."""
    x0, y0, x1, y1 = (int(v) for v in box)
    return encode(mask[y0:y1, x0:x1])


def _box_size(box: Sequence[float], where: str) -> tuple[int, int, int, int]:
    if len(box) != 4 or any(not math.isfinite(v) or v != int(v) for v in box) or box[2] <= box[0] or box[3] <= box[1]:
        raise GroundBenchError(where, FIELD, f"needs an integer visible box [x0, y0, x1, y1], got {list(box)}")
    x0, y0, x1, y1 = (int(v) for v in box)
    return x0, y0, x1 - x0, y1 - y0


def check(counts: Sequence[int], box: Sequence[float], where: str = "row") -> None:
    """Raise unless the counts are non-negative and cover the box exactly."""
    _, _, w, h = _box_size(box, where)
    if any(c < 0 for c in counts) or sum(counts) != w * h:
        reason = f"run lengths must be >= 0 and add up to the box's {w}x{h} = {w * h} pixels, got {sum(counts)}"
        raise GroundBenchError(where, FIELD, reason)


def decode(counts: Sequence[int], box: Sequence[float], where: str = "row") -> np.ndarray:
    """The crop (h x w bool) the counts describe over the box."""
    check(counts, box, where)
    _, _, w, h = _box_size(box, where)
    values = np.arange(len(counts)) % 2 == 1
    return np.repeat(values, np.asarray(counts, dtype=np.int64)).reshape(h, w)


def area(counts: Sequence[int]) -> int:
    """Pixels inside the mask: the sum of the 1-runs."""
    return int(sum(counts[1::2]))


Box = tuple[float, float, float, float]


def tight_box(counts: Sequence[int], box: Sequence[float], where: str = "row") -> Box | None:
    """[min col, min row, max col + 1, max row + 1] of the decoded mask in the image; None when empty."""
    crop = decode(counts, box, where)
    rows, cols = np.nonzero(crop)
    if not rows.size:
        return None
    x0, y0 = int(box[0]), int(box[1])
    return (float(x0 + cols.min()), float(y0 + rows.min()), float(x0 + cols.max() + 1), float(y0 + rows.max() + 1))


def contains(counts: Sequence[int], box: Sequence[float], point: Sequence[float]) -> bool:
    """The point (x, y) lies in a mask pixel: pixel (floor(x), floor(y)), as every point of the record."""
    x0, y0, x1, y1 = (int(v) for v in box)
    col, row = math.floor(point[0]), math.floor(point[1])
    if not (x0 <= col < x1 and y0 <= row < y1):
        return False
    index = (row - y0) * (x1 - x0) + (col - x0)
    # Run k covers indices [ends[k-1], ends[k]); the odd runs are inside. The ends summed by numpy (the counts
    # may be a list or an int64 array), searched as a list of ints.
    return bisect_right(np.cumsum(np.asarray(counts, dtype=np.int64)).tolist(), index) % 2 == 1


def row_runs(counts: Sequence[int], box: Sequence[float], where: str = "row") -> np.ndarray:
    """The mask as horizontal runs in image pixels: an (n, 3) int array of (row, first col, last col + 1),
    row-major: each maximal run of mask pixels within one row of the box.

    Read off the counts without decoding the crop: each maximal 1-run (zero-length runs between two
    1-runs joined) covers flat indices [start, end), cut where it crosses a row end."""
    x0, y0, w, h = _box_size(box, where)
    lengths = np.asarray(counts, dtype=np.int64)
    if not lengths.size or int(lengths.min()) < 0 or int(lengths.sum()) != w * h:
        check(counts, box, where)  # raises, naming what is wrong (the box has pixels, so no runs is wrong too)
    ends = np.cumsum(lengths)
    inside = (np.arange(len(lengths)) % 2 == 1) & (lengths > 0)
    starts, stops = (ends - lengths)[inside], ends[inside]
    if starts.size > 1:  # a 1-run that starts where the last one stopped (a 0-run of length 0) continues it
        joined = np.concatenate(([True], starts[1:] != stops[:-1]))
        starts, stops = starts[joined], stops[np.concatenate((joined[1:], [True]))]
    first_row, last_row = starts // w, (stops - 1) // w
    pieces = last_row - first_row + 1
    run = np.repeat(np.arange(len(starts)), pieces)
    rows = first_row[run] + (np.arange(len(run)) - np.repeat(np.cumsum(pieces) - pieces, pieces))
    begin = np.maximum(starts[run], rows * w) - rows * w
    end = np.minimum(stops[run], (rows + 1) * w) - rows * w
    return np.stack([rows + y0, begin + x0, end + x0], axis=1).astype(np.int64)
