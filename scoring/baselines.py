"""Baselines baked into the data. Every definition lives here; the card and ``groundbench score`` print them.

Per row (section 3.6 of the paper): the distance from the target's point to the image centre and
to the object's own centre (the centre of its box), each divided by the image diagonal, so a model
that points at "the middle" or "roughly at the object" can be compared with the same row.

Per (config, stratum, condition), over the rows being scored (not excluded, condition valid), the
``baselines`` config holds:

- ``majority_action``: the share of the most common target action (a constant answer that ignores
  the image); ties go to the alphabetically first action, named in ``detail``.
- ``text_only_blind_bound``: the best accuracy any policy can reach that sees only the text the
  condition supplies (paper 003, Theorem 5, specialised to this design): group the rows by the
  tuple of *categorical* fields the condition supplies (``scoring.conditions.SUPPLIED_TEXT_KEYS``:
  object category; target part id and category; joint type), and add up the largest action count
  of every group, divided by N. Coordinates and axes are never keys: they are unique numbers, and a
  lookup on them would only memorise the data. With no keys (image_only) it is the majority share.
  ``leakage`` is true exactly when the bound is 1.00 (every key determines the action), computed
  over these rows, never asserted.
- ``localization_tau``: the data-derived hit threshold (below), with ``image_center_hit_rate_at_tau``
  and ``object_center_hit_rate_at_tau`` (constant answers: the image centre, the object's box
  centre) and the mean distances of both constant answers.
- GUI suites (``condition = gui``): ``center_click``, the success rate of clicking the image centre
  (a point, scored point-in-box with edges included, on every row whatever its answer type).

tau. Each target centre is taken as its offset from its own image centre in units of its own image
diagonal, o_i = ((x_i - W_i/2) / d_i, (y_i - H_i/2) / d_i); with m the mean offset,
tau = median_i |o_i - m|. Why: the paper asks for a threshold derived from the spread of the
evaluated target centres so that an answer that ignores the image cannot look good (a fixed 0.15
let a constant answer score 0.929). By construction of the median, a fixed point placed at the
targets' own mean position hits at most about half of them at tau, and the blind image-centre
answer is printed beside every hit rate so any residual looseness is visible in the same row. The
median (not a mean) keeps a few outlying targets from loosening it. Distances are compared with <=.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from statistics import median
from typing import Any

import pyarrow as pa

from groundbench.schemas.features import FEATURES
from groundbench.schemas.vocab import NO_ACTION
from groundbench.scoring.conditions import GUI, conditions_of, row_allows, supplied_keys

Row = Mapping[str, Any]


def _distance(a: tuple[float, float], b: tuple[float, float], diagonal: float) -> float:
    return math.hypot(a[0] - b[0], a[1] - b[1]) / diagonal


def row_baselines(
    width: int, height: int, target_point: tuple[float, float], object_box: list[float] | None
) -> dict[str, float | None]:
    diagonal = math.hypot(width, height)
    image_centre = (width / 2.0, height / 2.0)
    object_centre = None
    if object_box is not None:
        object_centre = ((object_box[0] + object_box[2]) / 2.0, (object_box[1] + object_box[3]) / 2.0)
    return {
        "image_center_distance": _distance(target_point, image_centre, diagonal),
        "object_center_distance": None if object_centre is None else _distance(target_point, object_centre, diagonal),
    }


def target_point(parts: list[dict[str, object]], target_part_id: str) -> tuple[float, float] | None:
    """The target part's point; None when the target is missing (validation then rejects the row)."""
    for part in parts:
        point = part["point_xy"]
        if part["part_id"] == target_part_id and isinstance(point, list):
            return (float(point[0]), float(point[1]))
    return None


def bake_row_baselines(batch: pa.RecordBatch) -> pa.RecordBatch:
    """Replace the ``baselines`` column of a batch with freshly computed per-row values."""
    columns = batch.select(["width", "height", "parts", "target_part_id", "object_bbox_xyxy"]).to_pylist()
    values: list[dict[str, float | None] | None] = []
    for row in columns:
        point = target_point(row["parts"], row["target_part_id"])
        values.append(
            None if point is None else row_baselines(row["width"], row["height"], point, row["object_bbox_xyxy"])
        )
    index = batch.schema.get_field_index("baselines")
    array = pa.array(values, type=FEATURES.arrow_schema.field("baselines").type)
    return batch.set_column(index, batch.schema.field("baselines"), array)


# --- aggregate baselines (one row per config, stratum, condition, baseline) ---------------------


def target_part(row: Row) -> Mapping[str, Any] | None:
    return next((p for p in row["parts"] if p["part_id"] == row["target_part_id"]), None)


def text_key(row: Row, keys: Sequence[str]) -> tuple[Any, ...]:
    """The categorical text a condition hands the model about this row, as a lookup key."""
    part = target_part(row) or {}
    values = {
        "object_category": row.get("object_category"),
        "target_part_id": row.get("target_part_id"),
        "target_category": part.get("category"),
        "target_joint_type": part.get("joint_type"),
    }
    return tuple(values[k] for k in keys)


