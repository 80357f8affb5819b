"""Performance work that must not change answers: parallel verify, the per-item entry points."""

from __future__ import annotations

import io
import shutil
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np
import pytest
import yaml
from PIL import Image

from groundbench.converters.gapartnet import records
from groundbench.converters.umd.convert import convert_frames, convert_item, find_frames
from groundbench.converters.umd.regions import labelled_rect, regions_of
from groundbench.converters.umd.splits import read_splits
from groundbench.core.embed import image_embedder
from groundbench.core.geometry import interior_point
from groundbench.core.params import load_params
from groundbench.core.shards import ShardWriter, read_table, records_to_batch, shard_files
from groundbench.errors import GroundBenchError
from groundbench.loaders.published import data_files
from groundbench.stages.paths import HF_FOLDER, IMAGES, SHARDS
from groundbench.tools import verify as verify_module
from tests.conftest import REPO, build_all

UMD = load_params(REPO).umd


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
    shard = data_files(project / HF_FOLDER / "data" / "bulk_umd")[0]  # the published Parquet file
    image = read_table(project / SHARDS / "bulk_umd").column("image")[3]["bytes"].as_py()
    _flip_byte(shard, shard.read_bytes().index(image) + 500)
    serial = verify_module.verify(project / "data", configs, workers=1)
    monkeypatch.setattr(verify_module, "PARALLEL_MIN_BYTES", 0)  # force the process pool on the small sample
    monkeypatch.setattr(verify_module, "STORE_FILES_PER_JOB", 4)  # many jobs: order of the merged report matters
    parallel = verify_module.verify(project / "data", configs, workers=2)
    assert len(serial.mismatches) == 3  # the store file; the Parquet file's sha256, and the row whose image it changed
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
    rows = [
        row
        for frame in frames
        for row in convert_item(root, frame, splits.of(frame.tool), UMD.max_image_pixels, UMD.min_region_pixels)
    ]
    interim = read_table(project / "data/interim/umd/bulk_umd").to_pylist()
    assert [r["example_id"] for r in rows] == [r["example_id"] for r in interim]
    assert [r["image"]["bytes"] for r in rows] == [r["image"]["bytes"] for r in interim]
    assert [r["target_part_id"] for r in rows] == [r["target_part_id"] for r in interim]


# ---- Work on a mask's own box gives the whole frame's answer (the speed-ups of converters/) ----


def _interior_point_whole_frame(mask: np.ndarray) -> tuple[float, float]:
    """The former implementation: distance transform and centroid over the whole frame."""
    padded = np.pad(mask.astype(np.uint8), 1)
    distance = cv2.distanceTransform(padded, cv2.DIST_L2, cv2.DIST_MASK_PRECISE)[1:-1, 1:-1]
    rows, cols = np.nonzero(distance >= distance.max() - 0.5)
    all_rows, all_cols = np.nonzero(mask)
    cx, cy = float(all_cols.mean()), float(all_rows.mean())
    best = int(np.argmin((rows - cy) ** 2 + (cols - cx) ** 2))
    return (float(cols[best]) + 0.5, float(rows[best]) + 0.5)


