"""The embedded UI-Vision sample: UI-Vision's element-grounding layout over some generated screenshots.

    ui_vision/uivision_annotations/element_grounding/element_grounding_{basic,functional,spatial}.json
        JSON arrays: image_path, prompt_to_evaluate, bbox [x1, y1, x2, y2], image_size, platform, element_type
    ui_vision/uivision_imgs/<name>.png          the screenshots (copied from the generated suites' base frame)
    ui_vision/mapdict_cat2platform.json         {category: [application, ...]} for the sample's two "applications"

The three instruction kinds reuse the generated instructions (the sample has no functional or spatial
wording of its own); one box is written with reversed corners, as some of UI-Vision's are.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

KINDS = ("basic", "functional", "spatial")
APPLICATIONS = {"sheets": "GroundBench Sheets", "text": "GroundBench Text"}
CATEGORIES = {"Productivity": ["GroundBench Sheets"], "Education": ["GroundBench Text"]}
ROWS_PER_SUITE = 2  # per instruction kind


def write_files(root: Path, rows: dict[str, list[dict[str, Any]]], source_folder: Path) -> int:
    """Write ``root/ui_vision/``; returns the rows written."""
    target = root / "ui_vision"
    annotations = target / "uivision_annotations" / "element_grounding"
    annotations.mkdir(parents=True)
    (target / "uivision_imgs").mkdir()
    written = 0
    for number, kind in enumerate(KINDS):
        records: list[dict[str, Any]] = []
        for suite, suite_rows in sorted(rows.items()):
            base = [r for r in suite_rows if r["answer_type"] == "point" and "_" not in r["file_name"][:-4]]
            # each kind its own rows; a small generation (the benchmark's tiny scale) wraps round, so no kind's
            # file is ever empty (the converter refuses an empty annotation file)
            picks = [(number * ROWS_PER_SUITE + i) % len(base) for i in range(min(ROWS_PER_SUITE, len(base)))]
            for row in (base[i] for i in picks):
                image = f"groundbench_{suite}_{row['file_name']}"
                if not (target / "uivision_imgs" / image).exists():
                    shutil.copyfile(
                        source_folder / f"pointerbench-{suite}" / "data" / "test" / row["file_name"],
                        target / "uivision_imgs" / image,
                    )
                x0, y0, x1, y1 = row["bbox"]
                box = [x1, y0, x0, y1] if kind == "spatial" and not records else [x0, y0, x1, y1]  # reversed x
                records.append(
                    {
                        "image_path": image,
                        "prompt_to_evaluate": row["instruction"],
                        "bbox": box,
                        "image_size": row["image_size"],
                        "platform": APPLICATIONS[suite],
                        "element_type": "cell" if suite == "sheets" else "text",
                    }
                )
        (annotations / f"element_grounding_{kind}.json").write_text(
            json.dumps(records, ensure_ascii=False, indent=1) + "\n", encoding="utf-8"
        )
        written += len(records)
    (target / "mapdict_cat2platform.json").write_text(json.dumps(CATEGORIES, indent=4) + "\n", encoding="utf-8")
    return written
