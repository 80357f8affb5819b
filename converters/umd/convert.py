"""UMD converter, top-down: find files -> parse each frame (in parallel) -> build and write records.

Writes ``<out>/bulk_umd/`` and ``<out>/curated_umd/`` (shards plus ``manifest.jsonl``). Frames are
processed in (tool, frame) order so rows reach the shard writer already sorted by ``example_id``.
"""

from __future__ import annotations

import functools
import json
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
from tqdm import tqdm

from groundbench.converters.umd.audit import Audit, read_audit
from groundbench.converters.umd.layout import Frame, find_tools_root, list_frames, list_tools
from groundbench.converters.umd.records import ParsedFrame, bulk_records, curated_record, manifest_entry, parse_frame
from groundbench.converters.umd.splits import Splits, ToolSplits, read_splits
from groundbench.core.atomic import atomic_dir
from groundbench.core.embed import image_embedder, without_image_bytes
from groundbench.core.errors import GroundBenchError
from groundbench.core.manifests import ManifestEntry, write_manifest
from groundbench.core.parallel import chunks, ordered_map, worker_count
from groundbench.core.paths import relative_to
from groundbench.core.shards import ShardWriter, records_to_batch
from groundbench.schemas.features import arrow_schema
from groundbench.scoring.baselines import bake_row_baselines, then_bake

CONFIGS = ("bulk_umd", "curated_umd")


@dataclass(frozen=True)
class UmdParams:
    audit: Path
    workers: int = 0
    window: int = 512
    frames_per_task: int = 32
    max_image_pixels: int = 64_000_000
    min_region_pixels: int = 16
    max_shard_bytes: int = 256 * 1024 * 1024
    rows_per_batch: int = 256


@dataclass(frozen=True)
class Candidate:
    frame: Frame
    hand_labelled: bool
    grasp_area: int


def find_frames(root: Path, skipped: list[str] | None = None) -> tuple[Path, list[Frame]]:
    """``tools/`` and every frame under it; OS clutter skipped (appended to ``skipped``, paths from ``root``)."""
    tools_root = find_tools_root(root)
    frames = []
    for tool in list_tools(root, tools_root, skipped):
        found = list_frames(root, tool)
        if skipped is not None:
            skipped.extend(f"{relative_to(root, tool)}/{name}" for name in found[0].skipped)
        frames.extend(found)
    return tools_root, frames


def convert_item(
    root: Path, frame: Frame, splits: ToolSplits, max_image_pixels: int = 64_000_000, min_region_pixels: int = 16
) -> list[dict[str, object]]:
    """The bulk records of one frame: a pure function of the frame's own files (the unit to distribute).

    ``frame`` comes from :func:`find_frames`, ``splits`` from ``read_splits(tools_root.parent, root).of(tool)``.
    ``convert_umd`` runs the same two steps in its workers (:func:`convert_frames`), a run of frames at a time.
    """
    return bulk_records(parse_frame(root, frame, max_image_pixels), splits, min_region_pixels)


@dataclass(frozen=True)
class FramesResult:
    """A run of consecutive frames: their bulk rows as one Arrow batch, and what the writer keeps per frame."""

    rows: pa.RecordBatch
    manifest: tuple[ManifestEntry, ...]
    candidates: tuple[Candidate, ...]


def convert_frames(
    root: Path, splits: Splits, max_image_pixels: int, frames: list[Frame], min_region_pixels: int = 16
) -> FramesResult:
    """:func:`convert_item` for consecutive frames, rows already in Arrow.

    Building the Arrow rows here, in the worker, keeps the one writing process from doing the
    per-row work for every core; the writer only re-cuts batches, embeds the JPEGs and writes.
    """
    records: list[dict[str, object]] = []
    manifest, candidates = [], []
    for frame in frames:
        parsed = parse_frame(root, frame, max_image_pixels)
        records += bulk_records(parsed, splits.of(frame.tool), min_region_pixels)
        if parsed.regions:
            manifest.append(manifest_entry(parsed))
        candidates.append(Candidate(frame, parsed.hand_labelled, parsed.area_of("grasp")))
    # The JPEG bytes stay behind: the writer embeds them from the file (groundbench.core.embed).
    rows = records_to_batch(
        [without_image_bytes(r) for r in records], arrow_schema(), relative_to(root, frames[0].label.parent)
    )
    return FramesResult(rows, tuple(manifest), tuple(candidates))


