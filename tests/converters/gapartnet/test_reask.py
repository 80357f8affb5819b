"""Re-ask configs on the GAPartNet sample: every row checked against its source object, every tag from a real case.

The project is built through the CLI (convert, derive, bake, store, assemble) once per module; rows are
checked against what they were made from: the curated row (counterfactual), or the object's own
annotation files, renders and the renderer (contrast).
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml
from datasets import load_dataset

from groundbench.converters.gapartnet.annotations import parse_link_annotations
from groundbench.converters.gapartnet.audit import read_audit
from groundbench.converters.gapartnet.contrast import (
    contrast_pairs,
    mine_contrast,
    object_actions,
    placeholder_png,
)
from groundbench.converters.gapartnet.geometry import Camera
from groundbench.converters.gapartnet.renderer import render_view
from groundbench.converters.gapartnet.sample import (
    CLOSED_POSE_OBJECT,
    HIGHLIGHT_ONLY_OBJECT,
    NO_RENDER_OBJECT,
    PUSH_LIFT_OBJECT,
    PUSH_PULL_OBJECT,
    SAMPLE_OBJECTS,
    WRONG_FRAME_OBJECT,
    _files,
)
from groundbench.converters.gapartnet.urdf import parse_urdf
from groundbench.converters.gapartnet.views import load_npz
from groundbench.core.geometry import box_iou, mask_box
from groundbench.core.manifests import read_manifest, sha256_bytes
from groundbench.core.params import load_params
from groundbench.core.shards import read_table
from groundbench.schemas.conditions import ALL_CONDITIONS, HIGHLIGHT_SAFE
from groundbench.schemas.rules import validate_table
from groundbench.stages.paths import INTERIM, SHARDS
from tests.conftest import REPO, run_cli
from tests.support.builds import copy_tree

AUDIT = REPO / "data" / "audits" / "curated_gapartnet.yaml"
POOL = REPO / "data" / "audits" / "contrast_pool.yaml"
REASK_CONFIGS = ("counterfactual_gapartnet", "contrast_gapartnet")
PARAMS = load_params(REPO)
ONE_WORKER = PARAMS.gapartnet.model_copy(update={"workers": 1})


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory, gapartnet_rendered: Path) -> Path:
    root = tmp_path_factory.mktemp("reask") / "project"
    sample = copy_tree(gapartnet_rendered, root.parent / "gapartnet")  # rendered once per test run
    (root / "data" / "audits").mkdir(parents=True)
    shutil.copy(AUDIT, root / "data" / "audits" / "curated_gapartnet.yaml")
    shutil.copy(POOL, root / "data" / "audits" / "contrast_pool.yaml")
    params = yaml.safe_load((REPO / "params.yaml").read_text())
    params["sources"]["umd"] = None
    params["sources"]["gapartnet"] = {"assets": str(sample / "assets"), "renders": str(sample / "renders")}
    params["gapartnet"]["workers"] = 1
    (root / "params.yaml").write_text(yaml.safe_dump(params))
    assert run_cli(root, "convert", "gapartnet", "--quiet") == 0
    assert run_cli(root, "derive", "counterfactual", "--quiet") == 0
    assert run_cli(root, "derive", "contrast", "--quiet") == 0
    configs = ("curated_gapartnet", "bulk_gapartnet", *REASK_CONFIGS)
    assert run_cli(root, "bake", *configs) == 0
    assert run_cli(root, "store") == 0 and run_cli(root, "assemble") == 0
    assert run_cli(root, "verify") == 0
    return root


def _sample(project: Path) -> Path:
    return project.parent / "gapartnet"


def _rows(project: Path, config: str) -> list[dict[str, Any]]:
    table = read_table(project / SHARDS / config)
    validate_table(table, config)
    return table.to_pylist()


def _summary(project: Path, folder: str) -> dict[str, Any]:
    return json.loads((project / INTERIM / folder / "summary.json").read_text())


def _object_files(sample: Path, object_id: str) -> tuple[Any, Any]:
    folder = sample / "assets" / object_id
    urdf = parse_urdf((folder / "mobility_annotation_gapartnet.urdf").read_bytes(), object_id)
    annotations = parse_link_annotations((folder / "link_annotation_gapartnet.json").read_bytes(), object_id)
    return urdf, annotations


def _camera(row: dict[str, Any]) -> Camera:
    c = row["render"]["camera"]
    intrinsic = np.array([[c["fx"], 0.0, c["cx"]], [0.0, c["fy"], c["cy"]], [0.0, 0.0, 1.0]])
    r_wc = np.array(c["world2camera_rotation"]).reshape(3, 3)
    position = np.array(row["extras"]["gapartnet"]["camera_position"])
    return Camera(intrinsic, r_wc.T, position, row["width"], row["height"])


# --- counterfactual -------------------------------------------------------------------------------


def test_counterfactual_rows_match_their_curated_source(project: Path) -> None:
    curated = {r["example_id"]: r for r in _rows(project, "curated_gapartnet")}
    rows = _rows(project, "counterfactual_gapartnet")
    by_source: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        reask = row["extras"]["reask"]
        source = curated[reask["source_example_id"]]
        by_source.setdefault(source["example_id"], []).append(row)
        assert row["stratum"] == "counterfactual" and reask["construction"] == "counterfactual"
        assert row["image"]["bytes"] == source["image"]["bytes"] and row["image_sha256"] == source["image_sha256"]
        assert row["parts"] == source["parts"] and row["render"] == source["render"]
        assert row["conditions"] == list(ALL_CONDITIONS)
        assert row["target_part_id"] != source["target_part_id"]
        assert row["original_target_part_id"] == source["target_part_id"]
        assert row["original_action"] == source["target_action"]
        requested = next(p for p in row["parts"] if p["part_id"] == row["target_part_id"])
        assert row["target_action"] == requested["action"]
        assert reask["informative"] == (row["target_action"] != row["original_action"])
        assert reask["transition"] == f"{row['original_action']}→{row['target_action']}"
        assert reask["pair_id"] == f"{row['object_id']}/{row['original_target_part_id']}->{row['target_part_id']}"
        facts = next(p for p in row["extras"]["gapartnet"]["parts"] if p["part_id"] == row["target_part_id"])
        assert row["exclusion_tags"] == (["box_projection_mismatch"] if facts["projection_mismatch"] else [])
        # flags describe the requested part's own mask, never the original target's
        split = ["region_split"] if requested["mask_pieces"] >= 2 else []
        assert row["flags"] == split + (["below_pixel_floor"] if requested["mask_area"] < 16 else [])
    for example_id, source in curated.items():  # one row per non-target part, none for single parts
        expected = {p["part_id"] for p in source["parts"]} - {source["target_part_id"]}
        assert {r["target_part_id"] for r in by_source.get(example_id, [])} == expected
    assert len(rows) == 46 and sum(r["extras"]["reask"]["informative"] for r in rows) == 4
    assert {r["object_id"] for r in rows if r["excluded"]} == {WRONG_FRAME_OBJECT}
    # the audit's override matters: the pot's knob is lift-vertical like its lid, so no informative re-ask
    pot = next(r for r in rows if r["object_id"] == "900007")
    assert pot["original_action"] == pot["target_action"] == "lift-vertical"
    summary = _summary(project, "gapartnet_counterfactual")
    assert summary["objects_without_reask"] == {
        "900004": "a single candidate part",
        "900005": "a single candidate part",
    }


def test_counterfactual_images_cost_no_new_bytes(project: Path) -> None:
    curated = read_manifest(project / "data/manifests/curated_gapartnet.jsonl")
    derived = read_manifest(project / "data/manifests/counterfactual_gapartnet.jsonl")
    assert derived and set(derived) <= set(curated)
    assert all(derived[sha] == curated[sha] for sha in derived)


# --- contrast -------------------------------------------------------------------------------------


def test_contrast_pairs_are_every_pair_with_different_actions(project: Path) -> None:
    sample = _sample(project)
    audit = {e.object_id: e for e in read_audit(AUDIT)}
    rows = _rows(project, "contrast_gapartnet")
    got: dict[str, set[tuple[str, str]]] = {}
    for row in rows:
        got.setdefault(row["object_id"], set()).add((row["original_target_part_id"], row["target_part_id"]))
    expected = {}
    for obj in SAMPLE_OBJECTS:
        _urdf, annotations = _object_files(sample, obj.object_id)
        pairs = contrast_pairs(object_actions(annotations, audit.get(obj.object_id)))
        if pairs:
            expected[obj.object_id] = set(pairs)
    assert got == expected
    # bulk-stratum objects (rendered) and raw ones (never rendered) are both searched
    assert set(got) == {
        "900006",
        "900009",
        HIGHLIGHT_ONLY_OBJECT,
        PUSH_PULL_OBJECT,
        PUSH_LIFT_OBJECT,
        CLOSED_POSE_OBJECT,
        NO_RENDER_OBJECT,
    }
    assert "900007" not in got  # lid and knob share lift-vertical once the audit's override applies
    transitions = Counter(r["extras"]["reask"]["transition"] for r in rows)
    assert transitions["push→lift-vertical"] == 2 and transitions["pull→push"] == 4


def test_contrast_rows_match_their_source_object(project: Path) -> None:
    sample = _sample(project)
    audit = {e.object_id: e for e in read_audit(AUDIT)}
    bulk = {r["example_id"]: r for r in _rows(project, "bulk_gapartnet")}
    origins: Counter[str] = Counter()
    for row in _rows(project, "contrast_gapartnet"):
        reask = row["extras"]["reask"]
        urdf, annotations = _object_files(sample, row["object_id"])
        actions = object_actions(annotations, audit.get(row["object_id"]))
        original, requested = row["original_target_part_id"], row["target_part_id"]
        # actions as the rules say: the table (with the audit's override), different for the pair
        assert requested != original and actions[requested] != actions[original]
        assert row["target_action"] == actions[requested] and row["original_action"] == actions[original]
        assert all(p["action"] == actions[p["part_id"]] for p in row["parts"])
        assert reask["informative"] and reask["transition"] == f"{actions[original]}→{actions[requested]}"
        assert {original, requested} <= {p["part_id"] for p in row["parts"]}
        origin = reask["image_origin"]
        origins[origin] += 1
        if origin == "placeholder":
            assert row["image"]["bytes"] == placeholder_png(row["width"], row["height"])
            assert row["render"]["kind"] == "placeholder" and row["conditions"] == []
            assert all(p["mask_area"] is None and p["box_quality"] == "approximate" for p in row["parts"])
            continue
        if origin == "highlighted_only":
            source = bulk[reask["source_example_id"]]
            assert source["target_part_id"] == original and row["image_sha256"] == source["image_sha256"]
            assert row["render"]["highlighted_part_id"] == original != requested
            assert row["conditions"] == list(HIGHLIGHT_SAFE)
            view = row["extras"]["gapartnet"]["view_id"]
            seg = (sample / "renders" / "segmentation" / f"{view}.npz").read_bytes()
            instance = load_npz(seg, view, ("instance_segmentation",), 1 << 30)["instance_segmentation"]
        else:
            # the same image as the renderer makes at the recorded camera and pose
            facts = row["extras"]["gapartnet"]
            qpos = dict(zip(facts["joint_names"], facts["joint_qpos"], strict=True))
            meta = {"model_id": int(row["object_id"]), "category": row["object_category"]}
            rendered = render_view(sample / "assets" / row["object_id"], urdf, annotations, qpos, _camera(row), meta)
            assert rendered.rgb_png == row["image"]["bytes"]
            instance = load_npz(rendered.segmentation_npz, "render", ("instance_segmentation",), 1 << 30)[
                "instance_segmentation"
            ]
            assert row["render"]["kind"] == "clean" and row["conditions"] == list(ALL_CONDITIONS)
            if origin == "rerendered_clean":  # the bulk view rendered again: the source's clean bytes
                source = bulk[reask["source_example_id"]]
                assert source["target_part_id"] == original
                view = source["extras"]["gapartnet"]["view_id"]
                assert row["image"]["bytes"] == (sample / "renders" / "rgb" / f"{view}.png").read_bytes()
            else:
                assert reask["source_example_id"] is None and all(q == 0.0 for q in qpos.values())
        # candidate parts: every annotated part visible in the image, plus the pair's parts if hidden
        instance_ids = {p["part_id"]: p["instance_id"] for p in row["extras"]["gapartnet"]["parts"]}
        for part in row["parts"]:
            mask = instance == instance_ids[part["part_id"]]
            if part["mask_area"] is None:
                assert instance_ids[part["part_id"]] == -1 and part["box_quality"] == "approximate"
                continue
            assert part["mask_area"] == int(mask.sum()) > 0
            tight = mask_box(mask)
            assert tight is not None
            if part["box_quality"] == "exact":
                assert box_iou(tuple(part["bbox_xyxy"]), tight) >= 0.5
            else:
                assert tuple(part["bbox_xyxy"]) == tight
        visible = {instance_ids[p["part_id"]] for p in row["parts"] if p["mask_area"] is not None}
        assert visible == {int(i) for i in np.unique(instance) if i >= 0}
    assert origins == {"rerendered_clean": 12, "rendered_clean": 8, "highlighted_only": 2, "placeholder": 2}


def test_every_exclusion_tag_comes_from_its_sample_case(project: Path) -> None:
    rows = {r["example_id"]: r for r in _rows(project, "contrast_gapartnet")}
    tagged: dict[str, set[str]] = {}
    for example_id, row in rows.items():
        assert row["excluded"] == bool(row["exclusion_tags"])
        for tag in row["exclusion_tags"]:
            tagged.setdefault(tag, set()).add(example_id)
    prefix = "gapartnet/contrast/"
    assert tagged == {
        "highlight_mismatch": {
            f"{prefix}{HIGHLIGHT_ONLY_OBJECT}/link_0->link_1",
            f"{prefix}{HIGHLIGHT_ONLY_OBJECT}/link_1->link_0",
        },
        "no_render": {f"{prefix}{NO_RENDER_OBJECT}/link_0->link_1", f"{prefix}{NO_RENDER_OBJECT}/link_1->link_0"},
        "closed_pose_ambiguous": {f"{prefix}{CLOSED_POSE_OBJECT}/link_0->link_1"},
        "box_projection_mismatch": {f"{prefix}{PUSH_PULL_OBJECT}/link_0->link_2"},
    }
    for example_id in tagged["highlight_mismatch"] | tagged["no_render"]:
        assert "file not found" in rows[example_id]["extras"]["reask"]["render_error"]  # meshes not shipped
    hidden = rows[f"{prefix}{CLOSED_POSE_OBJECT}/link_0->link_1"]
    assert hidden["extras"]["reask"]["requested_mask_area"] == 0 and not hidden["extras"]["reask"]["requested_visible"]
    # its reverse asks about the visible lid: kept, the hidden button listed as the original
    reverse = rows[f"{prefix}{CLOSED_POSE_OBJECT}/link_1->link_0"]
    assert not reverse["excluded"] and reverse["extras"]["reask"]["requested_visible"]
    wrong = rows[f"{prefix}{PUSH_PULL_OBJECT}/link_0->link_2"]
    facts = {p["part_id"]: p for p in wrong["extras"]["gapartnet"]["parts"]}
    assert facts["link_2"]["projection_mismatch"] and not facts["link_1"]["projection_mismatch"]
    counterfactual = _rows(project, "counterfactual_gapartnet")
    assert {t for r in counterfactual for t in r["exclusion_tags"]} == {"box_projection_mismatch"}


def test_the_manifest_records_the_render_call_and_packages(project: Path) -> None:
    manifest = read_manifest(project / "data/manifests/contrast_gapartnet.jsonl")
    bulk = read_manifest(project / "data/manifests/bulk_gapartnet.jsonl")
    rows = _rows(project, "contrast_gapartnet")
    origin_of = {r["image_sha256"]: r["extras"]["reask"]["image_origin"] for r in rows}
    assert set(manifest) == set(origin_of)
    expected = {
        "rerendered_clean": "groundbench.converters.gapartnet.renderer",
        "rendered_clean": "groundbench.converters.gapartnet.renderer",
        "highlighted_only": "groundbench.converters.gapartnet",  # the bulk row's entry, reused
        "placeholder": "groundbench.converters.gapartnet.reask",
    }
    assert {sha: entry.producer.name for sha, entry in manifest.items()} == {
        sha: expected[origin] for sha, origin in origin_of.items()
    }
    for entry in manifest.values():
        if entry.producer.name.endswith(".renderer"):
            assert entry.producer.call.startswith("render_view(")
            assert {"trimesh", "embreex", "numpy", "pillow"} <= set(entry.producer.packages)
        elif entry.producer.name.endswith(".reask"):
            assert entry.producer.call.startswith("placeholder:")
        else:
            assert bulk[entry.sha256] == entry


def test_rerendering_is_tried_before_a_highlight_mismatch(project: Path, tmp_path: Path) -> None:
    """Ship the safe's meshes: the same pairs come out re-rendered clean, kept, no tag."""
    sample = _sample(project)
    assets = tmp_path / "assets"
    shutil.copytree(sample / "assets", assets)
    safe = next(o for o in SAMPLE_OBJECTS if o.object_id == HIGHLIGHT_ONLY_OBJECT)
    for name, data in _files(safe).items():
        (assets / safe.object_id / name).parent.mkdir(parents=True, exist_ok=True)
        (assets / safe.object_id / name).write_bytes(data)
    out = tmp_path / "out"
    bulk = project / INTERIM / "gapartnet" / "bulk_gapartnet"
    mine_contrast(assets, sample / "renders", bulk, out, AUDIT, None, ONE_WORKER, PARAMS.contrast, PARAMS.shards, False)
    rows = [r for r in read_table(out / "contrast_gapartnet").to_pylist() if r["object_id"] == HIGHLIGHT_ONLY_OBJECT]
    assert len(rows) == 2
    for row in rows:
        assert row["extras"]["reask"]["image_origin"] == "rerendered_clean" and not row["excluded"]
        view = row["extras"]["gapartnet"]["view_id"]
        assert row["image"]["bytes"] == (sample / "renders" / "rgb" / f"{view}.png").read_bytes()


