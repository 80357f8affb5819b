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
  It is a supremum over every input-blind policy on these rows, the constant majority answer among
  them, so it is never below ``majority_action``: the one figure labelled a bound.
- ``text_only_blind_estimate_loo``: an *estimate*, reported beside the bound, of what a text-only
  lookup learnt on the other objects scores on a held-out one (leave one object out). It backs off
  from the full key to the target part's category alone (where the condition supplies it) to the
  majority action, each learnt without the held-out object: full keys carry the object's category
  and the part's id, which are rarely seen again, while the part's category is. Not a bound: the
  majority learnt without an object can miss where the in-sample majority hits, so it can fall
  below ``majority_action``. ``singleton_keys``: full keys that occur on one row only (value =
  their count, ``detail`` = "singletons/keys"). A high in-sample bound whose keys are all singletons
  is the lookup memorising rows; the estimate says how much of it carries to an unseen object.
  ``leakage`` (on the bound's row) follows the GroundBench paper, section 4.1: a condition that hands
  the model the target part's category leaks when that category determines the answer across
  objects, i.e. over the rows being scored every target category has one action and at least one
  category occurs on two or more objects (with every category on one object only there is no
  cross-object evidence: a lookup would only be memorising objects). A condition that does not
  reveal the category never leaks this way. This is independent of the full-key singletons: on
  curated GAPartNet ``part_named`` every full key is a singleton, yet hinge_door -> pull and
  slider_button -> push hold across objects, and the flag says so (paper Table 1). Computed, never
  asserted.
- ``localization_tau``: the data-derived hit threshold (below), with ``image_center_hit_rate_at_tau``,
  ``object_center_hit_rate_at_tau`` and ``best_constant_hit_rate_at_tau`` (constant answers: the
  image centre, the object's box centre, and the one constant point that hits the most targets at
  tau, ``scoring.localization``) and the mean distances of the first two.
- ``*_in_target_region``: the threshold-free figure, the same three constant answers' points inside
  the target's own region: its mask (``parts.mask_rle``) where the row has one, else its box
  (``scoring.localization.in_target_region``); ``detail`` names the geometry the rows used
  ("mask", "box", or both with their row counts).
- GUI suites (``condition = gui``): ``center_click``, the success rate of a point at the frame's
  centre scored by the row's own official rule (``scoring.gui_rules.centre_click_hit``: box-answer
  rows need a box, so a click never solves them).

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
from collections.abc import Callable, Iterable, Mapping, Sequence
from statistics import median
from typing import Any

import pyarrow as pa

from groundbench.schemas.features import FEATURES
from groundbench.schemas.request_conditions import GUI, conditions_of, row_allows, supplied_keys, supplies_identity
from groundbench.schemas.rows import target_absent, target_part
from groundbench.schemas.vocab import NO_ACTION
from groundbench.scoring import osworld_g
from groundbench.scoring.gui_rules import centre_click_hit, judge
from groundbench.scoring.localization import (
    best_constant_at_tau,
    best_constant_in_region,
    constant_point,
    hits_at_tau,
    in_target_region,
    region_geometry,
)

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


def text_key(row: Row, keys: Sequence[str]) -> tuple[Any, ...]:
    """The categorical text a condition hands the model about this row, as a lookup key."""
    part: Mapping[str, Any] | None = None
    out = []
    for k in keys:  # the target part is looked up only when a key reads it
        if k in ("object_category", "target_part_id"):
            out.append(row.get(k))
        elif k in _PART_FIELDS:
            part = (target_part(row) or {}) if part is None else part
            out.append(part.get(_PART_FIELDS[k]))
        else:
            raise KeyError(k)
    return tuple(out)


_PART_FIELDS = {"target_category": "category", "target_joint_type": "joint_type"}  # text key -> the part's field


def majority(actions: Iterable[str]) -> tuple[str, int, int]:
    """(majority action, its count, N); ties go to the alphabetically first action."""
    counts = Counter(actions)
    n = sum(counts.values())
    if not n:
        return NO_ACTION, 0, 0
    action = _majority_of(counts)
    return action, counts[action], n


