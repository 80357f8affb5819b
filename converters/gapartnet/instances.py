"""Which link each instance id of a view's ``instance_segmentation`` is: by evidence, not by order.

With ``bbox/<view>.pkl`` the pickle says it (``bbox_pose_dict[link]['instance_id']``). Without it,
GAPartNet's ids only say "the k-th GAPart, in annotation order, that is visible", and visibility is
exactly what is not known: taking the k-th annotated GAPart instead handed a camera's top buttons
the ids of its never-visible back buttons. So the masks themselves decide which parts are visible:

* the score of (mask, part) is the pixel overlap ``|mask ∩ box| / |mask ∪ box|`` of the mask with the
  part's projected 3-D box at the view's pose (a pixel is in the box when its centre is);
* the assignment keeps GAPartNet's numbering rule (ids increase with the annotation order of the
  visible parts) and, among all assignments that keep it, maximizes the summed score (dynamic
  programming over the two orders);
* a pair is ``ambiguous`` when the best assignment that gives its mask another part scores less
  than ``ambiguity_margin`` below the best one (the evidence hardly prefers it);
* a pair whose box holds less than ``coverage_min`` of the mask's pixels stays unassigned (its mask
  yields no part; counted), unless the numbering rule leaves its mask no other part (every GAPart
  visible: the ids are forced). Coverage, not the score, decides this: an occluded drawer's few
  visible pixels lie inside its large amodal box, at a tiny score.

Pure functions on arrays; the caller reads the files.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from groundbench.converters.gapartnet.geometry import Box

BBOX_PICKLE = "bbox_pickle"
MASK_OVERLAP = "mask_overlap"


@dataclass(frozen=True)
class InstanceLink:
    link: str
    method: str  # BBOX_PICKLE or MASK_OVERLAP
    overlap: float | None  # MASK_OVERLAP: the pair's score; None for BBOX_PICKLE
    ambiguous: bool


@dataclass(frozen=True)
class Assignment:
    links: dict[int, InstanceLink]  # instance id -> its link
    unassigned: tuple[int, ...]  # ids with pixels that no part's box reaches (overlap below the minimum)


def from_pickle(links: dict[int, str]) -> Assignment:
    return Assignment({i: InstanceLink(link, BBOX_PICKLE, None, False) for i, link in links.items()}, ())


def _pixels_in(lo: float, hi: float, size: int) -> tuple[int, int]:
    """[first, last + 1) of the pixel indices whose centre (i + 0.5) lies in [lo, hi], clipped to the image."""
    first = max(0, math.ceil(lo - 0.5))
    last = min(size, math.floor(hi - 0.5) + 1)
    return first, max(first, last)


def mask_box_overlap(
    rows: np.ndarray, cols: np.ndarray, box: Box | None, shape: tuple[int, int]
) -> tuple[float, float]:
    """(``|mask ∩ box| / |mask ∪ box|``, ``|mask ∩ box| / |mask|``) in pixels; the mask by its pixel coordinates."""
    if box is None or rows.size == 0:
        return 0.0, 0.0
    c0, c1 = _pixels_in(box[0], box[2], shape[1])
    r0, r1 = _pixels_in(box[1], box[3], shape[0])
    box_pixels = (c1 - c0) * (r1 - r0)
    if box_pixels == 0:
        return 0.0, 0.0
    inside = int(np.count_nonzero((cols >= c0) & (cols < c1) & (rows >= r0) & (rows < r1)))
    return inside / (rows.size + box_pixels - inside), inside / rows.size


def assign_by_overlap(
    masks: dict[int, tuple[np.ndarray, np.ndarray]],
    boxes: dict[str, Box | None],
    shape: tuple[int, int],
    coverage_min: float,
    ambiguity_margin: float,
) -> Assignment:
    """Instance id -> link from mask pixels (``masks[id] = (rows, cols)``) and projected boxes.

    ``boxes`` is ordered as the annotation file orders the GAParts (GAPartNet numbers visible parts
    in that order).
    """
    ids = sorted(masks)
    links = list(boxes)
    if not ids:
        return Assignment({}, ())
    if len(ids) > len(links):
        return Assignment({}, tuple(ids))  # the caller refuses this view; nothing to assign
    pairs = np.array([[mask_box_overlap(*masks[i], boxes[link], shape) for link in links] for i in ids])
    scores, coverage = pairs[..., 0], pairs[..., 1]
    total, choice, through = _best_monotone(scores)
    assigned: dict[int, InstanceLink] = {}
    for row, column in enumerate(choice):
        others = np.delete(through[row], column)
        alternative = float(others.max()) if others.size else -math.inf
        forced = alternative == -math.inf
        score = float(scores[row, column])
        if coverage[row, column] < coverage_min and not forced:
            continue
        ambiguous = not forced and total - alternative < ambiguity_margin
        assigned[ids[row]] = InstanceLink(links[column], MASK_OVERLAP, score, ambiguous)
    return Assignment(assigned, tuple(i for i in ids if i not in assigned))


def _best_monotone(scores: np.ndarray) -> tuple[float, list[int], np.ndarray]:
    """The best increasing assignment of rows (ids) to columns (parts) by summed score.

    Returns the best total, each row's column, and per (row, column) the best total of an increasing
    assignment that puts the row on that column (-inf where none exists). Ties go to earlier columns.
    """
    m, n = scores.shape
    ahead = np.full((m, n), -math.inf)  # best for rows 0..i with row i on column j
    pointer = np.zeros((m, n), dtype=np.int64)  # row i-1's column in that best
    behind = np.full((m, n), -math.inf)  # best for rows i..m-1 with row i on column j
    for i in range(m):
        for j in range(i, n - (m - 1 - i)):
            if i == 0:
                ahead[i, j] = scores[i, j]
                continue
            previous = int(np.argmax(ahead[i - 1, :j]))  # the first of equal maxima
            pointer[i, j] = previous
            ahead[i, j] = scores[i, j] + ahead[i - 1, previous]
    for i in range(m - 1, -1, -1):
        for j in range(i, n - (m - 1 - i)):
            after = 0.0 if i == m - 1 else float(behind[i + 1, j + 1 :].max())
            behind[i, j] = scores[i, j] + after
    column = int(np.argmax(ahead[m - 1]))
    choice = [column]
    for i in range(m - 1, 0, -1):
        column = int(pointer[i, column])
        choice.append(column)
    choice.reverse()
    return float(ahead[m - 1, choice[-1]]), choice, ahead + behind - scores
