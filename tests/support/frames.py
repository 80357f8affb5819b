"""A published folder of GUI rows in the frame sizes the real sources have (the embedded sample's are small).

Rows of the built sample's ``gui_screenspot_pro`` are restated at each requested size: the same instruction,
its target box and point scaled to the frame and rounded to whole pixels (as ScreenSpot annotates them), a
blank screenshot of that size, and a card naming the config, so ``groundbench score`` and ``eval`` read it.
"""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
import yaml

from groundbench.loaders.published import read_config, write_config
from groundbench.schemas.features import FORMAT_VERSION
from groundbench.scoring.gate import card_key
from tests.conftest import run_cli, umd_project
from tests.converters.gui.test_gui_real import blank_png
from tests.support.builds import once

CONFIG = "gui_screenspot_pro"
# The embedded samples of UMD and ScreenSpot-Pro, published: curated_umd's object-part rows and the GUI rows
# restated below (a fresh checkout has no build of its own, so no test reads the checkout's data/).
SAMPLE_STAGES = (
    ("generate-gui", "--quiet"),
    ("convert", "screenspot_pro", "--quiet"),
    ("convert", "umd", "--quiet"),
    ("bake", "curated_umd", "bulk_umd", CONFIG),
    ("store",),
    ("assemble",),
)


def _build_sample(root: Path, umd_sample: Path) -> None:
    umd_project(root, umd_sample)
    for command in SAMPLE_STAGES:
        assert run_cli(root, *command) == 0, command


def published_sample(umd_sample: Path) -> Path:
    """The run's one published folder of the samples above (read only)."""
    built = once("frames_sample", lambda folder: _build_sample(folder / "project", umd_sample))
    return built / "project/data/groundbench"


def _scaled(values: Sequence[float], sx: float, sy: float) -> list[float]:
    return [float(round(v * (sx if i % 2 == 0 else sy))) for i, v in enumerate(values)]


def restated(row: dict[str, Any], index: int, width: int, height: int) -> dict[str, Any]:
    out = copy.deepcopy(row)
    sx, sy = width / row["width"], height / row["height"]
    out["example_id"] = f"{CONFIG}/frame_{index:03d}"
    out["width"], out["height"] = width, height
    image = blank_png((width, height))
    out["image"] = {"bytes": image, "path": None}
    out["image_sha256"] = hashlib.sha256(image).hexdigest()
    for part in out["parts"]:
        part["bbox_xyxy"] = _scaled(part["bbox_xyxy"], sx, sy)
        part["point_xy"] = _scaled(part["point_xy"], sx, sy)
    gui = out["extras"]["gui"]
    for key in ("eval_bbox", "raw_bbox", "reference_point"):
        if gui.get(key) is not None:
            gui[key] = _scaled(gui[key], sx, sy)
    gui["frame_width"], gui["frame_height"] = width, height
    return out


def frame_folder(dest: Path, sizes: Sequence[tuple[int, int]], sample: Path) -> Path:
    """``dest`` as a published folder of one GUI config: one row per size, in that order (rows of ``sample``)."""
    table = read_config(sample, CONFIG)
    rows = [r for r in table.to_pylist() if r["answer_type"] == "point"]
    written = [restated(rows[i % len(rows)], i, w, h) for i, (w, h) in enumerate(sizes)]
    write_config(
        dest / "data" / CONFIG, pa.Table.from_pylist(written, schema=table.schema).to_batches(), table.schema, 64
    )
    key: dict[str, object] = {"groundbench": card_key(FORMAT_VERSION, "0.0.0-frames", {CONFIG: "f" * 64})}
    key["configs"] = [
        {"config_name": CONFIG, "data_files": [{"split": "test", "path": f"data/{CONFIG}/test-*.parquet"}]}
    ]
    (dest / "README.md").write_text("---\n" + yaml.safe_dump(key) + "---\n", encoding="utf-8")
    return dest


def target_box(row: dict[str, Any]) -> list[float]:
    return list(row["extras"]["gui"]["eval_bbox"])
