"""Bake per-row baselines into a converted config, validate it, publish shards and manifest.

Reads ``data/interim/<source>/<config>/`` and writes ``data/shards/<config>/`` and
``data/manifests/<config>.jsonl``. The interim record batches are checked in parallel (an ordered
map, as the converters run): each batch's schema and value rules, its baselines recomputed, its
images hashed against ``image_sha256``, and each row's digest computed. The manifest is cross-checked
against the shards: every row's image is listed and hashes to its ``image_sha256``, and every listed
image is used. It seals the config (:mod:`groundbench.core.manifests`): the image lines, the sha256 of
every shard written, and every row's ``row_sha256``.

One copy of the bytes: when the converter already wrote the baked baselines (its ``ShardWriter``
completes batches with :func:`bake_row_baselines`) every baked batch equals its interim batch, and
the interim shard files are exactly what the writer would write; they are then hard-linked into
``data/shards/<config>/`` instead of written again. Otherwise the baked batches are written.
"""

from __future__ import annotations

import argparse
import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pyarrow as pa
import pyarrow.compute as pc

from groundbench.core.atomic import atomic_dir, write_text
from groundbench.core.manifests import (
    absent_manifest,
    file_record,
    read_manifest,
    row_digests,
    sha256_bytes,
    write_config_manifest,
)
from groundbench.core.parallel import ordered_map, worker_count
from groundbench.core.shards import ABSENT_MARKER, ShardWriter, embedded_images, open_shard, shard_files
from groundbench.errors import GroundBenchError, unknown_name
from groundbench.schemas.rules import check_arrow_schema, validate_table
from groundbench.scoring.baselines import bake_row_baselines
from groundbench.stages.options import console, params, root
from groundbench.stages.paths import INTERIM, MANIFESTS, SHARDS

if TYPE_CHECKING:
    from groundbench.core.params import Params

# Below this many interim bytes one process is faster: the checks cost ~0.4 ms of CPU per row, and a
# spawned worker spends ~3 CPU s importing Arrow/polars/pandera first (bulk_umd at 1/10 scale, 0.46 GB:
# 6 s on one core, 24 s on two on a loaded host).
PARALLEL_MIN_BYTES = 2**30
WINDOW = 8  # groups of batches in flight at once (each worker maps one shard and returns only small columns)
# Consecutive batches of a shard checked as one table: the row rules cost ~40 ms per call whatever its size
# (pandera runs every check as its own polars query), so 256-row batches one by one spent most of it there.
GROUP_ROWS = 4096


@dataclass(frozen=True)
class BakeResult:
    rows: int
    excluded: int
    images: int
    image_bytes: int
    absent: bool
    linked: bool = False  # the shards are hard links to the interim files (one copy of the bytes)


@dataclass(frozen=True)
class BatchTask:
    shard: Path
    indices: tuple[int, ...]  # consecutive record batches of the shard, checked together
    where: str


@dataclass(frozen=True)
class BatchVerdict:
    """What a worker found in one interim batch; small, so it travels back cheaply."""

    baselines: pa.Array
    excluded: int
    unchanged: bool  # the interim batch already holds these baselines
    bad_images: tuple[int, ...]  # rows whose bytes do not hash to their image_sha256 (or are missing)
    digests: tuple[str, ...]  # each row's row_sha256 (groundbench.core.manifests.row_digest)


