"""UMD source, top-down: find frames -> parse runs of frames (in parallel) -> bulk rows; curated chosen at the end.

The source side of the converter contract (:mod:`groundbench.core.runner`): the items are runs of
frames in (tool, frame) order, so rows reach the runner already sorted by ``example_id``; the runner
writes ``<out>/bulk_umd/`` and ``<out>/curated_umd/`` (shards plus ``manifest.jsonl``) and
``<out>/summary.json``.
"""

from __future__ import annotations

import functools
import sys
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa

from groundbench.converters.umd.audit import Audit, read_audit
from groundbench.converters.umd.layout import Frame, find_tools_root, list_frames, list_tools
from groundbench.converters.umd.params import UmdParams
from groundbench.converters.umd.records import ParsedFrame, bulk_records, curated_record, manifest_entry, parse_frame
from groundbench.converters.umd.splits import Splits, ToolSplits, read_splits
from groundbench.core.embed import image_embedder, without_image_bytes
from groundbench.core.manifests import ManifestEntry
from groundbench.core.parallel import chunks, worker_count
from groundbench.core.params import source_root
from groundbench.core.paths import relative_to
from groundbench.core.runner import Context, Emit, MapOptions, Output, Source, Step
from groundbench.core.shards import records_to_batch
from groundbench.errors import GroundBenchError
from groundbench.schemas.features import arrow_schema

CONFIGS = ("bulk_umd", "curated_umd")


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
    root: Path, frame: Frame, splits: ToolSplits, max_image_pixels: int, min_region_pixels: int
) -> list[dict[str, object]]:
    """The bulk records of one frame: a pure function of the frame's own files.

    ``frame`` comes from :func:`find_frames`, ``splits`` from ``read_splits(tools_root.parent, root).of(tool)``.
    The source runs the same two steps in its workers (:func:`convert_frames`), a run of frames at a time.
    """
    return bulk_records(parse_frame(root, frame, max_image_pixels), splits, min_region_pixels)


@dataclass(frozen=True)
class FramesResult:
    """A run of consecutive frames: their bulk rows as one Arrow batch, and what the writer keeps per frame."""

    rows: pa.RecordBatch
    manifest: tuple[ManifestEntry, ...]
    candidates: tuple[Candidate, ...]


def convert_frames(
    root: Path, splits: Splits, max_image_pixels: int, min_region_pixels: int, frames: list[Frame]
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


class UmdSource(Source[list[Frame], FramesResult]):
    """A UMD tree (``<root>/.../tools/``) -> ``bulk_umd`` and ``curated_umd``."""

    label, unit, configs = "umd frames", "frame", CONFIGS

    def __init__(self, root: Path, audit: Path, knobs: UmdParams) -> None:
        self.root, self.audit_path, self.knobs = root, audit, knobs
        self.clutter: list[str] = []
        tools_root, self.frames = find_frames(root, self.clutter)
        self.splits = read_splits(tools_root.parent, root)
        self.audit = read_audit(audit)
        present = {f.tool for f in self.frames}
        for entry in self.audit.entries:
            if entry.tool not in present:
                raise GroundBenchError(audit, f"tool {entry.tool}", "audited tool not found in the source tools/ tree")
        self.convert = functools.partial(
            convert_frames, root, self.splits, knobs.max_image_pixels, knobs.min_region_pixels
        )
        self.candidates: dict[str, list[Candidate]] = {}
        self.flags: dict[str, Counter[str]] = {c: Counter() for c in CONFIGS}

    def items(self) -> Sequence[list[Frame]]:
        # Work travels in runs of frames (fewer, larger messages); the shard writer re-cuts the batches,
        # so the shards are the same whatever the run length or the number of workers.
        return list(chunks(self.frames, self.knobs.frames_per_task))

    def map_options(self, items: Sequence[list[Frame]]) -> MapOptions:
        return MapOptions(worker_count(self.knobs.workers), max(1, self.knobs.window // self.knobs.frames_per_task))

    def batch_step(self, config: str) -> Step | None:
        return image_embedder(self.root) if config == "bulk_umd" else None

    def total(self, items: Sequence[list[Frame]]) -> int:
        return len(self.frames)

    def units(self, result: FramesResult) -> int:
        return len(result.candidates)

    def accept(self, result: FramesResult) -> Iterable[Emit]:
        self.flags["bulk_umd"].update(f for row in result.rows.column("flags").to_pylist() for f in row or [])
        for candidate in result.candidates:
            self.candidates.setdefault(candidate.frame.tool, []).append(candidate)
        return [Emit("bulk_umd", result.rows, result.manifest)]

    def finalize(self, output: Output) -> None:
        for entry in self.audit.entries:
            frame = choose_frame(entry.tool, self.candidates[entry.tool], self.audit, entry.frame, self.audit_path)
            chosen: ParsedFrame = parse_frame(self.root, frame, self.knobs.max_image_pixels)
            record = curated_record(chosen, self.splits.of(entry.tool), self.knobs.min_region_pixels)
            self.flags["curated_umd"].update(record["flags"])  # type: ignore[arg-type]
            output.write(Emit("curated_umd", [record], [manifest_entry(chosen)]))
        summary = {
            "rows": output.counts(),
            "flags": {c: dict(sorted(self.flags[c].items())) for c in CONFIGS},
            "min_region_pixels": self.knobs.min_region_pixels,
            "skipped_os_clutter": sorted(self.clutter),
        }
        output.write_summary(summary)

    def report(self, progress: bool) -> None:
        if self.clutter or progress:
            sys.stderr.write(f"umd: skipped {len(self.clutter)} operating-system clutter file(s)\n")
        for config in CONFIGS:
            if progress:
                tally = ", ".join(f"{k} {v}" for k, v in sorted(self.flags[config].items())) or "(none)"
                sys.stderr.write(f"{config} flags: {tally}\n")


def source(ctx: Context) -> UmdSource:
    """The registry's factory: the UMD source as ``params.yaml`` configures it."""
    folder = source_root(ctx.root, ctx.params, "umd")
    assert folder is not None  # the pipeline marks a null source absent without building it
    return UmdSource(folder, ctx.root / ctx.params.umd.audit, ctx.params.umd)