def _highlight_whole_frame(rgb: bytes, mask: np.ndarray) -> bytes:
    """The former implementation: blend and erode over the whole frame."""
    with Image.open(io.BytesIO(rgb)) as opened:
        image = np.asarray(opened.convert("RGB")).copy()
    colour = np.array(records.HIGHLIGHT_COLOUR, dtype=np.uint16)
    image[mask] = ((image[mask].astype(np.uint16) + colour + 1) // 2).astype(np.uint8)
    inner = cv2.erode(mask.astype(np.uint8), np.ones((3, 3), np.uint8), borderType=cv2.BORDER_CONSTANT, borderValue=0)
    image[mask & (inner == 0)] = (255, 0, 0)
    return records.encode_highlight(image)


def _masks(seed: int, count: int, shape: tuple[int, int]) -> list[np.ndarray]:
    """Blobs, bars, rings, single pixels and masks touching each image border."""
    rng = np.random.default_rng(seed)
    height, width = shape
    masks = []
    for number in range(count):
        mask = np.zeros(shape, np.uint8)
        kind = number % 5
        x, y = int(rng.integers(0, width)), int(rng.integers(0, height))
        if kind == 0:
            cv2.circle(mask, (x, y), int(rng.integers(1, 30)), 1, -1)
        elif kind == 1:
            cv2.rectangle(mask, (x, y), (x + int(rng.integers(0, 60)), y + int(rng.integers(0, 4))), 1, -1)
        elif kind == 2:
            cv2.circle(mask, (x, y), int(rng.integers(8, 40)), 1, int(rng.integers(1, 6)))
        elif kind == 3:
            mask[y, x] = 1
        else:  # anchored on a border, so the image edge is part of the boundary
            side = int(rng.integers(0, 4))
            anchor = [(0, y), (width - 1, y), (x, 0), (x, height - 1)][side]
            cv2.ellipse(mask, anchor, (int(rng.integers(2, 50)), int(rng.integers(2, 50))), 0, 0, 360, 1, -1)
        mask |= (rng.random(shape) < 0.0005).astype(np.uint8) * (kind == 0)  # stray specks: several components
        masks.append(mask.astype(bool))
    return masks


def test_interior_point_on_the_mask_box_equals_the_whole_frame() -> None:
    for mask in _masks(7, 120, (120, 160)):
        assert interior_point(mask) == _interior_point_whole_frame(mask)


def test_highlight_on_the_mask_box_equals_the_whole_frame() -> None:
    rng = np.random.default_rng(3)
    pixels = rng.integers(0, 256, (90, 130, 3), dtype=np.uint8)
    buffer = io.BytesIO()
    Image.fromarray(pixels).save(buffer, format="PNG")
    rgb = buffer.getvalue()
    for mask in _masks(11, 40, (90, 130)):
        assert records.highlight(records.decode_rgb(rgb), mask) == _highlight_whole_frame(rgb, mask)


def test_highlight_png_holds_exactly_the_highlighted_pixels() -> None:
    rng = np.random.default_rng(4)
    pixels = rng.integers(0, 256, (90, 130, 3), dtype=np.uint8)
    for mask in _masks(12, 10, (90, 130)):
        encoded = records.highlight(pixels, mask)
        with Image.open(io.BytesIO(encoded)) as opened:  # another decoder than the encoder's
            assert opened.format == "PNG" and opened.mode == "RGB"
            decoded = np.asarray(opened)
        expected = records.highlight_pixels(pixels, mask)
        assert np.array_equal(decoded, expected) and not np.array_equal(expected, pixels)
        assert records.highlight(pixels, mask) == encoded  # deterministic


def test_add_rows_writes_the_bytes_add_writes_however_rows_are_grouped(project: Path, tmp_path: Path) -> None:
    build_all(project)
    table = read_table(project / SHARDS / "bulk_umd")  # nulls, nested lists and structs, images
    rows, schema = table.to_pylist(), table.schema
    rows += [dict(r, example_id=f"{r['example_id']}/copy") for r in rows]
    rows.sort(key=lambda r: r["example_id"])

    def written(name: str, feed: Callable[[ShardWriter], None]) -> list[bytes]:
        with ShardWriter(tmp_path / name, 1024 * 1024, 16) as writer:
            feed(writer)
        return [path.read_bytes() for path in shard_files(tmp_path / name)]

    expected = written("by_record", lambda w: [w.add(r) for r in rows])
    assert len(expected) > 1  # the size cap splits the config: shard boundaries are compared too
    rng = np.random.default_rng(5)
    for attempt in range(4):
        sizes = rng.integers(1, 40, len(rows))  # pieces smaller and larger than a batch
        pieces, start = [], 0
        for size in sizes:
            if start >= len(rows):
                break
            pieces.append(records_to_batch(rows[start : start + int(size)], schema, "test"))
            start += int(size)
        assert written(f"by_piece_{attempt}", lambda w, pieces=pieces: [w.add_rows(p) for p in pieces]) == expected


def test_labelled_rect_reads_column_major_maps_like_row_major_ones() -> None:
    rng = np.random.default_rng(1)
    for _ in range(50):
        labels = np.zeros((48, 64), np.uint8)
        x, y = int(rng.integers(0, 64)), int(rng.integers(0, 48))
        labels[y : y + int(rng.integers(1, 20)), x : x + int(rng.integers(1, 30))] = int(rng.integers(1, 8))
        fortran = np.asfortranarray(labels)  # what scipy.io.loadmat returns
        assert fortran.flags.f_contiguous and not fortran.flags.c_contiguous
        assert labelled_rect(fortran) == labelled_rect(labels)
        assert regions_of(fortran) == regions_of(labels)
    assert labelled_rect(np.zeros((4, 5), np.uint8, order="F"))[2:] == (0, 0)


def test_umd_rows_embed_the_jpeg_the_worker_hashed_and_refuse_a_changed_one(project: Path, tmp_path: Path) -> None:
    build_all(project)
    root = Path(yaml.safe_load((project / "params.yaml").read_text())["sources"]["umd"])
    tools_root, frames = find_frames(root)
    splits = read_splits(tools_root.parent, root)
    result = convert_frames(root, splits, UMD.max_image_pixels, UMD.min_region_pixels, frames[:3])
    assert result.rows.column("image").field("bytes").null_count == result.rows.num_rows  # no bytes in transit
    embedded = image_embedder(root)(result.rows)
    expected = [
        row
        for frame in frames[:3]
        for row in convert_item(root, frame, splits.of(frame.tool), UMD.max_image_pixels, UMD.min_region_pixels)
    ]
    assert embedded.column("image").to_pylist() == [row["image"] for row in expected]
    copy = tmp_path / "umd"
    shutil.copytree(root, copy)
    changed = copy / Path(expected[0]["provenance"]["source_paths"][0])
    changed.write_bytes(changed.read_bytes() + b"\0")
    with pytest.raises(GroundBenchError, match="changed while the conversion was running"):
        image_embedder(copy)(result.rows)
