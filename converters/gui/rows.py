"""The shared GUI row: what every format parser produces, and how it becomes a GroundBench record.

A parser turns one annotation record into a ``SourceRow`` (pure: no image read). The converter then
reads the screenshot, turns the source box into pixels (``boxes.to_pixels``) and calls
``build_record`` with the target and its candidate neighbours.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from groundbench.converters.gui.boxes import Box, PixelBox, centre, shown
from groundbench.converters.gui.columns import GUI_EXTRAS
from groundbench.converters.gui.version import CONVERTER, CONVERTER_VERSION
from groundbench.errors import GroundBenchError
from groundbench.schemas.conditions import valid_conditions
from groundbench.schemas.features import new_record
from groundbench.schemas.vocab import NO_ACTION

# PointerBench's box rule (paper section C; eval.py defaults) and the universal point rule.
DEFAULT_COVERAGE_MIN = 0.90
DEFAULT_PRECISION_MIN = 0.70
POINT_RULE = "point_in_box"  # edges included
BOX_RULE = "box_coverage_precision"
RENDER_KIND = "screenshot"
STRATUM = "suite"


@dataclass(frozen=True)
class Candidate:
    """A neighbour of the target offered as a candidate part (adjacent cell, character, control)."""

    part_id: str
    category: str
    box: Box
    point: tuple[float, float] | None = None


@dataclass
class SourceRow:
    """One annotation record, parsed; boxes still in the source's own convention."""

    config: str
    example_id: str
    annotation: str  # annotation file, relative to the source root
    where: str  # "<annotation>: row N" for error messages
    image_name: str  # as the annotation gives it
    object_id: str  # image identity (includes the subset where names repeat across subsets)
    object_category: str
    instruction: str
    answer_type: str  # "point" or "box"
    raw_box: Box
    box_field: str
    corners: bool  # xyxy (True) or xywh (False)
    declared_size: tuple[int, int] | None  # (width, height) when the annotation stores it
    target_id: str
    target_category: str
    exact: bool  # generated, pixel-exact geometry (PointerBench, ours) vs human-drawn boxes
    coverage_min: float | None = None
    precision_min: float | None = None
    reference_point: tuple[float, float] | None = None
    candidates: list[Candidate] = field(default_factory=list)  # from the annotation (our generator)
    extras: dict[str, Any] = field(default_factory=dict)
    region_kind: str = "box"  # box, polygon (vertices in ``polygon``; raw_box is their bounding box), none (refusal)
    polygon: tuple[float, ...] = ()  # flat [x1, y1, x2, y2, ...] pixels, as annotated
    rule: str | None = None  # the success rule's kind when not the answer type's (point_in_polygon, refusal)


def text(record: dict[str, Any], key: str, where: str, required: bool = True) -> str | None:
    value = record.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, str) or (required and not value.strip()):
        raise GroundBenchError(where, key, f"expected a non-empty string, got {shown(value)}")
    return value


def optional_text(record: dict[str, Any], key: str, where: str) -> str | None:
    """A string field the source may leave out; any other type is an error naming the row and key."""
    value = record.get(key)
    if value is not None and not isinstance(value, str):
        raise GroundBenchError(where, key, f"expected a string, got {shown(value)}")
    return value


def size_pair(value: object, where: str, key: str) -> tuple[int, int]:
    if (
        not isinstance(value, list | tuple)
        or len(value) != 2
        or not all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in value)
    ):
        raise GroundBenchError(where, key, f"expected [width, height] as two positive integers, got {shown(value)}")
    return (int(value[0]), int(value[1]))


def other_json(record: dict[str, Any], known: set[str]) -> str | None:
    """Keys no field takes, kept verbatim as canonical JSON (nothing is dropped silently)."""
    rest = {k: record[k] for k in sorted(record) if k not in known}
    return json.dumps(rest, sort_keys=True, ensure_ascii=False, separators=(",", ":")) if rest else None


def gui_extras(**values: Any) -> dict[str, Any]:
    unknown = set(values) - set(GUI_EXTRAS)
    if unknown:
        raise KeyError(f"not extras.gui fields: {sorted(unknown)}")
    extras: dict[str, Any] = {name: None for name in GUI_EXTRAS}
    extras.update(
        {
            "eval_bbox": [],
            "reference_point": [],
            "raw_bbox": [],
            "box_notes": [],
            "region_kind": "box",
            "eval_polygon": [],
            "capabilities": [],
            "gui_types": [],
        }
    )
    extras.update(values)
    return extras


