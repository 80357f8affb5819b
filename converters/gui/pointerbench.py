"""PointerBench ``pointerbench-{sheets,text,pro}/data/test/metadata.jsonl`` records.

Keys: file_name, id, instruction, bbox [x0,y0,x1,y1], point, answer_type, eval {type, bbox,
min_coverage, min_precision}, data_type, image_size, language, plus subset extras. ``file_name``
repeats across subsets, so the image identity is ``<subset>/<file_name>``. Our generator writes the
same format and adds ``layout_id`` (the example each frame size re-lays out) and ``candidates``.
"""

from __future__ import annotations

from typing import Any

from groundbench.converters.gui.boxes import finite_float, read_box, shown
from groundbench.converters.gui.rows import (
    Candidate,
    SourceRow,
    gui_extras,
    optional_text,
    other_json,
    size_pair,
    text,
)
from groundbench.errors import GroundBenchError

SUBSET_CONFIGS = {"pointerbench-sheets": "gui_sheets", "pointerbench-text": "gui_text", "pointerbench-pro": "gui_pro"}
SUBSET_OBJECT = {
    "pointerbench-sheets": "spreadsheet",
    "pointerbench-text": "document",
    "pointerbench-pro": "application",
}
ANSWER_TYPES = {"point": "point", "bbox": "box"}
EXTRA_KEYS = (
    "data_type",
    "category",
    "element_type",
    "language",
    "platform",
    "app_slug",
    "app_category",
    "ui_style",
    "surface",
    "difficulty",
)
STRING_KEYS = ("app", "source_id", "source_file", "layout_id")
EVAL_KEYS = {"type", "bbox", "min_coverage", "min_precision"}
KNOWN = {
    "file_name",
    "id",
    "instruction",
    "bbox",
    "point",
    "answer_type",
    "eval",
    "image_size",
    "app",
    "source_id",
    "source_file",
    "layout_id",
    "candidates",
    *EXTRA_KEYS,
}


def _threshold(value: object, where: str, key: str) -> float | None:
    if value is None:
        return None
    number = finite_float(value)
    if number is None or not 0.0 < number <= 1.0:
        raise GroundBenchError(where, key, f"expected a number in (0, 1], got {shown(value)}")
    return number


def _candidates(value: object, where: str) -> list[Candidate]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise GroundBenchError(where, "candidates", "expected a list of {id, category, bbox}")
    out = []
    for number, item in enumerate(value):
        field = f"candidates[{number}]"
        if not isinstance(item, dict):
            raise GroundBenchError(where, field, "expected an object {id, category, bbox}")
        out.append(
            Candidate(
                part_id=str(text(item, "id", f"{where} {field}")),
                category=str(text(item, "category", f"{where} {field}")),
                box=read_box(item.get("bbox"), where, f"{field}.bbox"),
            )
        )
    return out


def parse(record: dict[str, Any], subset: str, annotation: str, line: int) -> SourceRow:
    where = f"{annotation}: line {line}"
    row_id = str(text(record, "id", where))
    file_name = str(text(record, "file_name", where))
    evaluation = record.get("eval")
    if not isinstance(evaluation, dict) or not isinstance(evaluation.get("type"), str):
        raise GroundBenchError(where, "eval", f"{row_id}: expected an object with a string 'type'")
    eval_type = evaluation["type"]
    raw_answer = record.get("answer_type") or ("bbox" if eval_type == "iou" else "point")  # eval.py's default
    if not isinstance(raw_answer, str) or raw_answer not in ANSWER_TYPES:
        raise GroundBenchError(where, "answer_type", f"{row_id}: expected 'point' or 'bbox', got {shown(raw_answer)}")
    bbox = read_box(record.get("bbox"), where, "bbox")
    # The scorer reads eval.bbox; it equals bbox in every released row, and we score what the scorer scores.
    eval_bbox = read_box(evaluation["bbox"], where, "eval.bbox") if "bbox" in evaluation else bbox
    point = record.get("point")
    reference = None
    if point is not None:
        xy = [finite_float(v) for v in point] if isinstance(point, list) else []
        x, y = (xy[0], xy[1]) if len(xy) == 2 else (None, None)
        if x is None or y is None:
            raise GroundBenchError(where, "point", f"{row_id}: expected [x, y] as finite numbers, got {shown(point)}")
        reference = (x, y)
    # Every string field is checked here, so a wrong type names its row (not the shard writer's batch).
    strs = {key: optional_text(record, key, where) for key in (*EXTRA_KEYS, *STRING_KEYS)}
    category = strs["category"] or strs["element_type"] or strs["data_type"] or "target"
    return SourceRow(
        config=SUBSET_CONFIGS[subset],
        example_id=f"{SUBSET_CONFIGS[subset]}/{row_id}",
        annotation=annotation,
        where=f"{where} ({row_id})",
        image_name=file_name,
        object_id=f"{subset}/{file_name}",
        object_category=strs["surface"] or strs["app_slug"] or SUBSET_OBJECT[subset],
        instruction=str(text(record, "instruction", where)),
        answer_type=ANSWER_TYPES[raw_answer],
        raw_box=eval_bbox,
        box_field="eval.bbox" if "bbox" in evaluation else "bbox",
        corners=True,
        declared_size=size_pair(record["image_size"], where, "image_size") if "image_size" in record else None,
        target_id=row_id,
        target_category=str(category),
        exact=True,  # PointerBench: "pixel-exact target geometry" (paper, abstract)
        coverage_min=_threshold(evaluation.get("min_coverage"), where, "eval.min_coverage"),
        precision_min=_threshold(evaluation.get("min_precision"), where, "eval.min_precision"),
        reference_point=reference,
        candidates=_candidates(record.get("candidates"), where),
        extras=gui_extras(
            subset=subset,
            source_row_id=row_id,
            file_name=file_name,
            application=strs["app"],
            origin_id=strs["source_id"],
            origin_file=strs["source_file"],
            layout_id=strs["layout_id"],
            eval_type=eval_type,
            other_json=other_json(record, KNOWN | ({"eval"} if set(evaluation) <= EVAL_KEYS else set())),
            **{key: strs[key] for key in EXTRA_KEYS},
        ),
    )
