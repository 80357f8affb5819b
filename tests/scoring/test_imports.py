"""``groundbench import`` on files in each framework's own layout, written here from that framework's code.

The published folder is converted from the real annotation files (tests/fixtures/gui: ScreenSpot-Pro's
``android_studio_macos.json`` beside a few ScreenSpot-Pro-layout records, ScreenSpot-v2 web rows 178-189 of
GUI-Actor's copy with its one duplicate key, the first PointerBench rows), blank screenshots of the recorded
sizes. Each framework's verdicts are computed here the way its own scorer computes them (written out again
from its source, never imported from ours): the official ScreenSpot-Pro script normalises the box by
``img_size`` and compares the 0-1 click; lmms-eval's ``screenspot_v2`` task reads a point with its regexes and
divides a coordinate above 1 by the doc's image size (1 when the doc has none); PointerBench's ``eval.py`` reads
its own keys.
"""

from __future__ import annotations

import csv
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from groundbench.converters.gui.convert import convert_pointerbench, convert_screenspot
from groundbench.core.params import load_params
from groundbench.core.shards import read_table
from groundbench.errors import GroundBenchError
from groundbench.loaders.published import write_config
from groundbench.schemas.features import FORMAT_VERSION
from groundbench.scoring import score
from groundbench.scoring.gate import card_key
from groundbench.scoring.imports.run import ImportOptions, run_import
from tests.conftest import REPO, run_cli
from tests.converters.gui.test_gui_real import FIXTURES, blank_png, trimmed_pointerbench
from tests.support.new_sources import published_new_sources
from tests.support.osworld_g_release import RELEASE as OSWORLD_G_RELEASE

PARAMS = load_params(REPO)
PRO, V2, SHEETS, TEXT = "gui_screenspot_pro", "gui_screenspot_v2", "gui_sheets", "gui_text"
SIZE = (1000, 800)


def _pro(row_id: str, image: str, instruction: str, bbox: list[int]) -> dict[str, Any]:
    return {
        "img_filename": f"vscode_mac/{image}",
        "bbox": bbox,
        "instruction": instruction,
        "instruction_cn": instruction + " (cn)",
        "id": row_id,
        "application": "vscode",
        "platform": "macos",
        "img_size": list(SIZE),
        "ui_type": "text",
        "group": "Dev",
    }


PRO_RECORDS = [
    _pro("vscode_macos_0", "a.png", "open settings", [100, 100, 200, 150]),
    _pro("vscode_macos_1", "b.png", "close tab", [10, 10, 50, 40]),
    _pro("vscode_macos_2", "b.png", "save file", [300, 300, 400, 350]),
    _pro("vscode_macos_3", "c.png", "run", [500, 500, 600, 560]),
    _pro("vscode_macos_4", "d.png", "click ok", [100, 100, 150, 130]),  # same image and instruction ...
    _pro("vscode_macos_5", "d.png", "click ok", [400, 400, 450, 430]),  # ... another target
]


def _publish(interims: dict[str, Path], published: Path) -> Path:
    """Each config's converted rows (``interims``: config -> its conversion's folder) as a published folder."""
    configs = sorted(interims)
    for name in configs:
        table = read_table(interims[name] / name)
        write_config(published / "data" / name, table.to_batches(), table.schema, 256)
    manifests = {name: f"{index:064x}" for index, name in enumerate(sorted(configs))}
    key = {"groundbench": card_key(FORMAT_VERSION, "0.0.0-test", manifests)}
    (published / "README.md").write_text("---\n" + yaml.safe_dump(key) + "---\n")
    return published


def _pro_root(root: Path) -> Path:
    shutil.copytree(FIXTURES / "screenspot_pro", root)
    (root / "annotations" / "vscode_macos.json").write_text(json.dumps(PRO_RECORDS), encoding="utf-8")
    for name in ("android_studio_macos.json", "vscode_macos.json"):
        for record in json.loads((root / "annotations" / name).read_text(encoding="utf-8")):
            path = root / "images" / record["img_filename"]
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(blank_png(tuple(record["img_size"])))
    return root


