"""What every re-ask row shares: the same object asked about another part (paper sections 3.3, 3.4).

A re-ask keeps an image and its candidate parts and declares one part the requested target; the
original target and its action stay in the row (``original_target_part_id``/``original_action``)
so an answer with the original action is a visible shortcut, not a hidden success. These pure
functions name the pair, describe the transition and write the ``extras.reask`` struct.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from groundbench.converters.gapartnet.version import CONVERTER

REASK_CONVERTER = f"{CONVERTER}.reask"
REASK_VERSION = "1.0.0"
ARROW = "→"

# Exclusion tags of the re-ask constructions (schemas/vocab.py EXCLUSION_TAGS).
HIGHLIGHT_MISMATCH = "highlight_mismatch"
CLOSED_POSE_AMBIGUOUS = "closed_pose_ambiguous"
BOX_PROJECTION_MISMATCH = "box_projection_mismatch"
NO_RENDER = "no_render"
INSTANCE_AMBIGUOUS = "instance_ambiguous"
TAG_ORDER = (HIGHLIGHT_MISMATCH, NO_RENDER, CLOSED_POSE_AMBIGUOUS, BOX_PROJECTION_MISMATCH, INSTANCE_AMBIGUOUS)

# How the row's image came to be.
SOURCE_ROW = "source_row"  # the source row's image, bytes unchanged (counterfactual)
RERENDERED_CLEAN = "rerendered_clean"  # a highlighted bulk view rendered again, clean, at its pose
RENDERED_CLEAN = "rendered_clean"  # a raw object rendered clean for the first time (rest pose)
HIGHLIGHTED_ONLY = "highlighted_only"  # the clean re-render failed: the original target's highlight
PLACEHOLDER = "placeholder"  # no image could be made


def pair_id(object_id: str, original: str, requested: str) -> str:
    return f"{object_id}/{original}->{requested}"


def transition(original_action: str, requested_action: str) -> str:
    return f"{original_action}{ARROW}{requested_action}"


def ordered_tags(tags: set[str]) -> list[str]:
    return [t for t in TAG_ORDER if t in tags]


@dataclass(frozen=True)
class ReaskFacts:
    construction: str
    object_id: str
    original: str
    original_action: str
    requested: str
    requested_action: str
    source_example_id: str | None
    image_origin: str
    render_error: str | None = None
    requested_visible: bool = True
    requested_mask_area: int | None = None
    mask_min_pixels: int | None = None

    def extras(self) -> dict[str, object]:
        return {
            "construction": self.construction,
            "object_id": self.object_id,
            "pair_id": pair_id(self.object_id, self.original, self.requested),
            "informative": self.original_action != self.requested_action,
            "transition": transition(self.original_action, self.requested_action),
            "source_example_id": self.source_example_id,
            "image_origin": self.image_origin,
            "render_error": self.render_error,
            "requested_visible": self.requested_visible,
            "requested_mask_area": self.requested_mask_area,
            "mask_min_pixels": self.mask_min_pixels,
        }


def retarget(record: dict[str, Any], facts: ReaskFacts, example_id: str, tags: list[str]) -> dict[str, Any]:
    """The record re-asked: ``facts.requested`` becomes the target, the original is kept."""
    out = dict(record)
    out["example_id"] = example_id
    out["stratum"] = facts.construction
    out["target_part_id"] = facts.requested
    out["target_action"] = facts.requested_action
    out["original_target_part_id"] = facts.original
    out["original_action"] = facts.original_action
    out["exclusion_tags"] = tags
    out["excluded"] = bool(tags)
    out["baselines"] = None  # baked per row by `groundbench bake` (the target changed)
    extras = dict(record["extras"])
    extras["reask"] = facts.extras()
    out["extras"] = extras
    return out


def light(record: dict[str, Any]) -> dict[str, Any]:
    """What the summary needs from a row (never the image)."""
    reask = record["extras"]["reask"]
    return {
        "object_id": record["object_id"],
        "excluded": record["excluded"],
        "exclusion_tags": list(record["exclusion_tags"]),
        "informative": reask["informative"],
        "transition": reask["transition"],
        "image_origin": reask["image_origin"],
    }


def _sorted_counts(items: list[str]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for item in items:
        counts[item] = counts.get(item, 0) + 1
    return dict(sorted(counts.items()))


def summarize_reask(rows: list[dict[str, Any]], construction: str) -> dict[str, Any]:
    """Counts over one re-ask config (keys sorted); the frozen pool is its non-excluded rows."""
    kept = [r for r in rows if not r["excluded"]]
    informative = sum(1 for r in rows if r["informative"])
    return {
        "construction": construction,
        "rows": len(rows),
        "excluded": len(rows) - len(kept),
        "objects": len({r["object_id"] for r in rows}),
        "rows_per_object": _sorted_counts([str(r["object_id"]) for r in rows]),
        "informative": informative,
        "informative_share": informative / len(rows) if rows else None,
        "by_exclusion_tag": _sorted_counts([str(t) for r in rows for t in r["exclusion_tags"]]),
        "by_image_origin": _sorted_counts([str(r["image_origin"]) for r in rows]),
        "transitions": _sorted_counts([str(r["transition"]) for r in rows]),
        "pool": {
            "objects": len({r["object_id"] for r in kept}),
            "pairs": len(kept),
            "transitions": _sorted_counts([str(r["transition"]) for r in kept]),
        },
    }


def format_reask(summary: dict[str, Any]) -> str:
    pool = summary["pool"]
    share = summary["informative_share"]
    lines = [
        f"{summary['construction']}: {summary['rows']} rows from {summary['objects']} objects, "
        f"{summary['excluded']} excluded; informative {summary['informative']}"
        + ("" if share is None else f" ({share:.1%})"),
        f"  frozen pool (rows not excluded): {pool['objects']} objects, {pool['pairs']} pairs",
    ]
    for key in ("rows_per_object", "by_exclusion_tag", "by_image_origin", "transitions"):
        values = summary[key]
        lines.append(f"  {key}: " + (", ".join(f"{k} {v}" for k, v in values.items()) or "(none)"))
    return "\n".join(lines)
