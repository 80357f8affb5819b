"""Hand-worked: the leave-one-object-out estimate (backing off full key -> target category -> majority), the
in-sample blind bound never below the majority, the paper's leakage flag, the best constant point, the
threshold-free target-region figure, coverage, and the object-clustered bootstrap on every rate.

Example A is tests/scoring/test_scoring_hand.py's (four rows, four objects):

    row  object     category (key of object_named)   target: part category -> action
    r1   washer_1   washing_machine                   hinge_door -> pull
    r2   washer_2   washing_machine                   slider_button -> push
    r3   oven_1     oven                              hinge_door -> pull
    r4   oven_2     oven                              hinge_knob -> rotate

Example B (localization, six rows, six objects): images 600 x 800 (diagonal 1000, centre (300, 400)),
targets on the line y = 400 at x = 220, 224, 230, 420, 438, 460 (offsets -80, -76, -70, 120, 138, 160
px), each target box 20 x 20 around its point; every object box is [0, 0, 100, 100] (centre (50, 50)).
Mean offset +32 px; distances from it 112, 108, 102, 88, 106, 128; tau = median = (106 + 108) / 2 =
107 px = 0.107 diagonals (no target sits exactly at tau from the mean).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from groundbench.loaders.published import write_config
from groundbench.schemas.features import arrow_schema
from groundbench.schemas.request_conditions import supplied_keys
from groundbench.scoring.baselines import (
    blind_bound,
    category_leakage,
    config_baselines,
    loo_blind_estimate,
    majority,
    singleton_keys,
)
from groundbench.scoring.bootstrap import rate_interval
from groundbench.scoring.localization import best_constant_at_tau, best_constant_in_region, constant_point
from groundbench.scoring.sanity import sanity
from tests.scoring.test_scoring_hand import EXAMPLE_A, _write_folder, baked, part, record

XS = [220, 224, 230, 420, 438, 460]
EXAMPLE_B = [
    record(
        f"b/{i}",
        f"obj_{i}",
        "panel",
        [part("t", "slider_button", "push", [x - 10, 390, x + 10, 410], [x, 400])],
        "t",
        [0, 0, 100, 100],
        width=600,
        height=800,
    )
    for i, x in enumerate(XS, start=1)
]


def rows_of(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return baked(records).drop_columns(["image"]).to_pylist()


def test_leave_one_object_out_estimate_singletons_and_leakage() -> None:
    rows = rows_of(EXAMPLE_A)
    # object_named (key: object category; the target's category is not supplied, so no back-off to it).
    # Holding out r1, the others say washing_machine -> push (r2): wrong for r1 (pull); r2 <- r1's pull:
    # wrong; r3 <- oven -> rotate (r4): wrong; r4 <- oven -> pull: wrong. 0 of 4, against an in-sample
    # bound of (1 + 1) / 4 = 0.5. Keys: washing_machine x2, oven x2.
    keys = supplied_keys("object_named")
    assert loo_blind_estimate(rows, keys) == (0, 4)
    assert singleton_keys(rows, keys) == (0, 2)
    # part_named (object category, part id, part category): four distinct full keys, every one a singleton,
    # so the in-sample bound is 4/4 and no full key is seen on another object. Back-off to the target's
    # category learnt on the others: r1 hinge_door <- r3's pull: right; r2 slider_button: seen nowhere
    # else -> the others' majority {pull, pull, rotate} = pull: wrong; r3 hinge_door <- r1's pull: right;
    # r4 hinge_knob: nowhere else -> {pull, push, pull} = pull: wrong. 2 of 4.
    keys = supplied_keys("part_named")
    assert loo_blind_estimate(rows, keys) == (2, 4)
    assert singleton_keys(rows, keys) == (4, 4)
    # Paper 4.1: part_named names the target's category, hinge_door -> pull holds across two objects and
    # slider_button -> push, hinge_knob -> rotate each have one action: leakage, although every full key
    # is a singleton. object_named and localization_only never name the category.
    assert category_leakage(rows, "part_named") is True
    assert category_leakage(rows, "object_named") is False
    assert category_leakage(rows, "localization_only") is False
    stored = {(b["condition"], b["baseline"]): b for b in config_baselines("hand_curated", rows)}
    assert stored[("part_named", "text_only_blind_estimate_loo")]["value"] == 0.5
    assert stored[("part_named", "singleton_keys")]["detail"] == "4/4"
    assert stored[("object_named", "text_only_blind_estimate_loo")]["detail"] == "0/4"
    assert stored[("object_named", "text_only_blind_bound")]["leakage"] is False
    assert stored[("part_named", "text_only_blind_bound")]["leakage"] is True
    assert not any("bound_loo" in name for _, name in stored)  # the held-out figure is never called a bound


def _row(object_id: str, category: str, action: str, object_category: str = "cabinet") -> dict[str, Any]:
    return {
        "object_id": object_id,
        "object_category": object_category,
        "target_part_id": f"{object_id}_t",  # part ids are never seen on another object
        "target_action": action,
        "parts": [{"part_id": f"{object_id}_t", "category": category, "joint_type": None}],
    }


def test_the_estimate_backs_off_to_the_target_category_then_the_majority() -> None:
    """Five objects, one row each; full keys (object category, part id, category) are all unseen elsewhere.

        o1 hinge_door -> pull      o2 hinge_door -> pull      o3 slider_button -> push
        o4 slider_button -> push   o5 hinge_knob -> rotate

    Held out, each row backs off to its category learnt on the other four: o1 <- o2 pull (right), o2 <- o1
    (right), o3 <- o4 push (right), o4 <- o3 (right); o5's hinge_knob is nowhere else, so the majority of
    o1..o4 {pull 2, push 2} = pull (ties alphabetical): wrong. 4 of 5. Without the back-off every row would
    fall to the others' majority: o1 <- {pull, push 2, rotate} = push, o2 the same, o3 <- {pull 2, push,
    rotate} = pull, o4 the same, o5 <- pull: 0 of 5, below the majority (2/5): the artefact the issue found.
    """
    rows = [
        _row("o1", "hinge_door", "pull"),
        _row("o2", "hinge_door", "pull"),
        _row("o3", "slider_button", "push"),
        _row("o4", "slider_button", "push"),
        _row("o5", "hinge_knob", "rotate"),
    ]
    assert loo_blind_estimate(rows, supplied_keys("part_named")) == (4, 5)
    assert loo_blind_estimate(rows, ("object_category", "target_part_id")) == (0, 5)  # no category: no back-off
    assert _loo_by_relearning(rows, supplied_keys("part_named")) == 4
    # The full key wins over the category when it was seen on another object: o6 and o7 share a part id and
    # category with different actions from the category's majority.
    more = [
        *rows,
        {
            **_row("o6", "hinge_door", "lift-vertical"),
            "target_part_id": "lid",
            "parts": [{"part_id": "lid", "category": "hinge_door", "joint_type": None}],
        },
        {
            **_row("o7", "hinge_door", "lift-vertical"),
            "target_part_id": "lid",
            "parts": [{"part_id": "lid", "category": "hinge_door", "joint_type": None}],
        },
    ]
    # o6 <- full key (cabinet, lid, hinge_door) seen on o7: lift-vertical, right (the category alone, learnt on
    # o1, o2, o7, would say pull 2 : lift-vertical 1 = pull: wrong). o7 likewise. o1 <- category on o2, o6, o7:
    # lift-vertical 2 : pull 1 = lift-vertical: wrong; o2 the same. o3, o4 right; o5 <- majority of the other
    # six {pull 2, push 2, lift-vertical 2} = lift-vertical: wrong. 4 of 7.
    assert loo_blind_estimate(more, supplied_keys("part_named")) == (4, 7)
    assert _loo_by_relearning(more, supplied_keys("part_named")) == 4


def test_the_in_sample_bound_is_never_below_the_majority() -> None:
    """A constant answer is an input-blind policy: the bound (a supremum over them) is at least its share."""
    import random

    rng = random.Random(7)
    for _ in range(200):
        rows = [
            _row(f"o{rng.randrange(6)}", rng.choice(["hinge_door", "knob", "lid"]), rng.choice(["pull", "push"]))
            for _ in range(rng.randrange(1, 25))
        ]
        _, majority_count, n = majority(r["target_action"] for r in rows)
        for condition in ("image_only", "object_named", "part_named", "mechanics_shown"):
            bound, _ = blind_bound(rows, supplied_keys(condition))
            assert majority_count <= bound <= n, condition


def test_leakage_needs_the_category_to_determine_the_answer_across_objects() -> None:
    across = [_row("o1", "hinge_door", "pull"), _row("o2", "hinge_door", "pull"), _row("o3", "knob", "rotate")]
    assert category_leakage(across, "part_named") is True
    # every category on one object only: the "mapping" is the objects themselves, no cross-object evidence
    alone = [_row("o1", "hinge_door", "pull"), _row("o2", "knob", "rotate"), _row("o3", "lid", "lift-vertical")]
    assert category_leakage(alone, "part_named") is False
    # a category with two actions: it does not determine the answer
    split = [*across, _row("o4", "knob", "push")]
    assert category_leakage(split, "part_named") is False
    assert category_leakage(across, "localization_only") is False  # the category is not supplied


def _loo_by_relearning(rows: list[dict[str, Any]], keys: tuple[str, ...]) -> int:
    """The definition spelled out: per held-out object, the lookups learnt on every other object's rows, tried
    in turn (full key, then the target category where the condition supplies it), then their majority."""
    from groundbench.scoring.baselines import text_key

    levels = [keys] + ([("target_category",)] if "target_category" in keys and keys != ("target_category",) else [])
    correct = 0
    for held_out in {r["object_id"] for r in rows}:
        others = [r for r in rows if r["object_id"] != held_out]
        tables = []
        for level in levels:
            groups: dict[Any, list[str]] = {}
            for r in others:
                groups.setdefault(text_key(r, level), []).append(r["target_action"])
            tables.append((level, groups))
        fallback = majority(r["target_action"] for r in others)[0]
        for r in (r for r in rows if r["object_id"] == held_out):
            learnt = next(
                (majority(g[text_key(r, level)])[0] for level, g in tables if text_key(r, level) in g), fallback
            )
            correct += learnt == r["target_action"]
    return correct


def test_leave_one_object_out_estimate_equals_relearning_the_lookup_per_object() -> None:
    import random

    rng = random.Random(4)
    for trial in range(40):
        rows = [
            {
                "object_id": f"o{rng.randrange(1 + trial % 9)}",
                "object_category": rng.choice(["oven", "washer", "mug"]),
                "target_part_id": rng.choice(["t", "u"]),
                "target_action": rng.choice(["pull", "push", "rotate"]),
                "parts": [
                    {"part_id": p, "category": rng.choice(["hinge_door", "knob"]), "joint_type": None}
                    for p in ("t", "u")
                ],
            }
            for _ in range(rng.randrange(1, 60))
        ]
        for condition in ("object_named", "part_named", "image_only", "mechanics_shown"):
            keys = supplied_keys(condition)
            assert loo_blind_estimate(rows, keys) == (_loo_by_relearning(rows, keys), len(rows))


def test_best_constants_above_the_search_limit_are_counted_on_every_row() -> None:
    """A full-scale config: the search runs on a subsample, the figure is the found constant's count on all rows."""
    import math

    import numpy as np

    from groundbench.scoring.localization import SEARCH_LIMIT, hits_at_tau, in_target_region

    rng = np.random.default_rng(2)
    rows = []
    for i in range(SEARCH_LIMIT + 900):
        x, y = (float(v) for v in rng.normal((300, 500), (60, 90)))
        box = [x - 15, y - 15, x + 15, y + 15]
        rows.append({"example_id": f"r{i}", "width": 600, "height": 800, "target_part_id": "t",
                     "parts": [{"part_id": "t", "point_xy": [x, y], "bbox_xyxy": box}]})  # fmt: skip
    tau = 0.05
    hits, c = best_constant_at_tau(rows, tau)
    assert c is not None and hits == hits_at_tau(rows, c, tau)
    centre = sum(math.hypot(r["parts"][0]["point_xy"][0] - 300, r["parts"][0]["point_xy"][1] - 500) <= 50 for r in rows)
    assert hits >= 0.9 * centre  # about as good as the true centre of the cloud, which the search never saw
    count, where = best_constant_in_region(rows)
    assert where is not None and count == sum(in_target_region(r, constant_point(r, where)) for r in rows)
    at_centre = sum(in_target_region(r, (300.0, 500.0)) for r in rows)
    assert count >= 0.9 * at_centre > 0


