"""The core record's columns (``schemas/types.py``, the ``datasets`` feature types without importing
``datasets``); the Arrow schema, ``datasets`` metadata included, is derived from them, never written twice.

Coordinates are absolute pixels in the image's own frame, origin top-left, x right, y down, on the
continuous plane: pixel (col, row) covers [col, col+1) x [row, row+1). A box is [x0, y0, x1, y1]
with 0 <= x0 < x1 <= width (a region's tight box is [min col, min row, max col + 1, max row + 1]),
and a point lies in the pixel (floor(x), floor(y)).
"""

from __future__ import annotations

import functools
import json
from typing import Any, TypedDict, cast

import pyarrow as pa

from groundbench.schemas.folders import extras, extras_description
from groundbench.schemas.types import Columns, Image, List, Value

# Bump on any change to the columns below; stored in every shard's metadata.
FORMAT_VERSION = "1.3.0"  # 1.3.0: GUI regions (extras.gui region_kind, eval_polygon, capabilities, gui_types);
# a refusal row (success_rule.kind refusal) has no target part
FORMAT_METADATA_KEY = b"groundbench"


def _f64() -> Value:
    return Value("float64")


def _str() -> Value:
    return Value("string")


PART = {
    "part_id": _str(),
    "category": _str(),
    "action": _str(),
    "bbox_xyxy": List(_f64(), length=4),
    "point_xy": List(_f64(), length=2),
    "box_quality": _str(),
    "joint_type": _str(),
    "motion_axis_3d": List(_f64()),  # empty when unknown
    "motion_axis_2d": List(_f64()),  # unit image direction; empty when unknown
    "mask_area": Value("int64"),  # pixels of the part's mask; null when no mask exists
    "secondary_actions": List(_str()),  # lower-ranked affordances of the region, when known
    # Visible box: the tight box of the part's own mask in this image ([min col, min row, max col + 1,
    # max row + 1]); it never covers hidden portions. Null when the part has no mask here.
    "visible_bbox_xyxy": List(_f64()),
    # Projected box: the part's posed 3-D box projected through the camera and clipped to the image.
    # Amodal: it also covers the part's hidden portions (a drawer's body, a handle behind a door).
    # Null when the source has no 3-D box or the projection leaves the image.
    "projected_bbox_xyxy": List(_f64()),
    # Connected pieces (8-connectivity) of the part's mask; 2 or more = split (e.g. by occlusion),
    # while ``bbox_xyxy`` spans the gap. Null when the part has no mask.
    "mask_pieces": Value("int32"),
    # The part's own mask, lossless (schemas/mask_rle.py): run lengths of alternating 0/1 pixels read
    # row-major inside ``visible_bbox_xyxy``, starting with a 0-run; they add up to the box's pixels
    # and the 1-runs to ``mask_area``. Null when the part has no mask here (GUI; a hidden re-ask part).
    "mask_rle": List(Value("int64")),
}

# Descriptions beside the fields: the card's Data Fields table and croissant.json read them
# (DESCRIPTIONS below); a field without one fails the card test.
PART_DOC = {
    "part_id": "The part's id, unique within the row (UMD region id, GAPartNet URDF link, GUI element id).",
    "category": "The part's class (UMD affordance region, GAPartNet part class, GUI target type).",
    "action": "The action the part affords, from the fixed 11-action vocabulary; null for GUI targets.",
    "bbox_xyxy": "Box [x0, y0, x1, y1] in absolute pixels, origin top-left, on the pixel-edge plane.",
    "point_xy": "A point [x, y] in absolute pixels that lies on the part (a pixel of its mask when there is one).",
    "box_quality": "How the box was made: exact (source geometry), approximate (e.g. a projected 3-D box), from-mask.",
    "joint_type": "Joint that moves the part (prismatic, revolute, fixed), when known.",
    "motion_axis_3d": "Unit motion axis in the camera frame; empty when unknown.",
    "motion_axis_2d": "Unit motion direction in the image (x right, y down); empty when unknown.",
    "mask_area": "Pixels of the part's mask; null when no mask exists.",
    "secondary_actions": "Lower-ranked affordances of the region, when the source ranks them.",
    # Fields the converter-fidelity work adds (described here so both land together):
    "visible_bbox_xyxy": "Tight box of the part's own mask in this image (never covers hidden portions); null "
    "without a mask.",
    "projected_bbox_xyxy": "The part's posed 3-D box projected and clipped to the image (amodal: covers hidden "
    "portions); null without a 3-D box.",
    "mask_pieces": "Connected pieces of the part's mask (8-connectivity); 2 or more = split, e.g. by occlusion.",
    "mask_rle": "The part's own mask, lossless: lengths of alternating outside/inside pixel runs read row by row "
    "inside visible_bbox_xyxy, starting with an outside run; null without a mask.",
}

