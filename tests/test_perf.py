"""Performance work that must not change answers: parallel verify, the per-item entry points."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from groundbench import verify as verify_module
from groundbench.converters.umd.convert import convert_item, find_frames
from groundbench.converters.umd.splits import read_splits
from groundbench.pipeline import HF_FOLDER, IMAGES, SHARDS
from groundbench.shards import read_table, shard_files
from tests.conftest import build_all


def _flip_byte(path: Path, offset: int) -> None:
    data = bytearray(path.read_bytes())
    data[offset] ^= 0xFF
    path.write_bytes(bytes(data))


def test_parallel_verify_reports_exactly_what_the_serial_one_does(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    build_all(project)
    configs = ["bulk_umd", "curated_umd"]
    clean = verify_module.verify(project / "data", configs, workers=1)
    assert clean.mismatches == [] and clean.checked_images > 0
    _flip_byte(sorted((project / IMAGES).rglob("*.jpg"))[0], 1000)
    shard = shard_files(project / HF_FOLDER / "data" / "bulk_umd")[0]
    image = read_table(project / SHARDS / "bulk_umd").column("image")[3]["bytes"].as_py()
    _flip_byte(shard, shard.read_bytes().index(image) + 500)
    serial = verify_module.verify(project / "data", configs, workers=1)
    monkeypatch.setattr(verify_module, "PARALLEL_MIN_BYTES", 0)  # force the process pool on the small sample
    monkeypatch.setattr(verify_module, "STORE_FILES_PER_JOB", 4)  # many jobs: order of the merged report matters
    parallel = verify_module.verify(project / "data", configs, workers=2)
    assert len(serial.mismatches) == 2
    assert parallel.mismatches == serial.mismatches
    assert (parallel.checked_files, parallel.checked_images, parallel.hashed_bytes) == (
        serial.checked_files,
        serial.checked_images,
        serial.hashed_bytes,
    )


def test_convert_item_gives_the_rows_the_pipeline_writes(project: Path) -> None:
    build_all(project)
    root = Path(yaml.safe_load((project / "params.yaml").read_text())["sources"]["umd"])
    tools_root, frames = find_frames(root)
    splits = read_splits(tools_root.parent, root)
    rows = [row for frame in frames for row in convert_item(root, frame, splits.of(frame.tool))]
    interim = read_table(project / "data/interim/umd/bulk_umd").to_pylist()
    assert [r["example_id"] for r in rows] == [r["example_id"] for r in interim]
    assert [r["image"]["bytes"] for r in rows] == [r["image"]["bytes"] for r in interim]
    assert [r["target_part_id"] for r in rows] == [r["target_part_id"] for r in interim]
