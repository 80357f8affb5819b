"""OSWorld-G as a GUI source: its release layout (``OSWorld-G.json``, ``classification_result.json``,
``images/``, at the root or under ``benchmark/``) converts every row, refusal rows included, with every
region as annotated; the embedded sample in that layout converts too."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from PIL import Image

from groundbench.converters.gui.convert import list_items, osworld_g_source
from groundbench.converters.gui.params import GuiSampleParams
from groundbench.converters.gui.sample.write import generate
from groundbench.core.params import load_params
from groundbench.core.runner import run
from groundbench.core.shards import read_table
from groundbench.errors import GroundBenchError
from groundbench.schemas.rules import validate_table
from groundbench.scoring.baselines import bake_row_baselines
from tests.conftest import REPO
from tests.support.osworld_g_release import CLASSIFIED, REFINED, RELEASE

PARAMS = load_params(REPO)
GUI, SHARDS = PARAMS.gui.model_copy(update={"workers": 1}), PARAMS.shards


def _png(size: tuple[int, int]) -> bytes:
    buffer = io.BytesIO()
    Image.new("L", size, 255).save(buffer, "PNG")
    return buffer.getvalue()


def release_tree(root: Path, folder: str = "benchmark", records: list | None = None) -> Path:
    """The code repository's layout: benchmark/OSWorld-G.json, classification_result.json, images/."""
    records = RELEASE if records is None else records
    here = root / folder if folder else root
    (here / "images").mkdir(parents=True)
    (here / "OSWorld-G.json").write_text(json.dumps(records, indent=4), encoding="utf-8")
    (here / "classification_result.json").write_text(json.dumps(CLASSIFIED), encoding="utf-8")
    for record in records:
        (here / "images" / record["image_path"]).write_bytes(_png(tuple(record["image_size"])))
    return root


def _convert(root: Path, out: Path) -> list[dict]:
    run(osworld_g_source(root, GUI), out, SHARDS, False)
    table = read_table(out / "gui_osworld_g")
    validate_table(table.from_batches([bake_row_baselines(b) for b in table.to_batches()]), "gui_osworld_g")
    return table.to_pylist()


def test_every_release_row_converts_with_its_region_as_annotated(tmp_path: Path) -> None:
    rows = {r["extras"]["gui"]["source_row_id"]: r for r in _convert(release_tree(tmp_path / "src"), tmp_path / "out")}
    assert sorted(rows) == sorted(r["id"] for r in RELEASE)
    box = rows["0FOB4CLBT2-0"]
    gui = box["extras"]["gui"]
    assert box["success_rule"]["kind"] == "point_in_box" and gui["region_kind"] == "box"
    assert gui["raw_bbox"] == [1422.9, 326.4, 26.68, 28.40] and gui["box_format"] == "xywh"
    assert gui["eval_bbox"] == [1422.9, 326.4, 1422.9 + 26.68, 326.4 + 28.40]
    assert gui["capabilities"] == ["text_matching", "fine_grained_manipulation"]
    assert gui["gui_types"] == ["Label", "Button", "Icon"] and gui["eval_type"] == "grounding_eval"
    polygon = rows["0FOB4CLBT2-1"]
    assert polygon["success_rule"]["kind"] == "point_in_polygon"
    assert polygon["extras"]["gui"]["eval_polygon"] == RELEASE[1]["box_coordinates"]
    assert polygon["parts"][0]["bbox_xyxy"] == [100.5, 200.0, 180.0, 250.0]  # the vertices' bounds, for drawing
    assert polygon["extras"]["gui"]["eval_bbox"] == []
    two_vertices = rows["7XQ2KA9ZPL-0"]["extras"]["gui"]
    assert two_vertices["region_kind"] == "polygon" and two_vertices["eval_polygon"] == [600.0, 300.0, 640.0, 330.0]
    assert two_vertices["capabilities"] == []  # listed by no group: "unclassified" in the official tally
    refusal = rows["7XQ2KA9ZPL-1"]
    assert refusal["success_rule"]["kind"] == "refusal" and refusal["extras"]["gui"]["region_kind"] == "none"
    assert refusal["parts"] == [] and refusal["target_part_id"] is None
    assert refusal["extras"]["gui"]["raw_bbox"] == [-1.0, -1.0, -1.0, -1.0]
    assert refusal["image_sha256"] == rows["7XQ2KA9ZPL-0"]["image_sha256"]  # one screenshot, two rows
    assert {r["source"] for r in rows.values()} == {"osworld_g"}


def test_release_at_the_root_converts_the_same_rows(tmp_path: Path) -> None:
    nested = _convert(release_tree(tmp_path / "a"), tmp_path / "out_a")
    flat = _convert(release_tree(tmp_path / "b", folder=""), tmp_path / "out_b")
    strip = lambda rows: [{**r, "provenance": None} for r in rows]  # noqa: E731 - paths differ by the folder
    assert strip(nested) == strip(flat)


