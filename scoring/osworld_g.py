"""OSWorld-G's official rule, restated (not copied): ``GroundingEval._eval`` of the release's evaluation code
(xlang-ai/OSWorld-G, ``evaluation/eval.py``; called as ``_eval(coordinate, box_type, boxes_size,
boxes_coordinate, image_size)`` by its scripts, e.g. ``evaluation/holo_osworld_g.py`` of the
Onifin/Holo3.1-OSWorld-G fork; lmms-eval and VLMEvalKit carry versions of their own, docs/scoring.md says
where they differ).

What ``_eval`` does with one answer for one row:

- the answer is four numbers ``[x1, y1, x2, y2]`` (a point ``(x, y)`` is handed over as ``[x, y, x, y]``);
  if all four lie in [0, 1] they are read as fractions of the image and scaled by its size (so a pixel
  click at (1, 1) moves to the far corner: the rule's own quirk, kept); the click is their centre;
- ``bbox`` rows (``box_coordinates`` = [x, y, w, h]): a hit when ``x <= cx <= x + w`` and
  ``y <= cy <= y + h`` (edges included);
- ``polygon`` rows (flat vertices): even-odd ray casting, the crossing test
  ``(yi > cy) != (yj > cy) and cx < (xj - xi) * (cy - yi) / (yj - yi) + xi`` over every edge; a point on
  a left or top edge is inside, on a right or bottom edge outside (half-open). A four-value "polygon"
  (two vertices) has two coincident edges whose crossings cancel: nothing is inside it, as the release's
  evaluator scores it (lmms-eval reads it as a box instead: docs/scoring.md);
- ``refusal`` rows: a hit only when both coordinates of the click are below 0 (``[-1, -1]``, the refusal
  the prompts ask for); on any other row such a click is outside every region, a failure.

The official evaluator was read through its callers and ports; the rule here is the one they state.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from groundbench.schemas.rows import target_absent

RULE = "grounding_eval"  # extras.gui.eval_type of OSWorld-G rows
REFUSAL_POINT = (-1.0, -1.0)  # what a refusal answer clicks (the prompts ask for it)


def click(coordinate: Sequence[float], image_size: tuple[int, int]) -> tuple[float, float]:
    """The click ``_eval`` scores: the centre of four values, fractions scaled first when all lie in [0, 1]."""
    x1, y1, x2, y2 = (float(v) for v in coordinate[:4])
    if all(0.0 <= v <= 1.0 for v in (x1, y1, x2, y2)):
        width, height = image_size
        x1, x2, y1, y2 = x1 * width, x2 * width, y1 * height, y2 * height
    return ((x1 + x2) / 2.0, (y1 + y2) / 2.0)


def in_box(point: tuple[float, float], xyxy: Sequence[float]) -> bool:
    """Edges included. ``xyxy`` = (x, y, x + w, y + h), the sums computed once as the release's evaluator does."""
    x0, y0, x1, y1 = (float(v) for v in xyxy[:4])
    return x0 <= point[0] <= x1 and y0 <= point[1] <= y1


def in_polygon(point: tuple[float, float], vertices: Sequence[float]) -> bool:
    """Even-odd ray casting to the right of the point; half-open edges (left/top in, right/bottom out)."""
    px, py = point
    xs, ys = [float(v) for v in vertices[0::2]], [float(v) for v in vertices[1::2]]
    inside = False
    j = len(xs) - 1
    for i in range(len(xs)):
        if (ys[i] > py) != (ys[j] > py) and px < (xs[j] - xs[i]) * (py - ys[i]) / (ys[j] - ys[i]) + xs[i]:
            inside = not inside
        j = i
    return inside


def is_refusal(point: tuple[float, float]) -> bool:
    return point[0] < 0 and point[1] < 0


def region(row: Mapping[str, Any]) -> tuple[str, list[float]]:
    """(box_type as the release names it, its region) of one GroundBench OSWorld-G row: the flat vertices as
    annotated for a polygon, ``extras.gui.eval_bbox`` (x, y, x + w, y + h of the annotated [x, y, w, h]) for a box."""
    if target_absent(row):
        return "refusal", []
    gui = (row.get("extras") or {}).get("gui") or {}
    if gui.get("region_kind") == "polygon":
        return "polygon", list(gui.get("eval_polygon") or [])
    return "bbox", list(gui["eval_bbox"])


def hit(coordinate: Sequence[float], row: Mapping[str, Any]) -> bool:
    """The official verdict of four answer values (pixels of the row's image) on one OSWorld-G row."""
    point = click(coordinate, (int(row["width"]), int(row["height"])))
    kind, coords = region(row)
    if kind == "refusal":
        return is_refusal(point)
    if kind == "polygon":
        return in_polygon(point, coords)
    return in_box(point, coords)


def is_osworld_g(row: Mapping[str, Any]) -> bool:
    return ((row.get("extras") or {}).get("gui") or {}).get("eval_type") == RULE


# --- the official breakdown -------------------------------------------------------------------------

# The capability groups as the paper reports them, in its table's order (classification_result.json's keys).
CAPABILITIES = (
    "text_matching",
    "element_recognition",
    "layout_understanding",
    "fine_grained_manipulation",
    "refusal",
)
UNCLASSIFIED = "unclassified"  # a row no group lists: the official tally counts it under this name
REGION_KINDS = ("bbox", "polygon", "refusal")  # box_type as the release names it


def capability_groups(row: Mapping[str, Any]) -> list[str]:
    """The groups a row counts in, as the official tally counts it: every group listing its id, else unclassified."""
    groups = list(((row.get("extras") or {}).get("gui") or {}).get("capabilities") or [])
    return groups or [UNCLASSIFIED]


def box_type(row: Mapping[str, Any]) -> str:
    return region(row)[0]


def centre_answer(row: Mapping[str, Any]) -> dict[str, Any]:
    """The centre click: never a refusal."""
    return {"point": [row["width"] / 2.0, row["height"] / 2.0]}


def refusal_answer(row: Mapping[str, Any]) -> dict[str, Any]:
    """Always refuse: the refusal the prompts ask for."""
    return {"point": list(REFUSAL_POINT)}


def solving_point(row: Mapping[str, Any]) -> tuple[float, float] | None:
    """A click the official rule credits on this row (the sanity oracle's answer), or None when none can be:
    a refusal row's (-1, -1), else the first of the region's centre, its vertices' mean and a 17 x 17 grid over
    its bounds that the rule scores a hit (a two-vertex polygon has none: nothing is inside it)."""
    kind, coords = region(row)
    if kind == "refusal":
        return REFUSAL_POINT
    xs, ys = [float(v) for v in coords[0::2]], [float(v) for v in coords[1::2]]
    x0, y0, x1, y1 = min(xs), min(ys), max(xs), max(ys)
    candidates = [((x0 + x1) / 2.0, (y0 + y1) / 2.0), (sum(xs) / len(xs), sum(ys) / len(ys))]
    steps = 16
    candidates += [
        (x0 + (x1 - x0) * i / steps, y0 + (y1 - y0) * j / steps) for j in range(steps + 1) for i in range(steps + 1)
    ]
    return next((p for p in candidates if hit((p[0], p[1], p[0], p[1]), row)), None)
