"""What ``groundbench fetch`` takes of a GUI release beyond its fixed files (the spec's ``listing`` hooks)."""

from __future__ import annotations

import json
from pathlib import Path

from groundbench.converters.gui import osworld_g
from groundbench.errors import GroundBenchError

OSWORLD_G_FOLDER = "benchmark"  # the code repository's folder the release's evaluators read
OSWORLD_G_REFINED = "OSWorld-G_refined.json"  # the same records with reworded instructions


def osworld_g_images(staging: Path) -> list[str]:
    """The screenshots ``benchmark/OSWorld-G.json`` and, when fetched, ``OSWorld-G_refined.json`` name
    (``image_path``, under ``benchmark/images/``), sorted."""
    names = set(_image_paths(staging, osworld_g.ANNOTATION))  # the refined file names the same screenshots
    if (staging / OSWORLD_G_FOLDER / OSWORLD_G_REFINED).is_file():
        names.update(_image_paths(staging, OSWORLD_G_REFINED))
    return sorted(names)


def _image_paths(staging: Path, annotation: str) -> list[str]:
    rel = f"{OSWORLD_G_FOLDER}/{annotation}"
    try:
        records = json.loads((staging / rel).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise GroundBenchError(rel, "file", f"expected a readable JSON array ({exc})") from exc
    if not isinstance(records, list):
        raise GroundBenchError(rel, "file", f"expected a JSON array of records, got {type(records).__name__}")
    names: list[str] = []
    for index, record in enumerate(records):
        image = record.get("image_path") if isinstance(record, dict) else None
        if not isinstance(image, str) or not image:
            raise GroundBenchError(f"{rel}: row {index}", "image_path", f"expected a file name, got {image!r}")
        names.append(f"{OSWORLD_G_FOLDER}/images/{image}")
    return names
