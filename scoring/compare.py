"""``groundbench compare A.jsonl B.jsonl``: the paired difference between two prediction files on the same rows.

For every (config, condition) both files score, each expected row gets one outcome per file (a
missing prediction is a failure, as in ``score``); the difference A - B is the mean over those rows
of the per-row differences, with a seeded bootstrap interval that resamples objects (screenshots for
GUI suites) and keeps each row's two outcomes together (seed 001: a paired scene-group bootstrap).
Compared per row: GUI ``gui_success`` (official rule, strict answers); otherwise ``action_accuracy``,
``exact_target_rate`` (where part selection is measurable) and ``localization_hit_rate`` (tau over
the compared rows).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import Any

from groundbench.schemas.request_conditions import GUI, base_condition
from groundbench.scoring.baselines import localization_tau
from groundbench.scoring.bootstrap import cluster_of, rate_interval
from groundbench.scoring.metrics import (
    Scored,
    gui_success,
    is_exact_target,
    selected_parts,
    selection_measurable,
    target_distance,
)

Outcome = Callable[[Scored, float | None], bool]


def _within(s: Scored, tau: float | None) -> bool:
    d = target_distance(s.answer, s.row)
    return d is not None and tau is not None and d <= tau


def outcomes_for(condition: str) -> dict[str, Outcome]:
    if base_condition(condition) == GUI:
        return {"gui_success": lambda s, tau: gui_success(s.answer, s.row)}
    out: dict[str, Outcome] = {"action_accuracy": lambda s, tau: s.answer.action == s.row["target_action"]}
    if selection_measurable(condition):
        out["exact_target_rate"] = lambda s, tau: is_exact_target(selected_parts(s.answer, s.row, s.condition), s.row)
    out["localization_hit_rate"] = _within
    return out


def _by_group(items: Sequence[Scored]) -> dict[tuple[str, str], dict[str, Scored]]:
    groups: dict[tuple[str, str], dict[str, Scored]] = defaultdict(dict)
    for s in items:
        groups[(s.config, s.condition)][s.row["example_id"]] = s
    return groups


def compare(a: Sequence[Scored], b: Sequence[Scored], seed: int, resamples: int) -> list[dict[str, Any]]:
    """One entry per (config, condition, metric) both sides score: value_a, value_b, difference and its interval."""
    left, right = _by_group(a), _by_group(b)
    out: list[dict[str, Any]] = []
    for key in sorted(set(left) & set(right)):
        config, condition = key
        ids = sorted(set(left[key]) & set(right[key]))
        tau = localization_tau([left[key][i].row for i in ids])
        for metric, outcome in outcomes_for(condition).items():
            pairs = [
                (cluster_of(left[key][i].row), outcome(left[key][i], tau), outcome(right[key][i], tau)) for i in ids
            ]
            hits_a = sum(x for _, x, _ in pairs)
            hits_b = sum(y for _, _, y in pairs)
            low, high = rate_interval(((c, float(x) - float(y)) for c, x, y in pairs), seed, resamples)
            n = len(pairs)
            out.append(
                {
                    "config": config,
                    "condition": condition,
                    "metric": metric,
                    "n": n,
                    "value_a": hits_a / n if n else None,
                    "value_b": hits_b / n if n else None,
                    "difference": (hits_a - hits_b) / n if n else None,
                    "ci_low": low,
                    "ci_high": high,
                }
            )
    return out