def _v2_root(root: Path) -> Path:
    root.mkdir()
    records = json.loads((FIXTURES / "gui-actor" / "screenspot_web_v2.json").read_text(encoding="utf-8"))[178:190]
    (root / "screenspot_web_v2.json").write_text(json.dumps(records), encoding="utf-8")
    for record in records:
        (root / record["img_filename"]).write_bytes(blank_png(tuple(record["img_size"])))
    return root


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A published folder: ScreenSpot-Pro (8 rows), ScreenSpot-v2 (12 web rows), PointerBench sheets and text."""
    base = tmp_path_factory.mktemp("imports")
    gui, shards = PARAMS.gui, PARAMS.shards
    convert_screenspot(_pro_root(base / "pro"), base / "pro_rows", "screenspot_pro", PRO, gui, shards, False)
    convert_screenspot(_v2_root(base / "v2"), base / "v2_rows", "screenspot_v2", V2, gui, shards, False)
    trimmed_pointerbench(base / "pointerbench", 20)
    shutil.rmtree(base / "pointerbench" / "pointerbench-pro")
    convert_pointerbench(base / "pointerbench", base / "pb_rows", gui, shards, progress=False)
    interims = {PRO: base / "pro_rows", V2: base / "v2_rows", SHEETS: base / "pb_rows", TEXT: base / "pb_rows"}
    return _publish(interims, base / "published")


def _rows(folder: Path, config: str) -> list[dict[str, Any]]:
    from groundbench.loaders.records import read_records

    return read_records(folder, config)


def _import(folder: Path, tmp_path: Path, files: list[Path], kind: str, config: str, **options: Any) -> dict[str, Any]:
    from rich.console import Console

    out = tmp_path / "lines.jsonl"
    report = run_import(
        folder, files, ImportOptions(kind, config, "m", **options), out, tmp_path / "report.json", Console(width=200)
    )
    assert json.loads((tmp_path / "report.json").read_text()) == report
    return report


def _lines(tmp_path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (tmp_path / "lines.jsonl").read_text().splitlines()]


def _gui_success(folder: Path, lines: list[dict[str, Any]], config: str) -> tuple[int, int]:
    report = score(lines, folder=folder, resamples=2, configs=[config])
    head = next(m for m in report.metrics if m["config"] == config and m["metric"] == "gui_success")
    return head["count"], head["n"]


# --- the official ScreenSpot-Pro script -----------------------------------------------------------------------


def _official_detail(record: dict[str, Any], click: list[float] | None, raw: str, with_id: bool = True) -> dict:
    """One `details` row as eval_screenspot_pro.py writes it: the adapter's 0-1 click, `pred` its pixels, and
    `correctness` from the box normalised by img_size (eval_sample_positive_gt)."""
    w, h = record["img_size"]
    x0, y0, x1, y1 = record["bbox"]
    if click is None:
        correctness = "wrong_format"
    else:
        inside = x0 / w <= click[0] <= x1 / w and y0 / h <= click[1] <= y1 / h
        correctness = "correct" if inside else "wrong"
    detail = {
        "img_path": f"../data/ScreenSpot-Pro/images/{record['img_filename']}",
        "group": record["group"],
        "platform": record["platform"],
        "application": record["application"],
        "lang": "en",
        "instruction_style": "instruction",
        "prompt_to_evaluate": record["instruction"],
        "gt_type": "positive",
        "ui_type": record["ui_type"],
        "task_filename": "vscode_macos",
        "pred": None if click is None else [click[0] * w, click[1] * h],
        "raw_response": raw,
        "bbox": record["bbox"],
        "correctness": correctness,
    }
    return {"id": record["id"], **detail} if with_id else detail


def _official_file(path: Path, details: list[dict[str, Any]]) -> Path:
    overall = {
        "num_correct_action": sum(d["correctness"] == "correct" for d in details),
        "num_total": len(details),
    }
    path.write_text(json.dumps({"details": details, "metrics": {"overall": overall}}, indent=4), encoding="utf-8")
    return path


def test_screenspot_pro_eval_joins_every_row_and_stored_reproduces_its_count(folder: Path, tmp_path: Path) -> None:
    a, b, c, d4, d5 = PRO_RECORDS[0], PRO_RECORDS[1], PRO_RECORDS[2], PRO_RECORDS[4], PRO_RECORDS[5]
    details = [
        _official_detail(a, [0.15, 0.15], "(0.15, 0.15)"),  # correct
        _official_detail(b, None, "I cannot see it"),  # wrong_format: pred null
        _official_detail(c, [0.9, 0.9], "(0.9, 0.9)"),  # wrong
        _official_detail(d4, [0.125, 0.14], "(0.125, 0.14)"),  # correct, the id tells the two d.png rows apart
        _official_detail(d5, [0.425, 0.52], "(0.425, 0.52)"),  # correct
        {**_official_detail(a, [0.15, 0.15], "x"), "gt_type": "negative", "correctness": "wrong"},
        {**_official_detail(a, [0.5, 0.5], "x"), "img_path": "imgs/vscode_mac/zzz.png"},  # not in the config
    ]
    path = _official_file(tmp_path / "qwen.json", details)
    report = _import(folder, tmp_path, [path], "screenspot-pro-eval", PRO, answer="stored")
    rows = {r["example_id"] for r in _rows(folder, PRO)}
    assert report["counts"] == {
        "file_rows": 7, "config_rows": 8, "matched": 5, "absent": 3, "extra": 2, "ambiguous": 0,
    }  # fmt: skip
    assert set(report["absent"]) == rows - {f"{PRO}/{r['id']}" for r in (a, b, c, d4, d5)}
    assert [e["index"] for e in report["extra"]] == [5, 6]
    assert "negative" in report["extra"][0]["reason"]
    lines = _lines(tmp_path)
    assert [line["example_id"] for line in lines] == [f"{PRO}/{r['id']}" for r in (a, b, c, d4, d5)]
    assert lines[0]["point"] == [150.0, 120.0] and lines[0]["answer_format"] == "pixels"
    assert lines[1]["response"] is None and lines[1]["imported"] == {
        "from": "screenspot-pro-eval", "file": str(path), "index": 1, "verdict": "wrong_format", "stored_point": None,
    }  # fmt: skip
    # --answer stored gives the script's own count, every config row in the denominator
    theirs = sum(d["correctness"] == "correct" for d in details[:5])
    assert _gui_success(folder, lines, PRO) == (theirs, 8)
    versus = report["theirs_vs_ours"]
    assert versus["theirs"] == {"correct": 3, "n": 7} and versus["ours"] == {"correct": 3, "n": 8}
    assert versus["reasons"] == {"absent row": 3}


def test_screenspot_pro_eval_without_ids_joins_by_box_and_lists_the_unresolved(folder: Path, tmp_path: Path) -> None:
    """The parallel script writes no id: the two d.png rows are told apart by the box the file scored against;
    a d.png row whose box is neither is unresolved (no line), never a pick."""
    d4, d5 = PRO_RECORDS[4], PRO_RECORDS[5]
    stray = {**d4, "bbox": [700, 700, 720, 720]}
    details = [
        _official_detail(d5, [0.425, 0.52], "a", with_id=False),
        _official_detail(d4, [0.9, 0.9], "b", with_id=False),
        _official_detail(stray, [0.71, 0.88], "c", with_id=False),
    ]
    report = _import(folder, tmp_path, [_official_file(tmp_path / "p.json", details)], "screenspot-pro-eval", PRO)
    assert report["counts"]["matched"] == 2 and report["counts"]["ambiguous"] == 1
    (entry,) = report["ambiguous"]
    assert entry["index"] == 2 and entry["resolution"].startswith("unresolved")
    assert entry["candidates"] == [f"{PRO}/vscode_macos_4", f"{PRO}/vscode_macos_5"]
    assert [line["example_id"] for line in _lines(tmp_path)] == [f"{PRO}/vscode_macos_5", f"{PRO}/vscode_macos_4"]
    # raw answers, no format declared: the lines name none and ours is not guessed
    assert "answer_format" not in _lines(tmp_path)[0] and _lines(tmp_path)[0]["response"] == "a"
    assert report["theirs_vs_ours"] is None and "--answer-format" in report["theirs_vs_ours_note"]


def test_screenspot_pro_eval_chinese_prompt_and_the_real_annotation(folder: Path, tmp_path: Path) -> None:
    real = json.loads((FIXTURES / "screenspot_pro" / "annotations" / "android_studio_macos.json").read_text())
    record = {**real[0], "instruction": real[0]["instruction_cn"]}  # --language cn evaluates instruction_cn
    detail = _official_detail(record, [0.5, 0.75], "[0.5, 0.75]")
    detail["task_filename"] = "android_studio_macos"
    report = _import(folder, tmp_path, [_official_file(tmp_path / "cn.json", [detail])], "screenspot-pro-eval", PRO)
    assert report["counts"]["matched"] == 1
    assert _lines(tmp_path)[0]["example_id"] == f"{PRO}/android_studio_macos_0"


@pytest.mark.parametrize(
    ("content", "where", "field"),
    [
        ("{not json", "bad.json", "file"),
        ("[]", "bad.json", "file"),
        ('{"metrics": {}}', "bad.json", "details"),
        ('{"details": [{"img_path": "a.png", "prompt_to_evaluate": "x", "raw_response": "", "pred": null}]}',
         "bad.json: details[0]", "correctness"),
        ('{"details": [{"img_path": "a.png", "prompt_to_evaluate": "x", "raw_response": "", "pred": [1],'
         ' "correctness": "correct"}]}', "bad.json: details[0]", "pred"),
    ],
)  # fmt: skip
def test_bad_official_files_name_the_file_row_and_field(
    folder: Path, tmp_path: Path, content: str, where: str, field: str
) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(GroundBenchError) as error:
        _import(folder, tmp_path, [path], "screenspot-pro-eval", PRO)
    assert error.value.path.endswith(where) and error.value.field == field
    assert not (tmp_path / "lines.jsonl").exists()  # nothing written


# --- lmms-eval --log_samples ------------------------------------------------------------------------------------

NUM = r"-?\d+(?:\.\d+)?%?"


def _lmms_point(text: str) -> tuple[float, float] | None:
    """lmms_eval/tasks/screenspot_v2/utils.py `_parse_point`, the branches these answers take."""
    pair = re.search(rf"[\[\(]\s*({NUM})\s*(?:,|\s)\s*({NUM})\s*[\]\)]", text)
    if pair:
        return float(pair.group(1)), float(pair.group(2))
    found = re.findall(NUM, text)
    return (float(found[0]), float(found[1])) if len(found) >= 2 else None


def _lmms_sample(doc_id: int, record: dict[str, Any], answer: str) -> dict[str, Any]:
    """One logged sample of `screenspot_v2` (HongxinLi/ScreenSpot_v2 doc: file_name, normalised xyxy bbox, no
    image size, so the task divides by 1), verdict from its process_results."""
    w, h = record["img_size"]
    x0, y0, x1, y1 = record["bbox"]
    box = [x0 / w, y0 / h, x1 / w, y1 / h]
    doc = {
        "file_name": record["img_filename"],
        "bbox": box,
        "instruction": record["instruction"],
        "data_type": record["ui_type"],
        "data_source": record["platform"],
    }
    point = _lmms_point(answer)
    correct = bool(point) and box[0] <= point[0] <= box[2] and box[1] <= point[1] <= box[3]  # type: ignore[index]
    record_ = {"correct": correct, "data_type": record["ui_type"]}
    return {
        "doc_id": doc_id,
        "doc": doc,
        "target": record["instruction"],
        "arguments": [],
        "resps": [[answer]],
        "filtered_resps": [answer],
        "doc_hash": "0" * 64,
        "screenspot_v2_action_acc": record_,
        "screenspot_v2_text_acc": record_,
        "screenspot_v2_icon_acc": record_,
    }


def _v2_records() -> list[dict[str, Any]]:
    return json.loads((FIXTURES / "gui-actor" / "screenspot_web_v2.json").read_text(encoding="utf-8"))[178:190]


def _thousandths(record: dict[str, Any]) -> str:
    """The box centre on a 0-1000 grid, as a model answering in that frame writes it."""
    w, h = record["img_size"]
    x0, y0, x1, y1 = record["bbox"]
    return f"[{round((x0 + x1) / 2 / w * 1000)}, {round((y0 + y1) / 2 / h * 1000)}]"


def test_lmms_eval_v2_stored_reproduces_its_count_and_the_frame_guess_is_named(folder: Path, tmp_path: Path) -> None:
    records = _v2_records()
    answers = []
    for i, record in enumerate(records):
        w, h = record["img_size"]
        x0, y0, x1, y1 = record["bbox"]
        if i % 3 == 0:
            answers.append(f"[{(x0 + x1) / 2 / w:.4f}, {(y0 + y1) / 2 / h:.4f}]")  # 0-1: what the task asks
        elif i % 3 == 1:
            answers.append(_thousandths(record))  # 0-1000: above 1, so the task divides by 1 and misses
        else:
            answers.append("I think it is the menu")  # no point
    samples = [_lmms_sample(i, r, a) for i, (r, a) in enumerate(zip(records, answers, strict=True))]
    path = tmp_path / "samples_screenspot_v2.jsonl"
    path.write_text("".join(json.dumps(s) + "\n" for s in samples), encoding="utf-8")
    theirs = sum(s["screenspot_v2_action_acc"]["correct"] for s in samples)
    assert theirs == 4  # the 0-1 answers only

    stored = _import(folder, tmp_path, [path], "lmms-eval", V2, answer="stored")
    assert stored["counts"] == {
        "file_rows": 12, "config_rows": 12, "matched": 12, "absent": 0, "extra": 0, "ambiguous": 2,
    }  # fmt: skip
    # the real duplicate key (two "open the menu" rows on one screenshot, same box): paired in order, listed
    assert [e["index"] for e in stored["ambiguous"]] == [4, 8]
    assert all(e["resolution"].startswith("paired with") for e in stored["ambiguous"])
    assert _gui_success(folder, _lines(tmp_path), V2) == (theirs, 12)
    assert stored["theirs_vs_ours"]["reasons"] == {}

    # the raw answers read as 0-1000, declared: ours gains the 0-1000 clicks the task's value-range guess lost
    declared = _import(folder, tmp_path, [path], "lmms-eval", V2, answer_format="norm1000")
    versus = declared["theirs_vs_ours"]
    assert versus["theirs"] == {"correct": 4, "n": 12}
    assert versus["ours"]["correct"] == 4  # the 0-1 answers now read as 0-1000 miss, the 0-1000 ones hit
    assert versus["reasons"] == {"frame": 8}
    assert all(line["answer_format"] == "norm1000" for line in _lines(tmp_path))


def test_lmms_eval_screenspot_pro_divides_by_img_size(folder: Path, tmp_path: Path) -> None:
    """`screenspot_pro` (its doc: the annotation's fields, pixel xyxy bbox, img_size): a click above 1 is divided by
    img_size, the box too; `<bbox>` answers are clicked at their centre; resps as logged when reasoning tags were
    stripped (a flat list)."""
    answers = ["[150, 120]", "[0.9, 0.9]", "<bbox>300 300 400 350</bbox>", "(0.55, 0.65)", "nothing", "x=425 y=415"]
    samples = []
    for i, (record, answer) in enumerate(zip(PRO_RECORDS, answers, strict=True)):
        w, h = record["img_size"]
        x0, y0, x1, y1 = record["bbox"]
        box = [x0 / w, y0 / h, x1 / w, y1 / h]
        numbers = [float(n) for n in re.findall(NUM, answer)]
        if answer.startswith("<bbox>"):
            point: tuple[float, float] | None = ((numbers[0] + numbers[2]) / 2, (numbers[1] + numbers[3]) / 2)
        else:
            point = (numbers[0], numbers[1]) if len(numbers) >= 2 else None
        if point is not None and (point[0] > 1 or point[1] > 1):
            point = (point[0] / w, point[1] / h)
        correct = point is not None and box[0] <= point[0] <= box[2] and box[1] <= point[1] <= box[3]
        doc = {k: v for k, v in record.items() if k != "instruction_cn"}
        record_ = {"correct": correct, "ui_type": "text"}
        samples.append(
            {
                "doc_id": i,
                "doc": doc,
                "resps": ["<think>hm</think>" + answer],
                "filtered_resps": [answer],
                "screenspot_pro_action_acc": record_,
                "screenspot_pro_text_acc": record_,
                "screenspot_pro_icon_acc": record_,
            }
        )
    assert [s["screenspot_pro_action_acc"]["correct"] for s in samples] == [True, False, True, True, False, True]
    path = tmp_path / "samples_screenspot_pro.jsonl"
    path.write_text("".join(json.dumps(s) + "\n" for s in samples), encoding="utf-8")
    report = _import(folder, tmp_path, [path], "lmms-eval", PRO, answer="stored")
    assert report["counts"]["matched"] == 6 and report["counts"]["absent"] == 2
    assert _lines(tmp_path)[0]["point"] == [150.0, 120.0]
    assert _gui_success(folder, _lines(tmp_path), PRO) == (4, 8)
    assert report["theirs_vs_ours"]["reasons"] == {"absent row": 2}


def test_lmms_eval_v1_rec_task_and_osworld_g(folder: Path, tmp_path: Path) -> None:
    """`screenspot_rec_test` logs its parsed 0-1 box (no verdict: Center_ACC is computed over the set), its centre
    the click; an `osworld_g` row imported into a ScreenSpot config is listed extra (its config is gui_osworld_g)."""
    record = _v2_records()[0]
    w, h = record["img_size"]
    x0, y0, x1, y1 = record["bbox"]
    doc = {
        "file_name": record["img_filename"],
        "bbox": [x0 / w, y0 / h, x1 / w, y1 / h],
        "instruction": record["instruction"],
    }
    pred = [x0 / w, y0 / h, x1 / w, y1 / h]
    rec = {"instruction": record["instruction"], "pred": pred, "ann_id": record["img_filename"], "bbox": doc["bbox"]}
    osworld = {"correct": True, "box_type": "bbox"}
    other = {"image_path": "A1.png", "instruction": "open"}
    samples = [
        {"doc_id": 0, "doc": doc, "resps": [["x"]], "filtered_resps": ["x"], "screenspot_Center_ACC": rec},
        {"doc_id": 0, "doc": other, "filtered_resps": ["[0.5, 0.5]"], "osworld_g_acc": osworld},
    ]
    path = tmp_path / "samples.jsonl"
    path.write_text("".join(json.dumps(s) + "\n" for s in samples))
    report = _import(folder, tmp_path, [path], "lmms-eval", V2, answer="stored")
    assert report["counts"]["matched"] == 1 and [e["task"] for e in report["extra"]] == ["osworld_g"]
    (line,) = _lines(tmp_path)
    assert line["point"] == pytest.approx([(x0 + x1) / 2, (y0 + y1) / 2]) and line["imported"]["verdict"] is None
    # theirs: the one osworld_g row counted correct there, which no config row takes
    assert report["theirs_vs_ours"]["reasons"] == {"absent row": 12}


def _lmms_osworld_g_correct(doc: dict[str, Any], point: tuple[float, float] | None) -> bool:
    """lmms_eval/tasks/osworld_g/utils.py `osworld_g_process_results` on a parsed click: 0-1 is scaled by the doc's
    image_size; bbox [x, y, w, h] edges in; a four-value polygon read as a box, a longer one by ray casting; a
    refusal row right when both coordinates are below 0."""
    if point is None:
        return False
    width, height = doc["image_size"]
    x, y = point
    if 0 <= x <= 1 and 0 <= y <= 1:
        x, y = x * width, y * height
    coords = doc["box_coordinates"]
    if doc["box_type"] == "bbox":
        left, top, w, h = coords
        return left <= x <= left + w and top <= y <= top + h
    if doc["box_type"] == "polygon":
        if len(coords) == 4:
            left, top, right, bottom = coords
            return min(left, right) <= x <= max(left, right) and min(top, bottom) <= y <= max(top, bottom)
        inside, n = False, len(coords) // 2
        j = n - 1
        for i in range(n):
            xi, yi, xj, yj = coords[2 * i], coords[2 * i + 1], coords[2 * j], coords[2 * j + 1]
            if (yi > y) != (yj > y) and x < (xj - xi) * (y - yi) / (yj - yi) + xi:
                inside = not inside
            j = i
        return inside
    return x < 0 and y < 0


def _osworld_g_log(path: Path, answers: dict[str, str], without_image: str) -> Path:
    """lmms-eval's `osworld_g` --log_samples: each doc with the release's fields and no image (one also without its
    image_path: it joins on its id), the answer in resps / filtered_resps, the task's four metric records."""
    samples = []
    for doc_id, record in enumerate(OSWORLD_G_RELEASE):
        doc = {k: v for k, v in record.items() if not (record["id"] == without_image and k == "image_path")}
        answer = answers[record["id"]]
        metric = {"correct": _lmms_osworld_g_correct(record, _lmms_point(answer)), "box_type": record["box_type"]}
        sample = {"doc_id": doc_id, "doc": doc, "target": record["instruction"], "arguments": []}
        sample |= {"resps": [[answer]], "filtered_resps": [answer], "doc_hash": "0" * 64}
        for name in ("osworld_g_acc", "osworld_g_bbox_acc", "osworld_g_polygon_acc", "osworld_g_refusal_acc"):
            sample[name] = metric
        samples.append(sample)
    path.write_text("".join(json.dumps(s) + "\n" for s in samples))
    return path


def test_lmms_eval_osworld_g_joins_gui_osworld_g_refusal_rows_included(tmp_path: Path) -> None:
    folder = published_new_sources()
    answers = {
        "0FOB4CLBT2-0": "[1436, 340]",  # inside the bbox
        "0FOB4CLBT2-1": "(0.0729, 0.1991)",  # 0-1: inside the polygon once scaled
        "7XQ2KA9ZPL-0": "[620, 315]",  # inside the four-value polygon's box: lmms-eval's hit, the release's miss
        "7XQ2KA9ZPL-1": "[-1, -1]",  # the refusal the task's prompt asks for
    }
    path = _osworld_g_log(tmp_path / "samples.jsonl", answers, without_image="7XQ2KA9ZPL-1")
    report = _import(folder, tmp_path, [path], "lmms-eval", "gui_osworld_g", answer="stored")
    assert report["counts"] == {
        "file_rows": 4,
        "config_rows": 4,
        "matched": 4,
        "absent": 0,
        "extra": 0,
        "ambiguous": 0,
    }
    lines = {line["example_id"]: line for line in _lines(tmp_path)}
    assert lines["gui_osworld_g/7XQ2KA9ZPL-1"]["point"] == [-1.0, -1.0]  # the refusal row, joined on its id
    assert lines["gui_osworld_g/0FOB4CLBT2-1"]["point"] == pytest.approx([0.0729 * 1920, 0.1991 * 1080])
    versus = report["theirs_vs_ours"]
    assert versus["theirs"] == {"correct": 4, "n": 4} and versus["ours"] == {"correct": 3, "n": 4}
    (difference,) = versus["differences"]
    assert (difference["example_id"], difference["reason"]) == ("gui_osworld_g/7XQ2KA9ZPL-0", "rule")
    assert _gui_success(folder, list(lines.values()), "gui_osworld_g") == (3, 4)

    # UI-Venus-2 run through lmms-eval: its "no target" [-1,-1] everywhere, imported raw in its declared format:
    # a refusal, right on the refusal row only, as lmms-eval counts the same answers.
    refusing = _osworld_g_log(tmp_path / "venus.jsonl", dict.fromkeys(answers, "[-1,-1]"), without_image="")
    report = _import(folder, tmp_path, [refusing], "lmms-eval", "gui_osworld_g", answer_format="ui-venus-2")
    versus = report["theirs_vs_ours"]
    assert versus["theirs"] == {"correct": 1, "n": 4} and versus["ours"] == {"correct": 1, "n": 4}
    assert versus["differences"] == []
    assert {line["answer_format"] for line in _lines(tmp_path)} == {"ui-venus-2"}


def test_lmms_eval_bad_lines_name_the_line_and_field(folder: Path, tmp_path: Path) -> None:
    path = tmp_path / "samples.jsonl"
    sample = _lmms_sample(0, _v2_records()[0], "[0.5, 0.5]")
    cases = [
        ("not json\n", "samples.jsonl: line 1", "line"),
        (json.dumps({k: v for k, v in sample.items() if k != "doc"}) + "\n", "samples.jsonl: line 1", "doc"),
        (json.dumps({"doc": sample["doc"], "filtered_resps": ["x"]}) + "\n", "samples.jsonl: line 1", "metrics"),
    ]
    for content, where, field in cases:
        path.write_text(content)
        with pytest.raises(GroundBenchError) as error:
            _import(folder, tmp_path, [path], "lmms-eval", V2)
        assert error.value.path.endswith(where) and error.value.field == field, content


# --- VLMEvalKit --------------------------------------------------------------------------------------------------


def _vlmevalkit_tsv(path: Path, records: list[dict[str, Any]], answers: list[str]) -> Path:
    """A ScreenSpot_v2 prediction file as VLMEvalKit dumps it: the dataset's columns without `image`, plus
    `prediction`; tab-separated, every cell quoted (pandas to_csv, QUOTE_ALL)."""
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, delimiter="\t", quoting=csv.QUOTE_ALL)
        writer.writerow(["index", "image_path", "question", "bbox", "data_type", "data_source", "prediction"])
        for i, (record, answer) in enumerate(zip(records, answers, strict=True), start=1):
            x0, y0, x1, y1 = record["bbox"]
            box = str([x0, y0, x1 - x0, y1 - y0])  # VLMEvalKit's ScreenSpot TSVs keep [x, y, w, h]
            writer.writerow([i, record["img_filename"], record["instruction"], box, record["ui_type"], "forum", answer])
    return path


