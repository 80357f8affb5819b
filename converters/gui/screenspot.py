"""ScreenSpot v1 / v2 and ScreenSpot-Pro records.

- SeeClick / OS-Atlas originals: ``img_filename``, ``bbox`` [x, y, w, h], ``instruction``,
  ``data_type``, ``data_source``; the image size is read from the image.
- GUI-Actor's ScreenSpot-v2 conversion: ``img_filename``, ``bbox`` [x1, y1, x2, y2], ``img_size``,
  ``platform`` (= data_source), ``ui_type`` (= data_type), ``group`` (= split).
- UGround's JSONL: ``image`` instead of ``img_filename``, bbox [x, y, w, h], plus ``platform``
  (the split), ``scale`` and ``description``.
- ScreenSpot-Pro: ``img_filename`` (with its folder), ``bbox`` [x1, y1, x2, y2], ``img_size``,
  ``application``, ``platform``, ``ui_type``, ``group``, ``id``, ``instruction``, ``instruction_cn``.

The mobile / desktop / web split comes from the annotation file name (``screenspot_<split>...``):
``data_source`` is wrong for 80 ScreenSpot-v2 rows (desktop and mobile rows marked "shop").
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath
from typing import Any

from groundbench.converters.gui.boxes import finite_float, read_box, shown
from groundbench.converters.gui.rows import SourceRow, gui_extras, other_json, size_pair, text
from groundbench.errors import GroundBenchError

SPLITS = ("mobile", "desktop", "web")
SPLIT_IN_NAME = re.compile(r"screenspot_(mobile|desktop|web)")
KNOWN = {
    "img_filename",
    "image",
    "bbox",
    "instruction",
    "instruction_cn",
    "img_size",
    "id",
    "data_type",
    "data_source",
    "platform",
    "application",
    "ui_type",
    "group",
    "scale",
    "description",
}


def split_of(annotation: str, record: dict[str, Any]) -> str | None:
    """File name first; then a split-valued ``group`` (GUI-Actor) or ``platform`` (UGround)."""
    match = SPLIT_IN_NAME.search(PurePosixPath(annotation).name)
    if match:
        return match.group(1)
    for key in ("group", "platform"):
        if record.get(key) in SPLITS:
            return str(record[key])
    return None


def _optional_str(record: dict[str, Any], key: str, where: str) -> str | None:
    value = record.get(key)
    if value is not None and not isinstance(value, str):
        raise GroundBenchError(where, key, f"expected a string, got {shown(value)}")
    return value


def parse(record: dict[str, Any], fmt: str, config: str, annotation: str, index: int) -> SourceRow:
    """One ScreenSpot-family record; ``index`` is its 0-based position in the file (line for JSONL)."""
    where = f"{annotation}: row {index}"
    image_key = "image" if fmt == "screenspot_jsonl" else "img_filename"
    image_name = str(text(record, image_key, where))
    stem = PurePosixPath(annotation).with_suffix("").as_posix()
    row_id = str(text(record, "id", where)) if fmt == "screenspot_pro" else f"{stem}#{index:05d}"
    declared = size_pair(record["img_size"], where, "img_size") if "img_size" in record else None
    scale = record.get("scale")
    if scale is not None and finite_float(scale) is None:
        raise GroundBenchError(where, "scale", f"expected a finite number, got {shown(scale)}")
    strs = {key: _optional_str(record, key, where) for key in sorted(KNOWN - {"bbox", "img_size", "scale", "id"})}
    split = split_of(annotation, record)
    element = strs["data_type"] or strs["ui_type"] or "element"
    if fmt == "screenspot_pro":
        object_category = strs["application"] or "application"
        subset = stem
    else:
        object_category = split or strs["data_source"] or "screen"
        subset = split or stem
    return SourceRow(
        config=config,
        example_id=f"{config}/{row_id}",
        annotation=annotation,
        where=where,
        image_name=image_name,
        object_id=image_name,
        object_category=object_category,
        instruction=str(text(record, "instruction", where)),
        answer_type="point",  # every ScreenSpot scorer asks for a click point
        raw_box=read_box(record.get("bbox"), where, "bbox"),
        box_field="bbox",
        corners=fmt in ("screenspot_pro", "screenspot_xyxy"),
        declared_size=declared,
        target_id=row_id,
        target_category=element,
        exact=False,  # human-drawn boxes
        extras=gui_extras(
            subset=subset,
            source_row_id=row_id,
            file_name=image_name,
            split=split,
            data_type=strs["data_type"],
            language="en",
            platform=strs["platform"],
            application=strs["application"],
            ui_type=strs["ui_type"],
            group=strs["group"],
            data_source=strs["data_source"],
            instruction_cn=strs["instruction_cn"],
            description=strs["description"],
            scale=finite_float(scale),
            eval_type="point_in_bbox",
            other_json=other_json(record, KNOWN),
        ),
    )
