"""The paper's metrics (sections 3.1 and 3.3-3.6), per prediction and per (model, config, stratum, condition).

Pure functions: rows and parsed answers in, metric entries out. Every entry carries its ``n``, and
the baselines of the same rows are printed in the same entry (majority; the text-only blind bound,
in-sample, never below the majority, with the leave-one-object-out estimate beside it, its singleton
keys and the paper's section 4.1 leakage flag; image-centre, object-centre and best constant answers
at the same tau and in the target's region), so a result is never read without the trivial
explanation it has to beat. The items of a group are every expected row (a row without a prediction
is a ``missing`` answer: a failure), and
every rate carries a seeded bootstrap interval resampled by object (``scoring.bootstrap``).

Part selection. A prediction selects a part by name (``part`` equal to a part id, else to a part
category; several parts sharing the category are narrowed by the answer's geometry when geometry
counts) or, where the prompt did not supply the region, by geometry (:func:`geometric_parts`: its
point resolved among the candidate boxes that contain it, else its box matched by IoU). Under
``image_only`` and ``object_named`` selection is task-free: any part whose action is defined is
valid, and the action is checked against that part's own action (a category naming several parts
is valid only when they share one defined action). Where the prompt
supplied both the target's identity and its region (``localization_shown``, ``mechanics_shown``) the
only geometric evidence of a selection is the box the prompt handed over, so part selection is *not
measurable* there and is reported as null with that reason (paper 4.5).

Action accuracy is scored against the designated target's action in every condition (ungated); the
selection-gated variant differs only for the task-free conditions (paper, Table 1).

Localization. Distances are from the answer's point (else its box centre) to the target's point,
divided by the image diagonal; a hit is a distance <= tau, with tau computed by
``scoring.baselines.localization_tau`` over the rows being scored; a missing point is a miss. Beside
the paper's tau figure, ``localization_in_target_region`` is threshold-free: the point inside the
target's own mask, or its box where the row has no mask (``scoring.localization``; ``detail`` says
which). Where
the prompt supplied the region, the localization figures measure copying it: they are labelled
``measures = echo`` and ``echo_rate`` counts answers reproducing the supplied point or box (every
coordinate within 0.5 px, so integer rounding of a supplied coordinate still counts as a copy).
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib import resources
from typing import Any

import numpy as np
import yaml

from groundbench.core.geometry import box_iou
from groundbench.schemas.request_conditions import (
    COUNTERFACTUAL,
    FREE_FORM,
    GUI,
    TASK_FREE,
    base_condition,
    supplied_keys,
    supplies_identity,
    supplies_region,
)
from groundbench.schemas.vocab import NO_ACTION
from groundbench.scoring.baselines import (
    blind_bound,
    category_leakage,
    localization_tau,
    loo_blind_estimate,
    majority,
    object_centre,
    point_in_box,
    rate,
    singleton_keys,
    target_part,
    target_point,
    text_key,
)
from groundbench.scoring.bootstrap import (
    cluster_bootstrap,
    cluster_index,
    cluster_of,
    indexed_rate_interval,
    rate_interval,
)
from groundbench.scoring.gui import (
    MEAN_OF_SUITES,
    POINTERBENCH_CONFIGS,
    gui_metrics,
    headline_success,
)
from groundbench.scoring.localization import (
    best_constant_at_tau,
    best_region_offset,
    constant_point,
    hits_at_tau,
    region_geometry,
)
from groundbench.scoring.parse import FIELDS, LENIENT, MALFORMED, MISSING, POINT_ONLY, REFUSED, STRICT, Answer
from groundbench.scoring.points_in_mask import mean_of_points
from groundbench.scoring.regions import TargetRegions

Row = Mapping[str, Any]
Part = Mapping[str, Any]
ECHO_TOLERANCE_PX = 0.5
NOT_MEASURABLE = (
    "not measurable: the prompt supplied the target's identity and region, so the only evidence of a "
    "selection is the supplied box (crediting it scores an echo; withholding credit scores a field the "
    "model had no reason to fill)"
)
ECHO_NOTE = "the prompt supplied the region: this measures copying it, not localization"
REGION_NOTE = "threshold-free: the answer's point inside the target's own mask (its box where the row has no mask)"
POINT_ONLY_NOTE = (
    "a pointing family's own answer (molmo, robopoint, gemini): a point, no part and no action; it scores the "
    "localization figures (and part selection by geometry where the prompt did not supply the region) and fails "
    "the action figures"
)
MEAN_OF_POINTS_NOTE = (
    "RoboPoint's Where2Place figure (robopoint/eval/summarize_vqa.py): per answer, the share of every point it gives "
    "(a box: every pixel) inside the target's mask (its box without a mask), then the mean over rows; the headline "
    "figures read the first point only"
)


@dataclass(frozen=True, slots=True)
class Scored:
    """One prediction joined to its row."""

    model: str
    config: str
    condition: str
    row: Row
    answer: Answer


# --- part selection ------------------------------------------------------------------------------


@lru_cache(maxsize=1 << 16)  # a few distinct part ids and categories, compared on every row
def _norm(text: str) -> str:
    return re.sub(r"[\s_\-]+", "_", text.strip().lower())


def selection_measurable(condition: str) -> bool:
    return not (supplies_region(condition) and supplies_identity(condition))


def named_parts(answer: Answer, row: Row) -> list[Part]:
    """Parts the answer's ``part`` names: a part id, else every part of that category."""
    if not answer.part:
        return []
    key = _norm(answer.part)
    by_id = [p for p in row["parts"] if _norm(str(p["part_id"])) == key]
    return by_id or [p for p in row["parts"] if p["category"] is not None and _norm(str(p["category"])) == key]


