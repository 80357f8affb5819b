"""Counts of a GAPartNet conversion as plain data: per action, part class, object category, box check."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from groundbench.converters.gapartnet.records import ObjectResult


def summarize(rows: list[dict[str, Any]], stratum: str) -> dict[str, Any]:
    """Counts over the rows of one stratum (never pooled with another), keys sorted."""
    actions: Counter[str] = Counter()
    classes: Counter[str] = Counter()
    categories: Counter[str] = Counter()
    boxes: dict[str, Counter[str]] = {}
    flags: Counter[str] = Counter()
    for row in rows:
        flags.update(row.get("flags") or [])
        target = next(p for p in row["parts"] if p["part_id"] == row["target_part_id"])
        actions[row["target_action"]] += 1
        classes[target["category"]] += 1
        categories[row["object_category"]] += 1
        tags = row.get("exclusion_tags") or []
        outcome = "box_projection_mismatch" if "box_projection_mismatch" in tags else target["box_quality"]
        boxes.setdefault(target["category"], Counter())[outcome] += 1
    return {
        "stratum": stratum,
        "rows": len(rows),
        "excluded": sum(1 for r in rows if r["excluded"]),
        "objects": len({r["object_id"] for r in rows}),
        "per_action": dict(sorted(actions.items())),
        "per_part_class": dict(sorted(classes.items())),
        "per_object_category": dict(sorted(categories.items())),
        "box_check_per_part_class": {k: dict(sorted(v.items())) for k, v in sorted(boxes.items())},
        "per_flag": dict(sorted(flags.items())),
        "per_exclusion_tag": dict(sorted(Counter(t for r in rows for t in r.get("exclusion_tags") or []).items())),
    }


def format_summary(summary: dict[str, Any]) -> str:
    lines = [
        f"{summary['stratum']}: {summary['rows']} rows, {summary['excluded']} excluded, {summary['objects']} objects"
    ]
    for key in ("per_action", "per_part_class", "per_object_category", "per_flag", "per_exclusion_tag"):
        lines.append(f"  {key}: " + (", ".join(f"{k} {v}" for k, v in summary[key].items()) or "(none)"))
    for part_class, outcomes in summary["box_check_per_part_class"].items():
        lines.append(f"  boxes {part_class}: " + ", ".join(f"{k} {v}" for k, v in outcomes.items()))
    return "\n".join(lines)


def object_left_out(result: ObjectResult) -> dict[str, Any]:
    """One object's annotated GAParts without a bulk row (by reason) and its unassigned instance masks."""
    reasons: dict[str, list[str]] = {}
    for item in result.left_out:
        reasons.setdefault(str(item["reason"]), []).append(str(item["part_id"]))
    return {"parts": {k: v for k, v in sorted(reasons.items())}, "unassigned_instance_masks": result.unassigned}


def left_out_summary(per_object: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Per object and in total: never-visible parts, parts below the floor, unassigned instance masks."""
    totals: Counter[str] = Counter()
    for facts in per_object.values():
        for reason, parts in facts["parts"].items():
            totals[reason] += len(parts)
        totals["unassigned_instance_masks"] += facts["unassigned_instance_masks"]
    return {"objects": dict(sorted(per_object.items())), "totals": dict(sorted(totals.items()))}


def format_left_out(summary: dict[str, Any]) -> str:
    totals = summary["totals"]
    lines = ["left out of bulk: " + (", ".join(f"{k} {v}" for k, v in totals.items()) or "nothing")]
    for object_id, facts in summary["objects"].items():
        parts = "; ".join(f"{reason}: {', '.join(links)}" for reason, links in facts["parts"].items())
        masks = facts["unassigned_instance_masks"]
        tail = f"; unassigned instance masks {masks}" if masks else ""
        lines.append(f"  {object_id}: {parts or '(no part)'}{tail}")
    return "\n".join(lines)
