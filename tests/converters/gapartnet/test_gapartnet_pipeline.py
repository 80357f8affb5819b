"""The GAPartNet sample end to end: renderer determinism, box verification, strata, audit errors, loading."""

from __future__ import annotations

import io
import shutil
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
import yaml
from datasets import load_dataset
from PIL import Image

from groundbench.converters.gapartnet.convert import convert_gapartnet
from groundbench.converters.gapartnet.sample import WRONG_FRAME_OBJECT, write_sample
from groundbench.core.geometry import box_iou, mask_box
from groundbench.core.params import load_params
from groundbench.core.shards import read_table
from groundbench.errors import GroundBenchError
from groundbench.schemas.conditions import ALL_CONDITIONS, HIGHLIGHT_SAFE
from groundbench.schemas.rules import validate_table
from groundbench.stages.paths import HF_FOLDER, SHARDS
from tests.conftest import REPO, digests, run_cli

AUDIT = REPO / "data" / "audits" / "curated_gapartnet.yaml"
PARAMS = load_params(REPO)
ONE_WORKER = PARAMS.gapartnet.model_copy(update={"workers": 1})


@pytest.fixture(scope="module")
def sample(gapartnet_rendered: Path) -> Path:
    return gapartnet_rendered  # rendered once per test run (tests/conftest.py); read only