def _area(box: Sequence[float]) -> float:
    return abs(box[2] - box[0]) * abs(box[3] - box[1])


BOX_MATCH_IOU = 0.5  # a box-only answer selects the candidate whose box it overlaps at least this much


def point_part(point: tuple[float, float], candidates: Sequence[Part]) -> Part | None:
    """The candidate a point lands on: among the boxes containing it (edges included), the part whose
    own point is nearest, ties to the smaller box, then the part id.

    Why not simply the smallest containing box: projected 3-D boxes (GAPartNet, ``box_quality``
    exact) overlap heavily. A drawer's box contains its neighbour's point and a bucket's lid box sits
    inside its arched handle's, so the smallest box hands even the target's own point to another
    part. A part's ``point_xy`` is a pixel verified on its own mask: the best evidence of where the
    part is that a row carries without its mask.
    """
    containing = [p for p in candidates if point_in_box(point, p["bbox_xyxy"])]
    if not containing:
        return None

    def key(p: Part) -> tuple[float, float, str]:
        own = p["point_xy"]
        distance = math.inf if own is None else math.hypot(point[0] - own[0], point[1] - own[1])
        return distance, _area(p["bbox_xyxy"]), str(p["part_id"])

    return min(containing, key=key)


def geometric_parts(answer: Answer, candidates: Sequence[Part]) -> list[Part]:
    """The candidate(s) the answer's geometry selects.

    Its point first (the prompt asks for one pixel on the part), by :func:`point_part`. Without a
    point, its box: the candidate boxes it overlaps best at IoU >= 0.5 (all tied best ones), else
    the box centre taken as a point.
    """
    if answer.point is None and answer.box is not None and candidates:
        overlaps = [(box_iou(answer.box, p["bbox_xyxy"]), p) for p in candidates]
        best = max(iou for iou, _ in overlaps)
        if best >= BOX_MATCH_IOU:
            return [p for iou, p in overlaps if iou == best]
    location = answer.location
    part = None if location is None else point_part(location, candidates)
    return [] if part is None else [part]


def selected_parts(answer: Answer, row: Row, condition: str, named: list[Part] | None = None) -> list[Part]:
    """The parts the answer selects (``named``: its :func:`named_parts`, when already at hand)."""
    geometry = not supplies_region(condition)
    named = named_parts(answer, row) if named is None else named
    if len(named) > 1 and geometry:
        named = geometric_parts(answer, named) or named
    if named:
        return named
    return geometric_parts(answer, row["parts"]) if geometry else []


