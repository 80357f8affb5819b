"""Counts of a GAPartNet conversion as plain data: per action, part class, object category, box check."""

from __future__ import annotations

from collections import Counter
from typing import Any


def summarize(rows: list[dict[str, Any]], stratum: str) -> dict[str, Any]:
    """Counts over the rows of one stratum (never pooled with another), keys sorted."""
    actions: Counter[str] = Counter()
    classes: Counter[str] = Counter()
    categories: Counter[str] = Counter()
    boxes: dict[str, Counter[str]] = {}
    for row in rows:
        target = next(p for p in row["parts"] if p["part_id"] == row["target_part_id"])
        actions[row["target_action"]] += 1
        classes[target["category"]] += 1
        categories[row["object_category"]] += 1
        outcome = "box_projection_mismatch" if row["excluded"] else target["box_quality"]
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
    }


def format_summary(summary: dict[str, Any]) -> str:
    lines = [
        f"{summary['stratum']}: {summary['rows']} rows, {summary['excluded']} excluded, {summary['objects']} objects"
    ]
    for key in ("per_action", "per_part_class", "per_object_category"):
        lines.append(f"  {key}: " + ", ".join(f"{k} {v}" for k, v in summary[key].items()))
    for part_class, outcomes in summary["box_check_per_part_class"].items():
        lines.append(f"  boxes {part_class}: " + ", ".join(f"{k} {v}" for k, v in outcomes.items()))
    return "\n".join(lines)
