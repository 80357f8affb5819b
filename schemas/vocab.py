"""Vocabularies shared by every source. Versioned: change a list, bump ``VOCAB_VERSION``."""

from __future__ import annotations

VOCAB_VERSION = "2"  # 2: box_clamped is a flag (GUI rows are scored on the annotated box), not an exclusion

# The paper's 11-action vocabulary (section 3.1); anything else normalizes to NO_ACTION and is counted.
ACTIONS: tuple[str, ...] = (
    "push",
    "pull",
    "lift-vertical",
    "rotate",
    "grasp",
    "cut",
    "scoop",
    "contain",
    "pound",
    "support",
    "wrap-grasp",
)
NO_ACTION = "none"

# How a part's box was obtained.
BOX_QUALITIES: tuple[str, ...] = ("exact", "approximate", "from-mask")

# Joint types: URDF ones for articulated parts, "rigid" for regions of a rigid tool (UMD), "none"
# where the source has no mechanics (GUI).
JOINT_TYPES: tuple[str, ...] = ("prismatic", "revolute", "continuous", "fixed", "rigid", "none")

STRATA: tuple[str, ...] = ("curated", "bulk", "counterfactual", "contrast", "suite")

# How the image was made. A highlighted render shows the answer, which restricts the conditions.
# "placeholder": no image could be made (an excluded ``no_render`` row keeps the record schema with
# a flat grey stand-in, never shown to a model).
RENDER_KINDS: tuple[str, ...] = ("photo", "clean", "highlighted", "screenshot", "placeholder")

# Every reason a row can be kept but excluded from evaluation (paper sections 3.4 and 5).
EXCLUSION_TAGS: tuple[str, ...] = (
    "highlight_mismatch",
    "closed_pose_ambiguous",
    "box_projection_mismatch",
    "no_render",
    "instance_ambiguous",  # GAPartNet without bbox pickles: the target's mask could belong to another part
    "audit_excluded",  # the curated audit file excludes the target, with its reason (extras.*.audit_note)
)

# Informational flags about a row's target: kept and scored, but worth knowing (the card counts them).
FLAGS: tuple[str, ...] = (
    "box_projection_mismatch",  # curated GAPartNet: the projected 3-D box misses the mask; the mask's box is used
    "region_split",  # the target's mask is two or more pieces (mask_pieces); its box spans the gap
    "below_pixel_floor",  # the target's mask has fewer pixels than the source's documented floor
    "box_clamped",  # GUI: the annotated box runs past the frame; drawn clamped, scored as annotated (eval_bbox)
)


def normalize_action(raw: str | None) -> str:
    """Map a source's action string onto the vocabulary; unknown strings become ``none``."""
    if raw is None:
        return NO_ACTION
    text = raw.strip().lower().replace("_", "-").replace(" ", "-")
    aliases = {"w-grasp": "wrap-grasp", "wgrasp": "wrap-grasp", "lift": "lift-vertical"}
    text = aliases.get(text, text)
    return text if text in ACTIONS else NO_ACTION
