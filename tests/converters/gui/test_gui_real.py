"""The GUI converters on the real annotation files (tests/fixtures/gui, with licences): every record
converts or fails with a named reason. Screenshots are not redistributable, so blank PNGs of the
recorded sizes stand in for them."""

from __future__ import annotations

import io
import json
import shutil
from collections import Counter
from pathlib import Path

import pyarrow as pa
import pytest
from PIL import Image

from groundbench.converters.gui.convert import (
    convert_item,
    convert_pointerbench,
    convert_screenspot,
    list_items,
)
from groundbench.converters.gui.params import GuiParams
from groundbench.converters.gui.release import ItemResult, OrderedRelease
from groundbench.core.manifests import ManifestEntry, Producer, sha256_bytes
from groundbench.core.params import load_params
from groundbench.core.shards import read_table
from groundbench.errors import GroundBenchError
from groundbench.schemas.features import arrow_schema
from groundbench.schemas.rules import validate_table
from groundbench.scoring.baselines import bake_row_baselines
from tests.conftest import REPO

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "gui"

PARAMS = load_params(REPO)
GUI, SHARDS = PARAMS.gui, PARAMS.shards


def gui(**changes: object) -> GuiParams:
    return GUI.model_copy(update=changes)


_BLANK: dict[tuple[int, int], bytes] = {}


def blank_png(size: tuple[int, int]) -> bytes:
    if size not in _BLANK:
        buffer = io.BytesIO()
        Image.new("L", size, 255).save(buffer, "PNG")
        _BLANK[size] = buffer.getvalue()
    return _BLANK[size]


def trimmed_pointerbench(dest: Path, rows_per_subset: int) -> None:
    """The real PointerBench metadata fixture at ``dest``, its first rows per subset, blank screenshots."""
    shutil.copytree(FIXTURES / "pointerbench", dest)
    for metadata in dest.glob("pointerbench-*/data/test/metadata.jsonl"):
        keep = metadata.read_text().splitlines()[:rows_per_subset]
        metadata.write_text("".join(f"{line}\n" for line in keep))
        for line in keep:
            record = json.loads(line)
            (metadata.parent / record["file_name"]).write_bytes(blank_png(tuple(record["image_size"])))


def _rows(folder: Path) -> list[dict]:
    table = read_table(folder)
    validate_table(table.from_batches([bake_row_baselines(b) for b in table.to_batches()]), str(folder))
    return table.to_pylist()


