"""Bake per-row baselines into a converted config, validate it, publish shards and manifest.

Reads ``data/interim/<source>/<config>/`` batch by batch (memory stays at one batch), writes
``data/shards/<config>/`` and ``data/manifests/<config>.jsonl``. The manifest is cross-checked
against the shards: every row's image hashes to its ``image_sha256`` and is listed, and every
listed image is used.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc

from groundbench.core.atomic import write_text
from groundbench.core.errors import GroundBenchError
from groundbench.core.manifests import read_manifest, sha256_bytes, write_manifest
from groundbench.core.shards import ABSENT_MARKER, ShardWriter, embedded_images, iter_batches, shard_files
from groundbench.schemas.rules import check_arrow_schema, validate_table
from groundbench.scoring.baselines import bake_row_baselines


@dataclass(frozen=True)
class BakeResult:
    rows: int
    excluded: int
    images: int
    image_bytes: int
    absent: bool


def bake_config(
    config: str, interim: Path, shards_out: Path, manifest_out: Path, max_shard_bytes: int, rows_per_batch: int
) -> BakeResult:
    if not (interim / "manifest.jsonl").is_file():
        # The source is switched off (null in params.yaml): publish an explicit absence.
        shards_out.mkdir(parents=True, exist_ok=True)
        for stale in shard_files(shards_out):
            stale.unlink()
        marker = interim / ABSENT_MARKER  # a converter may say why (e.g. gui_pro without a pointerbench-pro/)
        reason = f"{config}: its source is set to null in params.yaml\n"
        if marker.is_file():
            reason = marker.read_text(encoding="utf-8")
        write_text(shards_out / ABSENT_MARKER, reason)
        write_text(manifest_out, "")
        return BakeResult(0, 0, 0, 0, absent=True)
    manifest = read_manifest(interim / "manifest.jsonl")
    used: set[str] = set()
    excluded = 0
    with ShardWriter(shards_out, max_shard_bytes, rows_per_batch) as writer:
        for number, batch in enumerate(iter_batches(interim)):
            where = f"{interim}/batch {number}"
            check_arrow_schema(batch.schema, where)
            batch = bake_row_baselines(batch)
            validate_table(pa.Table.from_batches([batch]), where)
            _check_images(batch, manifest, where, used)
            excluded += int(pc.sum(batch.column("excluded")).as_py() or 0)
            writer.add_batch(batch)
    unused = sorted(set(manifest) - used)
    if unused:
        raise GroundBenchError(
            interim / "manifest.jsonl", "sha256", f"{len(unused)} listed image(s) used by no row, e.g. {unused[0]}"
        )
    write_manifest(manifest_out, manifest)
    return BakeResult(
        rows=writer.rows,
        excluded=excluded,
        images=len(manifest),
        image_bytes=sum(e.bytes for e in manifest.values()),
        absent=False,
    )


def _check_images(batch: pa.RecordBatch, manifest: dict, where: str, used: set[str]) -> None:
    images = embedded_images(batch.column("image").field("bytes"))  # views, no copy per row
    for example_id, sha, data in zip(
        batch.column("example_id").to_pylist(), batch.column("image_sha256").to_pylist(), images, strict=True
    ):
        if sha not in manifest:
            raise GroundBenchError(where, "image_sha256", f"{example_id}: image {sha} is not in the manifest")
        if sha not in used:  # identical bytes are hashed once per config
            if data is None or sha256_bytes(data) != sha:
                raise GroundBenchError(where, "image", f"{example_id}: bytes do not hash to image_sha256 {sha}")
            used.add(sha)
