"""``--from lmms-eval``: the ``--log_samples`` JSONL of lmms-eval's GUI grounding tasks.

Layout (EvolvingLMMs-Lab/lmms-eval ``lmms_eval/evaluator.py``, where ``log_samples`` builds each ``example``):
one JSON object per line, ``doc_id``, ``doc`` (the dataset row without its image), ``target``, ``arguments``,
``resps`` (per request, the model's generations: ``[["text"]]``, or ``["text"]`` where reasoning tags were
stripped), ``filtered_resps`` (per request, what the task's ``process_results`` read: ``["text"]``), ``doc_hash``,
and the task's metric fields. The task is told by those fields:

- ``screenspot_pro`` (``lmms_eval/tasks/screenspot_pro/utils.py``): ``screenspot_pro_action_acc`` =
  ``{"correct": bool, "ui_type": ...}``;
- ``screenspot_v2`` (``tasks/screenspot_v2/utils.py``): ``screenspot_v2_action_acc`` = ``{"correct", "data_type"}``;
- ``osworld_g`` (``tasks/osworld_g/utils.py``): ``osworld_g_acc`` = ``{"correct", "box_type"}``;
- ScreenSpot v1, ``screenspot_rec_test`` (``tasks/screenspot/utils_rec.py``): ``screenspot_Center_ACC`` =
  ``{"pred": box, "bbox", "ann_id", ...}``, no verdict (its ``Center_ACC`` is computed over the whole set).

The raw answer is ``filtered_resps[0]``, what the task scored. The framework's own click is not logged, so it
is recomputed here with the tasks' own reading, restated below: the first ``<bbox>`` tag's centre, else the
first bracketed pair, else ``x=`` / ``y=``, else the centre of the first four numbers when the text names a
box, else the first two numbers (``%`` divides by 100); then the value-range guess: a click with a coordinate
above 1 is divided by the image size recorded in the doc (``img_size``, ``image_width`` / ``image_height``;
1 when the doc records none), anything else is taken as 0-1. ``osworld_g`` reads 0-1 clicks as fractions and
anything else as pixels. The v1 task reads the first bracketed four numbers as a 0-1 box (divided by 1000 when
any is above 1; none found: ``[0, 0, 0, 0]``, a click at the corner) and scores its centre.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from groundbench.errors import GroundBenchError
from groundbench.scoring.imports.source import (
    CORRECT,
    WRONG,
    Click,
    SourceRow,
    TargetBox,
    need,
    number,
    optional_text,
)

KIND = "lmms-eval"
TASK_FIELDS = {  # the metric field each task writes first -> the task
    "screenspot_pro_action_acc": "screenspot_pro",
    "screenspot_v2_action_acc": "screenspot_v2",
    "osworld_g_acc": "osworld_g",
    "screenspot_Center_ACC": "screenspot_rec_test",
}
IMAGE_FIELDS = ("img_filename", "file_name", "image_path", "img_path", "image_name")

_TOKEN = r"-?\d+(?:\.\d+)?%?"
_BBOX_TAG = re.compile(r"<\s*bbox[^>]*>(.*?)<\s*/\s*bbox\s*>", re.IGNORECASE | re.DOTALL)
_PAIR = re.compile(rf"[\[\(]\s*({_TOKEN})\s*(?:,|\s)\s*({_TOKEN})\s*[\]\)]")
_XY = re.compile(rf"['\"]?x['\"]?\s*[:=]\s*({_TOKEN}).*?['\"]?y['\"]?\s*[:=]\s*({_TOKEN})", re.IGNORECASE | re.DOTALL)
_BOX_WORDS = ("bbox", "box", "rect", "rectangle")


def _value(token: str) -> float:
    token = token.strip()
    return float(token[:-1]) / 100.0 if token.endswith("%") else float(token)


def _centre(values: Sequence[float]) -> tuple[float, float]:
    x0, y0, x1, y1 = values[:4]
    return (x0 + x1) / 2.0, (y0 + y1) / 2.0


def read_point(answer: str) -> tuple[float, float] | None:
    """The click the GUI tasks' ``_parse_point`` reads from an answer, in the answer's own numbers."""
    tag = _BBOX_TAG.search(answer)
    if tag:
        inside = [_value(t) for t in re.findall(_TOKEN, tag.group(1))]
        if len(inside) >= 4:
            return _centre(inside)
    pair = _PAIR.search(answer)
    if pair:
        return _value(pair.group(1)), _value(pair.group(2))
    xy = _XY.search(answer)
    if xy:
        return _value(xy.group(1)), _value(xy.group(2))
    found = [_value(t) for t in re.findall(_TOKEN, answer)]
    if len(found) >= 4 and any(word in answer.lower() for word in _BOX_WORDS):
        return _centre(found)
    if len(found) >= 2:
        return found[0], found[1]
    return None


def _size(doc: Mapping[str, Any], task: str) -> tuple[float, float] | None:
    """The image size the task divides by (None: it divides by 1)."""
    fields = ("img_size", "image_size") if task == "osworld_g" else ("img_size",)
    for key in fields:
        value = doc.get(key)
        if isinstance(value, str):
            try:
                value = json.loads(value)
            except ValueError:
                value = None
        if isinstance(value, list) and len(value) == 2:
            w, h = number(value[0]), number(value[1])
            if w and h and w > 0 and h > 0:
                return int(w), int(h)
    w, h = number(doc.get("image_width")), number(doc.get("image_height"))
    return (int(w), int(h)) if w and h else None


def _doc_box(doc: Mapping[str, Any]) -> list[float] | None:
    value = doc.get("bbox")
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            value = [float(t) for t in re.findall(r"-?\d+(?:\.\d+)?", value)][:4]
    if not isinstance(value, list) or len(value) != 4:
        return None
    found = [number(v) for v in value]
    return None if any(v is None for v in found) else [float(v) for v in found if v is not None]


def _target(doc: Mapping[str, Any], task: str, sized: bool) -> tuple[TargetBox | None, bool]:
    """(the box the task compares against, is its frame 0-1) for the ScreenSpot tasks."""
    box = _doc_box(doc)
    if box is None:
        return None, sized
    x0, y0, x1, y1 = box
    unit_box = (
        (x1 <= 1 and y1 <= 1) if task == "screenspot_pro" else (all(0 <= v <= 1 for v in box) and x1 >= x0 and y1 >= y0)
    )
    if task == "screenspot_v2" and not unit_box and not (x1 > x0 and y1 > y0):
        box = [x0, y0, x0 + x1, y0 + y1]  # the task's xywh branch
    unit = unit_box or sized
    if unit and not unit_box and sized:
        w, h = _size(doc, task) or (1, 1)
        box = [box[0] / w, box[1] / h, box[2] / w, box[3] / h]
    return TargetBox((box[0], box[1], box[2], box[3]), unit=unit), unit


def stored_click(task: str, answer: str | None, doc: Mapping[str, Any], metric: Mapping[str, Any]) -> Click | None:
    """The click the task scored, in the frame it compared it in (0-1 of the image, else the image's pixels)."""
    if task == "screenspot_rec_test":
        pred = metric.get("pred")
        if not isinstance(pred, list) or len(pred) != 4 or any(number(v) is None for v in pred):
            return None
        x, y = _centre([float(v) for v in pred])
        return Click(x, y, unit=True)
    point = read_point(answer or "")
    if point is None:
        return None
    x, y = point
    if task == "osworld_g":
        return Click(x, y, unit=0 <= x <= 1 and 0 <= y <= 1)
    size = _size(doc, task)
    _, unit = _target(doc, task, size is not None)
    if x > 1 or y > 1:
        w, h = size or (1, 1)
        x, y = x / w, y / h
    return Click(x, y, unit=unit)


def _first_text(value: Any) -> str | None:
    """The first string of a (nested) list of responses."""
    while isinstance(value, list) and value:
        value = value[0]
    return value if isinstance(value, str) else None


def _task(sample: Mapping[str, Any], where: str) -> tuple[str, Mapping[str, Any]]:
    for key, task in TASK_FIELDS.items():
        if key in sample:
            metric = sample[key]
            if not isinstance(metric, Mapping):
                raise GroundBenchError(
                    where, key, f"expected the task's per-sample record (an object), found {metric!r}"
                )
            return task, metric
    tasks = ", ".join(f"{task} ({key})" for key, task in TASK_FIELDS.items())
    raise GroundBenchError(where, "metrics", f"expected the metric field of one of lmms-eval's GUI tasks: {tasks}")


def _row(sample: Any, file: str, index: int) -> SourceRow:
    where = f"{file}: line {index + 1}"
    doc = need(sample, "doc", where, "the logged doc (an object)")
    if not isinstance(doc, Mapping):
        raise GroundBenchError(where, "doc", f"expected the logged doc as an object, found {type(doc).__name__}")
    task, metric = _task(sample, where)
    if "filtered_resps" in sample:
        answer = _first_text(sample["filtered_resps"])
    else:
        answer = _first_text(need(sample, "resps", where, "the model's responses (filtered_resps or resps)"))
    image = next((doc[key] for key in IMAGE_FIELDS if isinstance(doc.get(key), str)), None)
    if task == "screenspot_rec_test" and image is None:
        image = optional_text(metric, "ann_id", where)
    instruction = doc.get("instruction")
    if not isinstance(instruction, str):
        raise GroundBenchError(where, "doc.instruction", f"expected the instruction (a string), found {instruction!r}")
    verdict = None
    if task != "screenspot_rec_test":
        correct = need(metric, "correct", where, "the task's verdict (true / false)")
        if not isinstance(correct, bool):
            raise GroundBenchError(where, "correct", f"expected true or false, found {correct!r}")
        verdict = CORRECT if correct else WRONG
    size = _size(doc, task)
    box = None if task in ("osworld_g", "screenspot_rec_test") else _target(doc, task, size is not None)[0]
    if task == "screenspot_rec_test":
        gt = _doc_box(doc)
        box = None if gt is None else TargetBox((gt[0], gt[1], gt[2], gt[3]), unit=all(v <= 1 for v in gt))
    return SourceRow(
        file=file,
        index=index,
        image=image,
        instruction=instruction,
        source_id=optional_text(doc, "id", where),
        response=answer,
        verdict=verdict,
        stored=stored_click(task, answer, doc, metric),
        box=box,
        task=task,
    )


def read(samples: list[Any], file: str) -> list[SourceRow]:
    """Every logged sample of one ``--log_samples`` file, in file order."""
    return [_row(sample, file, index) for index, sample in enumerate(samples)]
