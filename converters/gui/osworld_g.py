"""OSWorld-G records (the OSWorld-G / Jedi release: ``OSWorld-G.json``, ``classification_result.json``, ``images/``).

The release's benchmark file is one JSON array; each record (keys as its evaluation scripts read them,
e.g. ``evaluation/holo_osworld_g.py`` of the Onifin/Holo3.1-OSWorld-G fork of xlang-ai/OSWorld-G):

- ``id`` (e.g. ``0FOB4CLBT2-0``), ``image_path`` (relative to the image folder), ``image_size`` [w, h],
  ``instruction``, ``GUI_types`` (list of element types);
- ``box_type`` ``bbox``: ``box_coordinates`` = [x, y, w, h], float pixels;
- ``box_type`` ``polygon``: ``box_coordinates`` = flat vertices [x1, y1, x2, y2, ...], pixels (some
  carry only four values, two vertices; the rule keeps them as the release's evaluator reads them);
- ``box_type`` ``refusal``: the element is not on the screen; the right answer is to say so.

``classification_result.json`` = ``{"classified": {group: [{"id": ...}, ...]}}`` names the capability
groups per record id (a record may be in several; in none it is "unclassified" in the official tally).

``OSWorld-G_refined.json`` beside it holds the same records with reworded instructions (OSWorld-G-refined, which
papers report beside OSWorld-G): config ``gui_osworld_g_refined``, read by the same parser, same rule and groups.
"""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Any

from groundbench.converters.gui.boxes import Box, finite_float, read_box, shown
from groundbench.converters.gui.rows import SourceRow, gui_extras, other_json, size_pair, text
from groundbench.errors import GroundBenchError
from groundbench.schemas.rows import REFUSAL_RULE

CONFIG = "gui_osworld_g"
ANNOTATION = "OSWorld-G.json"  # the benchmark file the release's evaluators read
REFINED_CONFIG = "gui_osworld_g_refined"
REFINED_ANNOTATION = "OSWorld-G_refined.json"  # the same records, instructions reworded (OSWorld-G-refined)
CLASSIFICATION = "classification_result.json"
BOX_TYPES = {"bbox": "box", "polygon": "polygon", "refusal": "none"}  # box_type -> extras.gui.region_kind
RULES = {"bbox": "point_in_box", "polygon": "point_in_polygon", "refusal": REFUSAL_RULE}
EVAL_TYPE = "grounding_eval"  # extras.gui.eval_type: the release's GroundingEval._eval (scoring/osworld_g.py)
KNOWN = {"id", "image_path", "image_size", "instruction", "box_type", "box_coordinates", "GUI_types"}


def _numbers(value: object, where: str, field: str) -> list[float]:
    if not isinstance(value, list):
        raise GroundBenchError(where, field, f"expected a list of numbers, got {shown(value)}")
    numbers = [finite_float(item) for item in value]
    if any(n is None for n in numbers):
        raise GroundBenchError(where, field, f"expected finite numbers, got {shown(value)}")
    return [float(n) for n in numbers if n is not None]


def polygon_bounds(vertices: list[float], where: str) -> Box:
    """The bounding box of a flat vertex list (for drawing and geometry; the rule reads the vertices)."""
    if len(vertices) < 4 or len(vertices) % 2:
        raise GroundBenchError(
            where, "box_coordinates", f"expected a polygon of 2 or more [x, y] vertices, got {len(vertices)} values"
        )
    xs, ys = vertices[0::2], vertices[1::2]
    return (min(xs), min(ys), max(xs), max(ys))


def _gui_types(record: dict[str, Any], where: str) -> list[str]:
    value = record.get("GUI_types")
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise GroundBenchError(where, "GUI_types", f"expected a list of strings, got {shown(value)}")
    return list(value)


def read_classification(data: Any, rel: str) -> dict[str, list[str]]:
    """record id -> its capability groups, in the file's group order (the official tally's order)."""
    classified = data.get("classified") if isinstance(data, dict) else None
    if not isinstance(classified, dict):
        raise GroundBenchError(rel, "classified", 'expected {"classified": {group: [{"id": ...}, ...]}}')
    groups: dict[str, list[str]] = {}
    for group, items in classified.items():
        if not isinstance(items, list):
            raise GroundBenchError(rel, f"classified.{group}", f'expected a list of {{"id": ...}}, got {shown(items)}')
        for index, item in enumerate(items):
            if not isinstance(item, dict) or not isinstance(item.get("id"), str):
                raise GroundBenchError(
                    rel, f"classified.{group}[{index}]", f'expected {{"id": str}}, got {shown(item)}'
                )
            members = groups.setdefault(item["id"], [])
            if group not in members:
                members.append(str(group))
    return groups


def parse(
    record: Any, annotation: str, index: int, capabilities: dict[str, list[str]], config: str = CONFIG
) -> SourceRow:
    """One OSWorld-G record of ``config``; ``index`` is its 0-based position in the annotation file."""
    where = f"{annotation}: row {index}"
    if not isinstance(record, dict):
        raise GroundBenchError(where, "record", f"expected a JSON object, got {type(record).__name__}")
    row_id = str(text(record, "id", where))
    image_name = str(text(record, "image_path", where))
    box_type = record.get("box_type")
    if box_type not in BOX_TYPES:
        raise GroundBenchError(where, "box_type", f"expected bbox, polygon or refusal, got {shown(box_type)}")
    coordinates = _numbers(record.get("box_coordinates", []), where, "box_coordinates")
    polygon: tuple[float, ...] = ()
    raw: Box = (0.0, 0.0, 0.0, 0.0)
    corners = True
    if box_type == "bbox":
        raw = read_box(record.get("box_coordinates"), where, "box_coordinates")
        corners = False  # [x, y, w, h]
    elif box_type == "polygon":
        polygon = tuple(coordinates)
        raw = polygon_bounds(coordinates, where)
    gui_types = _gui_types(record, where)
    return SourceRow(
        config=config,
        example_id=f"{config}/{row_id}",
        annotation=annotation,
        where=where,
        image_name=image_name,
        object_id=image_name,
        object_category="desktop",
        instruction=str(text(record, "instruction", where)),
        answer_type="point",  # GroundingEval reads a click point (the centre of four values)
        raw_box=raw,
        box_field="box_coordinates",
        corners=corners,
        declared_size=size_pair(record["image_size"], where, "image_size") if "image_size" in record else None,
        target_id=row_id,
        target_category=gui_types[0] if gui_types else "element",
        exact=False,  # human-drawn regions
        region_kind=BOX_TYPES[box_type],
        polygon=polygon,
        rule=RULES[box_type],
        extras=gui_extras(
            subset=PurePosixPath(annotation).stem,
            source_row_id=row_id,
            file_name=image_name,
            language="en",
            eval_type=EVAL_TYPE,
            raw_bbox=coordinates if box_type != "polygon" else [],
            box_format={"bbox": "xywh", "polygon": "polygon", "refusal": "none"}[box_type],
            eval_polygon=list(polygon),
            capabilities=list(capabilities.get(row_id, [])),
            gui_types=gui_types,
            other_json=other_json(record, KNOWN),
        ),
    )
