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

from groundbench.schemas.types import Columns, Image, List, Value

# Bump on any change to the columns below; stored in every shard's metadata.
FORMAT_VERSION = "1.2.0"
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
    # The part's own mask, lossless (schemas/masks.py): run lengths of alternating 0/1 pixels read
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

UMD_EXTRAS = {
    "tool_id": _str(),
    "frame_index": Value("int32"),
    "labelling": _str(),  # "hand" or "automatic"
    "labelling_evidence": _str(),  # "gt_type" (read from the file) or "frame_rule" (every third)
    "category_id": Value("int32"),
    "category_split": _str(),  # train / test / null when the tool is not listed
    "novel_split": _str(),
    "heldout_folds": List(Value("int32")),  # 1..10, numbered as category_10_fold.txt numbers its columns
    "has_label_rank": Value("bool"),
    # Operating-system clutter (Thumbs.db, .DS_Store, ._*, desktop.ini) skipped in the tool's folder.
    "skipped_files": List(_str()),
}

UMD_EXTRAS_DOC = {
    "tool_id": "UMD tool folder, e.g. mug_01.",
    "frame_index": "Frame number within the tool's sequence.",
    "labelling": "hand or automatic labelling of the frame.",
    "labelling_evidence": "Where labelling comes from: gt_type (read from the file) or frame_rule (every third).",
    "category_id": "UMD object category id.",
    "category_split": "The release's category split of the tool (train / test; null when not listed).",
    "novel_split": "The release's novel-instance split of the tool.",
    "heldout_folds": "Cross-validation folds holding the tool out.",
    "has_label_rank": "The frame has a label_rank.mat (ranked affordances).",
    "skipped_files": "Operating-system clutter skipped in the tool's folder (Thumbs.db, .DS_Store, ...).",
}

# GUI sources (PointerBench, ScreenSpot v1/v2, ScreenSpot-Pro, our generated suites): the source's
# own per-row facts. Null when a source does not carry the field.
GUI_EXTRAS = {
    "subset": _str(),  # pointerbench-sheets / -text / -pro, screenspot split file, SS-Pro annotation file
    "source_row_id": _str(),  # the row's id in the source (PointerBench / SS-Pro `id`), else "<file>#<index>"
    "file_name": _str(),  # the image name exactly as the annotation gives it
    "split": _str(),  # ScreenSpot mobile / desktop / web, from the annotation file name
    "data_type": _str(),
    "category": _str(),
    "element_type": _str(),
    "language": _str(),
    "platform": _str(),
    "application": _str(),
    "app_slug": _str(),
    "app_category": _str(),
    "ui_type": _str(),
    "ui_style": _str(),
    "group": _str(),
    "surface": _str(),
    "difficulty": _str(),
    "data_source": _str(),
    "instruction_cn": _str(),
    "description": _str(),  # UGround's referring expression
    "scale": _f64(),  # UGround's resize factor
    "origin_id": _str(),  # PointerBench-Pro source_id
    "origin_file": _str(),  # PointerBench-Pro source_file
    "frame_width": Value("int32"),  # the coordinate frame of every box and point of the row
    "frame_height": Value("int32"),
    "layout_id": _str(),  # generated suites: the example every frame size re-lays out
    "eval_type": _str(),  # the source's own rule name (PointerBench stores "iou" for coverage/precision)
    "eval_bbox": List(_f64()),  # the annotated target box, pixel xyxy, not clamped: what the official rule checks
    "reference_point": List(_f64()),  # the source's point (PointerBench); else the box centre
    "raw_bbox": List(_f64()),  # the box exactly as the source wrote it
    "box_format": _str(),  # xyxy / xywh / normalized_xyxy / normalized_xywh
    "box_notes": List(_str()),  # "normalized" (0-1 fractions converted), "clamped" (box left the image)
    "other_json": _str(),  # any further source keys, canonical JSON (nothing silently dropped)
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
    "box_notes": "normalized (0-1 fractions converted) or clamped (the box left the image; flag box_clamped).",
    "other_json": "Any further source keys, as canonical JSON (nothing silently dropped).",
}