def selection_action(parts: Sequence[Part]) -> str | None:
    """The one defined action of a valid task-free selection, else None."""
    actions = {p["action"] for p in parts}
    if len(actions) != 1:
        return None
    action = next(iter(actions))
    return None if action in (None, NO_ACTION) else str(action)


def is_exact_target(parts: Sequence[Part], row: Row) -> bool:
    return len(parts) == 1 and parts[0]["part_id"] == row["target_part_id"]


# --- localization -----------------------------------------------------------------------------------


def target_distance(answer: Answer, row: Row) -> float | None:
    """The answer's distance to the row's target point, over the image diagonal; None without either."""
    return _distance_to(answer.location, _target_of(row))


def _target_of(row: Row) -> tuple[float, float, float] | None:
    """(x, y, image diagonal) of the row's target point; None without one (read once per row list for groups)."""
    target = target_point(row["parts"], row["target_part_id"])
    return None if target is None else (target[0], target[1], math.hypot(row["width"], row["height"]))


def _distance_to(location: tuple[float, float] | None, target: tuple[float, float, float] | None) -> float | None:
    if location is None or target is None:
        return None
    return math.hypot(location[0] - target[0], location[1] - target[1]) / target[2]


def _close(a: Sequence[float], b: Sequence[float]) -> bool:
    return len(a) == len(b) and all(abs(x - y) <= ECHO_TOLERANCE_PX for x, y in zip(a, b, strict=True))


def is_echo(answer: Answer, row: Row) -> bool:
    part = target_part(row) or {}
    point, box = part.get("point_xy"), part.get("bbox_xyxy")
    return bool(
        (answer.point is not None and point and _close(answer.point, point))
        or (answer.box is not None and box and _close(answer.box, box))
    )


# --- free form ------------------------------------------------------------------------------------------


@cache
def keyword_table() -> dict[str, Any]:
    text = resources.files("groundbench.scoring").joinpath("keywords.yaml").read_text("utf-8")
    return dict(yaml.safe_load(text))


@cache
def _keyword_pattern(keyword: str) -> re.Pattern[str]:
    stem = keyword.rstrip("*")
    tail = r"\w*" if keyword.endswith("*") else ""
    words = r"[\s\-]+".join(re.escape(w) for w in stem.split())
    return re.compile(rf"\b{words}{tail}\b", re.IGNORECASE)


def free_form_actions(text: str | None) -> set[str]:
    """Every action a keyword in the text names. A keyword found inside a longer keyword's match does not count
    ("wrap-grasp" names wrap-grasp, not grasp too; "turn on" names push, not rotate too)."""
    return set(_free_form_actions(text)) if text else set()


# One model answers many rows with the same text (a refusal, a fixed phrase, every keyword at once): each
# distinct text is scanned once (~130 patterns). Bounded, as answers are arbitrary.
@lru_cache(maxsize=4096)
def _free_form_actions(text: str) -> frozenset[str]:
    found = sorted(
        (
            (match.end() - match.start(), match.start(), match.end(), action)
            for action, words in keyword_table()["keywords"].items()
            for word in words
            for match in _keyword_pattern(word).finditer(text)
        ),
        reverse=True,
    )
    kept: list[tuple[int, int, int, str]] = []
    for length, start, end, action in found:  # longest first
        if not any(other > length and s < end and start < e for other, s, e, _ in kept):
            kept.append((length, start, end, action))
    return frozenset(action for *_, action in kept)


def free_form_correct(text: str | None, target: str) -> bool:
    """Credited only when the target action is the one action the text names (scoring/keywords.yaml)."""
    return free_form_actions(text) == {target}


def free_form_ambiguous(text: str | None) -> bool:
    """The text names several actions: a failure, counted on its own."""
    return len(free_form_actions(text)) > 1


def every_keyword_answer() -> str:
    """An answer listing every keyword of every action: what gaming the keyword scorer would send (it scores 0)."""
    return ", ".join(str(word).rstrip("*") for words in keyword_table()["keywords"].values() for word in words)


