"""Baselines, prompts, requests and the sanity self-test on the default build (the embedded samples).

The default build holds every config of the embedded samples: UMD (curated_umd, bulk_umd) and
GAPartNet (curated_gapartnet with clean renders, bulk_gapartnet with target-highlighted renders and
four excluded rows). The `baselines` config and every row's `baselines` fields are recomputed here
independently, from the shards' raw geometry and labels, with the definitions written out again
(not imported).
"""

from __future__ import annotations

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

from groundbench.loaders.prompts import template_hash
from groundbench.pipeline import HF_FOLDER, SHARDS, built_configs
from groundbench.published import read_config, write_config
from groundbench.schemas.baselines_features import BASELINE_FEATURES, baselines_arrow_schema
from groundbench.schemas.vocab import ACTIONS
from groundbench.shards import read_table
from tests.conftest import REPO, run_cli

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


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory, umd_sample: Path) -> Path:
    """The default build: every stage of dvc.yaml, both embedded samples (GAPartNet's written by the stage)."""
    root = tmp_path_factory.mktemp("scoring_build") / "project"
    (root / "data" / "audits").mkdir(parents=True)
    for audit in ("curated_umd.yaml", "curated_gapartnet.yaml"):
        shutil.copy(REPO / "data/audits" / audit, root / "data/audits" / audit)
    params = yaml.safe_load((REPO / "params.yaml").read_text())
    params["sources"]["umd"] = str(umd_sample)
    assert params["sources"]["gapartnet"] == {"assets": "sample", "renders": "sample"}
    params["umd"]["workers"] = 1
    params["gapartnet"]["workers"] = 1
    (root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    assert run_cli(root, "sample", "gapartnet") == 0
    assert run_cli(root, "convert", "umd", "--quiet") == 0
    assert run_cli(root, "convert", "gapartnet", "--quiet") == 0
    assert run_cli(root, "bake", *CONFIGS) == 0
    assert run_cli(root, "baselines") == 0
    assert run_cli(root, "store") == 0
    assert run_cli(root, "assemble") == 0
    return root


def test_the_default_build_passes_the_card_check(built: Path) -> None:
    """check-card recomputes the baselines config from the four configs' shards, GAPartNet included."""
    assert run_cli(built, "check-card") == 0


def _target(row: dict[str, Any]) -> dict[str, Any]:
    (part,) = [p for p in row["parts"] if p["part_id"] == row["target_part_id"]]
    return part


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
            t = _target(r)
            text = {
                "object_category": r["object_category"],
                "target_part_id": r["target_part_id"],
                "target_category": t["category"],
                "target_joint_type": t["joint_type"],
            }
            lookup[tuple(text[k] for k in KEYS[condition])][r["target_action"]] += 1
        bound = sum(max(c.values()) for c in lookup.values()) / n
        expected[(config, stratum, condition, "text_only_blind_bound")] = (bound, bound == 1.0)
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
    return expected


def test_baselines_config_agrees_with_an_independent_recomputation(built: Path, tmp_path: Path) -> None:
    loaded = load_dataset(str(built / HF_FOLDER), "baselines", split="test", cache_dir=str(tmp_path / "cache"))
    assert loaded.features == BASELINE_FEATURES
    got = {(b["config"], b["stratum"], b["condition"], b["baseline"]): b for b in loaded}
    expected: dict[tuple[str, str, str, str], Any] = {}
    for config in built_configs(built):
        rows = read_table(built / SHARDS / config).drop_columns(["image"]).to_pylist()
        expected.update(_expected(config, rows))
    assert set(got) == set(expected)
    assert len(expected) > 50
    for key, value in expected.items():
        if key[3] == "text_only_blind_bound":
            assert got[key]["value"] == pytest.approx(value[0], abs=1e-12), key
            assert got[key]["leakage"] is value[1], key
            assert got[key]["supplied_keys"] == KEYS[key[2]]
        else:
            assert got[key]["value"] == pytest.approx(value, abs=1e-12), key
    # the card prints the same table
    card = (built / HF_FOLDER / "README.md").read_text()
    assert "## Baselines per config, stratum and condition" in card
    assert "| `curated_umd` | curated | part_named | 5 | 1.0000 (grasp) | 1.0000 | **yes** |" in card
    # GAPartNet: the excluded rows are not counted; highlighted renders only under the two shown conditions
    assert {k[2] for k in expected if k[0] == "bulk_gapartnet"} == {"localization_shown", "mechanics_shown"}
    assert {got[k]["n"] for k in got if k[0] == "bulk_gapartnet" and k[3] == "majority_action"} == {54}
    assert {got[k]["n"] for k in got if k[0] == "curated_gapartnet" and k[3] == "majority_action"} == {9}


def test_every_rows_baselines_agree_with_a_recomputation(built: Path) -> None:
    checked = 0
    for config in built_configs(built):
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
    configs = built_configs(built)
    assert configs == CONFIGS
    for config in configs:
        assert run_cli(built, "score", "--sanity", config) == 0, capsys.readouterr().out
        assert "ok: oracle, geometry, constant and echo" in capsys.readouterr().out


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
        for line in prompts[condition]:
            assert {"example_id", "condition", "prompt", "image", "template_sha256", "template_version"} <= set(line)
            assert line["template_sha256"] == template_hash(condition)
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
    assert all(m["value"] == 1.0 and m["n"] == 9 for m in exact), exact


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
        lines.append({"example_id": r["example_id"], "condition": "mechanics_shown", "parsed": answer})
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
    # a prediction for an excluded row is refused, naming the line
    bad = tmp_path / "bad.jsonl"
    bad.write_text(
        json.dumps({"example_id": excluded[0], "condition": "mechanics_shown", "parsed": {"action": "push"}})
    )
    assert run_cli(built, "score", str(bad)) == 2
    assert "is not valid for" in capsys.readouterr().err