# One GAPartNet candidate part's source facts (the core ``parts`` entry holds box, point, action,
# joint type, camera-frame axis and its 2-D direction; these are the rest, aligned by ``part_id``).
GAPARTNET_PART = {
    "part_id": _str(),  # the URDF link name
    "instance_id": Value("int32"),  # its value in the view's instance_segmentation
    "own_joint": _str(),  # the joint whose child is the link
    "own_joint_type": _str(),  # "fixed" for handles, which report their parent's moving joint
    "joint": _str(),  # the joint that moves the part ("" when none)
    "moving_link": _str(),  # that joint's child link
    "joint_origin_world": List(_f64()),  # at the view's pose; empty when no joint
    "axis_world": List(_f64()),  # unit motion axis, world frame; empty when fixed
    "axis_camera": List(_f64()),  # the same in the camera frame (= core motion_axis_3d)
    "qpos": _f64(),  # the moving joint's position in the view
    "projected_bbox_xyxy": List(_f64()),  # the posed 3-D box projected and clipped; empty if off-image
    "box_iou": _f64(),  # IoU of the projected box with the mask's tight box
    "mask_coverage": _f64(),  # share of mask pixels inside the projected box
    "projection_mismatch": Value("bool"),  # the projection misses its own mask
    # How the instance id was tied to the link: "bbox_pickle" (the view's bbox/<view>.pkl says so) or
    # "mask_overlap" (no pickle: the assignment of masks to projected boxes that maximizes overlap).
    "instance_assignment": _str(),
    # mask_overlap: the mask's overlap with the link's projected box (|mask and box| / |mask or box|,
    # pixels); null for bbox_pickle.
    "instance_overlap": _f64(),
    # mask_overlap: another link's box overlaps this mask almost as well (or this link's box overlaps
    # another mask almost as well), so the assignment is not trusted (tag instance_ambiguous).
    "instance_ambiguous": Value("bool"),
}

# An annotated GAPart of the object that yields no row of the config, and why.
GAPARTNET_LEFT_OUT = {
    "part_id": _str(),
    # "never_visible": no view has a mask for it; "below_floor": its largest mask in any view has fewer
    # than gapartnet.min_mask_pixels pixels (params.yaml).
    "reason": _str(),
    "max_mask_area": Value("int64"),  # its largest mask over the object's views (0 when never visible)
}

GAPARTNET_PART_DOC = {
    "part_id": "The URDF link name (matches parts.part_id).",
    "instance_id": "The link's value in the view's instance segmentation.",
    "own_joint": "The joint whose child is the link.",
    "own_joint_type": "That joint's type (fixed for handles, which report their parent's moving joint).",
    "joint": "The joint that moves the part (empty when none).",
    "moving_link": "That joint's child link.",
    "joint_origin_world": "The joint's origin in the world frame at the view's pose; empty when no joint.",
    "axis_world": "Unit motion axis, world frame; empty when fixed.",
    "axis_camera": "The same axis in the camera frame (= parts.motion_axis_3d).",
    "qpos": "The moving joint's position in the view.",
    "projected_bbox_xyxy": "The posed 3-D box projected into the image and clipped; empty when off-image.",
    "box_iou": "IoU of the projected box with the mask's tight box.",
    "mask_coverage": "Share of the mask's pixels inside the projected box.",
    "projection_mismatch": "The projected box misses the part's own mask.",
    "instance_assignment": "How the instance id was tied to the link: bbox_pickle or mask_overlap.",
    "instance_overlap": "mask_overlap only: the mask's overlap with the link's projected box.",
    "instance_ambiguous": "mask_overlap only: another assignment fits almost as well (not trusted).",
}

GAPARTNET_EXTRAS = {
    "view_id": _str(),  # render file stem, e.g. StorageFurniture_45780_00_003
    "camera_idx": Value("int32"),
    "render_idx": Value("int32"),
    "dataset": _str(),  # "partnet" or "akb48"
    "target_link": _str(),
    "has_distractor": Value("bool"),  # at least two candidate parts
    "joint_names": List(_str()),  # the view's joint_qpos, as parallel lists
    "joint_qpos": List(_f64()),
    "camera_position": List(_f64()),  # camera centre in world
    "highlight_method": _str(),  # how the highlighted image was made from the mask; null if clean
    "action_overridden": Value("bool"),  # the audit file replaced the table's action
    "audit_note": _str(),
    "actions_version": _str(),  # schemas/gapartnet_actions.py GAPARTNET_ACTIONS_VERSION
    "parts": List(GAPARTNET_PART),
    "left_out": List(GAPARTNET_LEFT_OUT),  # the object's annotated GAParts without a bulk row, and why
}

GAPARTNET_EXTRAS_DOC = {
    "view_id": "Render file stem, e.g. StorageFurniture_45780_00_003.",
    "camera_idx": "Camera index of the view.",
    "render_idx": "Render index of the view.",
    "dataset": "partnet or akb48.",
    "target_link": "URDF link of the target part.",
    "has_distractor": "At least two candidate parts.",
    "joint_names": "The view's joints (parallel to joint_qpos).",
    "joint_qpos": "The view's joint positions.",
    "camera_position": "Camera centre in the world frame.",
    "highlight_method": "How the highlighted image was made from the mask; null when clean.",
    "action_overridden": "The audit file replaced the part-class table's action.",
    "audit_note": "The audit file's note on the object.",
    "actions_version": "Version of the part-class to action table.",
    "parts": "Every candidate part's GAPartNet facts, aligned with parts by part_id.",
    "left_out": "The object's annotated GAParts without a row, and why.",
}

