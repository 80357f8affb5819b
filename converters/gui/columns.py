"""What a GUI row adds to the shared record: the `source` values of the GUI sources and of the generated
sample, and ``extras.gui`` (schemas/folders.py)."""

from __future__ import annotations

from groundbench.schemas.folders import Extras, FolderColumns
from groundbench.schemas.types import List, Value

STRING, FLOAT64 = Value("string"), Value("float64")

# GUI sources (PointerBench, ScreenSpot v1/v2, ScreenSpot-Pro, our generated suites): the source's
# own per-row facts. Null when a source does not carry the field.
GUI_EXTRAS = {
    "subset": STRING,  # pointerbench-sheets / -text / -pro, screenspot split file, SS-Pro annotation file
    "source_row_id": STRING,  # the row's id in the source (PointerBench / SS-Pro `id`), else "<file>#<index>"
    "file_name": STRING,  # the image name exactly as the annotation gives it
    "split": STRING,  # ScreenSpot mobile / desktop / web, from the annotation file name
    "data_type": STRING,
    "category": STRING,
    "element_type": STRING,
    "language": STRING,
    "platform": STRING,
    "application": STRING,
    "app_slug": STRING,
    "app_category": STRING,
    "ui_type": STRING,
    "ui_style": STRING,
    "group": STRING,
    "surface": STRING,
    "difficulty": STRING,
    "data_source": STRING,
    "instruction_cn": STRING,
    "description": STRING,  # UGround's referring expression
    "scale": FLOAT64,  # UGround's resize factor
    "origin_id": STRING,  # PointerBench-Pro source_id
    "origin_file": STRING,  # PointerBench-Pro source_file
    "frame_width": Value("int32"),  # the coordinate frame of every box and point of the row
    "frame_height": Value("int32"),
    "layout_id": STRING,  # generated suites: the example every frame size re-lays out
    "eval_type": STRING,  # the source's own rule name (PointerBench stores "iou" for coverage/precision)
    "eval_bbox": List(FLOAT64),  # the annotated target box, pixel xyxy, not clamped: what the official rule checks
    "reference_point": List(FLOAT64),  # the source's point (PointerBench); else the box centre
    "raw_bbox": List(FLOAT64),  # the box exactly as the source wrote it
    "box_format": STRING,  # xyxy / xywh / normalized_xyxy / normalized_xywh
    "box_notes": List(STRING),  # "normalized" (0-1 fractions converted), "clamped" (box left the image)
    "other_json": STRING,  # any further source keys, canonical JSON (nothing silently dropped)
    "region_kind": STRING,  # box / polygon / none (a refusal row: no such element on the screen)
    "eval_polygon": List(FLOAT64),  # polygon rows: the vertices as annotated, flat [x1, y1, x2, y2, ...], pixels
    "capabilities": List(STRING),  # OSWorld-G: the capability groups of classification_result.json naming the row
    "gui_types": List(STRING),  # OSWorld-G: GUI_types, the element types of the target
}

GUI_EXTRAS_DOC = {
    "subset": "Source subset: PointerBench suite, ScreenSpot split file or ScreenSpot-Pro annotation file.",
    "source_row_id": "The row's id in the source, else <file>#<index>.",
    "file_name": "The image name exactly as the annotation gives it.",
    "split": "ScreenSpot mobile / desktop / web, from the annotation file name.",
    "data_type": "The source's target type (e.g. text, icon).",
    "category": "The source's category field.",
    "element_type": "The source's element type field.",
    "language": "Language of the screen and instruction (ISO 639-1).",
    "platform": "Operating system or platform of the screenshot.",
    "application": "Application shown.",
    "app_slug": "Short application id.",
    "app_category": "Application category.",
    "ui_type": "The source's UI element type.",
    "ui_style": "The source's UI style.",
    "group": "The source's group field.",
    "surface": "The source's surface field.",
    "difficulty": "The source's difficulty label.",
    "data_source": "Where the source took the screenshot from.",
    "instruction_cn": "The source's Chinese instruction, when given.",
    "description": "UGround's referring expression.",
    "scale": "UGround's resize factor.",
    "origin_id": "PointerBench-Pro source_id.",
    "origin_file": "PointerBench-Pro source_file.",
    "frame_width": "Width of the coordinate frame of every box and point of the row.",
    "frame_height": "Height of that coordinate frame.",
    "layout_id": "Generated suites: the example that every frame size re-lays out.",
    "eval_type": "The source's own rule name (PointerBench stores iou for coverage/precision).",
    "eval_bbox": "The target box the source annotated, in pixels (xyxy), not clamped to the frame: the box the "
    "official scorer and GroundBench's GUI score check answers against (parts.bbox_xyxy is its clamped drawing box).",
    "reference_point": "The source's point (PointerBench), else the box centre.",
    "raw_bbox": "The box exactly as the source wrote it.",
    "box_format": "Format of raw_bbox: xyxy, xywh, normalized_xyxy or normalized_xywh.",
    "box_notes": "normalized (0-1 fractions converted), clamped (the box left the image; flag box_clamped) or "
    "corners_swapped (UI-Vision: reversed corners, swapped as its scorer swaps them).",
    "other_json": "Any further source keys, as canonical JSON (nothing silently dropped).",
    "region_kind": "What the target is: box (eval_bbox), polygon (eval_polygon; parts.bbox_xyxy is its bounding "
    "box) or none (a refusal row: the element is not on the screen, no target part; the right answer says so).",
    "eval_polygon": "Polygon rows: the target's vertices exactly as annotated, flat [x1, y1, x2, y2, ...] in pixels "
    "(OSWorld-G box_type polygon; some have only two vertices, see docs/scoring.md); empty otherwise.",
    "capabilities": "OSWorld-G: the capability groups of the release's classification_result.json that list the row "
    "(text_matching, element_recognition, layout_understanding, fine_grained_manipulation, refusal, as the file "
    "names them); empty when none does or the source has none.",
    "gui_types": "OSWorld-G: GUI_types, the element types the annotators gave the target.",
}

COLUMNS = FolderColumns(
    sources=(
        "pointerbench",
        "screenspot",
        "screenspot_v2",
        "screenspot_pro",
        "osworld_g",
        "ui_vision",
        "groundbench_gui",
    ),
    extras=(
        Extras(
            "gui",
            GUI_EXTRAS,
            "The GUI source's own per-row facts (null where a source lacks the field).",
            GUI_EXTRAS_DOC,
        ),
    ),
)