def majority(actions: Iterable[str]) -> tuple[str, int, int]:
    """(majority action, its count, N); ties go to the alphabetically first action."""
    counts = Counter(actions)
    n = sum(counts.values())
    if not n:
        return NO_ACTION, 0, 0
    action, count = min(counts.items(), key=lambda item: (-item[1], item[0]))
    return action, count, n


def blind_bound(rows: Sequence[Row], keys: Sequence[str]) -> tuple[int, int]:
    """(rows a best text-only lookup gets right, N): per key, the largest action count."""
    groups: dict[tuple[Any, ...], Counter[str]] = defaultdict(Counter)
    for row in rows:
        groups[text_key(row, keys)][row["target_action"]] += 1
    return sum(max(c.values()) for c in groups.values()), len(rows)


def centre_offset(row: Row) -> tuple[float, float] | None:
    point = target_point(row["parts"], row["target_part_id"])
    if point is None:
        return None
    diagonal = math.hypot(row["width"], row["height"])
    return ((point[0] - row["width"] / 2.0) / diagonal, (point[1] - row["height"] / 2.0) / diagonal)


def localization_tau(rows: Sequence[Row]) -> float | None:
    """tau = median distance of the target-centre offsets from their mean (module docstring)."""
    offsets = [o for o in (centre_offset(r) for r in rows) if o is not None]
    if not offsets:
        return None
    mx = sum(o[0] for o in offsets) / len(offsets)
    my = sum(o[1] for o in offsets) / len(offsets)
    return float(median(math.hypot(o[0] - mx, o[1] - my) for o in offsets))


def rate(hits: int, n: int) -> float | None:
    return hits / n if n else None


def point_in_box(point: Sequence[float], box: Sequence[float]) -> bool:
    """Edges included (every GUI scorer does so)."""
    x0, x1 = sorted((box[0], box[2]))
    y0, y1 = sorted((box[1], box[3]))
    return x0 <= point[0] <= x1 and y0 <= point[1] <= y1


def center_click_hit(row: Row) -> bool:
    part = target_part(row)
    return part is not None and point_in_box((row["width"] / 2.0, row["height"] / 2.0), part["bbox_xyxy"])


def _entry(config: str, stratum: str, condition: str, baseline: str, value: float | None, n: int, **extra: Any) -> dict:
    return {
        "baseline_id": f"{config}/{stratum}/{condition}/{baseline}",
        "config": config,
        "stratum": stratum,
        "condition": condition,
        "baseline": baseline,
        "value": value,
        "n": n,
        "leakage": extra.get("leakage"),
        "tau": extra.get("tau"),
        "supplied_keys": list(extra.get("supplied_keys", [])),
        "detail": extra.get("detail"),
    }


def condition_baselines(config: str, stratum: str, condition: str, rows: Sequence[Row]) -> list[dict]:
    """The baseline rows of one (config, stratum, condition) over the rows being scored."""
    if condition == GUI:
        hits = sum(center_click_hit(r) for r in rows)
        return [_entry(config, stratum, condition, "center_click", rate(hits, len(rows)), len(rows))]
    action, count, n = majority(r["target_action"] for r in rows)
    keys = supplied_keys(condition)
    correct, _ = blind_bound(rows, keys)
    tau = localization_tau(rows)
    image_d = [r["baselines"]["image_center_distance"] for r in rows if r["baselines"]]
    object_d = [
        r["baselines"]["object_center_distance"]
        for r in rows
        if r["baselines"] and r["baselines"]["object_center_distance"] is not None
    ]
    entries = [
        _entry(config, stratum, condition, "majority_action", rate(count, n), n, detail=action),
        _entry(
            config,
            stratum,
            condition,
            "text_only_blind_bound",
            rate(correct, n),
            n,
            leakage=bool(n) and correct == n,
            supplied_keys=keys,
            detail=f"{correct}/{n}",
        ),
        _entry(config, stratum, condition, "localization_tau", tau, len(image_d), tau=tau),
    ]
    for name, distances in (("image_center", image_d), ("object_center", object_d)):
        hits = 0 if tau is None else sum(d <= tau for d in distances)
        entries.append(
            _entry(
                config,
                stratum,
                condition,
                f"{name}_hit_rate_at_tau",
                rate(hits, len(distances)),
                len(distances),
                tau=tau,
            )
        )
        mean = sum(distances) / len(distances) if distances else None
        entries.append(_entry(config, stratum, condition, f"{name}_mean_distance", mean, len(distances)))
    return entries


def scored_rows(rows: Sequence[Row], condition: str) -> list[Row]:
    return [r for r in rows if row_allows(r, condition)]


def config_baselines(config: str, rows: Sequence[Row]) -> list[dict]:
    """Every baseline row of one config: per stratum, per condition any of its rows allows."""
    out: list[dict] = []
    by_stratum: dict[str, list[Row]] = defaultdict(list)
    for row in rows:
        by_stratum[row["stratum"]].append(row)
    for stratum in sorted(by_stratum):
        members = by_stratum[stratum]
        conditions = sorted({c for r in members for c in conditions_of(r)})
        for condition in conditions:
            out.extend(condition_baselines(config, stratum, condition, scored_rows(members, condition)))
    return sorted(out, key=lambda e: e["baseline_id"])