def _part(part_id: str, category: str, box: Box, point: tuple[float, float], exact: bool) -> dict[str, Any]:
    return {
        "part_id": part_id,
        "category": category,
        "action": NO_ACTION,  # GUI targets are clicked, not manipulated: no affordance action
        "bbox_xyxy": list(box),
        "point_xy": list(point),
        "box_quality": "exact" if exact else "approximate",
        "joint_type": "none",
        "motion_axis_3d": [],
        "motion_axis_2d": [],
        "mask_area": None,
        "secondary_actions": [],
    }


def success_rule(row: SourceRow) -> dict[str, Any]:
    if row.rule is not None:
        return {"kind": row.rule, "coverage_min": None, "precision_min": None}
    if row.answer_type == "point":
        return {"kind": POINT_RULE, "coverage_min": None, "precision_min": None}
    return {
        "kind": BOX_RULE,
        "coverage_min": DEFAULT_COVERAGE_MIN if row.coverage_min is None else row.coverage_min,
        "precision_min": DEFAULT_PRECISION_MIN if row.precision_min is None else row.precision_min,
    }


def build_record(
    row: SourceRow,
    source: str,
    image: dict[str, Any],
    sha256: str,
    size: tuple[int, int],
    target: PixelBox | None,
    neighbours: list[Candidate],
    provenance: dict[str, Any],
) -> dict[str, Any]:
    """The GroundBench record of one GUI row. ``neighbours`` are already in pixels and clipped; ``target`` is
    None on a refusal row (no such element on the screen: no parts, no target)."""
    if target is None:
        return _refusal_record(row, source, image, sha256, size, provenance)
    width, height = size
    point = row.reference_point if row.reference_point is not None else centre(target.box)
    parts = [_part(row.target_id, row.target_category, target.box, point, row.exact)]
    seen = {row.target_id}
    for cand in neighbours:
        if cand.part_id in seen:
            continue
        seen.add(cand.part_id)
        cpoint = cand.point if cand.point is not None else centre(cand.box)
        parts.append(_part(cand.part_id, cand.category, cand.box, cpoint, row.exact))
    # Clamping is for drawing: the row is scored against the annotated box (extras.gui.eval_bbox), as the
    # source's own scorer does, so a box past the frame edge is an informational flag, never an exclusion.
    flags = ["box_clamped"] if target.clamped else []
    extras = dict(row.extras)
    extras.update(
        frame_width=width,
        frame_height=height,
        raw_bbox=list(row.extras.get("raw_bbox") or row.raw_box),  # as written, when the parser kept it
        box_format=target.box_format,
        box_notes=[*(row.extras.get("box_notes") or []), *target.notes],
        eval_bbox=list(target.annotated),
        reference_point=list(point),
        region_kind=row.region_kind,
    )
    if row.region_kind == "polygon":
        # The rule reads the vertices (eval_polygon); the part's box is their bounding box, for drawing only.
        extras.update(raw_bbox=[], box_format="polygon", eval_bbox=[], eval_polygon=list(row.polygon))
    return _record(row, source, image, sha256, size, provenance, parts, flags, extras)


def _refusal_record(
    row: SourceRow, source: str, image: dict[str, Any], sha256: str, size: tuple[int, int], provenance: dict[str, Any]
) -> dict[str, Any]:
    """A row whose element is not on the screen: no candidate parts, no target; only a refusal is right."""
    width, height = size
    extras = dict(row.extras)
    extras.update(frame_width=width, frame_height=height, region_kind="none", eval_bbox=[], eval_polygon=[])
    return _record(row, source, image, sha256, size, provenance, [], [], extras)


def _record(
    row: SourceRow,
    source: str,
    image: dict[str, Any],
    sha256: str,
    size: tuple[int, int],
    provenance: dict[str, Any],
    parts: list[dict[str, Any]],
    flags: list[str],
    extras: dict[str, Any],
) -> dict[str, Any]:
    """What every GUI record shares around its parts, flags and extras (a refusal row: no parts, no target)."""
    width, height = size
    return new_record(
        example_id=row.example_id,
        source=source,
        stratum=STRATUM,
        object_id=row.object_id,
        object_category=row.object_category,
        image=image,
        image_sha256=sha256,
        width=width,
        height=height,
        render={"kind": RENDER_KIND, "highlighted_part_id": None, "camera": None},
        object_bbox_xyxy=None,
        parts=parts,
        target_part_id=row.target_id if parts else None,
        target_action=NO_ACTION,
        conditions=list(valid_conditions(STRATUM, RENDER_KIND)),
        instruction=row.instruction,
        answer_type=row.answer_type,
        success_rule=success_rule(row),
        flags=flags,
        provenance={**provenance, "converter": CONVERTER, "converter_version": CONVERTER_VERSION},
        extras={"umd": None, "gui": gui_extras(**extras)},
    )