def _majority_of(counts: Counter[str]) -> str:
    """The most frequent action of ``counts`` (ties: alphabetically first); NO_ACTION when empty."""
    if not counts:
        return NO_ACTION
    return min(counts.items(), key=lambda item: (-item[1], item[0]))[0]


def blind_bound(
    rows: Sequence[Row], keys: Sequence[str], row_keys: Sequence[tuple[Any, ...]] | None = None
) -> tuple[int, int]:
    """(rows a best text-only lookup gets right, N): per key, the largest action count (``row_keys``: each
    row's :func:`text_key`, when already at hand)."""
    groups: dict[tuple[Any, ...], Counter[str]] = defaultdict(Counter)
    for row, key in zip(rows, _row_keys(rows, keys, row_keys), strict=True):
        groups[key][row["target_action"]] += 1
    return sum(max(c.values()) for c in groups.values()), len(rows)


def _lookup(rows: Sequence[Row], keys: Sequence[str]) -> tuple[dict[tuple[Any, ...], str], str]:
    """A text-only lookup learnt on ``rows``: key -> majority action, and the overall majority action."""
    groups: dict[tuple[Any, ...], list[str]] = defaultdict(list)
    for row in rows:
        groups[text_key(row, keys)].append(row["target_action"])
    return {k: majority(v)[0] for k, v in groups.items()}, majority(r["target_action"] for r in rows)[0]


CATEGORY_KEY = "target_category"


def backoff_levels(keys: Sequence[str]) -> list[tuple[str, ...]]:
    """The keys a held-out lookup tries in turn: the full key, then the target part's category alone (only
    where the condition supplies it); the majority action comes after the last."""
    levels = [tuple(keys)]
    if CATEGORY_KEY in keys and tuple(keys) != (CATEGORY_KEY,):
        levels.append((CATEGORY_KEY,))
    return levels


def _row_keys(
    rows: Sequence[Row], keys: Sequence[str], row_keys: Sequence[tuple[Any, ...]] | None
) -> Sequence[tuple[Any, ...]]:
    return [text_key(row, keys) for row in rows] if row_keys is None else row_keys


def loo_blind_estimate(
    rows: Sequence[Row], keys: Sequence[str], row_keys: Sequence[tuple[Any, ...]] | None = None
) -> tuple[int, int]:
    """(rows a text-only lookup learnt on the other objects gets right, N), holding out one object at a time;
    the lookup backs off full key -> target part's category -> majority action (module docstring).

    Counted from per-key action counts minus the held-out object's own, so the cost is linear in the
    rows (relearning the lookup per object is quadratic: hours at a full-scale bulk config); the
    majorities are those :func:`_lookup` learns on the other objects' rows, ties included. ``row_keys``: each
    row's :func:`text_key` of ``keys`` (the first level), when already at hand.
    """
    levels = backoff_levels(keys)
    by_key: list[dict[tuple[Any, ...], Counter[str]]] = [defaultdict(Counter) for _ in levels]
    by_object: dict[str, list[tuple[tuple[tuple[Any, ...], ...], str]]] = defaultdict(list)
    for row, first in zip(rows, _row_keys(rows, keys, row_keys), strict=True):
        own_keys, action = (first, *(text_key(row, level) for level in levels[1:])), row["target_action"]
        for table, key in zip(by_key, own_keys, strict=True):
            table[key][action] += 1
        by_object[str(row["object_id"])].append((own_keys, action))
    overall: Counter[str] = Counter(row["target_action"] for row in rows)
    correct = 0
    for members in by_object.values():
        own = Counter(action for _, action in members)
        own_by_key: list[dict[tuple[Any, ...], Counter[str]]] = [defaultdict(Counter) for _ in levels]
        for row_keys, action in members:
            for table, key in zip(own_by_key, row_keys, strict=True):
                table[key][action] += 1
        fallback = _majority_of(overall - own)
        guesses: dict[tuple[tuple[Any, ...], ...], str] = {}  # an object's rows sharing their keys share the guess
        for row_keys, action in members:
            guess = guesses.get(row_keys)
            if guess is None:
                guess = guesses[row_keys] = _held_out_guess(row_keys, by_key, own_by_key, fallback)
            correct += guess == action
    return correct, len(rows)