def test_the_closed_pose_threshold_is_a_param(project: Path, tmp_path: Path) -> None:
    sample = _sample(project)
    share = 0.005  # 384 pixels at 320x240: the small buttons and knobs now count as hidden
    contrast = PARAMS.contrast.model_copy(update={"closed_pose_min_mask_share": share})
    out = tmp_path / "out"
    bulk = project / INTERIM / "gapartnet" / "bulk_gapartnet"
    mine_contrast(
        sample / "assets", sample / "renders", bulk, out, AUDIT, None, ONE_WORKER, contrast, PARAMS.shards, False
    )
    for row in read_table(out / "contrast_gapartnet").to_pylist():
        reask = row["extras"]["reask"]
        if reask["image_origin"] == "placeholder":
            continue
        small = reask["requested_mask_area"] < 384
        assert reask["mask_min_pixels"] == 384
        assert ("closed_pose_ambiguous" in row["exclusion_tags"]) == small
    summary = json.loads((out / "summary.json").read_text())
    assert summary["by_exclusion_tag"]["closed_pose_ambiguous"] > 1


# --- the frozen pool ------------------------------------------------------------------------------


def test_the_mined_pool_equals_the_frozen_pool_file(project: Path) -> None:
    kept = {r["extras"]["reask"]["pair_id"] for r in _rows(project, "contrast_gapartnet") if not r["excluded"]}
    listed = {entry["pair"] for entry in yaml.safe_load(POOL.read_text())["pairs"]}
    assert kept == listed and len(kept) == 18
    assert all(entry["reason"].strip() for entry in yaml.safe_load(POOL.read_text())["pairs"])


