"""The official GUI success rules, restated (not copied) from PointerBench's ``eval.py`` (warmwindOS/pointerbench,
``pointerbench-{sheets,text,pro}/eval.py``, MIT); ScreenSpot's scorers apply the same point rule.

What ``eval.py`` does with one prediction record (a JSON object) for one ground-truth row:

- a point row reads the answer's point from the first of the keys ``point``, ``pred``, ``coordinate``,
  ``prediction`` whose value is a list of at least two items (the first two are the point, each
  converted with ``float``, so ``"512"`` counts and a third number is ignored), else from the flat keys
  ``x`` and ``y`` (also converted with ``float``);
- a box row reads the answer's box from the first of ``bbox``, ``box``, ``pred``, ``prediction`` that
  yields at least four numbers (a list keeps only its JSON numbers; a string gives every number the
  pattern ``-?\\d+(?:\\.\\d+)?`` finds in it), else from the flat keys ``x0, y0, x1, y1``, else from the
  numbers in ``text``, ``raw`` or ``answer`` (the first of them that is non-empty); the first four
  numbers are the box, corners sorted;
- a point is a hit when ``min(x0, x1) <= x <= max(x0, x1)`` and the same for y (edges count);
- a box is a hit when coverage = overlap / target area >= ``min_coverage`` (default 0.90) and
  precision = overlap / predicted area >= ``min_precision`` (default 0.70); areas are continuous
  ``(x1 - x0) * (y1 - y0)`` with no +1, and a zero area gives 0 for its ratio;
- an empty record, no record, or a record the row's answer type cannot be read from is a failure
  (``missing_predictions``); a point answer never solves a box row and a box never solves a point row
  (unless its key is one the point reader also reads: ``pred: [x0, y0, x1, y1]`` on a point row is
  the point ``(x0, y0)``).

The ground-truth box is the one the source annotated (``target_box``), never the clamped drawing box.

What we hand that rule is decided elsewhere (``scoring.gui``): the headline gives it the bare JSON
object a response parses to strictly, and nothing otherwise.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from groundbench.scoring import osworld_g

POINT_KEYS = ("point", "pred", "coordinate", "prediction")
BOX_KEYS = ("bbox", "box", "pred", "prediction")
TEXT_KEYS = ("text", "raw", "answer")
FLAT_BOX_KEYS = ("x0", "y0", "x1", "y1")
NUMBER_IN_TEXT = re.compile(r"-?\d+(?:\.\d+)?")
COVERAGE_MIN = 0.90  # PointerBench-Text's defaults when a row names no thresholds
PRECISION_MIN = 0.70

# Why a box answer failed (the PointerBench paper reads its bbox failures this way).
CLIPPED = "clipped"  # the target is not covered enough: part of it was cut off
OVERSIZED = "oversized"  # the target is covered but the box balloons past it


def _float(value: Any) -> float | None:
    """``float(value)`` as eval.py applies it; None where eval.py would raise (it then crashes; we fail the row)."""
    if isinstance(value, bool | int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return None
    return None


def read_point(record: Mapping[str, Any]) -> tuple[tuple[float, float] | None, bool]:
    """(eval.py's point of the record, read from strings?). A NaN or infinite coordinate reads as no point:
    eval.py would compare it and miss; here the answer is malformed, and the report stays strict JSON."""
    for key in POINT_KEYS:
        value = record.get(key)
        if isinstance(value, list | tuple) and len(value) >= 2:
            return _pair(value[0], value[1])
    if "x" in record and "y" in record:
        return _pair(record["x"], record["y"])
    return None, False


def _pair(a: Any, b: Any) -> tuple[tuple[float, float] | None, bool]:
    x, y = _float(a), _float(b)
    strings = isinstance(a, str) or isinstance(b, str)
    if x is None or y is None or not (math.isfinite(x) and math.isfinite(y)):
        return None, strings
    return (x, y), strings


def official_point(record: Mapping[str, Any]) -> tuple[float, float] | None:
    return read_point(record)[0]


def _numbers(value: Any) -> list[float]:
    if isinstance(value, str):
        return [float(x) for x in NUMBER_IN_TEXT.findall(value)]
    if isinstance(value, list | tuple):
        # Python's bool is an int, so eval.py keeps true/false as 1/0; strings inside a list are dropped.
        return [float(x) for x in value if isinstance(x, bool | int | float)]
    return []


def _sorted_box(values: Sequence[float]) -> tuple[float, float, float, float]:
    x0, y0, x1, y1 = values[:4]
    return (min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1))


def read_box(record: Mapping[str, Any]) -> tuple[tuple[float, float, float, float] | None, bool]:
    """(eval.py's box of the record, read from a string?)."""
    for key in BOX_KEYS:
        value = record.get(key)
        numbers = _numbers(value)
        if len(numbers) >= 4:
            return _sorted_box(numbers), isinstance(value, str)
    if all(k in record for k in FLAT_BOX_KEYS):
        flat = [record[k] for k in FLAT_BOX_KEYS]
        # eval.py compares these values without converting them: only JSON numbers work there.
        if all(isinstance(v, bool | int | float) for v in flat):
            return _sorted_box([float(v) for v in flat]), False
        return None, False
    text = next((record[k] for k in TEXT_KEYS if record.get(k)), None)
    numbers = _numbers(text)
    return (_sorted_box(numbers), True) if len(numbers) >= 4 else (None, False)


def official_box(record: Mapping[str, Any]) -> tuple[float, float, float, float] | None:
    return read_box(record)[0]


def point_in_box(point: Sequence[float], box: Sequence[float]) -> bool:
    """Edges included (PointerBench and every ScreenSpot scorer)."""
    x0, x1 = sorted((box[0], box[2]))
    y0, y1 = sorted((box[1], box[3]))
    return x0 <= point[0] <= x1 and y0 <= point[1] <= y1


def coverage_precision(pred: Sequence[float], truth: Sequence[float]) -> tuple[float, float]:
    px0, py0, px1, py1 = _sorted_box(pred)
    tx0, ty0, tx1, ty1 = _sorted_box(truth)
    inter = max(0.0, min(px1, tx1) - max(px0, tx0)) * max(0.0, min(py1, ty1) - max(py0, ty0))
    pred_area = max(0.0, px1 - px0) * max(0.0, py1 - py0)
    truth_area = max(0.0, tx1 - tx0) * max(0.0, ty1 - ty0)
    return (inter / truth_area if truth_area else 0.0, inter / pred_area if pred_area else 0.0)


@dataclass(frozen=True)
class Verdict:
    success: bool
    answered: bool  # the record held an answer of the row's type (eval.py's complement of "missing")
    box_failure: str | None = None  # CLIPPED / OVERSIZED for a failed box answer


def thresholds(row: Mapping[str, Any]) -> tuple[float, float]:
    rule = row.get("success_rule") or {}
    coverage, precision = rule.get("coverage_min"), rule.get("precision_min")
    return (COVERAGE_MIN if coverage is None else coverage, PRECISION_MIN if precision is None else precision)


def answer_type(row: Mapping[str, Any]) -> str:
    return "box" if row.get("answer_type") == "box" else "point"


def target_box(row: Mapping[str, Any]) -> Sequence[float] | None:
    """The box the official rule checks: the one the source annotated (``extras.gui.eval_bbox``, pixels, not
    clamped), else the target part's box. A box running past the frame edge (ScreenSpot-Pro's
    ``inventor_windows_60``, ``[135, -1, 151, 19]``) is scored as annotated, as the official scorers do;
    the clamped ``parts.bbox_xyxy`` is for drawing and geometry."""
    annotated = ((row.get("extras") or {}).get("gui") or {}).get("eval_bbox")
    if annotated is not None and len(annotated) == 4:
        return annotated
    part = next((p for p in row["parts"] if p["part_id"] == row["target_part_id"]), None)
    return None if part is None else part["bbox_xyxy"]


def osworld_g_coordinate(record: Mapping[str, Any]) -> tuple[float, float, float, float] | None:
    """The four values OSWorld-G's evaluator is handed: a point as ``[x, y, x, y]``, else a box's four numbers."""
    point = official_point(record)
    if point is not None:
        return (point[0], point[1], point[0], point[1])
    box = official_box(record)
    return None if box is None or not all(math.isfinite(v) for v in box) else box


def judge(record: Mapping[str, Any] | None, row: Mapping[str, Any]) -> Verdict:
    """The official verdict on one prediction record (None = no record) for one GUI row."""
    if osworld_g.is_osworld_g(row):  # OSWorld-G's GroundingEval: boxes, polygons and refusal rows
        coordinate = osworld_g_coordinate(record) if record else None
        return Verdict(False, False) if coordinate is None else Verdict(osworld_g.hit(coordinate, row), True)
    truth = target_box(row)
    if not record or truth is None:
        return Verdict(False, False)
    if answer_type(row) == "box":
        box = official_box(record)
        if box is None or not all(math.isfinite(v) for v in box):
            return Verdict(False, box is not None)
        coverage, precision = coverage_precision(box, truth)
        coverage_min, precision_min = thresholds(row)
        if coverage >= coverage_min and precision >= precision_min:
            return Verdict(True, True)
        return Verdict(False, True, CLIPPED if coverage < coverage_min else OVERSIZED)
    point = official_point(record)
    if point is None:
        return Verdict(False, False)
    return Verdict(point_in_box(point, truth), True)


def centre_record(row: Mapping[str, Any]) -> dict[str, Any]:
    """The centre-click answer: a point at the frame's centre, as a prediction record."""
    return {"point": [row["width"] / 2.0, row["height"] / 2.0]}


def centre_click_hit(row: Mapping[str, Any]) -> bool:
    """THE centre-click baseline of one row: a centre point scored by the row's own official rule.

    Point rows: the centre inside the target box (edges included). Box rows: a point is no box
    answer, so a click never solves them (eval.py counts it as a missing prediction).
    """
    return judge(centre_record(row), row).success
