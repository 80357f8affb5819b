"""UI-Vision element grounding records (ServiceNow's desktop benchmark; uivision/UI-Vision
``eval/grounding/eval_uivision.py`` reads them, ``eval/grounding/sample_script.sh`` names the files).

Three JSON arrays, one per instruction kind: ``element_grounding_{basic,functional,spatial}.json``. Each
record: ``image_path`` (relative to the image folder, ``uivision_imgs/`` in the sample script),
``prompt_to_evaluate`` (the instruction), ``bbox`` [x1, y1, x2, y2] in pixels (the scorer swaps reversed
corners), ``image_size`` [w, h], ``platform`` (the application), ``element_type``; optional
``ground_truth`` and ``gt_bbox`` (kept, not read). ``mapdict_cat2platform.json`` (the code repository's
root) maps each category to its applications; when the tree holds it, each row gets its category.
"""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Any

from groundbench.converters.gui.boxes import Box, read_box, shown
from groundbench.converters.gui.rows import SourceRow, gui_extras, optional_text, other_json, size_pair, text
from groundbench.errors import GroundBenchError

CONFIG = "gui_ui_vision"
KINDS = ("basic", "functional", "spatial")  # instruction kinds, one annotation file each
FILE = "element_grounding_{kind}.json"
CATEGORIES = "mapdict_cat2platform.json"
EVAL_TYPE = "uivision_element"  # extras.gui.eval_type: eval_uivision.py's eval_sample_positive_gt
KNOWN = {"image_path", "prompt_to_evaluate", "bbox", "image_size", "platform", "element_type"}


def read_categories(data: Any, rel: str) -> dict[str, str]:
    """application -> category, from ``{category: [application, ...]}``."""
    if not isinstance(data, dict):
        raise GroundBenchError(rel, "file", "expected {category: [application, ...]}")
    out: dict[str, str] = {}
    for category, apps in data.items():
        if not isinstance(apps, list) or not all(isinstance(a, str) for a in apps):
            raise GroundBenchError(rel, str(category), f"expected a list of application names, got {shown(apps)}")
        for app in apps:
            out.setdefault(app, str(category))
    return out


def sorted_corners(box: Box) -> tuple[Box, bool]:
    """The box with reversed corners swapped, as the official scorer swaps them; (box, swapped?)."""
    x0, y0, x1, y1 = box
    fixed = (min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1))
    return fixed, fixed != box


def parse(record: Any, kind: str, annotation: str, index: int, categories: dict[str, str]) -> SourceRow:
    """One element-grounding record of ``kind``; ``index`` is its 0-based position in the file."""
    where = f"{annotation}: row {index}"
    if not isinstance(record, dict):
        raise GroundBenchError(where, "record", f"expected a JSON object, got {type(record).__name__}")
    image_name = str(text(record, "image_path", where))
    raw = read_box(record.get("bbox"), where, "bbox")
    box, swapped = sorted_corners(raw)
    platform = optional_text(record, "platform", where)
    element = optional_text(record, "element_type", where)
    row_id = f"{kind}/{index:05d}"
    return SourceRow(
        config=CONFIG,
        example_id=f"{CONFIG}/{row_id}",
        annotation=annotation,
        where=where,
        image_name=image_name,
        object_id=image_name,
        object_category=categories.get(platform or "", "desktop"),
        instruction=str(text(record, "prompt_to_evaluate", where)),
        answer_type="point",
        raw_box=box,
        box_field="bbox",
        corners=True,
        declared_size=size_pair(record["image_size"], where, "image_size") if "image_size" in record else None,
        target_id=row_id,
        target_category=element or "element",
        exact=False,
        extras=gui_extras(
            subset=kind,
            source_row_id=f"{PurePosixPath(annotation).stem}#{index:05d}",
            file_name=image_name,
            element_type=element,
            language="en",
            application=platform,
            category=categories.get(platform or ""),
            eval_type=EVAL_TYPE,
            raw_bbox=list(raw),
            box_notes=["corners_swapped"] if swapped else [],
            other_json=other_json(record, KNOWN),
        ),
    )
