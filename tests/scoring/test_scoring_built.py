"""Baselines, prompts, requests, the gate, coverage and the sanity self-test on the default build.

The default build holds every config of the embedded samples: UMD (curated_umd, bulk_umd),
GAPartNet (curated_gapartnet with clean renders, bulk_gapartnet with target-highlighted renders and
four excluded rows, the counterfactual and contrast re-asks) and the generated GUI suites. The
`baselines` config and every row's `baselines` fields of the UMD and GAPartNet configs are recomputed
here independently, from the shards' raw geometry and labels, with the definitions written out again
(not imported).
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import shutil
import statistics
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
import yaml
from datasets import load_dataset

from groundbench.core.shards import read_table
from groundbench.loaders.prompts import template_hash
from groundbench.loaders.published import read_config, write_config
from groundbench.schemas.baselines_features import BASELINE_FEATURES, baselines_arrow_schema
from groundbench.schemas.vocab import ACTIONS
from groundbench.scoring.gate import folder_gate
from groundbench.stages.built import built_configs
from groundbench.stages.paths import HF_FOLDER, MANIFESTS, SHARDS
from tests.conftest import run_cli
from tests.support.builds import copy_tree
from tests.support.dvcrepo import default_repo

pytestmark = pytest.mark.slow  # end to end: the whole default build (every source, every stage)

IDENTITY = ["object_category", "target_part_id", "target_category"]
KEYS = {  # the categorical text each condition supplies (never coordinates or axes)
    "image_only": [],
    "object_named": ["object_category"],
    "part_named": IDENTITY,
    "localization_only": ["object_category"],
    "localization_shown": IDENTITY,
    "mechanics_shown": [*IDENTITY, "target_joint_type"],
    "part_named_free_form": IDENTITY,
    "counterfactual": IDENTITY,
}


CONFIGS = ["curated_umd", "bulk_umd", "curated_gapartnet", "bulk_gapartnet"]
REASK = ["counterfactual_gapartnet", "contrast_gapartnet"]
GUI = [
    "gui_sheets",
    "gui_text",
    "gui_screenspot",
    "gui_screenspot_v2",
    "gui_screenspot_pro",
    "gui_screenspot_pro_cn",
    "gui_osworld_g",
    "gui_osworld_g_refined",
    "gui_ui_vision",
]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory, _shared_builds: None) -> Path:
    """The default build: `dvc repro` of the project, every stage of dvc.yaml on both embedded samples (the
    run's one such build, tests/support/dvcrepo.py, which tests/pipeline/test_dvc.py checks against dvc.lock); a
    private copy."""
    return copy_tree(default_repo(), tmp_path_factory.mktemp("scoring_build") / "project")


def test_the_default_build_passes_the_card_check(built: Path) -> None:
    """check-card recomputes the baselines config from the four configs' shards, GAPartNet included."""
    assert run_cli(built, "check-card") == 0


def _target(row: dict[str, Any]) -> dict[str, Any]:
    (part,) = [p for p in row["parts"] if p["part_id"] == row["target_part_id"]]
    return part


def _text_key(r: dict[str, Any], names: list[str]) -> tuple:
    """The categorical text fields ``names`` of a row's request, in order: a text-only lookup's key."""
    t = _target(r)
    text = {
        "object_category": r["object_category"],
        "target_part_id": r["target_part_id"],
        "target_category": t["category"],
        "target_joint_type": t["joint_type"],
    }
    return tuple(text[k] for k in names)


def _conditions(row: dict[str, Any]) -> list[str]:
    if row["excluded"]:
        return []
    out = list(row["conditions"])
    if "part_named" in out:
        out.append("part_named_free_form")
    if row["original_target_part_id"] is not None:
        out.append("counterfactual")
    return out


def _expected(config: str, rows: list[dict[str, Any]]) -> dict[tuple[str, str, str, str], Any]:
    expected: dict[tuple[str, str, str, str], Any] = {}
    groups: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        for condition in _conditions(row):
            groups[(row["stratum"], condition)].append(row)
    for (stratum, condition), members in groups.items():
        n = len(members)
        actions = Counter(r["target_action"] for r in members)
        expected[(config, stratum, condition, "majority_action")] = max(actions.values()) / n
        lookup: dict[tuple, Counter] = defaultdict(Counter)
        for r in members:
            lookup[_text_key(r, KEYS[condition])][r["target_action"]] += 1
        bound = sum(max(c.values()) for c in lookup.values()) / n
        # Paper 4.1: only a condition naming the target's category can leak, when that category determines the
        # action across objects: each category has one action, and some category is on two or more objects.
        names_category = "target_category" in KEYS[condition]
        by_category: dict[str, set[str]] = defaultdict(set)
        objects_of: dict[str, set[str]] = defaultdict(set)
        for r in members:
            by_category[_target(r)["category"]].add(r["target_action"])
            objects_of[_target(r)["category"]].add(r["object_id"])
        across = any(len(o) > 1 for o in objects_of.values())
        leaks = names_category and across and all(len(a) == 1 for a in by_category.values())
        expected[(config, stratum, condition, "text_only_blind_bound")] = (bound, leaks)
        expected[(config, stratum, condition, "singleton_keys")] = float(
            sum(sum(c.values()) == 1 for c in lookup.values())
        )
        expected[(config, stratum, condition, "text_only_blind_estimate_loo")] = _loo(members, KEYS[condition]) / n
        offsets, image_d, object_d = [], [], []
        for r in members:
            x, y = _target(r)["point_xy"]
            w, h = r["width"], r["height"]
            diag = math.sqrt(w * w + h * h)
            offsets.append(((x - w / 2) / diag, (y - h / 2) / diag))
            image_d.append(math.dist((x, y), (w / 2, h / 2)) / diag)
            x0, y0, x1, y1 = r["object_bbox_xyxy"]
            object_d.append(math.dist((x, y), ((x0 + x1) / 2, (y0 + y1) / 2)) / diag)
        mx = sum(o[0] for o in offsets) / n
        my = sum(o[1] for o in offsets) / n
        tau = statistics.median(math.dist(o, (mx, my)) for o in offsets)
        expected[(config, stratum, condition, "localization_tau")] = tau
        expected[(config, stratum, condition, "image_center_hit_rate_at_tau")] = sum(d <= tau for d in image_d) / n
        expected[(config, stratum, condition, "object_center_hit_rate_at_tau")] = sum(d <= tau for d in object_d) / n
        expected[(config, stratum, condition, "image_center_mean_distance")] = sum(image_d) / n
        expected[(config, stratum, condition, "object_center_mean_distance")] = sum(object_d) / n
        expected[(config, stratum, condition, "image_center_in_target_region")] = (
            sum(_in_region(r, [r["width"] / 2, r["height"] / 2]) for r in members) / n
        )
        expected[(config, stratum, condition, "object_center_in_target_region")] = (
            sum(_in_region(r, _centre(r["object_bbox_xyxy"])) for r in members) / n
        )
        # The best constants are optima: at least as good as every constant tried here (each target's own
        # offset at tau; each target box's centre offset in the region), never above 1.
        tried = [sum(math.dist(o, p) <= tau for p in offsets) / n for o in offsets]
        expected[(config, stratum, condition, "best_constant_hit_rate_at_tau")] = ("at least", max(tried))
        # In the region: each target's own point (a pixel centre inside its mask) tried as a constant offset.
        tried_region = [
            sum(_in_region(r, [r["width"] / 2 + o[0] * _diag(r), r["height"] / 2 + o[1] * _diag(r)]) for r in members)
            / n
            for o in offsets
        ]
        expected[(config, stratum, condition, "best_constant_in_target_region")] = ("at least", max(tried_region))
    return expected


def _centre(box: list[float]) -> list[float]:
    return [(box[0] + box[2]) / 2, (box[1] + box[3]) / 2]


def _diag(row: dict[str, Any]) -> float:
    return math.sqrt(row["width"] ** 2 + row["height"] ** 2)


def _half(row: dict[str, Any]) -> list[float]:
    return [row["width"] / 2, row["height"] / 2, row["width"] / 2, row["height"] / 2]


def _loo(members: list[dict[str, Any]], keys: list[str]) -> int:
    """Leave one object out: a lookup (key -> most common action, ties alphabetical) learnt on the other
    objects, scored on the held-out one; an unseen full key backs off to the target's category alone (when
    the condition supplies it), then to the others' most common action."""

    def key(r: dict[str, Any], names: list[str] = keys) -> tuple:
        return _text_key(r, names)

    category = ["target_category"] if "target_category" in keys and keys != ["target_category"] else None

    def top(actions: list[str]) -> str:
        counts = Counter(actions)
        return sorted(counts, key=lambda a: (-counts[a], a))[0]

    right = 0
    for held in {r["object_id"] for r in members}:
        others = [r for r in members if r["object_id"] != held]
        table: dict[tuple, list[str]] = defaultdict(list)
        by_category: dict[tuple, list[str]] = defaultdict(list)
        for r in others:
            table[key(r)].append(r["target_action"])
            if category:
                by_category[key(r, category)].append(r["target_action"])
        fallback = top([r["target_action"] for r in others]) if others else None
        for r in members:
            if r["object_id"] == held:
                if key(r) in table:
                    guess = top(table[key(r)])
                elif category and key(r, category) in by_category:
                    guess = top(by_category[key(r, category)])
                else:
                    guess = fallback
                right += guess == r["target_action"]
    return right


def test_no_figure_labelled_a_bound_is_below_the_majority(built: Path, tmp_path: Path) -> None:
    """A constant answer is an input-blind policy: every figure called a blind bound, on every config of the
    default build, is at least the majority of the same rows (baselines config, card and score report)."""
    loaded = load_dataset(str(built / HF_FOLDER), "baselines", split="test", cache_dir=str(tmp_path / "cache"))
    cells: dict[tuple[str, str, str], dict[str, Any]] = defaultdict(dict)
    for b in loaded:
        cells[(b["config"], b["stratum"], b["condition"])][b["baseline"]] = b
    bounds = 0
    for key, baselines in cells.items():
        for name, b in baselines.items():
            if "bound" in name:
                bounds += 1
                assert b["value"] >= baselines["majority_action"]["value"], (key, name, b["value"])
        if "text_only_blind_estimate_loo" in baselines:  # the held-out figure is an estimate, named as one
            assert not any(name.endswith("_loo") and "bound" in name for name in baselines)
    assert {k[0] for k in cells if "text_only_blind_bound" in cells[k]} >= set(CONFIGS + REASK)
    assert bounds >= 20
    # the score report prints the same bound beside every action figure
    requests = _requests(built, tmp_path, "curated_gapartnet", "image_only")
    path = _write(tmp_path / "c.jsonl", _answer_lines(requests, "m", response='{"action": "pull"}'))
    out = tmp_path / "c.json"
    assert run_cli(built, "score", str(path), "--json", str(out), "--resamples", "5") == 0
    metrics = [m for m in json.loads(out.read_text())["metrics"] if m["blind_bound"] is not None]
    assert metrics and all(m["blind_bound"] >= m["baseline_majority"] for m in metrics)


def test_baselines_config_agrees_with_an_independent_recomputation(built: Path, tmp_path: Path) -> None:
    loaded = load_dataset(str(built / HF_FOLDER), "baselines", split="test", cache_dir=str(tmp_path / "cache"))
    assert loaded.features == BASELINE_FEATURES.to_datasets()
    got = {(b["config"], b["stratum"], b["condition"], b["baseline"]): b for b in loaded}
    expected: dict[tuple[str, str, str, str], Any] = {}
    for config in CONFIGS:
        rows = read_table(built / SHARDS / config).drop_columns(["image"]).to_pylist()
        expected.update(_expected(config, rows))
    assert {k for k in got if k[0] in CONFIGS} == set(expected)
    assert len(expected) > 50
    for key, value in expected.items():
        if key[3] == "text_only_blind_bound":
            assert got[key]["value"] == pytest.approx(value[0], abs=1e-12), key
            assert got[key]["leakage"] is value[1], key
            assert got[key]["supplied_keys"] == KEYS[key[2]]
        elif isinstance(value, tuple):
            assert value[1] - 1e-12 <= got[key]["value"] <= 1.0, key
        else:
            assert got[key]["value"] == pytest.approx(value, abs=1e-12), key
    # Paper section 4.1, Table 1: on curated GAPartNet the conditions that withhold the target's category
    # (object_named, localization_only) never leak, whatever the in-sample bound says on 10 rows.
    for condition in ("object_named", "localization_only"):
        assert got[("curated_gapartnet", "curated", condition, "text_only_blind_bound")]["leakage"] is False
    # the card prints the same table
    card = (built / HF_FOLDER / "README.md").read_text()
    assert "## Baselines per config, stratum and condition" in card
    assert "| `curated_umd` | curated | part_named | 5 | 1.0000 (grasp) | 1.0000 | 1.0000 | 5/5 | **yes** |" in card
    # GAPartNet: the excluded rows are not counted; highlighted renders only under the two shown conditions;
    # the sample has 10 curated objects
    assert {k[2] for k in expected if k[0] == "bulk_gapartnet"} == {"localization_shown", "mechanics_shown"}
    assert {got[k]["n"] for k in got if k[0] == "bulk_gapartnet" and k[3] == "majority_action"} == {54}
    assert {got[k]["n"] for k in got if k[0] == "curated_gapartnet" and k[3] == "majority_action"} == {10}


def test_every_rows_baselines_agree_with_a_recomputation(built: Path) -> None:
    checked = 0
    for config in CONFIGS:
        for row in read_table(built / SHARDS / config).drop_columns(["image"]).to_pylist():
            x, y = _target(row)["point_xy"]
            w, h = row["width"], row["height"]
            x0, y0, x1, y1 = row["object_bbox_xyxy"]
            diag = math.sqrt(w * w + h * h)
            assert row["baselines"]["image_center_distance"] == pytest.approx(math.dist((x, y), (w / 2, h / 2)) / diag)
            assert row["baselines"]["object_center_distance"] == pytest.approx(
                math.dist((x, y), ((x0 + x1) / 2, (y0 + y1) / 2)) / diag
            )
            checked += 1
    assert checked == 75 + 68


def test_sanity_self_test_passes_on_every_config(built: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Centre click, best constant and coverage included, on every config of the default build."""
    configs = built_configs(built)
    assert sorted(configs) == sorted([*CONFIGS, *REASK, *GUI])
    for config in configs:
        assert run_cli(built, "score", "--sanity", config) == 0, capsys.readouterr().out
        assert "centre-click, best-constant, coverage and echo emitters behave" in capsys.readouterr().out


def test_sanity_exits_non_zero_on_a_deviation(built: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "copy"
    shutil.copytree(built / HF_FOLDER, root / "data/groundbench")
    folder = root / "data/groundbench/data/baselines"
    rows = read_config(root / "data/groundbench", "baselines").to_pylist()
    for row in rows:  # a baselines config whose majority no longer matches the data
        if row["baseline"] == "majority_action" and row["config"] == "bulk_umd":
            row["value"] = 0.5
    schema = baselines_arrow_schema("0.1.0")
    write_config(folder, [pa.RecordBatch.from_pylist(rows, schema=schema)], schema, len(rows))
    assert run_cli(root, "score", "--sanity", "bulk_umd") == 1
    assert "DEVIATION" in capsys.readouterr().out
    assert run_cli(root, "score", "--sanity", "curated_umd") == 0


def test_requests_for_every_condition(built: Path, tmp_path: Path) -> None:
    conditions = [
        "image_only",
        "object_named",
        "part_named",
        "localization_only",
        "localization_shown",
        "mechanics_shown",
        "part_named_free_form",
        "part_named/text_only",
        "localization_only/text_only",
    ]
    prompts: dict[str, list[dict[str, Any]]] = {}
    for condition in conditions:
        out = tmp_path / f"{condition.replace('/', '_')}.jsonl"
        images = ["--images", str(tmp_path / "images")]
        assert run_cli(built, "requests", "curated_umd", "--condition", condition, "--out", str(out), *images) == 0
        again = tmp_path / "again.jsonl"
        assert run_cli(built, "requests", "curated_umd", "--condition", condition, "--out", str(again), *images) == 0
        assert out.read_bytes() == again.read_bytes()  # deterministic
        prompts[condition] = [json.loads(line) for line in out.read_text().splitlines()]
        assert len(prompts[condition]) == 5
        gate = folder_gate(built / HF_FOLDER)
        for line in prompts[condition]:
            assert {"example_id", "condition", "prompt", "image", "template_sha256", "template_version"} <= set(line)
            assert line["template_sha256"] == template_hash(condition)
            # the gate fields score checks: dataset version and manifest hash read from the published card
            assert (
                line["dataset_version"]
                == gate.dataset_version
                == yaml.safe_load((built / "params.yaml").read_text())["dataset"]["version"]
            )
            assert (
                line["manifest_sha256"]
                == hashlib.sha256((built / MANIFESTS / "curated_umd.jsonl").read_bytes()).hexdigest()
            )
    for line in prompts["part_named"]:
        image = Path(line["image"]["path"])  # written by --images from the row's own bytes
        assert image.parent == tmp_path / "images" and image.suffix == ".jpg"
        assert hashlib.sha256(image.read_bytes()).hexdigest() == line["image"]["sha256"]
        assert all(action in line["prompt"] for action in ACTIONS)
        assert "absolute pixels" in line["prompt"] and '"box": [x0, y0, x1, y1]' in line["prompt"]
        assert '"grasp" (category: grasp_region)' in line["prompt"]
    for line in prompts["localization_only"]:
        assert "category: " not in line["prompt"] and "inside the box [" in line["prompt"]
    for line in prompts["mechanics_shown"]:
        assert "joint type is rigid" in line["prompt"] and "motion axis is" in line["prompt"]
    for line in prompts["part_named_free_form"]:
        assert "plain prose" in line["prompt"] and "wrap-grasp" not in line["prompt"]
    for base in ("part_named", "localization_only"):
        for shown, hidden in zip(prompts[base], prompts[f"{base}/text_only"], strict=True):
            assert hidden["image"] is None and hidden["prompt"] == shown["prompt"]
    assert len({template_hash(c) for c in conditions}) == len(conditions) - 2  # text-only shares its base's


def test_requests_reject_an_invalid_condition(built: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli(built, "requests", "curated_umd", "--condition", "telepathy") == 2
    assert "unknown condition" in capsys.readouterr().err
    assert run_cli(built, "requests", "curated_umd", "--condition", "counterfactual") == 2
    assert "no row of curated_umd is valid under counterfactual" in capsys.readouterr().err


def _box_area(box: list[float]) -> float:
    return (box[2] - box[0]) * (box[3] - box[1])


def _inside(point: list[float], box: list[float]) -> bool:
    return box[0] <= point[0] <= box[2] and box[1] <= point[1] <= box[3]


def _mask_pixels(part: dict[str, Any]) -> frozenset[tuple[int, int]]:
    """The part's mask pixels (col, row), expanded from its run lengths pixel by pixel (the card's definition)."""
    return _expand_runs(tuple(part["visible_bbox_xyxy"]), tuple(part["mask_rle"]))


@functools.cache  # the best-constant check asks every member's mask once per offset tried: n^2 look-ups
def _expand_runs(box: tuple[float, ...], runs: tuple[int, ...]) -> frozenset[tuple[int, int]]:
    x0, y0, x1, y1 = (int(v) for v in box)
    pixels: set[tuple[int, int]] = set()
    index = 0
    for k, run in enumerate(runs):
        if k % 2 == 1:
            pixels.update((x0 + i % (x1 - x0), y0 + i // (x1 - x0)) for i in range(index, index + run))
        index += run
    assert index == (x1 - x0) * (y1 - y0)
    return frozenset(pixels)


def _in_region(row: dict[str, Any], point: list[float]) -> bool:
    """Inside the target's own mask (the point's pixel) where the row has one, else inside its box."""
    part = _target(row)
    if part["mask_rle"] is None:
        return _inside(point, part["bbox_xyxy"])
    return (math.floor(point[0]), math.floor(point[1])) in _mask_pixels(part)


def test_every_part_mask_decodes_to_its_area_and_visible_box(built: Path) -> None:
    """UMD and GAPartNet parts carry their mask; it holds mask_area pixels whose tight box is the visible
    box, and the part's own point lies in it. GUI parts and hidden re-ask parts carry none."""
    seen = Counter()
    for config in [*CONFIGS, *REASK, *GUI]:
        for row in read_table(built / SHARDS / config).drop_columns(["image"]).to_pylist():
            for part in row["parts"]:
                if config in GUI or part["visible_bbox_xyxy"] is None:
                    assert part["mask_rle"] is None, (config, row["example_id"], part["part_id"])
                    continue
                pixels = _mask_pixels(part)
                assert len(pixels) == part["mask_area"] > 0
                cols, rows_ = [c for c, _ in pixels], [r for _, r in pixels]
                tight = [min(cols), min(rows_), max(cols) + 1, max(rows_) + 1]
                assert tight == part["visible_bbox_xyxy"], (config, row["example_id"], part["part_id"])
                assert part["mask_rle"][0] >= 0 and all(c > 0 for c in part["mask_rle"][1:])
                x, y = part["point_xy"]
                assert (math.floor(x), math.floor(y)) in pixels  # the point is the mask's interior pixel
                seen[config] += 1
    assert all(seen[c] > 0 for c in [*CONFIGS, *REASK]), seen