def test_embedded_sample_in_the_release_layout_converts(tmp_path: Path) -> None:
    out = tmp_path / "sample"
    generate(out, GuiSampleParams(examples_per_suite=5, frames=("1024x768",), screenspot_rows=2, seed=0, workers=1))
    written = json.loads((out / "osworld_g" / "OSWorld-G.json").read_text(encoding="utf-8"))
    assert {tuple(sorted(r)) for r in written} == {tuple(sorted(RELEASE[0]))}  # exactly the release's keys
    rows = _convert(out / "osworld_g", tmp_path / "out")
    assert len(rows) == len(written)
    kinds = {r["extras"]["gui"]["region_kind"] for r in rows}
    assert kinds == {"box", "polygon", "none"}
    assert any(len(r["extras"]["gui"]["eval_polygon"]) == 4 for r in rows)  # the two-vertex kind
    assert {r["source"] for r in rows} == {"groundbench_gui"}
    assert [r for r in rows if r["extras"]["gui"]["capabilities"] == []]  # one row in no group
    items = list_items(out / "osworld_g", "osworld_g", GUI.max_image_pixels)["gui_osworld_g"]
    assert sum(len(i.rows) for i in items) == len(written)
    refined = json.loads((out / "osworld_g" / "OSWorld-G_refined.json").read_text(encoding="utf-8"))
    assert [{**r, "instruction": ""} for r in refined] == [{**r, "instruction": ""} for r in written]
    assert 0 < sum(a["instruction"] != b["instruction"] for a, b in zip(refined, written, strict=True)) < len(written)
    assert read_table(tmp_path / "out" / "gui_osworld_g_refined").num_rows == len(written)


@pytest.mark.parametrize(
    ("change", "field", "reason"),
    [
        ({"box_type": "circle"}, "box_type", "expected bbox, polygon or refusal"),
        ({"box_type": "polygon", "box_coordinates": [1, 2, 3]}, "box_coordinates", "2 or more [x, y] vertices"),
        ({"box_coordinates": [1.0, 2.0, "3", 4.0]}, "box_coordinates", "finite numbers"),
        ({"GUI_types": "Button"}, "GUI_types", "list of strings"),
    ],
)
def test_bad_records_name_the_row(tmp_path: Path, change: dict, field: str, reason: str) -> None:
    root = release_tree(tmp_path, records=[{**RELEASE[0], **change}])
    with pytest.raises(GroundBenchError) as caught:
        _convert(root, tmp_path / "out")
    assert "row 0" in str(caught.value) and field in str(caught.value) and reason in str(caught.value)


def test_the_refined_file_converts_to_its_own_config_with_the_same_regions(tmp_path: Path) -> None:
    root = release_tree(tmp_path / "src")
    (root / "benchmark" / "OSWorld-G_refined.json").write_text(json.dumps(REFINED), encoding="utf-8")
    out = tmp_path / "out"
    assert run(osworld_g_source(root, GUI), out, SHARDS, False) == {"gui_osworld_g": 4, "gui_osworld_g_refined": 4}
    original = {r["extras"]["gui"]["source_row_id"]: r for r in read_table(out / "gui_osworld_g").to_pylist()}
    refined = read_table(out / "gui_osworld_g_refined").to_pylist()
    assert [r["example_id"] for r in refined] == sorted(f"gui_osworld_g_refined/{r['id']}" for r in REFINED)
    for row in refined:
        gui, before = row["extras"]["gui"], original[row["extras"]["gui"]["source_row_id"]]
        wanted = next(r for r in REFINED if r["id"] == gui["source_row_id"])
        assert row["instruction"] == wanted["instruction"] and gui["subset"] == "OSWorld-G_refined"
        for key in ("region_kind", "eval_polygon", "eval_bbox", "capabilities", "eval_type"):
            assert gui[key] == before["extras"]["gui"][key], key  # same target, rule and groups
        assert row["success_rule"] == before["success_rule"] and row["parts"] == before["parts"]
    assert sum(r["instruction"] != original[r["extras"]["gui"]["source_row_id"]]["instruction"] for r in refined) == 3


def test_without_the_refined_file_its_config_is_absent_with_the_reason(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert run(osworld_g_source(release_tree(tmp_path / "src"), GUI), out, SHARDS, False) == {"gui_osworld_g": 4}
    reason = (out / "gui_osworld_g_refined" / "ABSENT").read_text(encoding="utf-8")
    assert "no OSWorld-G_refined.json beside benchmark/OSWorld-G.json" in reason