def _contrast_outputs(project: Path) -> dict[str, bytes]:
    folder = project / INTERIM / "gapartnet_contrast"
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_a_miner_that_yields_one_more_pair_stops_the_build_naming_it(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from groundbench.converters.gapartnet import contrast

    real = contrast.contrast_pairs

    def one_more(actions: dict[str, str]) -> list[tuple[str, str]]:
        pairs = real(actions)
        if actions.get("link_2") == actions.get("link_3") == "push" and len(set(actions.values())) >= 2:
            pairs = sorted([*pairs, ("link_2", "link_3")])  # the microwave's two buttons: same action
        return pairs

    before = _contrast_outputs(project)
    monkeypatch.setattr(contrast, "contrast_pairs", one_more)
    capsys.readouterr()
    assert run_cli(project, "derive", "contrast", "--quiet") != 0
    err = capsys.readouterr().err
    assert "contrast_pool.yaml: pairs: the mined contrast pool differs from the frozen pool (1 added, 0 missing)" in err
    assert "+ 900009/link_2->link_3 (mined, not in the file)" in err
    assert _contrast_outputs(project) == before  # the last good outputs stay


def test_a_pair_dropped_from_the_pool_file_stops_the_build_naming_it(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = project / "data" / "audits" / "contrast_pool.yaml"
    original = path.read_text()
    raw = yaml.safe_load(original)
    dropped = raw["pairs"].pop(3)["pair"]
    try:
        path.write_text(yaml.safe_dump(raw))
        capsys.readouterr()
        assert run_cli(project, "derive", "contrast", "--quiet") != 0
        err = capsys.readouterr().err
        assert f"+ {dropped} (mined, not in the file)" in err and "(1 added, 0 missing)" in err
    finally:
        path.write_text(original)


def test_a_pool_draft_lists_every_mined_pair_and_the_build_refuses_it_until_reviewed(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A pool for other sources starts from a draft: the mined pool in the audit file's format, reasons empty."""
    from groundbench.converters.gapartnet.pool import read_pool

    before = _contrast_outputs(project)
    draft = tmp_path / "draft.yaml"
    assert run_cli(project, "derive", "contrast", "--quiet", "--write-pool-draft", str(draft)) == 0
    assert _contrast_outputs(project) == before  # the reviewed pool still matches: the same outputs
    entries = read_pool(draft)  # the audit file's own format and validation
    kept = [r for r in _rows(project, "contrast_gapartnet") if not r["excluded"]]
    assert set(entries) == {r["extras"]["reask"]["pair_id"] for r in kept} and len(entries) == 18
    assert all(entry.reason == "" for entry in entries.values())
    text = draft.read_text()
    for row in kept:  # the comment above each pair names its row (for preview), both parts and the image
        comment = next(line for line in text.splitlines() if line.startswith(f"  # {row['example_id']}: "))
        assert row["extras"]["reask"]["image_origin"] in comment and row["target_action"] in comment
    # pointed at as the pool, the draft is refused, naming the unreviewed pairs, and the outputs stay
    path = project / "data" / "audits" / "contrast_pool.yaml"
    original = path.read_text()
    try:
        path.write_text(text)
        capsys.readouterr()
        assert run_cli(project, "derive", "contrast", "--quiet") != 0
        err = capsys.readouterr().err
        assert "contrast_pool.yaml: reason: 18 of 18 pairs have an empty reason (not reviewed yet)" in err
        assert "? 900006/link_0->link_1 (no reason)" in err
        assert _contrast_outputs(project) == before
        # reviewed: every reason written, the build takes it
        path.write_text(text.replace('reason: ""', 'reason: "drawn and checked"'))
        assert run_cli(project, "derive", "contrast", "--quiet") == 0
        assert _contrast_outputs(project) == before
        # a draft never overwrites the reviewed pool file itself
        assert run_cli(project, "derive", "contrast", "--quiet", "--write-pool-draft", str(path)) == 2
        assert "is the reviewed pool file contrast.pool names" in capsys.readouterr().err
    finally:
        path.write_text(original)
    assert run_cli(project, "derive", "counterfactual", "--quiet", "--write-pool-draft", str(draft)) == 2
    assert "only the contrast construction has a pool" in capsys.readouterr().err


def test_a_pool_that_differs_still_gets_its_draft(project: Path, tmp_path: Path) -> None:
    """The draft is written before the pool check: a build from other sources gets its starting point."""
    path = project / "data" / "audits" / "contrast_pool.yaml"
    original = path.read_text()
    raw = yaml.safe_load(original)
    raw["pairs"] = raw["pairs"][:2]
    draft = tmp_path / "draft.yaml"
    try:
        path.write_text(yaml.safe_dump(raw))
        assert run_cli(project, "derive", "contrast", "--quiet", "--write-pool-draft", str(draft)) != 0
    finally:
        path.write_text(original)
    assert len(yaml.safe_load(draft.read_text())["pairs"]) == 18


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("pairs:\n  - pair: 900009/link_0->link_1\n", r"pairs\[0\].reason: expected the reviewer's reason"),
        ("pairs:\n  - {pair: x, reason: r}\n", r"pairs\[0\].pair: expected '<object>/<original>-><requested>'"),
        ("pairs:\n  - {pair: 1/a->b, reason: r}\n  - {pair: 1/a->b, reason: s}\n", r"1/a->b listed twice"),
        ("objects: []\n", "expected a mapping with a 'pairs' list"),
    ],
)
def test_pool_file_errors_name_the_entry(tmp_path: Path, text: str, message: str) -> None:
    from groundbench.converters.gapartnet.pool import read_pool
    from groundbench.errors import GroundBenchError

    path = tmp_path / "pool.yaml"
    path.write_text(text)
    with pytest.raises(GroundBenchError, match=message):
        read_pool(path)


# --- counts, loading ------------------------------------------------------------------------------


@pytest.mark.parametrize(("config", "folder"), [(c, f"gapartnet_{c.split('_')[0]}") for c in REASK_CONFIGS])
def test_summary_counts_equal_the_shards(project: Path, config: str, folder: str) -> None:
    rows = _rows(project, config)
    summary = _summary(project, folder)
    kept = [r for r in rows if not r["excluded"]]
    assert summary["rows"] == len(rows) and summary["excluded"] == len(rows) - len(kept)
    assert summary["rows_per_object"] == dict(sorted(Counter(r["object_id"] for r in rows).items()))
    assert summary["informative"] == sum(r["extras"]["reask"]["informative"] for r in rows)
    assert summary["informative_share"] == pytest.approx(summary["informative"] / len(rows))
    assert summary["by_exclusion_tag"] == dict(sorted(Counter(t for r in rows for t in r["exclusion_tags"]).items()))
    assert summary["transitions"] == dict(sorted(Counter(r["extras"]["reask"]["transition"] for r in rows).items()))
    assert summary["pool"]["pairs"] == len(kept)
    assert summary["pool"]["objects"] == len({r["object_id"] for r in kept})
    if config == "contrast_gapartnet":
        assert (summary["pool"]["objects"], summary["pool"]["pairs"]) == (5, 18)
        assert summary["search"]["raw"]["objects"] == 4 and summary["search"]["bulk"]["objects"] == 11


def test_both_configs_load_through_load_dataset(project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(project / "data")
    for config in REASK_CONFIGS:
        loaded = load_dataset("groundbench", config, cache_dir=str(tmp_path / "cache"))["test"]
        table = read_table(project / SHARDS / config)
        assert loaded.num_rows == table.num_rows > 0
        assert loaded["example_id"] == table.column("example_id").to_pylist()
        first = loaded[0]
        assert first["extras"]["reask"]["pair_id"].startswith(first["object_id"] + "/")
        assert first["image"].size == (first["width"], first["height"])
        assert sha256_bytes(table.column("image")[0]["bytes"].as_py()) == first["image_sha256"]


def test_a_large_pool_difference_names_the_first_pairs_and_counts_the_rest(tmp_path: Path) -> None:
    from groundbench.converters.gapartnet.pool import check_pool
    from groundbench.errors import GroundBenchError

    path = tmp_path / "pool.yaml"
    path.write_text("pairs:\n  - {pair: 1/a->b, reason: reviewed}\n")
    mined = [f"2/link_{i:02d}->link_99" for i in range(25)]
    with pytest.raises(GroundBenchError) as caught:
        check_pool(path, mined)
    message = str(caught.value)
    assert "(25 added, 1 missing)" in message
    assert "+ 2/link_19->link_99 (mined, not in the file)" in message and "2/link_20->" not in message
    assert "+ ... and 5 more" in message and "- 1/a->b (in the file, not mined)" in message
    assert check_pool(path, ["1/a->b"])["1/a->b"].reason == "reviewed"