def _held_out_guess(
    row_keys: Sequence[tuple[Any, ...]],
    by_key: Sequence[Mapping[tuple[Any, ...], Counter[str]]],
    own_by_key: Sequence[Mapping[tuple[Any, ...], Counter[str]]],
    fallback: str,
) -> str:
    """The lookup's answer for a held-out row: the majority among the other objects' rows of its first key level
    they share, else ``fallback`` (their majority action)."""
    for level, key in enumerate(row_keys):
        others = by_key[level][key] - own_by_key[level][key]  # Counter subtraction keeps positive counts
        if others:
            return _majority_of(others)
    return fallback


def singleton_keys(
    rows: Sequence[Row], keys: Sequence[str], row_keys: Sequence[tuple[Any, ...]] | None = None
) -> tuple[int, int]:
    """(keys that occur on exactly one row, distinct keys)."""
    counts = Counter(_row_keys(rows, keys, row_keys))
    return sum(1 for c in counts.values() if c == 1), len(counts)


def category_leakage(rows: Sequence[Row], condition: str) -> bool:
    """Paper section 4.1: the condition reveals the target part's category and that category determines the
    answer across objects: over these rows every target category has one action, and at least one category
    occurs on two or more objects (module docstring)."""
    if not rows or not supplies_identity(condition):
        return False
    actions: dict[Any, set[str]] = defaultdict(set)
    objects: dict[Any, set[str]] = defaultdict(set)
    for row in rows:
        category = (target_part(row) or {}).get("category")
        actions[category].add(row["target_action"])
        objects[category].add(str(row["object_id"]))
    return all(len(a) == 1 for a in actions.values()) and any(len(o) > 1 for o in objects.values())


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
    """The one centre-click definition (``scoring.gui_rules.centre_click_hit``)."""
    return centre_click_hit(row)


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


def condition_baselines(
    config: str,
    stratum: str,
    condition: str,
    rows: Sequence[Row],
    constants: Callable[[Sequence[Row], float | None], dict[str, int]] | None = None,
) -> list[dict]:
    """The baseline rows of one (config, stratum, condition) over the rows being scored; ``constants``
    computes :func:`localization_constants` (``config_baselines`` passes one that remembers its results)."""
    if condition == GUI:
        hits = sum(center_click_hit(r) for r in rows)
        entries = [_entry(config, stratum, condition, "center_click", rate(hits, len(rows)), len(rows))]
        return entries + refusal_baselines(config, stratum, condition, rows)
    action, count, n = majority(r["target_action"] for r in rows)
    keys = supplied_keys(condition)
    correct, _ = blind_bound(rows, keys)
    loo, _ = loo_blind_estimate(rows, keys)
    singletons, distinct = singleton_keys(rows, keys)
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
            leakage=category_leakage(rows, condition),
            supplied_keys=keys,
            detail=f"{correct}/{n}",
        ),
        _entry(
            config,
            stratum,
            condition,
            "text_only_blind_estimate_loo",
            rate(loo, n),
            n,
            supplied_keys=keys,
            detail=f"{loo}/{n}",
        ),
        _entry(
            config,
            stratum,
            condition,
            "singleton_keys",
            float(singletons),
            n,
            supplied_keys=keys,
            detail=f"{singletons}/{distinct}",
        ),
        _entry(config, stratum, condition, "localization_tau", tau, len(image_d), tau=tau),
    ]
    geometry = region_geometry(rows)
    for name, value in (constants or localization_constants)(rows, tau).items():
        detail = geometry if name.endswith("_in_target_region") else None
        entries.append(_entry(config, stratum, condition, name, rate(value, n), n, tau=tau, detail=detail))
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


