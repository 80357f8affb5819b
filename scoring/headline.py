"""The headline figures of a score report, one entry per (model, config, stratum, condition, metric), with the
baselines of the same rows beside them. Pure: report metrics in, entries out.

Headlines per condition (the paper's tables): GUI suites ``gui_success`` (the official rule; baseline: the
centre click); free-form answers ``free_form_action_accuracy``; every other condition ``action_accuracy``
(ungated, paper Table 1; baselines: the majority action and the text-only blind bound) and, where the
prompt did not supply the region, ``localization_hit_rate`` (baselines: the image centre and the best
constant point, at the same tau). Plus the unweighted mean of the PointerBench suites, which has no interval.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from groundbench.schemas.request_conditions import FREE_FORM, GUI, base_condition, is_text_only, supplies_region

MEAN_OF_SUITES = "gui_success_mean_of_suites"
# (column in the score report, label): every baseline a headline can carry.
BASELINES: tuple[tuple[str, str], ...] = (
    ("baseline_majority", "majority"),
    ("blind_bound", "blind bound"),
    ("baseline_image_center", "image centre"),
    ("baseline_best_constant", "best constant"),
    ("baseline_center_click", "centre click"),
    ("baseline_every_keyword", "every-keyword answer"),  # free form: an answer naming every action (scores 0)
)


def headline_metrics(condition: str) -> tuple[str, ...]:
    """The metrics a condition is reported by (see the module docstring)."""
    base = base_condition(condition)
    if base == GUI:
        return ("gui_success",)
    if base == FREE_FORM:
        return ("free_form_action_accuracy",)
    return ("action_accuracy",) if supplies_region(condition) else ("action_accuracy", "localization_hit_rate")


def hub_task_conditions(conditions: Iterable[str]) -> list[str]:
    """The conditions the Hub declares tasks for: the image conditions (text-only variants are controls)."""
    return [c for c in conditions if not is_text_only(c)]


@dataclass(frozen=True)
class Headline:
    model: str
    config: str
    stratum: str
    condition: str
    metric: str
    value: float | None
    ci_low: float | None
    ci_high: float | None
    n: int
    count: int | None
    baselines: dict[str, float]  # report column -> value, only the ones the entry carries
    tau: float | None = None
    ambiguous: int | None = None  # free form: answers naming several actions (failures)

    @property
    def row_key(self) -> tuple[str, str, str, str]:
        return (self.config, self.stratum, self.condition, self.metric)

    @property
    def includes_baseline(self) -> bool:
        """The interval contains a baseline of the same rows: the model is not shown to beat it."""
        if self.ci_low is None or self.ci_high is None:
            return False
        return any(self.ci_low <= value <= self.ci_high for value in self.baselines.values())


def _float(value: Any) -> float | None:
    return None if value is None else float(value)


def headlines(metrics: Iterable[Mapping[str, Any]]) -> list[Headline]:
    """The headline entries of a report's metrics, in report order (breakdowns, with a ``detail``, left out)."""
    out = []
    for m in metrics:
        condition = str(m["condition"])
        wanted = m["metric"] == MEAN_OF_SUITES or (m["metric"] in headline_metrics(condition) and not m.get("detail"))
        if not wanted:
            continue
        out.append(
            Headline(
                model=str(m["model"]),
                config=str(m["config"]),
                stratum=str(m["stratum"]),
                condition=condition,
                metric=str(m["metric"]),
                value=_float(m.get("value")),
                ci_low=_float(m.get("ci_low")),
                ci_high=_float(m.get("ci_high")),
                n=int(m["n"]),
                count=None if m.get("count") is None else int(m["count"]),
                baselines={k: float(m[k]) for k, _ in BASELINES if m.get(k) is not None},
                tau=_float(m.get("tau")),
                ambiguous=None if m.get("ambiguous") is None else int(m["ambiguous"]),
            )
        )
    return out


def breakdown(metrics: Iterable[Mapping[str, Any]], metric: str) -> list[Mapping[str, Any]]:
    """Every entry of one breakdown metric (e.g. ``gui_success_by_target_type``), in report order."""
    return [m for m in metrics if m["metric"] == metric and m.get("detail") is not None]
