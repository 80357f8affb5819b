"""``groundbench verify``: re-hash the image store and the bytes embedded in shards against manifests.

The work is a list of independent jobs (a batch of store files, or one shard) spread over a process
pool, one per core, so verification is bound by hashing speed, not by one core. Embedded images are
hashed straight from the memory-mapped shard (no copy into Python bytes). Reports are merged in job
order, so the list of mismatches is the same whatever the number of workers.
"""

from __future__ import annotations

import hashlib
import multiprocessing
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa

from groundbench.core.errors import GroundBenchError
from groundbench.core.manifests import read_manifest, sha256_file
from groundbench.core.parallel import chunks, worker_count
from groundbench.core.published import data_files, iter_file_batches
from groundbench.core.shards import embedded_images, open_shard, shard_files

STORE_FILES_PER_JOB = 512
# Below this many bytes to hash, starting worker processes costs more than it saves.
PARALLEL_MIN_BYTES = 64 * 1024 * 1024


@dataclass
class VerifyReport:
    checked_files: int = 0
    checked_images: int = 0
    mismatches: list[str] = field(default_factory=list)
    hashed_bytes: int = 0  # bytes run through sha256 (store files + embedded images)

    def merge(self, other: VerifyReport) -> None:
        self.checked_files += other.checked_files
        self.checked_images += other.checked_images
        self.mismatches.extend(other.mismatches)
        self.hashed_bytes += other.hashed_bytes


@dataclass(frozen=True)
class StoreJob:
    """Store files to hash: (path, expected sha256, expected size, manifest path)."""

    files: tuple[tuple[str, str, int, str], ...]


@dataclass(frozen=True)
class ShardJob:
    shard: str
    listed: frozenset[str]  # sha256s the config's manifest lists
    manifest_path: str


def verify(data: Path, configs: list[str], workers: int = 0) -> VerifyReport:
    """Check every config's store files and embedded images; ``workers=0`` uses every core."""
    report = VerifyReport()
    jobs: list[StoreJob | ShardJob] = []
    total_bytes = 0
    store = data / "images"
    for config in configs:
        manifest_path = data / "manifests" / f"{config}.jsonl"
        try:
            manifest = read_manifest(manifest_path)
        except GroundBenchError as exc:
            report.mismatches.append(str(exc))
            continue
        entries = [
            (str(store / entry.store_path()), sha, entry.bytes, str(manifest_path))
            for sha, entry in sorted(manifest.items())
        ]
        total_bytes += sum(entry[2] for entry in entries)
        jobs.extend(StoreJob(tuple(batch)) for batch in chunks(entries, STORE_FILES_PER_JOB))
        listed = frozenset(manifest)
        # The Arrow shards and the published Parquet files: both carry the image bytes.
        for shard in [*shard_files(data / "shards" / config), *data_files(data / "groundbench" / "data" / config)]:
            total_bytes += shard.stat().st_size
            jobs.append(ShardJob(str(shard), listed, str(manifest_path)))
    count = worker_count(workers)
    if count <= 1 or len(jobs) <= 1 or total_bytes < PARALLEL_MIN_BYTES:
        results: Iterator[VerifyReport] = map(run_job, jobs)
        for result in results:
            report.merge(result)
        return report
    # spawn, not fork: the parent may hold Arrow thread pools that fork would copy mid-state.
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=min(count, len(jobs)), mp_context=context) as pool:
        for result in pool.map(run_job, jobs):  # in job order: deterministic report
            report.merge(result)
    return report


def run_job(job: StoreJob | ShardJob) -> VerifyReport:
    return _verify_store(job) if isinstance(job, StoreJob) else _verify_shard(job)


def _verify_store(job: StoreJob) -> VerifyReport:
    report = VerifyReport()
    for name, sha, size, manifest_path in job.files:
        path = Path(name)
        report.checked_files += 1
        if not path.is_file():
            report.mismatches.append(f"{path}: missing from the image store (listed in {manifest_path})")
            continue
        report.hashed_bytes += path.stat().st_size
        if sha256_file(path) != sha:
            report.mismatches.append(f"{path}: sha256 differs from {manifest_path}")
        elif path.stat().st_size != size:
            report.mismatches.append(f"{path}: size differs from {manifest_path}")
    return report


def _verify_shard(job: ShardJob) -> VerifyReport:
    report = VerifyReport(checked_files=1)
    shard = Path(job.shard)
    try:
        for batch in _file_batches(shard):
            images = batch.column("image").field("bytes")
            for example_id, sha, data in zip(
                batch.column("example_id").to_pylist(),
                batch.column("image_sha256").to_pylist(),
                embedded_images(images),
                strict=True,
            ):
                report.checked_images += 1
                if data is not None:
                    report.hashed_bytes += len(data)
                if data is None or hashlib.sha256(data).hexdigest() != sha:
                    report.mismatches.append(f"{shard}: {example_id}: embedded image does not hash to {sha}")
                elif sha not in job.listed:
                    report.mismatches.append(f"{shard}: {example_id}: image {sha} not listed in {job.manifest_path}")
    except GroundBenchError as exc:
        report.mismatches.append(str(exc))
    except Exception as exc:  # a damaged shard can fail anywhere inside Arrow
        report.mismatches.append(f"{shard}: unreadable ({type(exc).__name__}: {exc})")
    return report


def _file_batches(path: Path) -> Iterator[pa.RecordBatch]:
    """A published Parquet file's or an Arrow shard's batches (the columns verify hashes)."""
    if path.suffix == ".parquet":
        yield from iter_file_batches(path, ["example_id", "image_sha256", "image"])
        return
    reader = open_shard(path)
    for index in range(reader.num_record_batches):
        yield reader.get_batch(index)