def refusal_baselines(config: str, stratum: str, condition: str, rows: Sequence[Row]) -> list[dict]:
    """Rows without a target (OSWorld-G's refusal rows), each answer scored by the row's own rule: the centre click
    over the rows with a target (``center_click_target_rows``), answering "no target" everywhere
    (``always_refuse``, over every row; ``always_refuse_refusal_rows``) and never refusing on the refusal rows
    (``never_refuse_refusal_rows``: the centre click there). None when every row has a target."""
    refusals = [r for r in rows if target_absent(r)]
    if not refusals:
        return []
    targets = [r for r in rows if not target_absent(r)]
    refuses = [judge(osworld_g.refusal_answer(r), r).success for r in rows]
    on_refusals = sum(judge(osworld_g.refusal_answer(r), r).success for r in refusals)
    centre_targets = sum(center_click_hit(r) for r in targets)
    centre_refusals = sum(center_click_hit(r) for r in refusals)
    values = (
        ("center_click_target_rows", centre_targets, len(targets)),
        ("always_refuse", sum(refuses), len(rows)),
        ("always_refuse_refusal_rows", on_refusals, len(refusals)),
        ("never_refuse_refusal_rows", centre_refusals, len(refusals)),
    )
    return [
        _entry(config, stratum, condition, name, rate(hits, n), n, detail=f"{hits}/{n}") for name, hits, n in values
    ]


def localization_constants(rows: Sequence[Row], tau: float | None) -> dict[str, int]:
    """Hits of the constant answers that are not baked per row: the best constant at tau, and the three
    constants (image centre, object-box centre, best constant) inside the target's region."""
    _, best_c = best_constant_at_tau(rows, tau)
    _, region_c = best_constant_in_region(rows)
    image = sum(in_target_region(r, (r["width"] / 2.0, r["height"] / 2.0)) for r in rows)
    objects = sum(in_target_region(r, object_centre(r)) for r in rows)
    region = 0 if region_c is None else sum(in_target_region(r, constant_point(r, region_c)) for r in rows)
    return {
        "best_constant_hit_rate_at_tau": hits_at_tau(rows, best_c, tau),
        "image_center_in_target_region": image,
        "object_center_in_target_region": objects,
        "best_constant_in_target_region": region,
    }


def object_centre(row: Row) -> tuple[float, float] | None:
    box = row.get("object_bbox_xyxy")
    return None if not box else ((box[0] + box[2]) / 2.0, (box[1] + box[3]) / 2.0)


def scored_rows(rows: Sequence[Row], condition: str) -> list[Row]:
    return [r for r in rows if row_allows(r, condition)]


def config_baselines(config: str, rows: Sequence[Row]) -> list[dict]:
    """Every baseline row of one config: per stratum, per condition any of its rows allows."""
    out: list[dict] = []
    by_stratum: dict[str, list[Row]] = defaultdict(list)
    for row in rows:
        by_stratum[row["stratum"]].append(row)
    constants = _remembered(localization_constants)
    for stratum in sorted(by_stratum):
        members = by_stratum[stratum]
        conditions = sorted({c for r in members for c in conditions_of(r)})
        for condition in conditions:
            out.extend(condition_baselines(config, stratum, condition, scored_rows(members, condition), constants))
    return sorted(out, key=lambda e: e["baseline_id"])


def _remembered(
    compute: Callable[[Sequence[Row], float | None], dict[str, int]],
) -> Callable[[Sequence[Row], float | None], dict[str, int]]:
    """``compute`` once per set of rows: the constant answers depend on the rows alone, and the conditions of a
    stratum mostly score the same rows (every condition of a photo row), so the search (most of the stage's
    time at full scale) ran once per condition. Keyed by the rows' identities, which live as long as the call."""
    seen: dict[tuple[tuple[int, ...], float | None], dict[str, int]] = {}

    def remembered(rows: Sequence[Row], tau: float | None) -> dict[str, int]:
        key = (tuple(id(row) for row in rows), tau)
        if key not in seen:
            seen[key] = compute(rows, tau)
        return seen[key]

    return remembered