def test_vlmevalkit_tsv_joins_and_stored_is_its_own_click(folder: Path, tmp_path: Path) -> None:
    records = _v2_records()[:4]
    answers = []
    for i, record in enumerate(records):
        x0, y0, x1, y1 = record["bbox"]
        w, h = record["img_size"]
        if i == 0:
            answers.append(f"pyautogui.click(x={(x0 + x1) / 2}, y={(y0 + y1) / 2})")  # pixels: above 1
        elif i == 1:
            answers.append(f"pyautogui.click(x={(x0 + x1) / 2 / w:.4f}, y={(y0 + y1) / 2 / h:.4f})")  # 0-1
        elif i == 2:
            answers.append("click the menu")  # no match: VLMEvalKit clicks (0, 0)
        else:
            answers.append(f"pyautogui.click(x={x1 + 50}, y={y1 + 50})")  # a miss
    path = _vlmevalkit_tsv(tmp_path / "m_ScreenSpot_v2_Web.tsv", records, answers)
    report = _import(folder, tmp_path, [path], "vlmevalkit", V2, answer="stored")
    assert report["counts"]["matched"] == 4 and report["counts"]["absent"] == 8
    lines = _lines(tmp_path)
    assert lines[2]["point"] == [0.0, 0.0]
    assert lines[1]["imported"]["verdict"] is None
    assert _gui_success(folder, lines, V2) == (2, 12)
    assert report["theirs_vs_ours"] is None and "no verdicts" in report["theirs_vs_ours_note"]
    # PRED_FORMAT=json: the same rows as a JSON list of records
    with path.open(encoding="utf-8", newline="") as handle:
        records_json = list(csv.DictReader(handle, delimiter="\t"))
    as_json = tmp_path / "m_ScreenSpot_v2_Web.json"
    as_json.write_text(json.dumps(records_json), encoding="utf-8")
    again = _import(folder, tmp_path, [as_json], "vlmevalkit", V2, answer="stored")
    assert again["counts"] == report["counts"] and [line["point"] for line in _lines(tmp_path)] == [
        line["point"] for line in lines
    ]


