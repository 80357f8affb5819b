"""``groundbench generate-gui``: write the generated suites in PointerBench's own format, and
ScreenSpot-, ScreenSpot-v2- and ScreenSpot-Pro-format annotation files for some of their screenshots.

Layout under ``out`` (every file written through a temporary folder, bytes deterministic):

    pointerbench/pointerbench-{sheets,text}/data/test/metadata.jsonl + <NNNN>[_<WxH>].png
    screenspot/screenspot_{desktop,web}.json + images        (SeeClick keys, bbox x,y,w,h)
    screenspot_v2/screenspot_desktop_v2.json                  (SeeClick keys, bbox x,y,w,h)
    screenspot_v2/screenspot_web_v2.json                      (GUI-Actor keys, bbox x1,y1,x2,y2 + img_size)
    screenspot_pro/annotations/groundbench_*.json + images/   (ScreenSpot-Pro keys, largest frame)
    osworld_g/OSWorld-G.json + classification_result.json + images/   (OSWorld-G keys: bbox, polygon, refusal rows)
    ui_vision/uivision_annotations/element_grounding/*.json + uivision_imgs/   (UI-Vision element grounding keys)
    */generator.yaml                                          (generator, seed, packages, font hashes)
"""

from __future__ import annotations

import functools
import json
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml
from tqdm import tqdm

from groundbench.converters.gui.params import GuiSampleParams
from groundbench.converters.gui.sample import GENERATOR, GENERATOR_VERSION, osworld_g, sheets, text, ui_vision
from groundbench.converters.gui.sample.common import Frame, png_bytes, reference_point
from groundbench.core import fonts
from groundbench.core.atomic import atomic_dir
from groundbench.core.parallel import ordered_map, worker_count

if TYPE_CHECKING:
    from groundbench.core.params import Params

SUITES = {"sheets": (sheets.make_example, "gbs"), "text": (text.make_example, "gbt")}
STAMP = "generator.yaml"


def _dumps(record: dict[str, Any]) -> str:
    return json.dumps(record, ensure_ascii=False, separators=(", ", ": "))


def _example(suite: str, seed: int, frames: tuple[Frame, ...], index: int) -> list[tuple[str, dict[str, Any], bytes]]:
    """Worker: one example in every frame -> [(file name, metadata row, PNG bytes)], base frame first."""
    make, prefix = SUITES[suite]
    example = make(index, seed, list(frames))
    layout_id = f"{prefix}_{index:04d}"
    out = []
    for number, frame in enumerate(frames):
        placed = example.placed[frame.name]
        suffix = "" if number == 0 else f"_{frame.name}"
        box = list(placed.box)
        row: dict[str, Any] = {
            "file_name": f"{index:04d}{suffix}.png",
            "id": f"{layout_id}{suffix}",
            "instruction": example.instruction,
            "bbox": box,
            "point": reference_point(placed.box),
            "answer_type": example.answer_type,
            "eval": {"type": "point_in_bbox", "bbox": box}
            if example.answer_type == "point"
            else {"type": "iou", "bbox": box, "min_coverage": 0.9, "min_precision": 0.7},
            "data_type": example.data_type,
            "category": example.category,
            **example.meta,
            "image_size": [frame.width, frame.height],
            "layout_id": layout_id,
            "candidates": placed.candidates,
            "render": placed.render,
        }
        out.append((row["file_name"], row, png_bytes(example.images[frame.name])))
    return out


def _stamp(folder: Path, params: GuiSampleParams) -> None:
    facts = {
        "generator": f"{GENERATOR} {GENERATOR_VERSION}",
        "seed": params.seed,
        "examples_per_suite": params.examples_per_suite,
        "frames": list(params.frames),
        "packages": fonts.provenance(),
    }
    (folder / STAMP).write_text(yaml.safe_dump(facts, sort_keys=True), encoding="utf-8")