CAMERA = {
    "fx": _f64(),
    "fy": _f64(),
    "cx": _f64(),
    "cy": _f64(),
    "world2camera_rotation": List(_f64()),  # row-major 3x3, empty when unknown
    "world2camera_translation": List(_f64()),
}

CAMERA_DOC = {
    "fx": "Focal length along x, pixels.",
    "fy": "Focal length along y, pixels.",
    "cx": "Principal point x, pixels.",
    "cy": "Principal point y, pixels.",
    "world2camera_rotation": "World-to-camera rotation, row-major 3x3; empty when unknown.",
    "world2camera_translation": "World-to-camera translation; empty when unknown.",
}

FEATURES = Columns(
    {
        "example_id": _str(),
        "source": _str(),
        "stratum": _str(),
        "object_id": _str(),
        "object_category": _str(),
        "image": Image(),
        "image_sha256": _str(),
        "width": Value("int32"),
        "height": Value("int32"),
        "render": {"kind": _str(), "highlighted_part_id": _str(), "camera": CAMERA},
        "object_bbox_xyxy": List(_f64(), length=4),
        "parts": List(PART),
        "target_part_id": _str(),
        "target_action": _str(),
        "original_target_part_id": _str(),
        "original_action": _str(),
        "conditions": List(_str()),
        "instruction": _str(),
        "answer_type": _str(),
        "success_rule": {"kind": _str(), "coverage_min": _f64(), "precision_min": _f64()},
        "exclusion_tags": List(_str()),
        "excluded": Value("bool"),
        # Informational flags about the row's target (schemas/vocab.py FLAGS), not exclusions: e.g. a
        # curated target whose projected box misses its mask keeps the mask's box and is flagged.
        "flags": List(_str()),
        "baselines": {"image_center_distance": _f64(), "object_center_distance": _f64()},
        "provenance": {
            "source_paths": List(_str()),
            "source_sha256": List(_str()),
            "converter": _str(),
            "converter_version": _str(),
        },
        # Each source folder's own facts (converters/<name>/columns.py), in the listing's order.
        "extras": {e.name: e.fields for e in extras()},
    }
)

COLUMNS: tuple[str, ...] = tuple(FEATURES)