@pytest.fixture(scope="module")
def converted(sample: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("gapartnet_out") / "interim"
    convert_gapartnet(sample / "assets", sample / "renders", out, AUDIT, ONE_WORKER, PARAMS.shards, False)
    return out


def _rows(converted: Path, config: str) -> list[dict]:
    table = read_table(converted / config)
    validate_table(table, config)
    return table.to_pylist()


def _instance(sample: Path, view: str) -> np.ndarray:
    with np.load(sample / "renders" / "segmentation" / f"{view}.npz", allow_pickle=False) as data:
        return data["instance_segmentation"]


def _parts_and_masks(sample: Path, converted: Path) -> Iterator[tuple[dict, dict, dict, np.ndarray]]:
    """Every part of the curated and bulk rows: (its row, its record, the converter's facts of it, its mask in the
    renderer's own instance segmentation)."""
    for config in ("curated_gapartnet", "bulk_gapartnet"):
        for row in _rows(converted, config):
            extras = row["extras"]["gapartnet"]
            instance = _instance(sample, extras["view_id"])
            facts = {p["part_id"]: p for p in extras["parts"]}
            for part in row["parts"]:
                yield row, part, facts[part["part_id"]], instance == facts[part["part_id"]]["instance_id"]


def test_the_renderer_is_byte_deterministic(sample: Path, tmp_path: Path) -> None:
    write_sample(tmp_path / "again")
    assert digests(sample, ("assets", "renders")) == digests(tmp_path / "again", ("assets", "renders"))
    assert len(list((sample / "renders" / "rgb").iterdir())) == 21  # 900011, 900012, 900014, 900015: raw


def test_boxes_and_points_agree_with_the_renderers_own_masks(sample: Path, converted: Path) -> None:
    checked = 0
    for row, part, _, mask in _parts_and_masks(sample, converted):
        assert part["mask_area"] == int(mask.sum()) > 0
        x, y = part["point_xy"]
        assert mask[int(y), int(x)], (row["example_id"], part["part_id"])
        tight = mask_box(mask)
        assert tight is not None
        if part["box_quality"] == "exact":
            assert box_iou(tuple(part["bbox_xyxy"]), tight) >= 0.5
            checked += 1
        else:
            assert tuple(part["bbox_xyxy"]) == tight
    assert checked > 50


def test_the_planted_wrong_frame_object_is_excluded_from_bulk_and_kept_in_curated(converted: Path) -> None:
    bulk = _rows(converted, "bulk_gapartnet")
    assert {r["object_id"] for r in bulk if r["excluded"]} == {WRONG_FRAME_OBJECT}
    for row in bulk:
        if row["object_id"] == WRONG_FRAME_OBJECT:
            assert row["exclusion_tags"] == ["box_projection_mismatch"] and row["flags"] == []
            target = next(p for p in row["parts"] if p["part_id"] == row["target_part_id"])
            assert target["box_quality"] == "from-mask"
            assert all(p["projection_mismatch"] for p in row["extras"]["gapartnet"]["parts"])
    # curated keeps the audited target with the mask's box and an informational flag, not an exclusion
    curated = {r["object_id"]: r for r in _rows(converted, "curated_gapartnet")}
    assert not any(r["excluded"] for r in curated.values())
    remote = curated[WRONG_FRAME_OBJECT]
    assert remote["flags"] == ["box_projection_mismatch"] and remote["exclusion_tags"] == []
    target = next(p for p in remote["parts"] if p["part_id"] == remote["target_part_id"])
    assert target["box_quality"] == "from-mask" and target["bbox_xyxy"] == target["visible_bbox_xyxy"]
    facts = next(p for p in remote["extras"]["gapartnet"]["parts"] if p["part_id"] == remote["target_part_id"])
    assert facts["projection_mismatch"] and facts["mask_coverage"] < 0.9
    # its projected box is still there, in its own field, and misses the mask
    assert (
        target["projected_bbox_xyxy"] is None
        or box_iou(tuple(target["projected_bbox_xyxy"]), tuple(target["visible_bbox_xyxy"])) < 0.5
    )
    assert all(r["flags"] == [] for o, r in curated.items() if o != WRONG_FRAME_OBJECT)


def test_visible_and_projected_boxes_are_their_own_fields(sample: Path, converted: Path) -> None:
    checked = 0
    for _, part, fact, mask in _parts_and_masks(sample, converted):
        assert tuple(part["visible_bbox_xyxy"]) == mask_box(mask)
        assert part["projected_bbox_xyxy"] == (fact["projected_bbox_xyxy"] or None)
        assert part["mask_pieces"] >= 1
        chosen = part["projected_bbox_xyxy"] if part["box_quality"] == "exact" else part["visible_bbox_xyxy"]
        assert part["bbox_xyxy"] == chosen
        checked += 1
    assert checked > 100


def test_an_audit_entry_can_exclude_its_target_with_a_reason(sample: Path, tmp_path: Path) -> None:
    raw = yaml.safe_load(AUDIT.read_text())
    raw["objects"][2]["exclude"] = "the pressed key is hard to see at this size"
    audit = tmp_path / "audit.yaml"
    audit.write_text(yaml.safe_dump(raw))
    out = tmp_path / "out"
    convert_gapartnet(sample / "assets", sample / "renders", out, audit, ONE_WORKER, PARAMS.shards, False)
    rows = {r["object_id"]: r for r in _rows(out, "curated_gapartnet")}
    keyboard = rows[raw["objects"][2]["object"]]
    assert keyboard["excluded"] and keyboard["exclusion_tags"] == ["audit_excluded"]
    assert keyboard["extras"]["gapartnet"]["audit_note"].startswith("excluded: the pressed key is hard to see")
    assert sum(r["excluded"] for r in rows.values()) == 1


def test_curated_rows(converted: Path) -> None:
    rows = {r["object_id"]: r for r in _rows(converted, "curated_gapartnet")}
    assert len(rows) == 10
    for object_id, row in rows.items():
        assert row["render"]["kind"] == "clean" and row["conditions"] == list(ALL_CONDITIONS)
        extras = row["extras"]["gapartnet"]
        assert extras["has_distractor"] == (object_id not in ("900004", "900005"))
        assert extras["view_id"].endswith("_00_000") and row["render"]["camera"]["fx"] > 0
    pot = rows["900007"]
    assert pot["target_action"] == "lift-vertical" and pot["extras"]["gapartnet"]["action_overridden"]
    assert len(rows["900003"]["parts"]) == 30  # every key is a candidate
    cabinet = rows["900001"]
    handle = next(p for p in cabinet["extras"]["gapartnet"]["parts"] if p["part_id"] == "link_2")
    assert handle["own_joint_type"] == "fixed" and handle["joint"] == "joint_0" and handle["moving_link"] == "link_0"
    assert next(p for p in cabinet["parts"] if p["part_id"] == "link_2")["joint_type"] == "revolute"
    door = next(p for p in cabinet["parts"] if p["part_id"] == "link_0")
    assert door["action"] == "pull" and len(door["motion_axis_3d"]) == 3 and len(door["motion_axis_2d"]) == 2
    # the hinge is vertical in the world, so in this upright view its image direction is near vertical
    assert abs(door["motion_axis_2d"][1]) > 0.9


def test_bulk_rows_are_highlighted_from_the_mask(sample: Path, converted: Path) -> None:
    rows = _rows(converted, "bulk_gapartnet")
    assert len(rows) == 58
    for row in rows:
        assert row["render"]["kind"] == "highlighted" and row["conditions"] == list(HIGHLIGHT_SAFE)
        assert row["render"]["highlighted_part_id"] == row["target_part_id"]
        assert "blended 50%" in row["extras"]["gapartnet"]["highlight_method"]
    row = rows[0]
    extras = row["extras"]["gapartnet"]
    clean = np.asarray(Image.open(sample / "renders" / "rgb" / f"{extras['view_id']}.png").convert("RGB"))
    image = np.asarray(Image.open(io.BytesIO(row["image"]["bytes"])).convert("RGB"))
    target = next(p for p in extras["parts"] if p["part_id"] == row["target_part_id"])
    mask = _instance(sample, extras["view_id"]) == target["instance_id"]
    np.testing.assert_array_equal(image[~mask], clean[~mask])
    assert (image[mask] != clean[mask]).any(axis=1).all()


INSTANCE_FIELDS = ("instance_assignment", "instance_overlap", "instance_ambiguous")


def _without_instance_facts(row: dict) -> dict:
    extras = row["extras"]["gapartnet"]
    parts = [{k: v for k, v in p.items() if k not in INSTANCE_FIELDS} for p in extras["parts"]]
    return {**row, "provenance": None, "extras": {**row["extras"], "gapartnet": {**extras, "parts": parts}}}


def test_renders_without_bbox_pickles_convert_identically(sample: Path, converted: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(sample, copy)
    shutil.rmtree(copy / "renders" / "bbox")
    out = tmp_path / "out"
    convert_gapartnet(copy / "assets", copy / "renders", out, AUDIT, ONE_WORKER, PARAMS.shards, False)
    for config in ("curated_gapartnet", "bulk_gapartnet"):
        with_pickles, without = _rows(converted, config), _rows(out, config)
        assert [_without_instance_facts(r) for r in with_pickles] == [_without_instance_facts(r) for r in without]
        for row in with_pickles:
            assert {p["instance_assignment"] for p in row["extras"]["gapartnet"]["parts"]} == {"bbox_pickle"}
        for row in without:
            assert {p["instance_assignment"] for p in row["extras"]["gapartnet"]["parts"]} == {"mask_overlap"}
            target = next(p for p in row["extras"]["gapartnet"]["parts"] if p["part_id"] == row["target_part_id"])
            assert not target["instance_ambiguous"]


def _audit_with(tmp_path: Path, **changes: str) -> Path:
    raw = yaml.safe_load(AUDIT.read_text())
    entry = raw["objects"][1] if changes.get("view", "").startswith("StorageFurniture_900002") else raw["objects"][0]
    entry.update(changes)
    path = tmp_path / "audit.yaml"
    path.write_text(yaml.safe_dump(raw))
    return path


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"target": "link_77"}, r"objects\[900001\].target: unknown link 'link_77'"),
        ({"target": "link_4"}, r"objects\[900001\].target: link that is not a GAPart"),
        ({"view": "StorageFurniture_900002_00_001", "target": "link_5"}, "part link_5 not visible in"),
        ({"view": "StorageFurniture_900001_00_009"}, "view 'StorageFurniture_900001_00_009' not rendered"),
        ({"action": "fly"}, r"objects\[0\].action: expected one of"),
        ({"exclude": ""}, r"objects\[0\].exclude: expected the reason for excluding"),
    ],
)
def test_audit_errors_name_the_entry(sample: Path, tmp_path: Path, changes: dict, message: str) -> None:
    audit = _audit_with(tmp_path, **changes)
    with pytest.raises(GroundBenchError, match=message):
        convert_gapartnet(
            sample / "assets", sample / "renders", tmp_path / "o", audit, ONE_WORKER, PARAMS.shards, False
        )