def test_vlmevalkit_xlsx_is_read_as_its_tsv(folder: Path, tmp_path: Path) -> None:
    """VLMEvalKit's default dump is ``DataFrame.to_excel`` of the same columns (numbers as numbers, text as
    text): read cell for cell as the TSV."""
    from openpyxl import Workbook

    records = _v2_records()[:4]
    answers = [f"pyautogui.click(x={0.01 * (i + 1)}, y=0.5)" for i in range(len(records))]
    tsv = _vlmevalkit_tsv(tmp_path / "m_ScreenSpot_v2_Web.tsv", records, answers)
    with tsv.open(encoding="utf-8", newline="") as handle:
        cells = list(csv.reader(handle, delimiter="\t"))
    workbook = Workbook()
    for row in cells:  # the index column is a number in VLMEvalKit's DataFrame, and so in its sheet
        workbook.active.append([int(cell) if cell.isdigit() else cell for cell in row])
    xlsx = tmp_path / "m_ScreenSpot_v2_Web.xlsx"
    workbook.save(xlsx)
    from_tsv = _import(folder, tmp_path, [tsv], "vlmevalkit", V2, answer="stored")
    tsv_lines = _lines(tmp_path)
    from_xlsx = _import(folder, tmp_path, [xlsx], "vlmevalkit", V2, answer="stored")
    assert from_xlsx["counts"] == from_tsv["counts"] and from_xlsx["counts"]["matched"] == 4
    assert [line["point"] for line in _lines(tmp_path)] == [line["point"] for line in tsv_lines]