# Top-level and nested descriptions (a struct's own description, then its fields' table).
FEATURES_DOC: dict[str, str] = {
    "example_id": "Unique, stable row id; rows are sorted by it.",
    "source": "Where the row's material comes from (umd, gapartnet, a GUI source, or groundbench_gui for the "
    "generated suites).",
    "stratum": "curated, bulk, counterfactual, contrast or suite; strata are reported separately, never pooled.",
    "object_id": "The object (UMD tool, GAPartNet object) or screenshot the row shows.",
    "object_category": "The object's category; null for GUI rows.",
    "image": "The image, bytes embedded (PNG or JPEG).",
    "image_sha256": "sha256 of the image bytes (checked by `groundbench verify`).",
    "width": "Image width, pixels.",
    "height": "Image height, pixels.",
    "render": "How the image was made: kind (photo, clean, highlighted, screenshot, placeholder), the highlighted "
    "part, and the camera when known.",
    "render.kind": "photo, clean, highlighted, screenshot or placeholder.",
    "render.highlighted_part_id": "The part drawn highlighted in the image; null when none is.",
    "render.camera": "Pinhole intrinsics and world-to-camera pose, when known.",
    "object_bbox_xyxy": "The object's box [x0, y0, x1, y1], pixels; null for GUI rows.",
    "parts": "Every candidate part (GUI: the target and its neighbour elements) with box, point, action and motion.",
    "target_part_id": "The part the row asks about (one of parts.part_id); null only on a GUI refusal row "
    "(success_rule.kind refusal: the element is not on the screen, and parts is empty).",
    "target_action": "The target part's action; null for GUI rows.",
    "original_target_part_id": "Re-asks only: the original row's target part; null otherwise.",
    "original_action": "Re-asks only: the original target's action; null otherwise.",
    "conditions": "The prompt conditions valid for the row (empty for GUI rows, which use `gui`).",
    "instruction": "The GUI command or question; null on object rows (their prompts are in `prompts`).",
    "answer_type": "point or box: what a GUI answer must be; null on object rows.",
    "success_rule": "How a GUI answer is judged: point_in_box (edges included), box_coverage_precision with "
    "its thresholds, point_in_polygon (extras.gui.eval_polygon) or refusal (no target: only a refusal is right).",
    "success_rule.kind": "point_in_box, box_coverage_precision, point_in_polygon or refusal; null on object rows.",
    "success_rule.coverage_min": "Least share of the target box an answer box must cover.",
    "success_rule.precision_min": "Least share of the answer box that must lie on the target.",
    "exclusion_tags": "Why the row failed a check; such rows stay, documented, with excluded = true.",
    "excluded": "The row is not scored (see exclusion_tags).",
    "flags": "Informational flags about the row's target (not exclusions).",
    "baselines": "Distances of the target point to the image centre and to the object box centre, divided by the "
    "image diagonal.",
    "baselines.image_center_distance": "Target point to image centre, divided by the image diagonal.",
    "baselines.object_center_distance": "Target point to the object box's centre, divided by the image diagonal.",
    "provenance": "Source files (paths relative to the source root, sha256) and the converter and its version.",
    "provenance.source_paths": "Source files the row was built from, relative to the source root.",
    "provenance.source_sha256": "sha256 of each of those files.",
    "provenance.converter": "The converter that wrote the row.",
    "provenance.converter_version": "Its version.",
    "extras": extras_description(),
    **{f"extras.{e.name}": e.description for e in extras()},
}
NESTED_DOCS: dict[str, dict[str, str]] = {
    "parts": PART_DOC,
    "render.camera": CAMERA_DOC,
    **{f"extras.{e.name}": e.docs for e in extras()},
    **{f"extras.{e.name}.{name}": docs for e in extras() for name, docs in e.nested.items()},
}

# Columns the published folder (data/groundbench/, Parquet) adds to every record at assembly: the
# Arrow shards stay the schema-validated artifact; these are derived from them and the package.
PROMPT = {
    "condition": _str(),
    "text": _str(),
    "template_version": _str(),
    "template_sha256": _str(),
}
PUBLISHED_COLUMNS = {
    "prompts": List(PROMPT),
    "license": _str(),
}
PUBLISHED_DOC: dict[str, str] = {
    "prompts": "The exact prompt of every condition valid for the row (groundbench.loaders.prompts), with the "
    "template version and sha256; a condition + /text_only sends the same text without the image. Empty for "
    "excluded rows, which are never requested.",
    "license": "The terms of the row's material (its source's licence; GroundBench's own for synthetic samples).",
}
NESTED_DOCS["prompts"] = {
    "condition": "The condition the prompt asks under.",
    "text": "The prompt text, word for word.",
    "template_version": "Version of the prompt templates.",
    "template_sha256": "sha256 over the version and every template file the prompt uses.",
}
PUBLISHED_FEATURES = Columns({**FEATURES, **PUBLISHED_COLUMNS})


