"""What a GAPartNet row adds to the shared record: its `source` value, ``extras.gapartnet`` and, on the re-asks
derived from GAPartNet rows (counterfactual, contrast), ``extras.reask`` beside it (schemas/folders.py)."""

from __future__ import annotations

from groundbench.schemas.folders import Extras, FolderColumns
from groundbench.schemas.types import List, Value

STRING, FLOAT64 = Value("string"), Value("float64")

# One GAPartNet candidate part's source facts (the core ``parts`` entry holds box, point, action,
# joint type, camera-frame axis and its 2-D direction; these are the rest, aligned by ``part_id``).
GAPARTNET_PART = {
    "part_id": STRING,  # the URDF link name
    "instance_id": Value("int32"),  # its value in the view's instance_segmentation
    "own_joint": STRING,  # the joint whose child is the link
    "own_joint_type": STRING,  # "fixed" for handles, which report their parent's moving joint
    "joint": STRING,  # the joint that moves the part ("" when none)
    "moving_link": STRING,  # that joint's child link
    "joint_origin_world": List(FLOAT64),  # at the view's pose; empty when no joint
    "axis_world": List(FLOAT64),  # unit motion axis, world frame; empty when fixed
    "axis_camera": List(FLOAT64),  # the same in the camera frame (= core motion_axis_3d)
    "qpos": FLOAT64,  # the moving joint's position in the view
    "projected_bbox_xyxy": List(FLOAT64),  # the posed 3-D box projected and clipped; empty if off-image
    "box_iou": FLOAT64,  # IoU of the projected box with the mask's tight box
    "mask_coverage": FLOAT64,  # share of mask pixels inside the projected box
    "projection_mismatch": Value("bool"),  # the projection misses its own mask
    # How the instance id was tied to the link: "bbox_pickle" (the view's bbox/<view>.pkl says so) or
    # "mask_overlap" (no pickle: the assignment of masks to projected boxes that maximizes overlap).
    "instance_assignment": STRING,
    # mask_overlap: the mask's overlap with the link's projected box (|mask and box| / |mask or box|,
    # pixels); null for bbox_pickle.
    "instance_overlap": FLOAT64,
    # mask_overlap: another link's box overlaps this mask almost as well (or this link's box overlaps
    # another mask almost as well), so the assignment is not trusted (tag instance_ambiguous).
    "instance_ambiguous": Value("bool"),
}

# An annotated GAPart of the object that yields no row of the config, and why.
GAPARTNET_LEFT_OUT = {
    "part_id": STRING,
    # "never_visible": no view has a mask for it; "below_floor": its largest mask in any view has fewer
    # than gapartnet.min_mask_pixels pixels (params.yaml).
    "reason": STRING,
    "max_mask_area": Value("int64"),  # its largest mask over the object's views (0 when never visible)
}

GAPARTNET_LEFT_OUT_DOC = {
    "part_id": "The left-out part's URDF link.",
    "reason": "never_visible (no view has a mask for it) or below_floor (its largest mask is too small).",
    "max_mask_area": "Its largest mask over the object's views (0 when never visible).",
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
    "view_id": STRING,  # render file stem, e.g. StorageFurniture_45780_00_003
    "camera_idx": Value("int32"),
    "render_idx": Value("int32"),
    "dataset": STRING,  # "partnet" or "akb48"
    "target_link": STRING,
    "has_distractor": Value("bool"),  # at least two candidate parts
    "joint_names": List(STRING),  # the view's joint_qpos, as parallel lists
    "joint_qpos": List(FLOAT64),
    "camera_position": List(FLOAT64),  # camera centre in world
    "highlight_method": STRING,  # how the highlighted image was made from the mask; null if clean
    "action_overridden": Value("bool"),  # the audit file replaced the table's action
    "audit_note": STRING,
    "actions_version": STRING,  # actions.py GAPARTNET_ACTIONS_VERSION
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
    "construction": STRING,  # "counterfactual" (every non-target part) or "contrast" (mined: another action)
    "object_id": STRING,
    "pair_id": STRING,  # "<object>/<original part>-><requested part>"
    "informative": Value("bool"),  # the requested action differs from the original one
    "transition": STRING,  # "<original action>→<requested action>"
    "source_example_id": STRING,  # the row whose image was reused; null for a fresh render
    "image_origin": STRING,  # source_row / rerendered_clean / rendered_clean / highlighted_only / placeholder
    "render_error": STRING,  # why no clean render could be made; null when one was made or not needed
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

COLUMNS = FolderColumns(
    sources=("gapartnet",),
    extras=(
        Extras(
            "gapartnet",
            GAPARTNET_EXTRAS,
            "GAPartNet facts of the view and its parts.",
            GAPARTNET_EXTRAS_DOC,
            nested={"parts": GAPARTNET_PART_DOC, "left_out": GAPARTNET_LEFT_OUT_DOC},
        ),
        Extras(
            "reask",
            REASK_EXTRAS,
            "The re-ask's own facts (counterfactual and contrast configs).",
            REASK_EXTRAS_DOC,
            alongside="on re-asks",
        ),
    ),
)