def test_akb48_layout_and_category_folder(sample: Path, tmp_path: Path) -> None:
    from groundbench.converters.gapartnet.layout import find_objects

    assets = tmp_path / "assets"
    (assets / "Box").mkdir(parents=True)
    shutil.copytree(sample / "assets" / "900006", assets / "Box" / "900006")
    (assets / "Box" / "900006" / "meta.json").unlink()
    shutil.copytree(sample / "assets" / "900004", assets / "900004")
    found = [(o.object_id, o.category, o.dataset) for o in find_objects(assets)]
    assert found == [("900004", "Printer", "partnet"), ("900006", "Box", "akb48")]


def test_load_dataset_from_the_data_folder(sample: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "project"
    (root / "data" / "audits").mkdir(parents=True)
    shutil.copy(AUDIT, root / "data" / "audits" / "curated_gapartnet.yaml")
    params = yaml.safe_load((REPO / "params.yaml").read_text())
    params["sources"]["umd"] = None
    params["sources"]["gapartnet"] = {"assets": str(sample / "assets"), "renders": str(sample / "renders")}
    params["gapartnet"]["workers"] = 2  # the parallel path, compared with the serial fixture below
    (root / "params.yaml").write_text(yaml.safe_dump(params))
    assert run_cli(root, "convert", "gapartnet", "--quiet") == 0
    assert run_cli(root, "bake", "curated_gapartnet", "bulk_gapartnet") == 0
    assert run_cli(root, "store") == 0 and run_cli(root, "assemble") == 0
    monkeypatch.chdir(root / "data")
    curated = load_dataset("groundbench", "curated_gapartnet", cache_dir=str(tmp_path / "cache"))["test"]
    bulk = load_dataset("groundbench", "bulk_gapartnet", cache_dir=str(tmp_path / "cache"))["test"]
    assert curated.num_rows == 10 and bulk.num_rows == 58 and sum(bulk["excluded"]) == 4
    assert sum(curated["excluded"]) == 0
    assert curated[0]["image"].size == (320, 240)
    default = load_dataset("groundbench", cache_dir=str(tmp_path / "cache"))["test"]
    assert default.num_rows == 10
    assert read_table(root / SHARDS / "bulk_gapartnet").num_rows == 58
    assert (root / HF_FOLDER / "README.md").is_file()