def choose_frame(tool: str, candidates: list[Candidate], audit: Audit, override: int | None, audit_path: Path) -> Frame:
    """Default rule: the hand-labelled frame with the largest grasp region (ties: earliest frame)."""
    if override is not None:
        match = [c for c in candidates if c.frame.index == override]
        if not match or match[0].grasp_area == 0:
            raise GroundBenchError(audit_path, f"tool {tool}", f"frame {override} missing or without a grasp region")
        return match[0].frame
    pool = [c for c in candidates if c.grasp_area > 0 and (c.hand_labelled or audit.frame_rule == "any")]
    if not pool:
        kind = "hand-labelled frame" if audit.frame_rule == "hand_labelled" else "frame"
        raise GroundBenchError(audit_path, f"tool {tool}", f"no {kind} has a grasp region; cannot curate this tool")
    best = max(pool, key=lambda c: (c.grasp_area, -c.frame.index))
    return best.frame


def convert_umd(root: Path, out: Path, params: UmdParams, progress: bool = True) -> dict[str, int]:
    """Convert the tree under ``root``; returns rows per config."""
    clutter: list[str] = []
    tools_root, frames = find_frames(root, clutter)
    splits = read_splits(tools_root.parent, root)
    audit = read_audit(params.audit)
    present = {f.tool for f in frames}
    for entry in audit.entries:
        if entry.tool not in present:
            raise GroundBenchError(
                params.audit, f"tool {entry.tool}", "audited tool not found in the source tools/ tree"
            )
    workers = worker_count(params.workers)
    convert = functools.partial(
        convert_frames, root, splits, params.max_image_pixels, min_region_pixels=params.min_region_pixels
    )
    # Work travels in runs of frames (fewer, larger messages); add_rows re-cuts the batches, so the
    # shards are the same whatever the run length or the number of workers.
    runs = list(chunks(frames, params.frames_per_task))
    candidates: dict[str, list[Candidate]] = {}
    manifests: dict[str, dict[str, ManifestEntry]] = {c: {} for c in CONFIGS}
    counts = {}
    flags: dict[str, Counter[str]] = {c: Counter() for c in CONFIGS}
    with atomic_dir(out) as tmp:
        with (
            ShardWriter(
                tmp / "bulk_umd",
                params.max_shard_bytes,
                params.rows_per_batch,
                complete=then_bake(image_embedder(root)),
            ) as bulk,
            tqdm(total=len(frames), desc="umd frames", unit="frame", disable=not progress) as bar,
        ):
            for result in ordered_map(convert, runs, workers, max(1, params.window // params.frames_per_task)):
                bulk.add_rows(result.rows)
                flags["bulk_umd"].update(f for row in result.rows.column("flags").to_pylist() for f in row or [])
                for entry in result.manifest:
                    manifests["bulk_umd"][entry.sha256] = entry
                for candidate in result.candidates:
                    candidates.setdefault(candidate.frame.tool, []).append(candidate)
                bar.update(len(result.candidates))
        counts["bulk_umd"] = bulk.rows
        with ShardWriter(
            tmp / "curated_umd", params.max_shard_bytes, params.rows_per_batch, complete=bake_row_baselines
        ) as curated:
            for entry in audit.entries:
                frame = choose_frame(entry.tool, candidates[entry.tool], audit, entry.frame, params.audit)
                chosen: ParsedFrame = parse_frame(root, frame, params.max_image_pixels)
                record = curated_record(chosen, splits.of(entry.tool), params.min_region_pixels)
                flags["curated_umd"].update(record["flags"])  # type: ignore[arg-type]
                curated.add(record)
                manifests["curated_umd"][chosen.source_sha256[0]] = manifest_entry(chosen)
        counts["curated_umd"] = curated.rows
        for config in CONFIGS:
            write_manifest(tmp / config / "manifest.jsonl", manifests[config])
        summary = {
            "rows": counts,
            "flags": {c: dict(sorted(flags[c].items())) for c in CONFIGS},
            "min_region_pixels": params.min_region_pixels,
            "skipped_os_clutter": sorted(clutter),
        }
        (tmp / "summary.json").write_text(json.dumps(summary, indent=1, sort_keys=True) + "\n")
    if clutter or progress:
        sys.stderr.write(f"umd: skipped {len(clutter)} operating-system clutter file(s)\n")
    for config in CONFIGS:
        if progress:
            tally = ", ".join(f"{k} {v}" for k, v in sorted(flags[config].items())) or "(none)"
            sys.stderr.write(f"{config} flags: {tally}\n")
    return counts
