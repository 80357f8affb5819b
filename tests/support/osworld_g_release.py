"""OSWorld-G records written from the release's own fields, outside the sample writer: the converter and fetch
tests read trees built from them (never the embedded sample's files)."""

from __future__ import annotations

import io
import json

from PIL import Image

# Records with the release's own fields and values of the kind its files hold (float pixel boxes
# [x, y, w, h], flat polygons, a four-value polygon, refusal rows, several instructions per screenshot).
RELEASE = [
    {
        "id": "0FOB4CLBT2-0",
        "image_path": "0FOB4CLBT2.png",
        "image_size": [1920, 1080],
        "instruction": 'Click the button that including an icon of funnel on the right of the "search settings" bar',
        "box_type": "bbox",
        "box_coordinates": [1422.9, 326.4, 26.68, 28.40],
        "GUI_types": ["Label", "Button", "Icon"],
    },
    {
        "id": "0FOB4CLBT2-1",
        "image_path": "0FOB4CLBT2.png",
        "image_size": [1920, 1080],
        "instruction": "Select the text between 'open' and 'file' in the second paragraph",
        "box_type": "polygon",
        "box_coordinates": [100.5, 200.0, 180.0, 200.0, 180.0, 230.25, 140.0, 250.0, 100.5, 230.25],
        "GUI_types": ["Text"],
    },
    {
        "id": "7XQ2KA9ZPL-0",
        "image_path": "7XQ2KA9ZPL.png",
        "image_size": [1280, 720],
        "instruction": "Drag the slider's handle",
        "box_type": "polygon",
        "box_coordinates": [600.0, 300.0, 640.0, 330.0],
        "GUI_types": ["Slider"],
    },
    {
        "id": "7XQ2KA9ZPL-1",
        "image_path": "7XQ2KA9ZPL.png",
        "image_size": [1280, 720],
        "instruction": "Click the 'Send to Kindle' button",
        "box_type": "refusal",
        "box_coordinates": [-1, -1, -1, -1],
        "GUI_types": [],
    },
]
CLASSIFIED = {
    "classified": {
        "text_matching": [{"id": "0FOB4CLBT2-0"}],
        "fine_grained_manipulation": [{"id": "0FOB4CLBT2-1"}, {"id": "0FOB4CLBT2-0"}],
        "refusal": [{"id": "7XQ2KA9ZPL-1"}],
    }
}


def png(size: tuple[int, int]) -> bytes:
    buffer = io.BytesIO()
    Image.new("L", size, 255).save(buffer, "PNG")
    return buffer.getvalue()


# OSWorld-G_refined.json: the same records with reworded instructions (third parties: same instances and
# targets, 507 of 564 instructions reworded), one left as it was.
REFINED = [
    record | {"instruction": f"Refined: {record['instruction']}"} if n != 1 else dict(record)
    for n, record in enumerate(RELEASE)
]


def benchmark_files() -> dict[str, bytes]:
    """The code repository's ``benchmark/`` folder: the two benchmark files, the groups, the screenshots."""
    files = {
        "benchmark/OSWorld-G.json": json.dumps(RELEASE, indent=4).encode(),
        "benchmark/OSWorld-G_refined.json": json.dumps(REFINED, indent=4).encode(),
        "benchmark/classification_result.json": json.dumps(CLASSIFIED).encode(),
    }
    for record in RELEASE:
        files[f"benchmark/images/{record['image_path']}"] = png(tuple(record["image_size"]))
    return files


def raw_host_files(repo: str, commit: str, files: dict[str, bytes]) -> dict[str, bytes]:
    """``files`` as raw.githubusercontent.com serves them: ``/<owner>/<name>/<commit>/<path>``."""
    return {f"/{repo}/{commit}/{path}": data for path, data in files.items()}


def hub_files(prefix: str = "") -> dict[str, bytes]:
    """A Hub repository holding the release: OSWorld-G.json, classification_result.json, images/, a README."""
    files = {
        f"{prefix}OSWorld-G.json": json.dumps(RELEASE, indent=4).encode(),
        f"{prefix}classification_result.json": json.dumps(CLASSIFIED).encode(),
        "README.md": b"# OSWorld-G (stand-in)\n",
    }
    for record in RELEASE:
        files[f"{prefix}images/{record['image_path']}"] = png(tuple(record["image_size"]))
    return files