# A re-ask (counterfactual_gapartnet, contrast_gapartnet): the same object asked about another part.
# The core row holds the requested target (``target_part_id``/``target_action``) and the original
# (``original_target_part_id``/``original_action``); these are the re-ask's own facts.
REASK_EXTRAS = {
    "construction": _str(),  # "counterfactual" (every non-target part) or "contrast" (mined: another action)
    "object_id": _str(),
    "pair_id": _str(),  # "<object>/<original part>-><requested part>"
    "informative": Value("bool"),  # the requested action differs from the original one
    "transition": _str(),  # "<original action>→<requested action>"
    "source_example_id": _str(),  # the row whose image was reused; null for a fresh render
    "image_origin": _str(),  # source_row / rerendered_clean / rendered_clean / highlighted_only / placeholder
    "render_error": _str(),  # why no clean render could be made; null when one was made or not needed
    "requested_visible": Value("bool"),  # the requested part has a mask of at least mask_min_pixels
    "requested_mask_area": Value("int64"),  # its mask's pixels in the image (0 when hidden, null without image)
    "mask_min_pixels": Value("int64"),  # the closed-pose threshold applied (params.yaml contrast.*); null if none
}

REASK_EXTRAS_DOC = {
    "construction": "counterfactual (every non-target part) or contrast (mined: another action).",
    "object_id": "The object re-asked about.",
    "pair_id": "<object>/<original part>-><requested part>.",
    "informative": "The requested action differs from the original one.",
    "transition": "<original action>→<requested action>.",
    "source_example_id": "The row whose image was reused; null for a fresh render.",
    "image_origin": "source_row, rerendered_clean, rendered_clean, highlighted_only or placeholder.",
    "render_error": "Why no clean render could be made; null when one was made or not needed.",
    "requested_visible": "The requested part has a mask of at least mask_min_pixels.",
    "requested_mask_area": "The requested part's mask pixels in the image (0 when hidden, null without image).",
    "mask_min_pixels": "The closed-pose threshold applied; null when none.",
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
        "extras": {"umd": UMD_EXTRAS, "gui": GUI_EXTRAS, "gapartnet": GAPARTNET_EXTRAS, "reask": REASK_EXTRAS},
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
    "target_part_id": "The part the row asks about (one of parts.part_id).",
    "target_action": "The target part's action; null for GUI rows.",
    "original_target_part_id": "Re-asks only: the original row's target part; null otherwise.",
    "original_action": "Re-asks only: the original target's action; null otherwise.",
    "conditions": "The prompt conditions valid for the row (empty for GUI rows, which use `gui`).",
    "instruction": "The GUI command or question; null on object rows (their prompts are in `prompts`).",
    "answer_type": "point or box: what a GUI answer must be; null on object rows.",
    "success_rule": "How a GUI answer is judged: point_in_box (edges included) or box_coverage_precision with "
    "its thresholds.",
    "success_rule.kind": "point_in_box or box_coverage_precision; null on object rows.",
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
    "extras": "Source-specific facts; exactly one of umd, gui, gapartnet is set, plus reask on re-asks.",
    "extras.umd": "UMD facts of the frame.",
    "extras.gui": "The GUI source's own per-row facts (null where a source lacks the field).",
    "extras.gapartnet": "GAPartNet facts of the view and its parts.",
    "extras.reask": "The re-ask's own facts (counterfactual and contrast configs).",
}
NESTED_DOCS: dict[str, dict[str, str]] = {
    "parts": PART_DOC,
    "render.camera": CAMERA_DOC,
    "extras.umd": UMD_EXTRAS_DOC,
    "extras.gui": GUI_EXTRAS_DOC,
    "extras.gapartnet": GAPARTNET_EXTRAS_DOC,
    "extras.gapartnet.parts": GAPARTNET_PART_DOC,
    "extras.reask": REASK_EXTRAS_DOC,
}
NESTED_DOCS["extras.gapartnet.left_out"] = {
    "part_id": "The left-out part's URDF link.",
    "reason": "never_visible (no view has a mask for it) or below_floor (its largest mask is too small).",
    "max_mask_area": "Its largest mask over the object's views (0 when never visible).",
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
