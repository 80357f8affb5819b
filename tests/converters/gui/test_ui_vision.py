"""UI-Vision element grounding as a GUI source (gui_ui_vision): the layout eval/grounding/sample_script.sh reads
(uivision_annotations/element_grounding/element_grounding_{basic,functional,spatial}.json, uivision_imgs/,
mapdict_cat2platform.json) converts every row of the three kinds, reversed corners swapped as the scorer swaps
them; the official rule, the breakdown and its denominators on the same rows."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from PIL import Image

from groundbench.converters.gui.convert import ui_vision_source
from groundbench.converters.gui.params import GuiSampleParams
from groundbench.converters.gui.sample.write import generate
from groundbench.core.params import load_params
from groundbench.core.runner import run
from groundbench.core.shards import read_table
from groundbench.errors import GroundBenchError
from groundbench.schemas.rules import validate_table
from groundbench.scoring.baselines import bake_row_baselines
from groundbench.scoring.gui_rules import judge
from groundbench.scoring.layouts import LAYOUTS, layout_tables
from groundbench.scoring.metrics import Scored
from groundbench.scoring.parse import FIELDS, MISSING, Answer
from tests.conftest import REPO

PARAMS = load_params(REPO)
GUI, SHARDS = PARAMS.gui.model_copy(update={"workers": 1}), PARAMS.shards

# The release's fields (eval_uivision.py reads them), values of the kind its files hold.
BASIC = [
    {
        "image_path": "vscode_0001.png",
        "prompt_to_evaluate": "Explorer",
        "bbox": [10, 40, 60, 90],
        "image_size": [1920, 1080],
        "platform": "VSCode",
        "element_type": "icon",
    },
    {
        "image_path": "gimp_0007.png",
        "prompt_to_evaluate": "Brush tool",
        "bbox": [300, 220, 260, 180],  # reversed corners: the scorer swaps them
        "image_size": [1280, 720],
        "platform": "GIMP",
        "element_type": "button",
        "ground_truth": "Brush tool",
    },
]
FUNCTIONAL = [{**BASIC[0], "prompt_to_evaluate": "Show the files of the open folder"}]
SPATIAL = [{**BASIC[1], "prompt_to_evaluate": "The tool left of the eraser", "platform": "Unlisted App"}]
CATEGORIES = {"Development": ["VSCode", "Atom"], "Creativity": ["Blender", "GIMP"]}


def release_tree(root: Path, basic: list | None = None) -> Path:
    files = {"basic": BASIC if basic is None else basic, "functional": FUNCTIONAL, "spatial": SPATIAL}
    folder = root / "uivision_annotations" / "element_grounding"
    folder.mkdir(parents=True)
    for kind, records in files.items():
        (folder / f"element_grounding_{kind}.json").write_text(json.dumps(records, indent=2), encoding="utf-8")
    (root / "mapdict_cat2platform.json").write_text(json.dumps(CATEGORIES), encoding="utf-8")
    (root / "uivision_imgs").mkdir()
    for record in BASIC:
        buffer = io.BytesIO()
        Image.new("L", tuple(record["image_size"]), 255).save(buffer, "PNG")
        (root / "uivision_imgs" / record["image_path"]).write_bytes(buffer.getvalue())
    return root


def _convert(root: Path, out: Path) -> list[dict]:
    run(ui_vision_source(root, GUI), out, SHARDS, False)
    table = read_table(out / "gui_ui_vision")
    validate_table(table.from_batches([bake_row_baselines(b) for b in table.to_batches()]), "gui_ui_vision")
    return table.to_pylist()


def test_every_row_of_the_three_kinds_converts(tmp_path: Path) -> None:
    rows = {r["example_id"]: r for r in _convert(release_tree(tmp_path / "src"), tmp_path / "out")}
    assert sorted(rows) == [
        "gui_ui_vision/basic/00000",
        "gui_ui_vision/basic/00001",
        "gui_ui_vision/functional/00000",
        "gui_ui_vision/spatial/00000",
    ]
    swapped = rows["gui_ui_vision/basic/00001"]["extras"]["gui"]
    assert swapped["eval_bbox"] == [260.0, 180.0, 300.0, 220.0] and swapped["raw_bbox"] == [300.0, 220.0, 260.0, 180.0]
    assert swapped["box_notes"] == ["corners_swapped"] and swapped["category"] == "Creativity"
    assert swapped["application"] == "GIMP" and swapped["element_type"] == "button" and swapped["subset"] == "basic"
    assert json.loads(swapped["other_json"]) == {"ground_truth": "Brush tool"}
    assert rows["gui_ui_vision/spatial/00000"]["extras"]["gui"]["category"] is None  # an application no group lists
    assert rows["gui_ui_vision/functional/00000"]["instruction"] == "Show the files of the open folder"
    assert {r["source"] for r in rows.values()} == {"ui_vision"}


@pytest.mark.parametrize(
    ("point", "hit"),
    [((260, 180), True), ((300, 220), True), ((280, 200), True), ((300.01, 200), False), ((259.99, 200), False)],
)
def test_the_official_rule_edges_included_on_the_swapped_box(tmp_path: Path, point: tuple, hit: bool) -> None:
    rows = {r["example_id"]: r for r in _convert(release_tree(tmp_path / "src"), tmp_path / "out")}
    assert judge({"point": list(point)}, rows["gui_ui_vision/basic/00001"]).success is hit


def test_breakdown_by_kind_and_category_with_the_official_denominators(tmp_path: Path) -> None:
    rows = sorted(_convert(release_tree(tmp_path / "src"), tmp_path / "out"), key=lambda r: r["example_id"])
    answers = [{"point": [30, 60]}, {"point": [0, 0]}, {"point": [30, 60]}, None]  # basic right, wrong; ...
    scored = [
        Scored("m", "gui_ui_vision", "gui", r, Answer(status=FIELDS if a else MISSING, record=a))
        for r, a in zip(rows, answers, strict=True)
    ]
    (table,) = layout_tables(LAYOUTS["ui-vision"], scored, resamples=20)
    model = {r.label: r.cells for r in table.models["m"]}
    assert list(model) == ["Creativity", "Development", "Overall"]  # categories sorted, then the README's row
    assert (model["Overall"]["Basic"].k, model["Overall"]["Basic"].n) == (1, 2)
    assert (model["Development"]["Basic"].k, model["Development"]["Basic"].n) == (1, 1)
    assert (model["Creativity"]["Basic"].k, model["Creativity"]["Basic"].n) == (0, 1)
    assert (model["Overall"]["Functional"].k, model["Overall"]["Functional"].n) == (1, 1)
    assert (model["Overall"]["Spatial"].k, model["Overall"]["Spatial"].n) == (0, 1)
    assert model["Creativity"]["Spatial"].n == 0  # its application is in no category: counted in its kind only
    final = model["Overall"]["Final Avg"]  # the README's Final Avg: the unweighted mean of the three kinds
    assert final.value == pytest.approx((50.0 + 100.0 + 0.0) / 3) and (final.parts, final.n) == (3, 4)
    centre = {r.label: r.cells for r in table.baseline}  # the centre click, same layout, same rows
    assert (centre["Overall"]["Basic"].k, centre["Overall"]["Basic"].n) == (0, 2)


def test_embedded_sample_in_the_release_layout_converts(tmp_path: Path) -> None:
    out = tmp_path / "sample"
    generate(out, GuiSampleParams(examples_per_suite=7, frames=("1024x768",), screenspot_rows=2, seed=0, workers=1))
    folder = out / "ui_vision" / "uivision_annotations" / "element_grounding"
    written = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*.json"))]
    assert {tuple(sorted(r)) for rs in written for r in rs} == {tuple(sorted(BASIC[0]))}
    rows = _convert(out / "ui_vision", tmp_path / "out")
    assert len(rows) == sum(len(rs) for rs in written)
    assert {r["extras"]["gui"]["subset"] for r in rows} == {"basic", "functional", "spatial"}
    assert any(r["extras"]["gui"]["box_notes"] == ["corners_swapped"] for r in rows)


def test_a_bad_box_names_the_row(tmp_path: Path) -> None:
    root = release_tree(tmp_path / "src", basic=[{**BASIC[0], "bbox": [1, 2, 3]}])
    with pytest.raises(GroundBenchError, match=r"element_grounding_basic.json: row 0.*bbox"):
        _convert(root, tmp_path / "out")