def _screenspot_files(root: Path, rows: dict[str, list[dict[str, Any]]], params: GuiSampleParams) -> None:
    """ScreenSpot-family annotation files over the first point rows of each suite (ScreenSpot asks for points)."""
    base, large = params.frames[0], params.frames[-1]
    picked = {
        suite: [
            r for r in suite_rows if r["answer_type"] == "point" and "_" not in r["file_name"].removesuffix(".png")
        ][: params.screenspot_rows]
        for suite, suite_rows in rows.items()
    }
    split = {"sheets": ("desktop", "pc", "windows"), "text": ("web", "web", "tool")}

    def xywh(box: list[int]) -> list[int]:
        return [box[0], box[1], box[2] - box[0], box[3] - box[1]]

    for folder, version in (("screenspot", ""), ("screenspot_v2", "_v2")):
        target = root / folder
        target.mkdir()
        for suite, chosen in sorted(picked.items()):
            name, prefix, data_source = split[suite]
            records = []
            for row in chosen:
                image = f"{prefix}_groundbench_{suite}_{row['file_name']}"
                shutil.copyfile(
                    root / "pointerbench" / f"pointerbench-{suite}" / "data" / "test" / row["file_name"], target / image
                )
                if version and suite == "text":  # GUI-Actor's re-keyed ScreenSpot-v2 (corners + img_size)
                    records.append(
                        {
                            "img_filename": image,
                            "bbox": row["bbox"],
                            "instruction": row["instruction"],
                            "img_size": row["image_size"],
                            "platform": data_source,
                            "ui_type": "text" if row["data_type"] != "caret" else "icon",
                            "group": name,
                        }
                    )
                else:
                    records.append(
                        {
                            "img_filename": image,
                            "bbox": xywh(row["bbox"]),
                            "instruction": row["instruction"],
                            "data_type": "text",
                            "data_source": data_source,
                        }
                    )
            (target / f"screenspot_{name}{version}.json").write_text(
                json.dumps(records, ensure_ascii=False, indent=1) + "\n", encoding="utf-8"
            )
        _stamp(target, params)
    pro = root / "screenspot_pro"
    (pro / "annotations").mkdir(parents=True)
    for suite, suite_rows in sorted(rows.items()):
        folder = f"groundbench_{suite}_linux"
        (pro / "images" / folder).mkdir(parents=True)
        large_rows = [r for r in suite_rows if r["answer_type"] == "point" and r["file_name"].endswith(f"_{large}.png")]
        records = []
        for number, row in enumerate(large_rows[: params.screenspot_rows]):
            image = f"{folder}/screenshot_{number:04d}.png"
            shutil.copyfile(
                root / "pointerbench" / f"pointerbench-{suite}" / "data" / "test" / row["file_name"],
                pro / "images" / image,
            )
            records.append(
                {
                    "img_filename": image,
                    "bbox": row["bbox"],
                    "instruction": row["instruction"],
                    # A synthetic stand-in (ScreenSpot-Pro's own are translations): "please click:" + the instruction
                    "instruction_cn": f"请点击：{row['instruction']}",
                    "id": f"groundbench_{suite}_linux_{number}",
                    "application": f"groundbench_{suite}",
                    "platform": "linux",
                    "img_size": row["image_size"],
                    "ui_type": "text",
                    "group": "Office",
                }
            )
        (pro / "annotations" / f"groundbench_{suite}_linux.json").write_text(
            json.dumps(records, ensure_ascii=False, indent=1) + "\n", encoding="utf-8"
        )
    _stamp(pro, params)
    del base


def generate(out: Path, params: GuiSampleParams, progress: bool = True) -> dict[str, int]:
    """Write every generated source under ``out``; returns screenshots per suite."""
    frames = tuple(Frame(*map(int, f.split("x"))) for f in params.frames)
    workers = worker_count(params.workers)
    counts: dict[str, int] = {}
    with atomic_dir(out) as tmp:
        rows: dict[str, list[dict[str, Any]]] = {}
        pb = tmp / "pointerbench"
        for suite in sorted(SUITES):
            folder = pb / f"pointerbench-{suite}" / "data" / "test"
            folder.mkdir(parents=True)
            work = functools.partial(_example, suite, params.seed, frames)
            indices = list(range(params.examples_per_suite))
            rows[suite] = []
            for files in tqdm(
                ordered_map(work, indices, workers, 64),
                total=len(indices),
                desc=f"generate {suite}",
                unit="example",
                disable=None if progress else True,
            ):
                for name, row, data in files:
                    (folder / name).write_bytes(data)
                    rows[suite].append(row)
            (folder / "metadata.jsonl").write_text("".join(_dumps(r) + "\n" for r in rows[suite]), encoding="utf-8")
            counts[suite] = len(rows[suite])
        _stamp(pb, params)
        _screenspot_files(tmp, rows, params)
        osworld_g.write_files(tmp, rows, pb)
        _stamp(tmp / "osworld_g", params)
        ui_vision.write_files(tmp, rows, pb)
        _stamp(tmp / "ui_vision", params)
    return counts


def write(root: Path, params: Params, progress: bool = False) -> int:
    """The uniform sample writer (spec.py names it): the four GUI sources' files under <root>/<sample.root>/gui/;
    returns the screenshots written."""
    return sum(generate(root / params.sample.root / "gui", params.sample.gui, progress=progress).values())
