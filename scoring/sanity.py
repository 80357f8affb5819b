"""``groundbench score --sanity CONFIG``: feed the scorer answers whose scores are known in advance.

- oracle: the target's own part id, action, point and box (as a bare JSON response) must score 1.0
  wherever a score is defined (0.0 shortcut rate, 0.0 mean distance), and part selection must be
  null, not 1.0, where it is not measurable;
- constant: the majority action and nothing else must score *exactly* the majority baseline (and
  the baseline printed beside it must equal the ``baselines`` config's, when given);
- centre click (GUI): a predictions file answering the frame's centre point on every row (box rows
  included) must score exactly the centre-click baseline, in ``score`` and in the ``baselines`` config;
- best constant: answering the best constant point on every row must score exactly the
  best-constant rate printed beside the hit rate at tau (and the threshold-free region figure's);
- coverage: a predictions file answering one row only (the oracle's answer) must report coverage
  1/n and a success rate of at most 1/n;
- geometry: where the prompt did not supply the region, the target's own point and box without
  its name, and its box alone, must select exactly the target (overlapping projected boxes must
  not hand the target's own pixel to a neighbour);
- echo: under every condition that supplies the region, copying the supplied point and box must be
  reported as an echo (``echo_rate`` 1.0, localization figures labelled ``measures = echo``), and
  the copied box must not be credited as a part selection.

Any deviation is returned as one line; the CLI exits non-zero when there is one.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from groundbench.schemas.request_conditions import (
    FREE_FORM,
    GUI,
    TASK_FREE,
    base_condition,
    conditions_of,
    supplies_region,
)
from groundbench.scoring import osworld_g
from groundbench.scoring.baselines import localization_tau, majority, target_part, target_point
from groundbench.scoring.gui_rules import centre_record
from groundbench.scoring.localization import best_constant_at_tau, best_constant_in_region, constant_point
from groundbench.scoring.metrics import Scored, keyword_table, score, selection_measurable
from groundbench.scoring.parse import FREE_TEXT, MISSING, Answer, parse_response

Row = Mapping[str, Any]
Emitter = Callable[[Row, str], Answer]


def _json(fields: dict[str, Any]) -> Answer:
    return parse_response(json.dumps(fields))


def oracle(row: Row, condition: str) -> Answer:
    part = target_part(row) or {}
    if base_condition(condition) == FREE_FORM:
        words = keyword_table()["keywords"].get(row["target_action"], [])
        return Answer(status=FREE_TEXT, text=" ".join(str(w).rstrip("*") for w in words[:1]))
    if base_condition(condition) == GUI:
        if osworld_g.is_osworld_g(row):  # polygons and refusal rows: a click the release's rule credits
            solving = osworld_g.solving_point(row)
            box = part.get("bbox_xyxy") or [0.0, 0.0, 0.0, 0.0]
            point = solving or ((box[0] + box[2]) / 2.0, (box[1] + box[3]) / 2.0)
            return _json({"point": list(point)})
        if row.get("answer_type") == "box":
            return _json({"box": part["bbox_xyxy"]})
        box = part["bbox_xyxy"]
        return _json({"point": [(box[0] + box[2]) / 2.0, (box[1] + box[3]) / 2.0]})
    return _json(
        {
            "part": row["target_part_id"],
            "action": row["target_action"],
            "point": part["point_xy"],
            "box": part["bbox_xyxy"],
        }
    )


def geometry_oracle(row: Row, condition: str) -> Answer:
    part = target_part(row) or {}
    return _json({"action": row["target_action"], "point": part["point_xy"], "box": part["bbox_xyxy"]})


def box_oracle(row: Row, condition: str) -> Answer:
    part = target_part(row) or {}
    return _json({"action": row["target_action"], "box": part["bbox_xyxy"]})


def echo(row: Row, condition: str) -> Answer:
    part = target_part(row) or {}
    return _json({"point": part["point_xy"], "box": part["bbox_xyxy"]})


def _find(metrics: Sequence[Mapping[str, Any]], metric: str) -> Mapping[str, Any] | None:
    return next((m for m in metrics if m["metric"] == metric), None)


class _Check:
    def __init__(self, config: str) -> None:
        self.config = config
        self.deviations: list[str] = []

    def equal(self, where: str, metrics: Sequence[Mapping[str, Any]], metric: str, field: str, expected: Any) -> None:
        entry = _find(metrics, metric)
        got = None if entry is None else entry.get(field)
        if entry is None or got != expected:
            self.deviations.append(f"{self.config} {where}: {metric}.{field} expected {expected!r}, got {got!r}")


def _run(config: str, rows: Sequence[Row], condition: str, emitter: Emitter, model: str) -> list[dict[str, Any]]:
    items = [Scored(model, config, condition, r, emitter(r, condition)) for r in rows]
    return score(items, resamples=20)


def _coverage_checks(check: _Check, config: str, condition: str, rows: Sequence[Row]) -> None:
    """One oracle answer, every other expected row missing: coverage 1/n, success at most 1/n."""
    first, *rest = sorted(rows, key=lambda r: r["example_id"])
    items = [Scored("one", config, condition, first, oracle(first, condition))]
    items += [Scored("one", config, condition, r, Answer(status=MISSING)) for r in rest]
    m = score(items, resamples=20)
    n = len(rows)
    where = f"{condition} coverage (one prediction of {n})"
    check.equal(where, m, "coverage", "value", 1 / n)
    base = base_condition(condition)
    headline = "gui_success" if base == GUI else "free_form_action_accuracy" if base == FREE_FORM else "action_accuracy"
    entry = _find(m, headline)
    if entry is None or entry["n"] != n or entry["value"] is None or entry["value"] > 1 / n:
        got = None if entry is None else (entry["value"], entry["n"])
        check.deviations.append(f"{config} {where}: {headline} expected at most 1/{n} over n = {n}, got {got!r}")


def sanity(config: str, rows: Sequence[Row], baselines: Sequence[Mapping[str, Any]] = ()) -> tuple[list[str], int]:
    """(deviations, number of checks' groups run) for one config's rows."""
    check = _Check(config)
    conditions = sorted({c for r in rows for c in conditions_of(r)})
    groups = 0
    for condition in conditions:
        scored_rows = [r for r in rows if condition in conditions_of(r)]
        by_stratum: dict[str, list[Row]] = {}
        for r in scored_rows:
            by_stratum.setdefault(str(r["stratum"]), []).append(r)
        for stratum, members in sorted(by_stratum.items()):
            groups += 1
            _oracle_checks(check, config, condition, members)
            if base_condition(condition) not in (FREE_FORM, GUI) and not supplies_region(condition):
                _geometry_checks(check, config, condition, members)
            _constant_checks(check, config, stratum, condition, members, baselines)
            _coverage_checks(check, config, condition, members)
            if base_condition(condition) not in (FREE_FORM, GUI):
                _best_constant_checks(check, config, stratum, condition, members, baselines)
            if supplies_region(condition):
                _echo_checks(check, config, condition, members)
    return check.deviations, groups


def _oracle_checks(check: _Check, config: str, condition: str, rows: Sequence[Row]) -> None:
    m = _run(config, rows, condition, oracle, "oracle")
    where = f"{condition} oracle"
    base = base_condition(condition)
    if base != FREE_FORM:
        check.equal(where, m, "strict_parse_rate", "value", 1.0)
    if base == GUI:
        # Every row is solvable but an OSWorld-G two-vertex polygon, which nothing is inside (docs/scoring.md).
        solvable = [not osworld_g.is_osworld_g(r) or osworld_g.solving_point(r) is not None for r in rows]
        check.equal(where, m, "gui_success", "value", sum(solvable) / len(rows))
        return
    if base == FREE_FORM:
        check.equal(where, m, "free_form_action_accuracy", "value", 1.0)
        return
    check.equal(where, m, "action_accuracy", "value", 1.0)
    defined = all(r["target_action"] != "none" for r in rows)
    if defined or base not in TASK_FREE:
        check.equal(where, m, "action_accuracy_gated", "value", 1.0)
    expected_selection = 1.0 if selection_measurable(condition) else None
    if defined or base not in TASK_FREE:
        check.equal(where, m, "part_selection_accuracy", "value", expected_selection)
    check.equal(where, m, "exact_target_rate", "value", expected_selection)
    check.equal(where, m, "action_accuracy_given_exact_part_named", "value", 1.0)
    if all(target_point(r["parts"], r["target_part_id"]) for r in rows):
        check.equal(where, m, "localization_hit_rate", "value", 1.0)
        check.equal(where, m, "mean_center_distance", "value", 0.0)
        check.equal(where, m, "action_accuracy_given_point_within_tau", "value", 1.0)
    compliance = _find(m, "compliance")
    if compliance is not None and compliance["n"]:
        check.equal(where, m, "compliance", "value", 1.0)
        check.equal(where, m, "shortcut_rate", "value", 0.0)


def _geometry_checks(check: _Check, config: str, condition: str, rows: Sequence[Row]) -> None:
    defined = all(r["target_action"] != "none" for r in rows)
    for emitter, name in ((geometry_oracle, "point+box"), (box_oracle, "box")):
        m = _run(config, rows, condition, emitter, name)
        where = f"{condition} geometry oracle ({name}, no part name)"
        check.equal(where, m, "exact_target_rate", "value", 1.0)
        if defined or base_condition(condition) not in TASK_FREE:
            check.equal(where, m, "part_selection_accuracy", "value", 1.0)


def _constant_checks(
    check: _Check,
    config: str,
    stratum: str,
    condition: str,
    rows: Sequence[Row],
    baselines: Sequence[Mapping[str, Any]],
) -> None:
    base = base_condition(condition)
    where = f"{condition} constant"
    if base == GUI:
        # Every row, box rows included: the one centre-click definition is the official rule's verdict.
        m = _run(config, rows, condition, lambda r, c: _json(centre_record(r)), "centre")
        entry = _find(m, "gui_success")
        expected = None if entry is None else entry["baseline_center_click"]
        check.equal(where + " (centre click on every row)", m, "gui_success", "value", expected)
        _against_config(check, config, stratum, condition, "center_click", rows, baselines)
        return
    if base == FREE_FORM:
        return
    action, count, n = majority(r["target_action"] for r in rows)
    m = _run(config, rows, condition, lambda r, c: _json({"action": action}), "constant")
    check.equal(where, m, "action_accuracy", "value", count / n)
    check.equal(where, m, "action_accuracy", "baseline_majority", count / n)
    entry = _find(m, "action_accuracy")
    for baseline, field in (
        ("majority_action", "baseline_majority"),
        ("text_only_blind_bound", "blind_bound"),
        ("text_only_blind_estimate_loo", "blind_estimate_loo"),
    ):
        expected = _config_value(config, stratum, condition, baseline, baselines)
        if expected is not None and entry is not None and entry[field] != expected:
            check.deviations.append(f"{config} {where}: {field} {entry[field]!r} != baselines config {expected!r}")


def _constant_emitter(c: tuple[float, float]) -> Emitter:
    def emit(row: Row, condition: str) -> Answer:
        return _json({"point": list(constant_point(row, c))})

    return emit


def _best_constant_checks(
    check: _Check,
    config: str,
    stratum: str,
    condition: str,
    rows: Sequence[Row],
    baselines: Sequence[Mapping[str, Any]],
) -> None:
    tau = localization_tau(rows)
    figures = (
        ("localization_hit_rate", "best_constant_hit_rate_at_tau", best_constant_at_tau(rows, tau)[1]),
        ("localization_in_target_region", "best_constant_in_target_region", best_constant_in_region(rows)[1]),
    )
    for metric, baseline, c in figures:
        if c is None:
            continue
        m = _run(config, rows, condition, _constant_emitter(c), "best")
        entry = _find(m, metric)
        expected = None if entry is None else entry["baseline_best_constant"]
        check.equal(f"{condition} best constant point", m, metric, "value", expected)
        stored = _config_value(config, stratum, condition, baseline, baselines)
        if stored is not None and expected != stored:
            check.deviations.append(f"{config} {condition}: {baseline} {expected!r} != baselines config {stored!r}")


def _config_value(
    config: str, stratum: str, condition: str, baseline: str, baselines: Sequence[Mapping[str, Any]]
) -> float | None:
    for b in baselines:
        if (b["config"], b["stratum"], b["condition"], b["baseline"]) == (config, stratum, condition, baseline):
            return b["value"]
    return None


def _against_config(
    check: _Check,
    config: str,
    stratum: str,
    condition: str,
    baseline: str,
    rows: Sequence[Row],
    baselines: Sequence[Mapping[str, Any]],
) -> None:
    expected = _config_value(config, stratum, condition, baseline, baselines)
    if expected is None:
        return
    m = _run(config, rows, condition, oracle, "oracle")
    entry = _find(m, "gui_success")
    if entry is None or entry["baseline_center_click"] != expected:
        check.deviations.append(f"{config} {condition}: center-click baseline differs from the baselines config")


def _echo_checks(check: _Check, config: str, condition: str, rows: Sequence[Row]) -> None:
    m = _run(config, rows, condition, echo, "echo")
    where = f"{condition} echo"
    check.equal(where, m, "echo_rate", "value", 1.0)
    check.equal(where, m, "localization_hit_rate", "measures", "echo")
    check.equal(where, m, "mean_center_distance", "measures", "echo")
    # The copied box is never credited as a selection: null where not measurable, else by name only.
    check.equal(where, m, "part_selection_accuracy", "value", None if not selection_measurable(condition) else 0.0)