def test_vlmevalkit_broken_xlsx_and_missing_columns_are_named(folder: Path, tmp_path: Path) -> None:
    xlsx = tmp_path / "m_ScreenSpot_v2_Web.xlsx"
    xlsx.write_bytes(b"PK\x03\x04")
    with pytest.raises(GroundBenchError, match="expected an xlsx workbook") as error:
        _import(folder, tmp_path, [xlsx], "vlmevalkit", V2)
    assert error.value.path == str(xlsx) and error.value.field == "file"
    tsv = tmp_path / "m.tsv"
    tsv.write_text('"index"\t"image_path"\t"bbox"\t"prediction"\n"1"\t"a.png"\t"[1, 2, 3, 4]"\t"x"\n')
    with pytest.raises(GroundBenchError) as error:
        _import(folder, tmp_path, [tsv], "vlmevalkit", V2)
    assert error.value.path.endswith("m.tsv: row 1") and error.value.field == "question"


# --- PointerBench ------------------------------------------------------------------------------------------------


def _eval_py_hits(metadata: list[dict[str, Any]], predictions: list[dict[str, Any]]) -> int:
    """pointerbench-text/eval.py `evaluate`, the keys these predictions use (point, bbox)."""
    preds = {p["id"]: p for p in predictions if "id" in p}
    hits = 0
    for ex in metadata:
        pred = preds.get(ex["id"])
        if not pred:
            continue
        x0, y0, x1, y1 = ex["bbox"]
        if ex["answer_type"] == "bbox":
            if "bbox" not in pred:
                continue
            a0, b0, a1, b1 = pred["bbox"]
            inter = max(0, min(a1, x1) - max(a0, x0)) * max(0, min(b1, y1) - max(b0, y0))
            gt, area = (x1 - x0) * (y1 - y0), (a1 - a0) * (b1 - b0)
            hits += inter / gt >= ex["eval"]["min_coverage"] and inter / area >= ex["eval"]["min_precision"]
        elif "point" in pred:
            hits += x0 <= pred["point"][0] <= x1 and y0 <= pred["point"][1] <= y1
    return hits