def test_best_constant_and_target_region_baselines() -> None:
    rows = rows_of(EXAMPLE_B)
    stored = {(b["condition"], b["baseline"]): b for b in config_baselines("hand_b", rows)}
    assert stored[("image_only", "localization_tau")]["value"] == pytest.approx(0.107)
    # Image centre (offset 0): distances 80, 76, 70, 120, 138, 160 px -> 3 of 6 within 107.
    assert stored[("image_only", "image_center_hit_rate_at_tau")]["value"] == pytest.approx(3 / 6)
    # A constant at the mean (+32) hits 102, 88, 106 -> 3 of 6; the best constant covers an interval of
    # 214 px: [-80, 120] (span 200) holds 4 targets, and no 214-px interval holds 5 ([-80, 138] spans 218).
    assert stored[("image_only", "best_constant_hit_rate_at_tau")]["value"] == pytest.approx(4 / 6)
    hits, c = best_constant_at_tau(rows, 0.107)
    assert hits == 4 and c is not None
    # Region: the image centre (300, 400) and the object centre (50, 50) lie in no target box: 0 of 6; the
    # boxes [210,230], [214,234], [220,240] overlap on [220, 230] (3), the right three at most 2: best 3.
    assert stored[("image_only", "image_center_in_target_region")]["value"] == 0.0
    assert stored[("image_only", "object_center_in_target_region")]["value"] == 0.0
    assert stored[("image_only", "best_constant_in_target_region")]["value"] == pytest.approx(3 / 6)
    count, where = best_constant_in_region(rows)
    assert count == 3 and where is not None
    x, y = constant_point(rows[0], where)
    assert 220 <= x <= 230 and 390 <= y <= 410
    deviations, _ = sanity("hand_b", rows, config_baselines("hand_b", rows))
    assert deviations == []