def description(path: str) -> str | None:
    """The description of a field by its dotted path (``parts.bbox_xyxy``, ``extras.gui.language``)."""
    top = {**FEATURES_DOC, **PUBLISHED_DOC}
    if path in top:
        return top[path]
    parent, _, name = path.rpartition(".")
    return NESTED_DOCS.get(parent, {}).get(name)


def stamped(columns: Columns, dataset_version: str | None) -> pa.Schema:
    """The Arrow schema of ``columns`` (HF features metadata included) with GroundBench's own metadata entry:
    the format version, and the dataset version when given. The one stamp of every schema written."""
    schema = columns.arrow_schema
    metadata = dict(schema.metadata or {})
    facts = {"format_version": FORMAT_VERSION}
    if dataset_version is not None:
        facts["dataset_version"] = dataset_version
    metadata[FORMAT_METADATA_KEY] = json.dumps(facts, sort_keys=True).encode()
    return schema.with_metadata(metadata)


@functools.cache  # one schema object per version: shards compare it on every batch
def arrow_schema(dataset_version: str | None = None) -> pa.Schema:
    """The exact Arrow schema of a shard: HF features metadata plus the format version.

    The published copies of the shards (data/groundbench/) also carry the dataset version.
    """
    return stamped(FEATURES, dataset_version)


@functools.cache  # one schema object per version: shards compare it on every batch
def published_arrow_schema(dataset_version: str) -> pa.Schema:
    """The schema of a published Parquet file: the record columns plus ``PUBLISHED_COLUMNS``."""
    return stamped(PUBLISHED_FEATURES, dataset_version)


def dataset_version_of(schema: pa.Schema) -> str | None:
    raw = (schema.metadata or {}).get(FORMAT_METADATA_KEY)
    if raw is None:
        return None
    value = json.loads(raw).get("dataset_version")
    return None if value is None else str(value)


def format_version_of(schema: pa.Schema) -> str | None:
    raw = (schema.metadata or {}).get(FORMAT_METADATA_KEY)
    if raw is None:
        return None
    return str(json.loads(raw)["format_version"])


class Record(TypedDict):
    """One row as a converter yields it (the columns of ``FEATURES``): what mypy checks at the converter edge.

    Nested structs stay plain dicts (their fields are the schema's); a test holds the keys equal to COLUMNS.
    """

    example_id: str
    source: str
    stratum: str
    object_id: str | None
    object_category: str | None
    image: dict[str, Any] | None  # {"bytes": ..., "path": ...}
    image_sha256: str | None
    width: int | None
    height: int | None
    render: dict[str, Any] | None
    object_bbox_xyxy: list[float] | None
    parts: list[dict[str, Any]]
    target_part_id: str | None
    target_action: str | None
    original_target_part_id: str | None
    original_action: str | None
    conditions: list[str]
    instruction: str | None
    answer_type: str | None
    success_rule: dict[str, Any] | None
    exclusion_tags: list[str]
    excluded: bool
    flags: list[str]
    baselines: dict[str, Any] | None
    provenance: dict[str, Any] | None
    extras: dict[str, Any] | None


def new_record(**fields: Any) -> Record:
    """A record with every column present: lists empty, the rest null, then ``fields`` applied."""
    unknown = set(fields) - set(COLUMNS)
    if unknown:
        raise KeyError(f"not record columns: {sorted(unknown)}")
    record: dict[str, object] = {
        name: [] if name in ("parts", "conditions", "exclusion_tags", "flags") else None for name in COLUMNS
    }
    record["excluded"] = False
    record.update(fields)
    return cast(Record, record)