def bake_config(
    config: str,
    interim: Path,
    shards_out: Path,
    manifest_out: Path,
    max_shard_bytes: int,
    rows_per_batch: int,
    workers: int | None = None,
) -> BakeResult:
    """``workers``: processes checking batches; None = every core once the interim is large enough."""
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
        write_text(manifest_out, absent_manifest(reason))
        return BakeResult(0, 0, 0, 0, absent=True)
    manifest = read_manifest(interim / "manifest.jsonl")
    files = shard_files(interim)
    readers = {path: open_shard(path) for path in files}
    tasks = batch_tasks(interim, readers)
    size = sum(path.stat().st_size for path in files)
    automatic = worker_count(0) if size >= PARALLEL_MIN_BYTES else 1
    count = automatic if workers is None else worker_count(workers)
    used: set[str] = set()
    excluded, rows, unchanged = 0, 0, True
    baselines: list[pa.Array] = []
    rows_sealed: list[tuple[str, str]] = []  # (example_id, row_sha256) in shard order
    # First pass: check every batch (in parallel); keep only its baselines column.
    for task, verdicts in zip(tasks, ordered_map(check_batches, tasks, count, WINDOW), strict=True):
        for index, verdict in zip(task.indices, verdicts, strict=True):
            batch = readers[task.shard].get_batch(index)
            _check_listed(batch, manifest, verdict, task.where, used)
            baselines.append(verdict.baselines)
            rows_sealed.extend(zip(batch.column("example_id").to_pylist(), verdict.digests, strict=True))
            excluded += verdict.excluded
            rows += batch.num_rows
            unchanged = unchanged and verdict.unchanged
    unused = sorted(set(manifest) - used)
    if unused:
        raise GroundBenchError(
            interim / "manifest.jsonl", "sha256", f"{len(unused)} listed image(s) used by no row, e.g. {unused[0]}"
        )
    linked = unchanged and _cut_as_written(readers, max_shard_bytes)
    if linked:
        _link_files(files, shards_out)
    else:
        with ShardWriter(shards_out, max_shard_bytes, rows_per_batch) as writer:
            batches = [(task.shard, index) for task in tasks for index in task.indices]
            for (shard, index), column in zip(batches, baselines, strict=True):
                batch = readers[shard].get_batch(index)
                position = batch.schema.get_field_index("baselines")
                writer.add_batch(batch.set_column(position, batch.schema.field("baselines"), column))
    # The shards as written (or linked) are hashed once more: the manifest records their exact bytes.
    write_config_manifest(manifest_out, manifest, map(file_record, shard_files(shards_out)), rows_sealed)
    return BakeResult(
        rows=rows,
        excluded=excluded,
        images=len(manifest),
        image_bytes=sum(e.bytes for e in manifest.values()),
        absent=False,
        linked=linked,
    )


def batch_tasks(interim: Path, readers: dict[Path, pa.ipc.RecordBatchFileReader]) -> list[BatchTask]:
    """Each shard's batches in groups of about ``GROUP_ROWS`` rows (a group never spans two shards)."""
    tasks: list[BatchTask] = []
    number = 0  # batches are numbered across the config's shards, in order
    for path, reader in readers.items():
        group: list[int] = []
        rows = 0
        for index in range(reader.num_record_batches):
            group.append(index)
            rows += reader.get_batch(index).num_rows
            if rows >= GROUP_ROWS or index == reader.num_record_batches - 1:
                span = f"batch {number}" if len(group) == 1 else f"batches {number}-{number + len(group) - 1}"
                tasks.append(BatchTask(path, tuple(group), f"{interim}/{span}"))
                number += len(group)
                group, rows = [], 0
    return tasks


def check_batches(task: BatchTask) -> tuple[BatchVerdict, ...]:
    """Schema, value rules, baselines and image hashes of a group of interim batches (runs in a worker)."""
    reader = open_shard(task.shard)
    check_arrow_schema(reader.schema, task.where)
    batches = [reader.get_batch(index) for index in task.indices]
    baked = [bake_row_baselines(batch) for batch in batches]
    validate_table(pa.Table.from_batches(baked), task.where)
    return tuple(
        BatchVerdict(
            baselines=done.column("baselines"),
            excluded=int(pc.sum(done.column("excluded")).as_py() or 0),
            unchanged=done.column("baselines").equals(batch.column("baselines")),
            bad_images=tuple(_bad_images(batch)),
            digests=tuple(row_digests(done)),
        )
        for batch, done in zip(batches, baked, strict=True)
    )


def _bad_images(batch: pa.RecordBatch) -> Iterator[int]:
    images = embedded_images(batch.column("image").field("bytes"))  # views, no copy per row
    verified: set[str] = set()  # identical bytes are hashed once per batch
    for row, (sha, data) in enumerate(zip(batch.column("image_sha256").to_pylist(), images, strict=True)):
        if sha in verified:
            continue
        if data is None or sha256_bytes(data) != sha:
            yield row
        else:
            verified.add(sha)