def test_pointerbench_predictions_join_by_id_and_reproduce_eval_py(folder: Path, tmp_path: Path) -> None:
    metadata = [
        json.loads(line)
        for line in (FIXTURES / "pointerbench/pointerbench-text/data/test/metadata.jsonl").read_text().splitlines()[:20]
    ]
    predictions: list[dict[str, Any]] = []
    for i, ex in enumerate(metadata[:16]):
        x0, y0, x1, y1 = ex["bbox"]
        if ex["answer_type"] == "bbox":
            predictions.append({"id": ex["id"], "bbox": [x0 - 1, y0, x1 + 1, y1] if i % 2 else [x0, y0, x0 + 2, y1]})
        else:
            predictions.append({"id": ex["id"], "point": ex["point"] if i % 2 else [x1 + 5, y1 + 5]})
    predictions.insert(0, {"id": metadata[0]["id"], "point": [0, 0]})  # repeated id: eval.py keeps the last
    predictions.append({"point": [1, 2]})  # no id: eval.py ignores it
    predictions.append({"id": "pbt_9999", "point": [1, 2]})  # not in the config
    path = tmp_path / "preds.jsonl"
    path.write_text("".join(json.dumps(p) + "\n" for p in predictions))
    report = _import(folder, tmp_path, [path], "pointerbench", TEXT)
    assert report["counts"] == {
        "file_rows": 19, "config_rows": 20, "matched": 16, "absent": 4, "extra": 3, "ambiguous": 0,
    }  # fmt: skip
    assert [e["index"] for e in report["extra"]] == [0, 17, 18]
    assert "eval.py scores the last" in report["extra"][0]["reason"]
    hits = _eval_py_hits(metadata, predictions)
    assert 0 < hits < 16
    assert _gui_success(folder, _lines(tmp_path), TEXT) == (hits, 20)
    _import(folder, tmp_path, [path], "pointerbench", TEXT, answer="stored")
    assert _gui_success(folder, _lines(tmp_path), TEXT) == (hits, 20)


