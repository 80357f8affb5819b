"""Small sources in the real release layouts, for the fetch tests (made here, nothing downloaded).

- UMD: the embedded sample's ``part-affordance-dataset/`` tree packed as the release's tarball;
- PointerBench: a Hub repo with ``pointerbench-{sheets,text,pro}/data/test/metadata.jsonl`` (the first
  rows of the real files in tests/fixtures/gui) and blank PNGs of the recorded sizes, plus the repo's
  other files that fetch must skip (``__pycache__``, ``eval.py``, ``README.md``);
- ScreenSpot-v2: a Hub repo with ``screenspot_{mobile,desktop,web}_v2.json`` in OS-Atlas's keys and
  ``screenspotv2_image.zip`` holding ``screenspotv2_image/<img_filename>``.
"""

from __future__ import annotations

import gzip
import io
import json
import tarfile
import zipfile
from pathlib import Path

from PIL import Image

from groundbench.converters.umd.sample import write_sample

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "gui"
UMD_PATH = "/part-affordance/part-affordance-dataset-tools.tar.gz"
POINTERBENCH = "WarmwindOS/pointerbench"
SCREENSPOT_V2 = "OS-Copilot/ScreenSpot-v2"
PB_COMMIT = "53b9745" + "0" * 33
V2_COMMIT = "5efbb1f" + "1" * 33
ROWS = 3  # rows per PointerBench suite


def png(size: tuple[int, int], shade: int = 255) -> bytes:
    buffer = io.BytesIO()
    Image.new("L", size, shade).save(buffer, "PNG")
    return buffer.getvalue()


def _reproducible(info: tarfile.TarInfo) -> tarfile.TarInfo:
    info.mtime, info.uid, info.gid, info.uname, info.gname = 0, 0, 0, "", ""
    return info


def umd_tarball(scratch: Path, frames_per_tool: int = 1) -> bytes:
    """The embedded UMD sample packed as the release is; the same bytes on every run (no times, no owners)."""
    write_sample(scratch / "umd", frames_per_tool, 0)
    buffer = io.BytesIO()
    with gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0) as zipped, tarfile.open(fileobj=zipped, mode="w") as tar:
        tar.add(scratch / "umd" / "part-affordance-dataset", arcname="part-affordance-dataset", filter=_reproducible)
    return buffer.getvalue()


def pointerbench_files() -> dict[str, bytes]:
    files: dict[str, bytes] = {
        "README.md": b"# PointerBench\n",
        "pointerbench-text/eval.py": b"print('scorer')\n",
        "pointerbench-text/__pycache__/eval.cpython-311.pyc": b"\0" * 64,
    }
    for suite in ("sheets", "text", "pro"):
        lines = (FIXTURES / "pointerbench" / f"pointerbench-{suite}" / "data" / "test" / "metadata.jsonl").read_text(
            encoding="utf-8"
        )
        rows = lines.splitlines()[:ROWS]
        folder = f"pointerbench-{suite}/data/test"
        files[f"{folder}/metadata.jsonl"] = ("\n".join(rows) + "\n").encode()
        for line in rows:
            record = json.loads(line)
            files[f"{folder}/{record['file_name']}"] = png(tuple(record["image_size"]))
    return files


V2_RECORDS = {
    "mobile": [
        {
            "img_filename": "mobile_a.png",
            "bbox": [10, 20, 40, 30],
            "instruction": "open settings",
            "data_type": "icon",
            "data_source": "ios",
        },
        {
            "img_filename": "mobile_a.png",
            "bbox": [100, 150, 60, 20],
            "instruction": "tap search",
            "data_type": "text",
            "data_source": "ios",
        },
    ],
    "desktop": [
        {
            "img_filename": "pc_b.png",
            "bbox": [5, 5, 50, 20],
            "instruction": "close the window",
            "data_type": "icon",
            "data_source": "windows",
        },
    ],
    "web": [
        {
            "img_filename": "web_c.png",
            "bbox": [30, 40, 80, 25],
            "instruction": "sign in",
            "data_type": "text",
            "data_source": "shop",
        },
    ],
}
V2_SIZES = {"mobile_a.png": (240, 320), "pc_b.png": (320, 200), "web_c.png": (320, 240)}


def screenspot_v2_files() -> dict[str, bytes]:
    files = {"README.md": b"---\nlicense: apache-2.0\n---\n"}
    for split, records in V2_RECORDS.items():
        files[f"screenspot_{split}_v2.json"] = json.dumps(records, indent=1).encode()
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for number, (name, size) in enumerate(sorted(V2_SIZES.items())):
            info = zipfile.ZipInfo(f"screenspotv2_image/{name}", date_time=(2024, 1, 1, 0, 0, 0))
            archive.writestr(info, png(size, 200 + number))
        archive.writestr(zipfile.ZipInfo("__MACOSX/._pc_b.png", date_time=(2024, 1, 1, 0, 0, 0)), b"junk")
    files["screenspotv2_image.zip"] = buffer.getvalue()
    return files