@pytest.fixture(scope="module")
def scored_b(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    from groundbench.scoring import score

    root = tmp_path_factory.mktemp("bounds")
    folder = _write_folder(root)

    write_config(folder / "data" / "hand_b", baked(EXAMPLE_B).to_batches(), arrow_schema(), 64)
    answers = {
        "b/1": '{"action": "push", "point": [225, 400]}',  # 5 px: within tau; inside [210,230]: region hit
        "b/2": '{"action": "push", "point": [234, 410]}',  # the box's corner: region hit (edges); 14.1 px
        "b/3": '{"action": "pull", "point": [300, 400]}',  # 70 px: within tau; outside the box
        "b/5": '{"action": "push", "point": [438, 411]}',  # 1 px below the box: region miss; 11 px
        "b/6": "no idea",  # malformed: a miss everywhere; b/4 has no line at all: missing, a failure
    }
    lines = [
        {"model": "m", "example_id": eid, "condition": "image_only", "response": text} for eid, text in answers.items()
    ]
    report = score(lines, folder=folder, configs=["hand_b"], seed=0, resamples=1000)
    (root / "b.json").write_text(json.dumps(report.to_dict()))
    return {m["metric"]: m for m in report.metrics}


def test_localization_figures_and_coverage_by_hand(scored_b: dict[str, dict[str, Any]]) -> None:
    coverage = scored_b["coverage"]
    assert (coverage["count"], coverage["n"], coverage["detail"]) == (5, 6, "5/6")
    assert scored_b["missing_rate"]["count"] == 1 and scored_b["malformed_rate"]["count"] == 1
    hit = scored_b["localization_hit_rate"]
    assert (hit["count"], hit["n"]) == (4, 6)  # b/1, b/2, b/3, b/5
    assert hit["baseline_image_center"] == pytest.approx(3 / 6)
    assert hit["baseline_best_constant"] == pytest.approx(4 / 6)
    region = scored_b["localization_in_target_region"]
    assert (region["count"], region["n"]) == (2, 6)  # b/1, b/2
    assert (region["baseline_image_center"], region["baseline_object_center"]) == (0.0, 0.0)
    assert region["baseline_best_constant"] == pytest.approx(3 / 6)
    assert scored_b["action_accuracy"]["count"] == 3  # b/1, b/2, b/5 (b/3 said pull)


def test_every_rate_carries_an_object_clustered_interval(scored_b: dict[str, dict[str, Any]]) -> None:
    for metric in (
        "part_selection_accuracy",
        "exact_target_rate",
        "action_accuracy",
        "action_accuracy_gated",
        "localization_hit_rate",
        "localization_in_target_region",
    ):
        m = scored_b[metric]
        assert m["ci_low"] is not None and m["ci_low"] <= m["value"] <= m["ci_high"], metric
    # Two objects: o1 with 1 of 2 rows right, o2 with 2 of 2. A resample of two objects is {o1,o1} 2/4,
    # {o1,o2} 3/4 or {o2,o2} 4/4, with probabilities 1/4, 1/2, 1/4: both tails hold far more than 2.5%
    # of 1000 draws, so the percentile interval is exactly [0.5, 1.0] (a row-level bootstrap would
    # reach 0.25 and below).
    outcomes = [("o1", 1.0), ("o1", 0.0), ("o2", 1.0), ("o2", 1.0)]
    assert rate_interval(outcomes, 0, 1000) == (0.5, 1.0)
    # One object: every resample draws it, so the interval collapses onto its rate.
    assert rate_interval([("o", 1.0), ("o", 0.0), ("o", 1.0)], 0, 1000) == (2 / 3, 2 / 3)
    assert rate_interval(outcomes, 5, 200) == rate_interval(outcomes, 5, 200)  # seeded


def test_strict_scores_without_any_lenient_recovery(tmp_path: Path) -> None:
    from groundbench.scoring import score
    from tests.scoring.test_scoring_hand import PREDICTIONS

    folder = _write_folder(tmp_path)
    lines = [{"model": "m", **p} for p in PREDICTIONS if p["condition"] == "image_only"]
    normal = {m["metric"]: m for m in score(lines, folder=folder, configs=["hand_curated"], resamples=10).metrics}
    strict = score(lines, folder=folder, configs=["hand_curated"], strict=True, resamples=10)
    by_metric = {m["metric"]: m for m in strict.metrics}
    # r2 (fenced) and r3 (prose around JSON) are lenient recoveries normally, malformed under --strict
    assert (normal["lenient_recovered_rate"]["count"], normal["malformed_rate"]["count"]) == (2, 1)
    assert (by_metric["lenient_recovered_rate"]["count"], by_metric["malformed_rate"]["count"]) == (0, 3)
    # r3 was the only right action (by geometry); without its recovery nothing is right
    assert (normal["action_accuracy"]["count"], by_metric["action_accuracy"]["count"]) == (1, 0)
    assert strict.to_dict()["settings"]["strict"] is True


# Example M (masks): three rows, three objects, images 600 x 800 (diagonal 1000, centre (300, 400)), so
# every row shares one pixel frame and a constant offset names the same pixel on each. Each target is an
# L-shaped mask in a 4 x 4 visible box [x0, y0, x0 + 4, y0 + 4]: the box's left column and bottom row,
# 7 pixels. Row-major inside the box the crop reads 1000 1000 1000 1111, so the run lengths (starting
# with a 0-run) are [0, 1, 3, 1, 3, 1, 3, 4]: they add up to 16, the 1-runs to 7.
#
#     row  box (x0, y0)   L pixels: column x0 rows y0..y0+3, row y0+3 columns x0..x0+3
#     m1   (300, 400)     (300, 400..403), (301..303, 403)
#     m2   (298, 398)     (298, 398..401), (299..301, 401)
#     m3   (296, 396)     (296, 396..399), (297..299, 399)
L_RLE = [0, 1, 3, 1, 3, 1, 3, 4]
CORNERS = {"m/1": (300, 400), "m/2": (298, 398), "m/3": (296, 396)}


def _l_part(x0: int, y0: int, with_mask: bool) -> dict[str, Any]:
    p = part("t", "hinge_door", "pull", [x0, y0, x0 + 4, y0 + 4], [x0 + 0.5, y0 + 3.5])
    if with_mask:
        p.update(mask_area=7, visible_bbox_xyxy=[float(v) for v in (x0, y0, x0 + 4, y0 + 4)], mask_rle=L_RLE)
    return p


def example_m(with_mask: bool = True) -> list[dict[str, Any]]:
    return [
        record(
            eid, f"obj_{eid[-1]}", "cabinet", [_l_part(x0, y0, with_mask)], "t", [0, 0, 100, 100], width=600, height=800
        )
        for eid, (x0, y0) in CORNERS.items()
    ]


# Answers: m/1 (303.5, 400.5) is pixel (303, 400): inside m1's box, not in its L (row 400 holds column 300
# only). m/2 (298.2, 401.9) is pixel (298, 401): in m2's L (its column and its bottom row). m/3 (299, 399) is
# pixel (299, 399): in m3's bottom row. Mask: 2 of 3 (m/2, m/3); box: 3 of 3.
MASK_ANSWERS = {"m/1": [303.5, 400.5], "m/2": [298.2, 401.9], "m/3": [299, 399]}


def test_mask_region_baselines_differ_from_the_box_ones_by_hand() -> None:
    masked, boxed = rows_of(example_m()), rows_of(example_m(with_mask=False))
    with_mask = {(b["condition"], b["baseline"]): b for b in config_baselines("hand_m", masked)}
    with_box = {(b["condition"], b["baseline"]): b for b in config_baselines("hand_m", boxed)}
    key = ("image_only", "{}_in_target_region")
    # The image centre (300, 400) is pixel (300, 400): m1's L (its column), not m2's L (column 298, row 401),
    # outside m3's box pixels (columns 296..299). As a point it is inside all three boxes (m3's corner,
    # edges included). Mask 1/3, box 3/3.
    assert with_mask[(key[0], key[1].format("image_center"))]["value"] == pytest.approx(1 / 3)
    assert with_box[(key[0], key[1].format("image_center"))]["value"] == 1.0
    # The object centre (50, 50) is far from every target: 0 either way.
    assert with_mask[(key[0], key[1].format("object_center"))]["value"] == 0.0
    assert with_box[(key[0], key[1].format("object_center"))]["value"] == 0.0
    # Best constant. Boxes: (300, 400) lies in all three: 3/3. Masks: m1 and m2 share pixel (300, 401) (m1's
    # column, m2's bottom row); m2 and m3 share (298, 399) (m2's column, m3's bottom row); m1 and m3 share
    # no column (300..303 vs 296..299): no pixel lies in all three, so 2/3.
    assert with_mask[(key[0], key[1].format("best_constant"))]["value"] == pytest.approx(2 / 3)
    assert with_box[(key[0], key[1].format("best_constant"))]["value"] == 1.0
    count, where = best_constant_in_region(masked)
    assert count == 2 and where is not None
    x, y = constant_point(masked[0], where)
    assert (int(x), int(y)) in {(300, 401), (298, 399)}
    # The geometry each figure used is named.
    assert {with_mask[(key[0], key[1].format(n))]["detail"] for n in ("image_center", "best_constant")} == {"mask"}
    assert with_box[(key[0], key[1].format("image_center"))]["detail"] == "box"
    mixed = rows_of([example_m()[0], example_m(with_mask=False)[2]])
    detail = {(b["condition"], b["baseline"]): b for b in config_baselines("hand_m", mixed)}
    assert detail[(key[0], key[1].format("image_center"))]["detail"] == "mask (1 rows), box (1 rows)"
    deviations, _ = sanity("hand_m", masked, config_baselines("hand_m", masked))
    assert deviations == []


def _score_m(root: Path, with_mask: bool) -> dict[str, Any]:
    from groundbench.scoring import score

    folder = _write_folder(root)
    write_config(folder / "data" / "hand_m", baked(example_m(with_mask)).to_batches(), arrow_schema(), 64)
    lines = [
        {"model": "m", "example_id": eid, "condition": "image_only", "response": json.dumps({"point": p})}
        for eid, p in MASK_ANSWERS.items()
    ]
    report = score(lines, folder=folder, configs=["hand_m"], seed=0, resamples=200)
    return next(m for m in report.metrics if m["metric"] == "localization_in_target_region")


def test_mask_based_localization_by_hand(tmp_path: Path) -> None:
    masked = _score_m(tmp_path / "mask", with_mask=True)
    assert (masked["count"], masked["n"], masked["detail"]) == (2, 3, "mask")
    assert masked["baseline_image_center"] == pytest.approx(1 / 3)
    assert masked["baseline_object_center"] == 0.0
    assert masked["baseline_best_constant"] == pytest.approx(2 / 3)
    boxed = _score_m(tmp_path / "box", with_mask=False)
    assert (boxed["count"], boxed["n"], boxed["detail"]) == (3, 3, "box")
    assert (boxed["baseline_image_center"], boxed["baseline_best_constant"]) == (1.0, 1.0)