# --- the command ------------------------------------------------------------------------------------------------


def test_import_command_writes_lines_and_report_and_prints_both_counts(
    folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    details = [_official_detail(PRO_RECORDS[0], [0.15, 0.15], "(0.15, 0.15)")]
    path = _official_file(tmp_path / "run.json", details)
    code = run_cli(
        tmp_path, "import", str(path), "--from", "screenspot-pro-eval", "--config", PRO, "--model", "m",
        "--data", str(folder), "--out", str(tmp_path / "o.jsonl"), "--report", str(tmp_path / "r.json"),
        "--answer", "stored",
    )  # fmt: skip
    printed = capsys.readouterr().out
    assert code == 0
    assert "theirs 1 of 1 correct; ours 1 of 8" in printed and "7 rows differ (absent row 7)" in printed
    assert json.loads((tmp_path / "r.json").read_text())["counts"]["matched"] == 1
    assert len((tmp_path / "o.jsonl").read_text().splitlines()) == 1
    # an unknown config is refused before anything is written
    code = run_cli(
        tmp_path, "import", str(path), "--from", "screenspot-pro-eval", "--config", "gui_screnspot_pro",
        "--model", "m", "--data", str(folder), "--out", str(tmp_path / "x.jsonl"),
    )  # fmt: skip
    assert code != 0 and not (tmp_path / "x.jsonl").exists()
    # the stored clicks are pixels: a declared format beside them is refused; so is an empty model name
    with pytest.raises(GroundBenchError, match="--answer stored writes pixels"):
        _import(folder, tmp_path, [path], "screenspot-pro-eval", PRO, answer="stored", answer_format="norm1000")
    with pytest.raises(GroundBenchError) as error:
        run_import(folder, [path], ImportOptions("screenspot-pro-eval", PRO, " "), tmp_path / "y.jsonl", None, None)  # type: ignore[arg-type]
    assert error.value.field == "--model" and not (tmp_path / "y.jsonl").exists()
