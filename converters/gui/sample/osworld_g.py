"""The embedded OSWorld-G sample: OSWorld-G's own file layout over some generated screenshots.

    osworld_g/OSWorld-G.json               JSON array: id, image_path, image_size, instruction, box_type,
                                           box_coordinates, GUI_types (the keys the release's evaluators read)
    osworld_g/OSWorld-G_refined.json       the same records, most instructions reworded (a synthetic stand-in)
    osworld_g/classification_result.json   {"classified": {capability: [{"id": ...}, ...]}}
    osworld_g/images/<name>.png            the screenshots (copied from the generated suites' base frame)

Every region kind the release has is present: ``bbox`` [x, y, w, h], ``polygon`` (four vertices, and the
two-vertex four-value kind some published polygons are) and ``refusal`` rows, whose instruction names an
element the generated screenshot does not show (``box_coordinates`` ``[0, 0, 0, 0]``, as a third party describes
the release's refusal rows: the UI-TARS OSWorld-G script of a downstream evaluation suite; the rule never reads
them). One row is in two capability groups, one in none.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

ANNOTATION = "OSWorld-G.json"
REFINED = "OSWorld-G_refined.json"
CLASSIFICATION = "classification_result.json"
CAPABILITIES = (
    "text_matching",
    "element_recognition",
    "layout_understanding",
    "fine_grained_manipulation",
    "refusal",
)
# Elements a generated spreadsheet or document screenshot never shows: the refusal rows ask for them.
ABSENT = (
    "Click the button that starts a video call",
    "Open the music player's shuffle toggle",
    "Click the 'Install update' button in the notification",
)
KINDS = ("bbox", "polygon", "bbox", "polygon4")  # cycled over the target rows
ROWS_PER_SUITE = 4


def _region(kind: str, box: list[int]) -> tuple[str, list[float]]:
    x0, y0, x1, y1 = (float(v) for v in box)
    if kind == "bbox":
        return "bbox", [x0, y0, x1 - x0, y1 - y0]
    if kind == "polygon":
        return "polygon", [x0, y0, x1, y0, x1, y1, x0, y1]
    return "polygon", [x0, y0, x1, y1]  # two vertices: the four-value "polygon" the release also has


def reworded(instruction: str, n: int) -> str:
    """A stand-in for the release's refined instruction (its rewording is written by people; this one only marks
    the row as asked differently): every tenth row keeps its instruction, as some of the release's do."""
    if n % 10 == 9 or not instruction:
        return instruction
    return f"In this screenshot: {instruction[0].lower()}{instruction[1:]}"


def write_files(root: Path, rows: dict[str, list[dict[str, Any]]], source_folder: Path) -> int:
    """Write ``root/osworld_g/`` from the suites' base-frame point rows; returns the rows written."""
    target = root / "osworld_g"
    (target / "images").mkdir(parents=True)
    records: list[dict[str, Any]] = []
    groups: dict[str, list[dict[str, str]]] = {name: [] for name in CAPABILITIES}
    number = 0
    for suite, suite_rows in sorted(rows.items()):
        chosen = [
            r for r in suite_rows if r["answer_type"] == "point" and "_" not in r["file_name"].removesuffix(".png")
        ][:ROWS_PER_SUITE]
        for row in chosen:
            stem = f"GB{suite.upper()}{row['file_name'].removesuffix('.png')}"
            image = f"{stem}.png"
            shutil.copyfile(
                source_folder / f"pointerbench-{suite}" / "data" / "test" / row["file_name"], target / "images" / image
            )
            box_type, coordinates = _region(KINDS[number % len(KINDS)], row["bbox"])
            row_id = f"{stem}-0"
            records.append(
                {
                    "id": row_id,
                    "image_path": image,
                    "image_size": row["image_size"],
                    "instruction": row["instruction"],
                    "box_type": box_type,
                    "box_coordinates": coordinates,
                    "GUI_types": ["Cell"] if suite == "sheets" else ["Text"],
                }
            )
            if number % 5 != 4:  # every fifth target row is in no group ("unclassified" in the official tally)
                groups[CAPABILITIES[number % 4]].append({"id": row_id})
            if number == 1:
                groups["layout_understanding"].append({"id": row_id})  # a row in two groups
            if number < len(ABSENT):
                refusal_id = f"{stem}-1"
                records.append(
                    {
                        "id": refusal_id,
                        "image_path": image,
                        "image_size": row["image_size"],
                        "instruction": ABSENT[number],
                        "box_type": "refusal",
                        "box_coordinates": [0, 0, 0, 0],  # what the release's refusal rows carry
                        "GUI_types": [],
                    }
                )
                groups["refusal"].append({"id": refusal_id})
            number += 1
    (target / ANNOTATION).write_text(json.dumps(records, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    refined = [record | {"instruction": reworded(record["instruction"], n)} for n, record in enumerate(records)]
    (target / REFINED).write_text(json.dumps(refined, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    (target / CLASSIFICATION).write_text(
        json.dumps({"classified": groups}, ensure_ascii=False, indent=1) + "\n", encoding="utf-8"
    )
    return len(records)