def test_gapartnet_geometry_without_a_name_selects_the_target(built: Path, tmp_path: Path) -> None:
    """Projected 3-D boxes overlap: the target's own point and box must still select the target itself."""
    rows = [r for r in read_table(built / SHARDS / "curated_gapartnet").drop_columns(["image"]).to_pylist()]
    kept = [r for r in rows if not r["excluded"]]
    # The data really has the trap: a target point inside a smaller box of another part (drawer, bucket).
    trapped = [
        r["example_id"]
        for r in kept
        if any(
            p["part_id"] != r["target_part_id"]
            and _inside(_target(r)["point_xy"], p["bbox_xyxy"])
            and _box_area(p["bbox_xyxy"]) < _box_area(_target(r)["bbox_xyxy"])
            for p in r["parts"]
        )
    ]
    assert trapped == ["gapartnet/curated/900002", "gapartnet/curated/900008"]
    lines = []
    for condition in ("image_only", "object_named", "part_named"):
        for r in kept:
            t = _target(r)
            lines.append(
                {
                    "example_id": r["example_id"],
                    "condition": condition,
                    "model": "point",
                    "parsed": {"action": r["target_action"], "point": t["point_xy"], "box": t["bbox_xyxy"]},
                }
            )
            lines.append(
                {
                    "example_id": r["example_id"],
                    "condition": condition,
                    "model": "box",
                    "parsed": {"action": r["target_action"], "box": t["bbox_xyxy"]},
                }
            )
    predictions = tmp_path / "p.jsonl"
    predictions.write_text("".join(json.dumps(line) + "\n" for line in lines))
    assert run_cli(built, "score", str(predictions), "--json", str(tmp_path / "s.json"), "--resamples", "10") == 0
    metrics = json.loads((tmp_path / "s.json").read_text())["metrics"]
    exact = [m for m in metrics if m["metric"] == "exact_target_rate"]
    assert len(exact) == 6
    assert all(m["value"] == 1.0 and m["n"] == 10 for m in exact), exact  # 10 curated objects