# --- GUI ------------------------------------------------------------------------------------------------------


def gui_success(answer: Answer, row: Row) -> bool:
    """The headline verdict on one GUI row (``scoring.gui``: official rule, strict answers only)."""
    return headline_success(answer, row)


# --- counterfactual / contrast --------------------------------------------------------------------------


def informative(row: Row) -> bool:
    """A re-ask whose requested action differs from the original target's (both defined)."""
    original, requested = row.get("original_action"), row.get("target_action")
    return original not in (None, NO_ACTION) and requested not in (None, NO_ACTION) and original != requested


# --- aggregation -------------------------------------------------------------------------------------------


def _entry(head: Mapping[str, Any], metric: str, count: int | None, n: int, **extra: Any) -> dict[str, Any]:
    value = extra.pop("value", rate(count, n) if count is not None else None)
    return {**head, "metric": metric, "value": value, "n": n, "count": count, **extra}


def _frac(pairs: Iterable[tuple[bool, bool]]) -> tuple[int, int]:
    """(hits, n) over (included, hit) pairs."""
    hits = n = 0
    for included, hit in pairs:
        if included:
            n += 1
            hits += int(hit)
    return hits, n


def _parse_counts(head: Mapping[str, Any], items: Sequence[Scored]) -> list[dict[str, Any]]:
    """Parse accounting over the expected rows: strict, pre-parsed fields, lenient, malformed, missing."""
    n = len(items)
    statuses = [s.answer.status for s in items]
    return [
        _entry(
            head, "strict_parse_rate", statuses.count(STRICT), n, note="a bare JSON object giving this row's answer"
        ),
        _entry(head, "fields_rate", statuses.count(FIELDS), n, note="parsed fields on the line, no raw response"),
        _entry(head, "lenient_recovered_rate", statuses.count(LENIENT), n),
        _entry(head, "point_only_rate", statuses.count(POINT_ONLY), n, note=POINT_ONLY_NOTE),
        _entry(head, "malformed_rate", statuses.count(MALFORMED), n),
        _entry(
            head,
            "refusal_rate",
            statuses.count(REFUSED),
            n,
            note="the declared family's documented 'no target' answer (a failure on a row that has a target)",
        ),
        _entry(head, "missing_rate", statuses.count(MISSING), n, note="expected rows without a prediction (failures)"),
        _entry(head, "out_of_vocabulary_rate", sum(s.answer.out_of_vocabulary for s in items), n),
        _entry(
            head,
            "string_numbers_rate",
            sum(s.answer.from_strings for s in items),
            n,
            note='answers whose point or box was read from strings ("point": ["142.5", "166.5"] or "[170, 50]")',
        ),
    ]


def _coverage(head: Mapping[str, Any], items: Sequence[Scored], subset: bool) -> dict[str, Any]:
    predicted = sum(s.answer.status != MISSING for s in items)
    note = (
        "SUBSET: only the predicted rows are scored (explicit flag)"
        if subset
        else "predicted / expected (valid, non-excluded rows); every missing row counts as a failure"
    )
    return _entry(head, "coverage", predicted, len(items), detail=f"{predicted}/{len(items)}", note=note)