@pytest.fixture(scope="module")
def pointerbench(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("pb") / "pointerbench"
    shutil.copytree(FIXTURES / "pointerbench", root)
    for metadata in root.glob("pointerbench-*/data/test/metadata.jsonl"):
        for line in metadata.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            (metadata.parent / record["file_name"]).write_bytes(blank_png(tuple(record["image_size"])))
    return root


def test_pointerbench_all_subsets_convert(pointerbench: Path, tmp_path: Path) -> None:
    counts = convert_pointerbench(pointerbench, tmp_path / "out", GUI, SHARDS, progress=False)
    assert counts == {"gui_pro": 500, "gui_sheets": 500, "gui_text": 500}
    text = _rows(tmp_path / "out" / "gui_text")
    answers = Counter(r["answer_type"] for r in text)
    assert answers == {"point": 366, "box": 134}
    box_rows = [r for r in text if r["answer_type"] == "box"]
    assert {(r["success_rule"]["coverage_min"], r["success_rule"]["precision_min"]) for r in box_rows} == {(0.9, 0.7)}
    assert {r["success_rule"]["kind"] for r in box_rows} == {"box_coverage_precision"}
    assert Counter(r["extras"]["gui"]["language"] for r in text)["en"] == 250
    sheets = _rows(tmp_path / "out" / "gui_sheets")
    # file names repeat across subsets; the image identity carries the subset
    assert sheets[0]["object_id"].startswith("pointerbench-sheets/")
    assert {r["extras"]["gui"]["frame_width"] for r in sheets} == {1024}
    pro = _rows(tmp_path / "out" / "gui_pro")
    assert Counter(r["extras"]["gui"]["element_type"] for r in pro) == {"icon": 190, "other": 156, "text": 154}
    assert all(r["extras"]["gui"]["application"] for r in pro)
    for row in pro + sheets + text:
        target = row["parts"][0]
        assert target["part_id"] == row["target_part_id"] and target["box_quality"] == "exact"
        x0, y0, x1, y1 = target["bbox_xyxy"]
        px, py = target["point_xy"]
        assert x0 <= px <= x1 and y0 <= py <= y1  # PointerBench's reference point lies in its box


def test_pointerbench_without_pro_marks_gui_pro_absent(pointerbench: Path, tmp_path: Path) -> None:
    root = tmp_path / "pb"
    shutil.copytree(pointerbench, root)
    shutil.rmtree(root / "pointerbench-pro")
    counts = convert_pointerbench(root, tmp_path / "out", GUI, SHARDS, progress=False)
    assert set(counts) == {"gui_sheets", "gui_text"}
    assert "pointerbench-pro" in (tmp_path / "out" / "gui_pro" / "ABSENT").read_text()


def screenspot_v2_root(tmp_path: Path) -> Path:
    """The real ScreenSpot-v2 annotation files (GUI-Actor's copy) with blank screenshots of the recorded sizes."""
    root = tmp_path / "v2"
    root.mkdir()
    for path in sorted((FIXTURES / "gui-actor").glob("*.json")):
        shutil.copy(path, root)
        for record in json.loads(path.read_text(encoding="utf-8")):
            (root / record["img_filename"]).write_bytes(blank_png(tuple(record["img_size"])))
    return root


def test_screenspot_v2_gui_actor_variant(tmp_path: Path) -> None:
    root = screenspot_v2_root(tmp_path)
    counts = convert_screenspot(root, tmp_path / "out", "screenspot_v2", "gui_screenspot_v2", GUI, SHARDS, False)
    assert counts == {"gui_screenspot_v2": 1272}
    rows = _rows(tmp_path / "out" / "gui_screenspot_v2")
    # the split comes from the file name: the 80 desktop/mobile rows marked "shop" stay in their split
    assert Counter(r["extras"]["gui"]["split"] for r in rows) == {"desktop": 334, "mobile": 501, "web": 437}
    shop = [r for r in rows if r["extras"]["gui"]["platform"] == "shop" and r["extras"]["gui"]["split"] != "web"]
    assert len(shop) == 80
    # the one box past its frame (x1 2361 on a 2360-wide image) is drawn clamped, flagged, and kept for scoring
    # against the box as annotated (ScreenSpot's scorer counts every row)
    assert not any(r["excluded"] for r in rows)
    clamped = [r for r in rows if "box_clamped" in r["flags"]]
    assert [r["extras"]["gui"]["file_name"] for r in clamped] == ["mobile_02e9bl.png"]
    assert clamped[0]["parts"][0]["bbox_xyxy"][2] == 2360 and clamped[0]["extras"]["gui"]["eval_bbox"][2] == 2361
    assert any(r["extras"]["gui"]["file_name"].endswith(".jpg") for r in rows)


def _uground_root(tmp_path: Path) -> Path:
    root = tmp_path / "v1"
    root.mkdir()
    shutil.copy(FIXTURES / "uground" / "re_gpt-4o.jsonl", root)
    known = {}
    for path in (FIXTURES / "gui-actor").glob("*.json"):
        known.update({r["img_filename"]: tuple(r["img_size"]) for r in json.loads(path.read_text(encoding="utf-8"))})
    extent: dict[str, tuple[int, int]] = {}
    for line in (root / "re_gpt-4o.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        x, y, w, h = record["bbox"]
        old = extent.get(record["image"], (1, 1))
        extent[record["image"]] = (max(old[0], x + w), max(old[1], y + h))
    for name, size in extent.items():  # v2's recorded size where the image is shared, else the boxes' extent
        (root / name).write_bytes(blank_png(known.get(name, size)))
    return root


def test_screenspot_v1_uground_jsonl(tmp_path: Path) -> None:
    root = _uground_root(tmp_path)
    counts = convert_screenspot(root, tmp_path / "out", "screenspot", "gui_screenspot", GUI, SHARDS, False)
    assert counts == {"gui_screenspot": 1272}
    rows = _rows(tmp_path / "out" / "gui_screenspot")
    assert Counter(r["extras"]["gui"]["split"] for r in rows) == {"mobile": 502, "desktop": 334, "web": 436}
    assert Counter(r["extras"]["gui"]["data_type"] for r in rows) == {"text": 697, "icon": 575}
    first = next(r for r in rows if r["extras"]["gui"]["file_name"].startswith("pc_ede36f9b"))
    assert first["width"] == 960 and first["extras"]["gui"]["box_format"] == "xywh"
    assert all(r["extras"]["gui"]["description"] for r in rows)
    # other instructions on the same screenshot become candidate parts (re-asks)
    assert sum(1 for r in rows if len(r["parts"]) > 1) > 1000


def test_screenspot_pro_records(tmp_path: Path) -> None:
    root = tmp_path / "pro"
    shutil.copytree(FIXTURES / "screenspot_pro", root)
    for record in json.loads((root / "annotations" / "android_studio_macos.json").read_text(encoding="utf-8")):
        path = root / "images" / record["img_filename"]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(blank_png(tuple(record["img_size"])))
    counts = convert_screenspot(root, tmp_path / "out", "screenspot_pro", "gui_screenspot_pro", GUI, SHARDS, False)
    assert counts == {"gui_screenspot_pro": 2, "gui_screenspot_pro_cn": 2}  # every real row has instruction_cn
    rows = _rows(tmp_path / "out" / "gui_screenspot_pro")
    chinese = _rows(tmp_path / "out" / "gui_screenspot_pro_cn")
    assert [r["instruction"] for r in chinese] == [r["extras"]["gui"]["instruction_cn"] for r in rows]
    assert rows[0]["example_id"] == "gui_screenspot_pro/android_studio_macos_0"
    assert rows[0]["extras"]["gui"]["instruction_cn"].startswith("在 Android Studio")
    assert rows[0]["extras"]["gui"]["group"] == "Dev" and rows[0]["parts"][0]["bbox_xyxy"] == [1774, 1586, 2113, 1618]


def _pro_root(tmp_path: Path, records: list[dict], size: tuple[int, int] = (200, 100)) -> Path:
    root = tmp_path / "bad"
    (root / "annotations").mkdir(parents=True)
    (root / "annotations" / "inventor_windows.json").write_text(json.dumps(records), encoding="utf-8")
    (root / "images" / "inv").mkdir(parents=True)
    (root / "images" / "inv" / "a.png").write_bytes(blank_png(size))
    return root


def _pro(bbox: list, **extra: object) -> dict:
    return {
        "img_filename": "inv/a.png",
        "bbox": bbox,
        "instruction": "x",
        "instruction_cn": "x",
        "id": "inv_0",
        "application": "inventor",
        "platform": "windows",
        "img_size": [200, 100],
        "ui_type": "icon",
        "group": "CAD",
        **extra,
    }


def test_negative_coordinate_is_clamped_for_drawing_and_kept_as_annotated(tmp_path: Path) -> None:
    root = _pro_root(tmp_path, [_pro([135, -1, 151, 19])])  # the real inventor_windows_60 box
    convert_screenspot(root, tmp_path / "out", "screenspot_pro", "gui_screenspot_pro", GUI, SHARDS, False)
    (row,) = _rows(tmp_path / "out" / "gui_screenspot_pro")
    assert row["parts"][0]["bbox_xyxy"] == [135, 0, 151, 19] and row["flags"] == ["box_clamped"]
    assert row["exclusion_tags"] == [] and not row["excluded"]  # a flag, never an exclusion
    assert row["extras"]["gui"]["raw_bbox"] == [135, -1, 151, 19]
    assert row["extras"]["gui"]["eval_bbox"] == [135, -1, 151, 19]  # what the official rule checks


def test_fractional_box_is_detected_and_converted(tmp_path: Path) -> None:
    root = _pro_root(tmp_path, [_pro([0.5, 0.25, 0.75, 0.5])])
    convert_screenspot(root, tmp_path / "out", "screenspot_pro", "gui_screenspot_pro", GUI, SHARDS, False)
    (row,) = _rows(tmp_path / "out" / "gui_screenspot_pro")
    assert row["parts"][0]["bbox_xyxy"] == [100, 25, 150, 50]
    assert row["extras"]["gui"]["box_notes"] == ["normalized"] and not row["excluded"]


@pytest.mark.parametrize(
    ("record", "field", "reason"),
    [
        (_pro([10, 10, 10, 20]), "bbox", "degenerate box"),
        (_pro([10, 10, 20]), "bbox", "4 numbers"),
        (_pro([10, 10, 20, 20], img_size=[300, 100]), "image size", "annotation says [300, 100]"),
        (_pro([10, 10, 20, 20], img_filename="inv/missing.png"), "image", "not found"),
        (_pro([300, 10, 320, 20]), "bbox", "nothing left after clamping"),
        ({"foo": 1}, "keys", "unknown GUI annotation format"),
    ],
)
def test_bad_records_name_the_row(tmp_path: Path, record: dict, field: str, reason: str) -> None:
    root = _pro_root(tmp_path, [_pro([1, 1, 5, 5], id="ok_0"), record])
    with pytest.raises(GroundBenchError) as error:
        convert_screenspot(root, tmp_path / "out", "screenspot_pro", "gui_screenspot_pro", GUI, SHARDS, False)
    assert error.value.field == field and reason in error.value.reason
    assert "annotations/inventor_windows.json: row 1" in error.value.path
    assert not (tmp_path / "out").exists()  # nothing partial


def test_image_path_may_not_leave_the_root(tmp_path: Path) -> None:
    root = _pro_root(tmp_path, [_pro([1, 1, 5, 5], img_filename="../outside.png")])
    (tmp_path / "outside.png").write_bytes(blank_png((200, 100)))
    with pytest.raises(GroundBenchError, match="outside the source root"):
        convert_screenspot(root, tmp_path / "out", "screenspot_pro", "gui_screenspot_pro", GUI, SHARDS, False)


def test_convert_item_gives_the_converters_rows_for_one_screenshot(tmp_path: Path) -> None:
    """The per-item function is the converter: one real screenshot's records equal its shard rows."""
    root = _uground_root(tmp_path)
    convert_screenspot(root, tmp_path / "out", "screenspot", "gui_screenspot", gui(workers=1), SHARDS, False)
    items = list_items(root, "screenspot", GUI.max_image_pixels)["gui_screenspot"]
    item = max(items, key=lambda i: (len(i.rows), i.rel))  # the screenshot with most rows: neighbours matter
    assert len(item.rows) > 2
    result = convert_item(item)
    ids = [r["example_id"] for r in result.records]
    assert ids == sorted(ids) and len(ids) == len(item.rows)
    assert all(len(r["parts"]) > 1 for r in result.records)  # the other targets on the screenshot
    written = [row for row in read_table(tmp_path / "out" / "gui_screenspot").to_pylist() if row["example_id"] in ids]
    assert pa.Table.from_pylist(result.records, schema=arrow_schema()).to_pylist() == written
    manifest = (tmp_path / "out" / "gui_screenspot" / "manifest.jsonl").read_text(encoding="utf-8")
    assert result.manifest.sha256 in manifest and result.manifest.source_path == item.rel


def _interleaved_root(tmp_path: Path) -> Path:
    """Three real screenshots whose rows alternate (a, b, c, a, b, c): records must wait for id order."""
    records = json.loads((FIXTURES / "gui-actor" / "screenspot_web_v2.json").read_text(encoding="utf-8"))
    by_image: dict[str, list[dict]] = {}
    for record in records:
        by_image.setdefault(record["img_filename"], []).append(record)
    chosen = [rows[:2] for rows in by_image.values() if len(rows) >= 2][:3]
    root = tmp_path / "interleaved"
    root.mkdir()
    interleaved = [rows[n] for n in range(2) for rows in chosen]
    (root / "screenspot_web_v2.json").write_text(json.dumps(interleaved), encoding="utf-8")
    for rows in chosen:
        (root / rows[0]["img_filename"]).write_bytes(blank_png(tuple(rows[0]["img_size"])))
    return root


def test_parallel_and_reread_conversions_write_the_same_bytes(tmp_path: Path) -> None:
    root = _interleaved_root(tmp_path)
    runs = {
        "one process": gui(workers=1),
        "two workers, one screenshot per chunk": gui(workers=2, window=2),
        "nothing held back (screenshots read again)": gui(workers=1, max_held_bytes=0),
    }
    written = {}
    for name, params in runs.items():
        out = tmp_path / name
        assert convert_screenspot(root, out, "screenspot_v2", "gui_screenspot_v2", params, SHARDS, False) == {
            "gui_screenspot_v2": 6
        }
        written[name] = {p.relative_to(out): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}
    assert written["two workers, one screenshot per chunk"] == written["one process"]
    assert written["nothing held back (screenshots read again)"] == written["one process"]


def test_screenshot_changed_before_it_is_read_again(tmp_path: Path) -> None:
    shot = tmp_path / "a.png"
    shot.write_bytes(blank_png((20, 10)))
    entry = ManifestEntry(
        sha256_bytes(shot.read_bytes()), shot.stat().st_size, 20, 10, "PNG", "a.png", Producer("test", "0")
    )

    def record(example_id: str) -> dict:
        return {"example_id": example_id, "image": {"bytes": shot.read_bytes(), "path": "a.png"}}

    release = OrderedRelease(max_held_bytes=0)
    first = ItemResult([record("x/1"), record("x/3")], entry, shot, "a.png")
    assert [r["example_id"] for r, _ in release.push(first, following="x/2")] == ["x/1"]  # x/3 waits, bytes dropped
    shot.write_bytes(blank_png((20, 11)))
    with pytest.raises(GroundBenchError, match="changed while the conversion was running") as error:
        release.push(ItemResult([record("x/2")], entry, shot, "a.png"), following=None)
    assert error.value.path == "a.png" and error.value.field == "image"