def test_gapartnet_highlighted_and_excluded_rows(
    built: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = read_table(built / SHARDS / "bulk_gapartnet").drop_columns(["image"]).to_pylist()
    excluded = [r["example_id"] for r in rows if r["excluded"]]
    assert len(rows) == 58 and len(excluded) == 4
    out = tmp_path / "shown.jsonl"
    assert run_cli(built, "requests", "bulk_gapartnet", "--condition", "localization_shown", "--out", str(out)) == 0
    requested = [json.loads(line)["example_id"] for line in out.read_text().splitlines()]
    assert len(requested) == 54 and not set(requested) & set(excluded)
    for condition in ("image_only", "part_named", "localization_only", "part_named_free_form"):
        assert run_cli(built, "requests", "bulk_gapartnet", "--condition", condition) == 2
        assert f"no row of bulk_gapartnet is valid under {condition}" in capsys.readouterr().err
    # the oracle on highlighted rows: selection not measurable (null), localization labelled an echo
    lines = []
    for r in rows:
        if r["excluded"]:
            continue
        t = _target(r)
        answer = {"part": r["target_part_id"], "action": r["target_action"], "point": t["point_xy"]}
        lines.append({"example_id": r["example_id"], "condition": "mechanics_shown", "model": "o", "parsed": answer})
    predictions = tmp_path / "p.jsonl"
    predictions.write_text("".join(json.dumps(line) + "\n" for line in lines))
    assert run_cli(built, "score", str(predictions), "--json", str(tmp_path / "s.json"), "--resamples", "10") == 0
    metrics = {m["metric"]: m for m in json.loads((tmp_path / "s.json").read_text())["metrics"]}
    assert (
        metrics["part_selection_accuracy"]["value"] is None
        and "not measurable" in metrics["part_selection_accuracy"]["note"]
    )
    assert metrics["action_accuracy"]["value"] == 1.0 and metrics["action_accuracy"]["n"] == 54
    assert metrics["localization_hit_rate"]["measures"] == "echo" and metrics["echo_rate"]["value"] == 1.0
    # a prediction for an excluded row is counted, reported and ignored (never fatal, never in a denominator)
    extra = {"example_id": excluded[0], "condition": "mechanics_shown", "model": "o", "parsed": {"action": "push"}}
    predictions.write_text("".join(json.dumps(line) + "\n" for line in [*lines, extra]))
    assert run_cli(built, "score", str(predictions), "--json", str(tmp_path / "x.json"), "--resamples", "10") == 0
    assert "1 predictions for excluded rows were counted and ignored" in capsys.readouterr().err
    report = json.loads((tmp_path / "x.json").read_text())
    assert report["excluded_predictions"] == [
        {"model": "o", "config": "bulk_gapartnet", "condition": "mechanics_shown", "example_id": excluded[0]}
    ]
    again = {m["metric"]: m for m in report["metrics"]}
    assert again["action_accuracy"]["n"] == 54 and again["coverage"]["value"] == 1.0


def _requests(built: Path, tmp_path: Path, config: str, condition: str) -> list[dict[str, Any]]:
    out = tmp_path / f"{config}.{condition.replace('/', '_')}.requests.jsonl"
    assert run_cli(built, "requests", config, "--condition", condition, "--out", str(out)) == 0
    return [json.loads(line) for line in out.read_text().splitlines()]


def _answer_lines(requests: list[dict[str, Any]], model: str, **fields: Any) -> list[dict[str, Any]]:
    """Prediction lines that copy the request's gate fields, as a harness does."""
    keep = ("example_id", "condition", "dataset_version", "manifest_sha256", "template_sha256")
    return [{**{k: r[k] for k in keep}, "model": model, **fields} for r in requests]


def _write(path: Path, lines: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def test_one_prediction_of_n_reports_coverage_and_a_bounded_rate(
    built: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """PointerBench counts a missing answer as a failure: one right answer of n is at most 1/n."""
    requests = _requests(built, tmp_path, "curated_gapartnet", "part_named")
    n = len(requests)
    assert n == 10  # the sample's 10 curated objects
    rows = {r["example_id"]: r for r in read_table(built / SHARDS / "curated_gapartnet").to_pylist()}
    first = rows[requests[0]["example_id"]]
    lines = _answer_lines(
        requests[:1], "one", parsed={"part": first["target_part_id"], "action": first["target_action"]}
    )
    path = _write(tmp_path / "one.jsonl", lines)
    out = tmp_path / "one.json"
    missing = tmp_path / "missing.jsonl"
    assert run_cli(built, "score", str(path), "--json", str(out), "--missing", str(missing), "--resamples", "20") == 0
    metrics = {m["metric"]: m for m in json.loads(out.read_text())["metrics"]}
    assert (metrics["coverage"]["count"], metrics["coverage"]["n"], metrics["coverage"]["detail"]) == (1, n, "1/10")
    assert metrics["action_accuracy"]["n"] == n and metrics["action_accuracy"]["value"] <= 1 / n
    assert metrics["action_accuracy"]["value"] == pytest.approx(1 / n)  # the one answer is right
    assert metrics["missing_rate"]["count"] == n - 1
    assert [json.loads(line)["example_id"] for line in missing.read_text().splitlines()] == [
        r["example_id"] for r in requests[1:]
    ]
    # the same file as a deliberate subset: scored over its own row, and the output says so
    assert run_cli(built, "score", str(path), "--json", str(out), "--subset", "--resamples", "20") == 0
    assert "SUBSET" in capsys.readouterr().err
    subset = {m["metric"]: m for m in json.loads(out.read_text())["metrics"]}
    assert subset["action_accuracy"]["n"] == 1 and subset["coverage"]["note"].startswith("SUBSET")


def test_the_gate_refuses_a_wrong_manifest_and_records_what_was_scored(
    built: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    requests = _requests(built, tmp_path, "curated_umd", "part_named")
    lines = _answer_lines(requests, "m", parsed={"action": "grasp"})
    good = _write(tmp_path / "good.jsonl", lines)
    out = tmp_path / "good.json"
    assert run_cli(built, "score", str(good), "--json", str(out), "--csv", str(tmp_path / "g.csv"), "--verbose") == 0
    report = json.loads(out.read_text())
    gate = folder_gate(built / HF_FOLDER)
    assert report["gate"]["status"] == f"gated ({len(lines)} of {len(lines)} lines carry gate fields)"
    assert report["gate"]["dataset_version"] == gate.dataset_version
    assert report["gate"]["manifest_sha256"] == {"curated_umd": gate.manifest_sha256["curated_umd"]}
    assert report["gate"]["template_sha256"] == {"part_named": template_hash("part_named")}
    assert report["gate"]["package_version"]
    header = (tmp_path / "g.csv").read_text().splitlines()[0]
    assert header.endswith("dataset_version,manifest_sha256,template_sha256,package_version,synthetic")
    stdout = capsys.readouterr().out
    assert f"manifest curated_umd: {gate.manifest_sha256['curated_umd']}" in stdout

    wrong = [dict(line) for line in lines]
    wrong[2]["manifest_sha256"] = "0" * 64
    bad = _write(tmp_path / "bad.jsonl", wrong)
    assert run_cli(built, "score", str(bad)) == 2
    err = capsys.readouterr().err
    assert "line 3" in err and "manifest_sha256" in err and "0" * 64 in err
    # a bogus template hash, dataset version or image hash is refused the same way
    for field, value in (("template_sha256", "f" * 64), ("dataset_version", "9.9.9"), ("image_sha256", "a" * 64)):
        bogus = [dict(line) for line in lines]
        bogus[0][field] = value
        assert run_cli(built, "score", str(_write(tmp_path / "bogus.jsonl", bogus))) == 2
        assert field in capsys.readouterr().err
    # the explicit override scores it, prints a banner and records the mismatch
    assert run_cli(built, "score", str(bad), "--allow-gate-mismatch", "--json", str(out)) == 0
    assert "GATE OVERRIDDEN" in capsys.readouterr().err
    overridden = json.loads(out.read_text())["gate"]
    assert overridden["override"] is True and "MISMATCH OVERRIDDEN" in overridden["status"]
    assert len(overridden["mismatches"]) == 1
    # lines of someone else's harness (no gate fields) are scored, and the output says it was not gated
    gate_fields = ("dataset_version", "manifest_sha256", "template_sha256")
    plain = [{k: v for k, v in line.items() if k not in gate_fields} for line in lines]
    assert run_cli(built, "score", str(_write(tmp_path / "plain.jsonl", plain)), "--json", str(out)) == 0
    assert "NOT GATED" in capsys.readouterr().err
    assert json.loads(out.read_text())["gate"]["status"] == "not gated"


def test_python_api_returns_the_json_the_cli_writes(built: Path, tmp_path: Path) -> None:
    from groundbench.scoring import score

    requests = _requests(built, tmp_path, "curated_umd", "object_named")
    lines = _answer_lines(requests, "m", response='{"action": "grasp"}')
    path = _write(tmp_path / "p.jsonl", lines)
    out = tmp_path / "p.json"
    assert run_cli(built, "score", str(path), "--json", str(out), "--seed", "3", "--resamples", "50") == 0
    report = score(lines, folder=built / HF_FOLDER, seed=3, resamples=50)
    assert json.loads(json.dumps(report.to_dict())) == json.loads(out.read_text())


def test_compare_gives_the_paired_difference_with_an_interval(built: Path, tmp_path: Path) -> None:
    requests = _requests(built, tmp_path, "curated_gapartnet", "part_named")
    rows = {r["example_id"]: r for r in read_table(built / SHARDS / "curated_gapartnet").to_pylist()}
    right = [
        {**line, "parsed": {"action": rows[line["example_id"]]["target_action"]}}
        for line in _answer_lines(requests, "a")
    ]
    # B is right on the first three rows only: A - B = (10 - 3) / 10 on action accuracy
    wrong = [
        {**line, "parsed": {"action": rows[line["example_id"]]["target_action"] if i < 3 else "none"}}
        for i, line in enumerate(_answer_lines(requests, "b"))
    ]
    a, b = _write(tmp_path / "a.jsonl", right), _write(tmp_path / "b.jsonl", wrong)
    out = tmp_path / "c.json"
    assert run_cli(built, "compare", str(a), str(b), "--json", str(out), "--resamples", "200") == 0
    entry = next(e for e in json.loads(out.read_text())["differences"] if e["metric"] == "action_accuracy")
    assert (entry["n"], entry["value_a"], entry["value_b"]) == (10, 1.0, pytest.approx(3 / 10))
    assert entry["difference"] == pytest.approx(7 / 10)
    # every object is one row here: a resample's difference is the share of drawn rows B gets wrong, so the
    # interval lies inside [0, 1] and, with 7 of 10 objects differing, strictly above 0
    assert 0 < entry["ci_low"] <= entry["difference"] <= entry["ci_high"] <= 1


def test_gui_labels_are_text_not_rich_markup(built: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    requests = _requests(built, tmp_path, "gui_text", "gui")
    path = _write(tmp_path / "g.jsonl", _answer_lines(requests, "[bold]m[/bold]", response='{"point": [1, 1]}'))
    assert run_cli(built, "score", str(path), "--resamples", "10", "--verbose") == 0  # the breakdown's labels
    stdout = capsys.readouterr().out
    rows = read_table(built / SHARDS / "gui_text").drop_columns(["image"]).to_pylist()
    kinds = {r["extras"]["gui"]["data_type"] for r in rows if r["extras"]["gui"]["data_type"]}
    assert kinds and all(f"[{kind}]" in stdout for kind in kinds)
    assert "[bold]m[/bold]" in stdout


def test_bulk_umd_task_free_conditions_hold_one_row_per_frame(built: Path) -> None:
    """The same image and task-free prompt are never scored against two hidden targets."""
    rows = read_table(built / SHARDS / "bulk_umd").drop_columns(["image"]).to_pylist()
    frames: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        frames[row["image_sha256"]].append(row)
    assert any(len(members) > 1 for members in frames.values())
    for members in frames.values():
        for condition in ("image_only", "object_named"):
            keepers = [r for r in members if condition in r["conditions"]]
            assert len(keepers) == 1, [r["example_id"] for r in members]
            actions = {r["target_action"] for r in members}
            # the grasp region's row where the frame has one, else the first by example id
            expected = "grasp" if "grasp" in actions else min(r["example_id"] for r in members).rsplit("/", 1)[1]
            assert keepers[0]["target_action"] == expected
        for row in members:  # the targeted conditions stay valid on every row
            assert {"part_named", "localization_only", "localization_shown", "mechanics_shown"} <= set(
                row["conditions"]
            )