def _rated(
    head: Mapping[str, Any],
    metric: str,
    items: Sequence[Scored],
    hits: Sequence[bool],
    seed: int,
    resamples: int,
    included: Sequence[bool] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """A rate over the included items with its bootstrap interval (resampled by object)."""
    chosen = [i for i in range(len(items)) if included is None or included[i]]
    clusters = _CLUSTERS.of(items)[chosen] if included is not None else _CLUSTERS.of(items)
    outcomes = np.fromiter((float(hits[i]) for i in chosen), dtype=np.float64, count=len(chosen))
    low, high = indexed_rate_interval(clusters, outcomes, seed, resamples)
    return _entry(head, metric, sum(hits[i] for i in chosen), len(chosen), ci_low=low, ci_high=high, **extra)


class _LastClusters:
    """The cluster positions of the last item list rated (``bootstrap.cluster_index`` of its rows): a group's
    figures are rated one after another over the same items, so each group's clusters are found once."""

    def __init__(self) -> None:
        self._items: Sequence[Scored] | None = None  # held, so its identity stays its own while remembered
        self._clusters = np.zeros(0, dtype=np.int64)

    def forget(self) -> None:
        self._items, self._clusters = None, np.zeros(0, dtype=np.int64)

    def of(self, items: Sequence[Scored]) -> np.ndarray:
        if items is not self._items or len(items) != len(self._clusters):
            self._clusters = cluster_index(s.row for s in items)
            self._items = items
        return self._clusters


_CLUSTERS = _LastClusters()


def _object_rows(items: Sequence[Scored], hit: Callable[[Scored], bool]) -> list[tuple[int, int]]:
    by_object: dict[str, list[bool]] = defaultdict(list)
    for s in items:
        by_object[str(s.row["object_id"])].append(hit(s))
    return [(sum(v), len(v)) for _, v in sorted(by_object.items())]


def _counterfactual(head: Mapping[str, Any], items: Sequence[Scored], seed: int, resamples: int) -> list[dict]:
    pool = [s for s in items if informative(s.row)]
    out: list[dict[str, Any]] = []
    note = "informative pairs only (requested action differs from the original target's)"
    tests: dict[str, Callable[[Scored], bool]] = {
        "compliance": lambda s: s.answer.action == s.row["target_action"],
        "shortcut_rate": lambda s: s.answer.action == s.row["original_action"],
    }
    for name, test in tests.items():
        per_object = _object_rows(pool, test)
        low, high = cluster_bootstrap(per_object, seed, resamples)
        hits = sum(h for h, _ in per_object)
        out.append(_entry(head, name, hits, len(pool), ci_low=low, ci_high=high, note=note))
        macro = [h / n for h, n in per_object]
        out.append(
            _entry(
                head,
                f"{name}_object_macro",
                None,
                len(per_object),
                value=sum(macro) / len(macro) if macro else None,
                note="mean over objects of each object's own rate; n = objects",
            )
        )
    transitions: dict[tuple[str, str], list[Scored]] = defaultdict(list)
    for s in pool:
        transitions[(str(s.row["original_action"]), str(s.row["target_action"]))].append(s)
    for (original, requested), members in sorted(transitions.items()):
        for name, test in tests.items():
            hits, n = _frac((True, test(s)) for s in members)
            out.append(_entry(head, f"transition_{name}", hits, n, detail=f"{original} -> {requested}"))
    return out


def _free_form(
    head: Mapping[str, Any], items: Sequence[Scored], columns: Mapping[str, Any], seed: int, resamples: int
) -> list[dict]:
    hits = [free_form_correct(s.answer.text, s.row["target_action"]) for s in items]
    gaming = every_keyword_answer()
    every_keyword = rate(sum(free_form_correct(gaming, s.row["target_action"]) for s in items), len(items))
    return [
        _rated(
            head,
            "free_form_action_accuracy",
            items,
            hits,
            seed,
            resamples,
            **columns,
            ambiguous=sum(free_form_ambiguous(s.answer.text) for s in items),
            baseline_every_keyword=every_keyword,
            note="keyword sets in scoring/keywords.yaml; " + str(keyword_table()["notes"]),
        )
    ]


class RowSetMemo:
    """Figures that depend on a group's rows only, computed once per distinct row list within one :func:`score`
    call: the groups of one model's conditions, and every model's group of one condition, share the same rows
    (the same row objects in the same order), so their baselines are the same numbers."""

    def __init__(self) -> None:
        self._seen: dict[tuple[str, tuple[int, ...]], tuple[Sequence[Row], Any]] = {}

    def get(self, name: str, rows: Sequence[Row], compute: Callable[[], Any]) -> Any:
        key = (name, tuple(id(r) for r in rows))
        found = self._seen.get(key)
        if found is None:
            found = (rows, compute())  # the rows are kept alive with the result, so their ids stay theirs
            self._seen[key] = found
        return found[1]


def _localization_baselines(rows: Sequence[Row]) -> dict[str, Any]:
    """The localization figures of constant answers on these rows (no model answer involved)."""
    n = len(rows)
    tau = localization_tau(rows)
    image_d = [r["baselines"]["image_center_distance"] for r in rows]
    object_d = [r["baselines"]["object_center_distance"] for r in rows]
    object_known = [d for d in object_d if d is not None]
    _, best_c = best_constant_at_tau(rows, tau)
    region_c = best_region_offset(rows)  # scored below with the regions read once, not row by row
    regions = TargetRegions(rows)
    return {
        "targets": [_target_of(r) for r in rows],
        "tau": tau,
        "image_d": image_d,
        "object_known": object_known,
        "tau_image_center": rate(sum(tau is not None and d <= tau for d in image_d), n),
        "tau_object_center": rate(sum(tau is not None and d <= tau for d in object_known), len(object_known)),
        "tau_best_constant": rate(hits_at_tau(rows, best_c, tau), n),
        "region_geometry": region_geometry(rows),
        "region_image_center": rate(sum(regions.contains([(r["width"] / 2.0, r["height"] / 2.0) for r in rows])), n),
        "region_object_center": rate(sum(regions.contains([object_centre(r) for r in rows])), n),
        "region_best_constant": rate(
            0 if region_c is None else sum(regions.contains([constant_point(r, region_c) for r in rows])), n
        ),
        "regions": regions,  # every answer of a group of these rows is tested against them too
    }


def _localization(
    head: Mapping[str, Any],
    items: Sequence[Scored],
    condition: str,
    seed: int,
    resamples: int,
    memo: RowSetMemo | None = None,
) -> list[dict[str, Any]]:
    rows = [s.row for s in items]
    n = len(items)
    fixed = (memo or RowSetMemo()).get("localization", rows, lambda: _localization_baselines(rows))
    tau, image_d, object_known = fixed["tau"], fixed["image_d"], fixed["object_known"]
    targets = fixed["targets"]  # each row's target point and image diagonal, read once for the row list
    distances = [_distance_to(s.answer.location, target) for s, target in zip(items, targets, strict=True)]
    within = [d is not None and tau is not None and d <= tau for d in distances]
    echo = supplies_region(condition)
    loc: dict[str, Any] = {"measures": "echo" if echo else "localization", "note": ECHO_NOTE if echo else None}
    out = [
        _rated(
            head,
            "localization_hit_rate",
            items,
            within,
            seed,
            resamples,
            tau=tau,
            baseline_image_center=fixed["tau_image_center"],
            baseline_object_center=fixed["tau_object_center"],
            baseline_best_constant=fixed["tau_best_constant"],
            **loc,
        )
    ]
    region = fixed["regions"].contains([s.answer.location for s in items])  # the same rows, in order
    out.append(
        _rated(
            head,
            "localization_in_target_region",
            items,
            region,
            seed,
            resamples,
            detail=fixed["region_geometry"],
            baseline_image_center=fixed["region_image_center"],
            baseline_object_center=fixed["region_object_center"],
            baseline_best_constant=fixed["region_best_constant"],
            measures=loc["measures"],
            note=(ECHO_NOTE + "; " if echo else "") + REGION_NOTE,
        )
    )
    located = [d for d in distances if d is not None]
    out.append(
        _entry(
            head,
            "mean_center_distance",
            None,
            len(located),
            value=sum(located) / len(located) if located else None,
            baseline_image_center=sum(image_d) / n if n else None,
            baseline_object_center=sum(object_known) / len(object_known) if object_known else None,
            **loc,
        )
    )
    correct = [s.answer.action == s.row["target_action"] for s in items]
    out.append(
        _rated(
            head, "action_accuracy_given_point_within_tau", items, correct, seed, resamples, included=within, tau=tau
        )
    )
    if echo:
        out.append(_entry(head, "echo_rate", sum(is_echo(s.answer, s.row) for s in items), n))
    if any(s.answer.shapes for s in items):
        out.append(_mean_of_points(head, items, seed, resamples, loc))
    return out


def answer_shapes(answer: Answer) -> tuple[tuple[float, ...], ...]:
    """Every point the answer gives: a several-point answer's shapes, else its one location (none: no point)."""
    if answer.shapes:
        return answer.shapes
    location = answer.location
    return () if location is None else (location,)


def _mean_of_points(
    head: Mapping[str, Any], items: Sequence[Scored], seed: int, resamples: int, loc: Mapping[str, Any]
) -> dict[str, Any]:
    """Where2Place's score beside the headline: the mean over rows of each answer's share of points in the mask."""
    scores = [mean_of_points(s.row, answer_shapes(s.answer)) for s in items]
    low, high = rate_interval(((cluster_of(s.row), v) for s, v in zip(items, scores, strict=True)), seed, resamples)
    value = sum(scores) / len(scores) if scores else None
    note = (ECHO_NOTE + "; " if loc["measures"] == "echo" else "") + MEAN_OF_POINTS_NOTE
    return _entry(
        head,
        "point_in_mask_mean_of_points",
        None,
        len(items),
        value=value,
        ci_low=low,
        ci_high=high,
        detail=f"{sum(len(s.answer.shapes) > 1 for s in items)} answers gave several points",
        measures=loc["measures"],
        note=note,
    )


def _blind_columns(rows: Sequence[Row], keys: Sequence[str]) -> dict[str, Any]:
    """The answer-free baselines of these rows when the prompt supplies ``keys``: majority, blind bound and its
    estimate (the same for every condition supplying the same keys)."""
    _, maj_count, n = majority(r["target_action"] for r in rows)
    row_keys = [text_key(r, keys) for r in rows]  # read once for the three figures
    bound_count, _ = blind_bound(rows, keys, row_keys)
    loo_count, _ = loo_blind_estimate(rows, keys, row_keys)
    singletons, distinct = singleton_keys(rows, keys, row_keys)
    return {
        "baseline_majority": rate(maj_count, n),
        "blind_bound": rate(bound_count, n),
        "blind_estimate_loo": rate(loo_count, n),
        "singleton_keys": f"{singletons}/{distinct}",
    }


def group_metrics(
    head: Mapping[str, Any],
    items: Sequence[Scored],
    seed: int,
    resamples: int,
    subset: bool = False,
    memo: RowSetMemo | None = None,
) -> list[dict]:
    """Every metric of one (model, config, stratum, condition) group (``items``: every expected row);
    ``memo`` shares the figures of the rows alone between groups of the same rows."""
    condition = str(head["condition"])
    base = base_condition(condition)
    out = [_coverage(head, items, subset)]
    if base != FREE_FORM:  # prose has no format to violate
        out += _parse_counts(head, items)
    if base == GUI:
        return out + gui_metrics(head, [s.row for s in items], [s.answer for s in items], _entry, seed, resamples)
    rows = [s.row for s in items]
    n = len(rows)
    keys = supplied_keys(condition)
    columns = dict((memo or RowSetMemo()).get(f"blind {keys}", rows, lambda: _blind_columns(rows, keys)))
    # the flag reads the condition only through whether it names the target (baselines.category_leakage)
    columns["leakage"] = (memo or RowSetMemo()).get(
        f"leakage {supplies_identity(condition)}", rows, lambda: category_leakage(rows, condition)
    )
    if base == FREE_FORM:
        return out + _free_form(head, items, columns, seed, resamples)

    task_free = base in TASK_FREE
    measurable = selection_measurable(condition)
    named = [named_parts(s.answer, s.row) for s in items]  # read once, for the selections and the figures below
    selections = [selected_parts(s.answer, s.row, condition, n) for s, n in zip(items, named, strict=True)]
    correct = [s.answer.action == s.row["target_action"] for s in items]
    if task_free:
        valid = [selection_action(p) is not None for p in selections]
        gated = [v and s.answer.action == selection_action(p) for s, p, v in zip(items, selections, valid, strict=True)]
    else:
        valid = [is_exact_target(p, s.row) for s, p in zip(items, selections, strict=True)]
        gated = correct
    # the same test as ``valid`` where the prompt set the target
    exact = [is_exact_target(p, s.row) for s, p in zip(items, selections, strict=True)] if task_free else valid
    if measurable:
        note = "task-free" if task_free else None
        out.append(_rated(head, "part_selection_accuracy", items, valid, seed, resamples, note=note))
        out.append(_rated(head, "exact_target_rate", items, exact, seed, resamples))
    else:
        out.append(_entry(head, "part_selection_accuracy", None, n, note=NOT_MEASURABLE))
        out.append(_entry(head, "exact_target_rate", None, n, note=NOT_MEASURABLE))
    out.append(_rated(head, "action_accuracy", items, correct, seed, resamples, **columns))
    gated_note = (
        "credited only with a valid part selection" if task_free else "equals ungated: the prompt set the target"
    )
    out.append(_rated(head, "action_accuracy_gated", items, gated, seed, resamples, **columns, note=gated_note))
    named_exact = [len(n) == 1 and is_exact_target(n, s.row) for s, n in zip(items, named, strict=True)]
    out.append(
        _rated(head, "action_accuracy_given_exact_part_named", items, correct, seed, resamples, included=named_exact)
    )
    out.extend(_localization(head, items, condition, seed, resamples, memo))
    if base == COUNTERFACTUAL:
        out.extend(_counterfactual(head, items, seed, resamples))
    return out


def score(items: Sequence[Scored], seed: int = 0, resamples: int = 1000, subset: bool = False) -> list[dict[str, Any]]:
    """Metrics for every (model, config, stratum, condition), plus the unweighted mean of the PointerBench suites.

    ``items`` holds every expected row of each group (missing predictions as ``missing`` answers)
    unless ``subset``.
    """
    groups: dict[tuple[str, str, str], list[Scored]] = defaultdict(list)
    for s in items:
        groups[(s.model, s.config, s.condition)].append(s)
    scores = GroupScores(seed, resamples, subset)
    for key, members in groups.items():
        scores.add(key, members)
    return scores.metrics()


SUITES_NOTE = "unweighted mean over the PointerBench suites only (ScreenSpot reported beside it); n = suites"


class GroupScores:
    """:func:`score`, fed each (model, config, condition) group once, one at a time, in any order: its items are
    scored when given and let go; the metrics come out in (model, config, stratum, condition) order."""

    def __init__(self, seed: int = 0, resamples: int = 1000, subset: bool = False) -> None:
        self.seed, self.resamples, self.subset = seed, resamples, subset
        self._entries: dict[tuple[str, str, str, str], list[dict[str, Any]]] = {}
        self._memo = RowSetMemo()

    def add(self, key: tuple[str, str, str], members: Sequence[Scored]) -> None:
        """One group's items (in line order, then its missing rows), split by stratum in that order."""
        model, config, condition = key
        strata: dict[str, list[Scored]] = defaultdict(list)
        for s in members:
            strata[str(s.row["stratum"])].append(s)
        for stratum, found in strata.items():
            head = {"model": model, "config": config, "stratum": stratum, "condition": condition}
            self._entries[(model, config, stratum, condition)] = group_metrics(
                head, found, self.seed, self.resamples, self.subset, self._memo
            )
        _CLUSTERS.forget()  # the group's items are not held after scoring

    def metrics(self) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        suites: dict[str, list[tuple[str, float]]] = defaultdict(list)
        for (model, config, _, _), metrics in sorted(self._entries.items()):
            out.extend(metrics)
            for m in metrics:
                if m["metric"] == "gui_success" and m["value"] is not None and config in POINTERBENCH_CONFIGS:
                    suites[model].append((config, m["value"]))
        for model, values in sorted(suites.items()):
            head = {"model": model, "config": MEAN_OF_SUITES, "stratum": "suite", "condition": GUI}
            out.append(
                _entry(
                    head,
                    "gui_success_mean_of_suites",
                    None,
                    len(values),
                    value=sum(v for _, v in values) / len(values),
                    detail=", ".join(c for c, _ in values),
                    note=SUITES_NOTE,
                )
            )
        return out
