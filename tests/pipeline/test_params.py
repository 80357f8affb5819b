"""Typed parameters: params.yaml and the audit files are validated by one definition, and a bad file
fails with one error naming the file and the key."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from groundbench.converters.gapartnet.audit import read_audit as read_gapartnet_audit
from groundbench.converters.gapartnet.pool import read_pool
from groundbench.converters.umd.audit import read_audit as read_umd_audit
from groundbench.core.params import PARAMS_FILE, load_params, source_root
from groundbench.errors import GroundBenchError
from tests.conftest import REPO, run_cli

AUDITS = REPO / "data" / "audits"


def _project(tmp_path: Path, change: Callable[[dict[str, Any]], None]) -> Path:
    raw = yaml.safe_load((REPO / PARAMS_FILE).read_text(encoding="utf-8"))
    change(raw)
    (tmp_path / PARAMS_FILE).write_text(yaml.safe_dump(raw, sort_keys=False), encoding="utf-8")
    return tmp_path


def test_the_repository_files_validate() -> None:
    params = load_params(REPO)
    raw = yaml.safe_load((REPO / PARAMS_FILE).read_text(encoding="utf-8"))
    # Everything in the file reaches the model unchanged (nothing dropped, nothing defaulted).
    assert params.model_dump() == {
        **raw,
        "sample": {**raw["sample"], "gui": {**raw["sample"]["gui"], "frames": tuple(raw["sample"]["gui"]["frames"])}},
    }
    assert params.report.detail_side == raw["report"]["detail_side"]
    assert params.gui.max_held_bytes == raw["gui"]["max_held_bytes"]
    assert read_umd_audit(AUDITS / "curated_umd.yaml").entries
    assert read_gapartnet_audit(AUDITS / "curated_gapartnet.yaml")
    assert read_pool(AUDITS / "contrast_pool.yaml")


def _set(dotted: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def change(raw: dict[str, Any]) -> None:
        *parents, key = dotted.split(".")
        node = raw
        for part in parents:
            node = node[part]
        node[key] = value

    return change


def _drop(dotted: str) -> Callable[[dict[str, Any]], None]:
    def change(raw: dict[str, Any]) -> None:
        *parents, key = dotted.split(".")
        node = raw
        for part in parents:
            node = node[part]
        del node[key]

    return change


@pytest.mark.parametrize(
    ("change", "field", "reason"),
    [
        (_set("umd.workers", "two"), "umd.workers", "valid integer"),
        (_set("umd.workers", "2"), "umd.workers", "valid integer"),  # strict: a string is never a number
        (_set("shards.rows_per_batch", 2.5), "shards.rows_per_batch", "valid integer"),
        (_set("gapartnet.iou_min", "half"), "gapartnet.iou_min", "valid number"),
        (_set("sample.gui.frames", ["1024x768", 1366]), "sample.gui.frames[1]", "valid string"),
        (_set("contrast.render.engine", "raytracer"), "contrast.render.engine", "'raster', 'embree' or 'triangle'"),
        (_set("umd.wokers", 1), "umd.wokers", "unknown key"),
        (_set("extra_section", {}), "extra_section", "unknown key"),
        (_drop("shards.max_bytes"), "shards.max_bytes", "missing required key"),
        (_drop("report.detail_side"), "report.detail_side", "missing required key"),
        (_drop("sources.gui.screenspot_pro"), "sources.gui.screenspot_pro", "missing required key"),
    ],
)
def test_bad_params_name_the_key(
    tmp_path: Path, change: Callable[[dict[str, Any]], None], field: str, reason: str
) -> None:
    root = _project(tmp_path, change)
    with pytest.raises(GroundBenchError) as caught:
        load_params(root)
    assert (caught.value.path, caught.value.field) == (PARAMS_FILE, field)
    assert reason in caught.value.reason


def test_a_stage_stops_on_bad_params_with_the_key(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _project(tmp_path, _set("gui.window", "many"))
    assert run_cli(root, "convert", "pointerbench", "--quiet") != 0
    assert "params.yaml: gui.window:" in capsys.readouterr().err
    assert not (root / "data").exists()  # nothing written


def test_a_null_source_part_leaves_the_source_out(tmp_path: Path) -> None:
    root = _project(tmp_path, _set("sources.gapartnet", {"assets": "sample", "renders": None}))
    params = load_params(root)
    assert source_root(root, params, "gapartnet") is None
    assert source_root(root, params, "gapartnet.assets") == root / "data/sources/sample/gapartnet/assets"
    assert source_root(root, params, "screenspot") == root / "data/sources/sample/gui/screenspot"


@pytest.mark.parametrize(
    ("text", "field", "reason"),
    [
        ("tools:\n  - {tool: mug_01, frame: 0}\n", "tools[0].frame", "expected a frame number >= 1, got 0"),
        ("tools:\n  - {tool: mug_01, frame: four}\n", "tools[0].frame", "valid integer"),
        ("tools:\n  - {tool: mug_01, fram: 4}\n", "tools[0].fram", "unknown key"),
        ("tools:\n  - {note: no tool}\n", "tools[0].tool", "missing required key"),
        ("frame_rule: best\ntools: []\n", "frame_rule", "'hand_labelled' or 'any'"),
        ("tools:\n  - {tool: mug_01}\n  - {tool: mug_01}\n", "tools[1]", "tool mug_01 audited twice"),
        ("tool: []\n", "tools", "expected a mapping with a 'tools' list"),
    ],
)
def test_bad_umd_audit_names_the_entry(tmp_path: Path, text: str, field: str, reason: str) -> None:
    path = tmp_path / "curated_umd.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(GroundBenchError) as caught:
        read_umd_audit(path)
    assert (caught.value.path, caught.value.field) == (str(path), field)
    assert reason in caught.value.reason


@pytest.mark.parametrize(
    ("entry", "field", "reason"),
    [
        ({"view": "v", "target": "link_0"}, "objects[0].object", "missing required key"),
        ({"object": "1", "view": "v", "target": "link_0", "actoin": "pull"}, "objects[0].actoin", "unknown key"),
        ({"object": "1", "view": "v", "target": "link_0", "action": "fly"}, "objects[0].action", "expected one of"),
        ({"object": True, "view": "v", "target": "link_0"}, "objects[0].object", "valid string"),
        ({"object": "1", "view": "v", "target": "link_0", "exclude": " "}, "objects[0].exclude", "the reason"),
    ],
)
def test_bad_gapartnet_audit_names_the_entry(tmp_path: Path, entry: dict[str, Any], field: str, reason: str) -> None:
    path = tmp_path / "curated_gapartnet.yaml"
    path.write_text(yaml.safe_dump({"objects": [entry]}), encoding="utf-8")
    with pytest.raises(GroundBenchError) as caught:
        read_gapartnet_audit(path)
    assert (caught.value.field, reason in caught.value.reason) == (field, True)


def test_unquoted_object_ids_name_the_same_object(tmp_path: Path) -> None:
    path = tmp_path / "curated_gapartnet.yaml"
    path.write_text("objects:\n  - {object: 900001, view: v, target: link_0}\n", encoding="utf-8")
    assert [e.object_id for e in read_gapartnet_audit(path)] == ["900001"]


def test_pool_with_an_unknown_key_names_it(tmp_path: Path) -> None:
    path = tmp_path / "contrast_pool.yaml"
    shutil.copy(AUDITS / "contrast_pool.yaml", path)
    raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    raw["pairs"][2]["reviewer"] = "someone"
    path.write_text(yaml.safe_dump(raw), encoding="utf-8")
    with pytest.raises(GroundBenchError, match=r"pairs\[2\]\.reviewer: unknown key"):
        read_pool(path)