def _check_listed(batch: pa.RecordBatch, manifest: dict, verdict: BatchVerdict, where: str, used: set[str]) -> None:
    bad = set(verdict.bad_images)
    for row, (example_id, sha) in enumerate(
        zip(batch.column("example_id").to_pylist(), batch.column("image_sha256").to_pylist(), strict=True)
    ):
        if sha not in manifest:
            raise GroundBenchError(where, "image_sha256", f"{example_id}: image {sha} is not in the manifest")
        if row in bad:
            raise GroundBenchError(where, "image", f"{example_id}: bytes do not hash to image_sha256 {sha}")
        used.add(sha)


def _cut_as_written(readers: dict[Path, pa.ipc.RecordBatchFileReader], max_shard_bytes: int) -> bool:
    """Whether ``ShardWriter`` fed these batches would cut the same files (the same shard size cap)."""
    sizes = [[reader.get_batch(i).nbytes for i in range(reader.num_record_batches)] for reader in readers.values()]
    for number, file_sizes in enumerate(sizes):
        if not file_sizes:
            return False
        if sum(file_sizes[:-1]) + file_sizes[-1] > max_shard_bytes and len(file_sizes) > 1:
            return False  # the writer would have started a new file before the last batch
        following = sizes[number + 1][0] if number + 1 < len(sizes) and sizes[number + 1] else None
        if following is not None and sum(file_sizes) + following <= max_shard_bytes:
            return False  # the writer would have kept the next batch in this file
    return True


def _link_files(files: list[Path], shards_out: Path) -> None:
    with atomic_dir(shards_out) as tmp:
        for path in files:
            try:
                os.link(path, tmp / path.name)
            except OSError:  # another file system, or links not allowed: a copy keeps the same bytes
                shutil.copyfile(path, tmp / path.name)


# The `groundbench bake CONFIG...` command (groundbench/stages/command.py).
NAME = "bake"
HELP = "Bake per-row baselines into configs, validate them, write shards and manifests."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "configs",
        nargs="+",
        metavar="CONFIG",
        help="configs to bake, e.g. curated_umd; FOLDER/CONFIG (umd/curated_umd) reads it from data/interim/FOLDER/ "
        "and loads no source folder's spec (dvc.yaml names them so; a bare CONFIG finds its folder in the registry)",
    )


def split_config(item: str) -> tuple[str | None, str]:
    """``FOLDER/CONFIG`` -> (FOLDER, CONFIG); a bare ``CONFIG`` -> (None, CONFIG)."""
    folder, _, config = item.rpartition("/")
    return folder or None, config


def folders(args: argparse.Namespace) -> tuple[str, ...] | None:
    """No source folder when every config names its interim folder; else every folder (to find them)."""
    return () if all(split_config(item)[0] for item in args.configs) else None


def locks(args: argparse.Namespace) -> list[str]:
    return [f"bake-{split_config(item)[1]}" for item in args.configs]


def interim_folder(config: str) -> str:
    """The folder under data/interim/ a config's source writes it to, from the registry."""
    from groundbench.core.registry import BY_NAME

    info = BY_NAME.get(config)
    if info is None:
        raise unknown_name("dvc.yaml", "config", config, sorted(BY_NAME))
    return info.interim_folder


def run_bake(root: Path, params: Params, config: str, interim: str | None = None) -> BakeResult:
    """Bake ``config`` from ``data/interim/<interim>/<config>/`` (None: its source's folder)."""
    source = root / INTERIM / (interim or interim_folder(config)) / config
    if interim and not source.is_dir():  # a converter writes every config of its source, an absent one too
        raise GroundBenchError(f"{INTERIM}/{interim}", config, "no such converted config: check FOLDER/CONFIG")
    return bake_config(
        config,
        source,
        root / SHARDS / config,
        root / MANIFESTS / f"{config}.jsonl",
        params.shards.max_bytes,
        params.shards.rows_per_batch,
    )


def run(args: argparse.Namespace) -> int:
    # One process bakes every config a convert or derive stage wrote (dvc.yaml): its start-up (Arrow, the
    # row rules' pandera and polars) is paid once, each config still its own outputs.
    project, loaded = root(args), params(args)
    for item in args.configs:
        interim, config = split_config(item)
        result = run_bake(project, loaded, config, interim)
        valid = f"{result.rows} rows, {result.excluded} excluded, valid"
        state = f"absent (reason in data/shards/{config}/ABSENT)" if result.absent else valid
        console.print(f"{config}: {state}")
    return 0
