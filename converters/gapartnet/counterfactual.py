"""``counterfactual_gapartnet``: every curated row re-asked about each of its non-target parts (paper 3.3).

For every curated row with two or more candidate parts, one row per non-target part: the same image
(the same bytes, so no new store bytes) and the same candidate parts, that part declared the
requested target, the original target and its action kept. A row is ``informative`` when the
requested action differs from the original one. The requested part's own box verification decides
``box_projection_mismatch`` (the planted wrong-frame object's re-asks stay, tagged and excluded; the
curated row itself keeps its target with the mask's box), its instance assignment
``instance_ambiguous``; its mask decides the informational flags (``region_split``,
``below_pixel_floor``).
Objects with a single candidate part yield nothing and are listed in the summary.

Reads the converted curated rows (``data/interim/gapartnet/curated_gapartnet/``), one Arrow batch per
item of the converter contract (:mod:`groundbench.core.runner`), which writes
``<out>/counterfactual_gapartnet/`` (shards + manifest) and ``<out>/summary.json``.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from groundbench.converters.gapartnet.reask import (
    BOX_PROJECTION_MISMATCH,
    INSTANCE_AMBIGUOUS,
    REASK_CONVERTER,
    REASK_VERSION,
    SOURCE_ROW,
    ReaskFacts,
    format_reask,
    light,
    retarget,
    summarize_reask,
)
from groundbench.core.manifests import read_manifest
from groundbench.core.runner import Context, Emit, MapOptions, Output, Source
from groundbench.core.shards import open_shard, shard_files
from groundbench.errors import GroundBenchError
from groundbench.schemas.conditions import valid_conditions

CONFIG = "counterfactual_gapartnet"
CONSTRUCTION = "counterfactual"


def requested_flags(part: dict[str, Any], min_mask_pixels: int) -> list[str]:
    """The informational flags of a requested part, from its own mask (records.target_flags' rule)."""
    flags = []
    if (part.get("mask_pieces") or 0) >= 2:
        flags.append("region_split")
    if part.get("mask_area") is not None and part["mask_area"] < min_mask_pixels:
        flags.append("below_pixel_floor")
    return flags


def reasks_of(row: dict[str, Any], min_mask_pixels: int) -> list[dict[str, Any]]:
    """The re-asks of one curated row, sorted by example id (none when it has a single part)."""
    parts = row["parts"]
    if len(parts) < 2:
        return []
    facts_by_part = {p["part_id"]: p for p in row["extras"]["gapartnet"]["parts"]}
    out = []
    for part in parts:
        if part["part_id"] == row["target_part_id"]:
            continue
        facts = ReaskFacts(
            construction=CONSTRUCTION,
            object_id=row["object_id"],
            original=row["target_part_id"],
            original_action=row["target_action"],
            requested=part["part_id"],
            requested_action=part["action"],
            source_example_id=row["example_id"],
            image_origin=SOURCE_ROW,
            requested_visible=True,
            requested_mask_area=part["mask_area"],
        )
        # The requested part's own projected box decides the tag (the original target's does not).
        own = facts_by_part[part["part_id"]]
        tags = [BOX_PROJECTION_MISMATCH] if own["projection_mismatch"] else []
        if own.get("instance_ambiguous"):
            tags.append(INSTANCE_AMBIGUOUS)
        record = retarget(row, facts, f"gapartnet/counterfactual/{row['object_id']}/{part['part_id']}", tags)
        record["flags"] = requested_flags(part, min_mask_pixels)
        record["conditions"] = list(valid_conditions(CONSTRUCTION, row["render"]["kind"]))
        gapartnet = dict(row["extras"]["gapartnet"])
        gapartnet["target_link"] = part["part_id"]
        gapartnet["action_overridden"] = False  # the audit overrides only the original target's action
        record["extras"] = {**record["extras"], "gapartnet": gapartnet}
        record["provenance"] = {**row["provenance"], "converter": REASK_CONVERTER, "converter_version": REASK_VERSION}
        out.append(record)
    return sorted(out, key=lambda r: str(r["example_id"]))


@dataclass(frozen=True)
class CuratedBatch:
    """One Arrow batch of the curated rows (the item: rows arrive sorted by example id, batch by batch)."""

    shard: Path
    index: int
    min_mask_pixels: int


@dataclass(frozen=True)
class BatchReasks:
    sources: int  # curated rows read
    reasks: list[dict[str, Any]]  # sorted by example id
    single: list[str]  # objects with a single candidate part


def reask_batch(item: CuratedBatch) -> BatchReasks:
    rows = open_shard(item.shard).get_batch(item.index).to_pylist()
    reasks, single = [], []
    for row in rows:
        derived = reasks_of(row, item.min_mask_pixels)
        if not derived:
            single.append(row["object_id"])
        reasks += derived
    return BatchReasks(len(rows), reasks, single)


class CounterfactualSource(Source[CuratedBatch, BatchReasks]):
    """The converted curated rows -> ``counterfactual_gapartnet``."""

    label, unit, configs = "counterfactual batches", "batch", (CONFIG,)

    def __init__(self, curated: Path, min_mask_pixels: int) -> None:
        manifest_path = curated / "manifest.jsonl"
        if not manifest_path.is_file():
            raise GroundBenchError(curated, "manifest.jsonl", "missing; run `groundbench convert gapartnet` first")
        self.curated = curated
        self.min_mask_pixels = min_mask_pixels
        self.source_manifest = read_manifest(manifest_path)
        self.convert = reask_batch
        self.light: list[dict[str, Any]] = []
        self.single: list[str] = []
        self.sources = 0
        self.summary: dict[str, Any] = {}

    def items(self) -> Sequence[CuratedBatch]:
        return [
            CuratedBatch(shard, index, self.min_mask_pixels)
            for shard in shard_files(self.curated)
            for index in range(open_shard(shard).num_record_batches)
        ]

    def map_options(self, items: Sequence[CuratedBatch]) -> MapOptions:
        return MapOptions(workers=1, window=1)  # a few dozen curated rows: a worker would cost more than it saves

    def accept(self, result: BatchReasks) -> Iterable[Emit]:
        self.sources += result.sources
        self.single += result.single
        self.light += [light(record) for record in result.reasks]
        entries = [self.source_manifest[record["image_sha256"]] for record in result.reasks]
        return [Emit(CONFIG, result.reasks, entries)]

    def finalize(self, output: Output) -> None:
        summary = summarize_reask(self.light, CONSTRUCTION)
        summary["source_rows"] = self.sources
        summary["objects_without_reask"] = {o: "a single candidate part" for o in sorted(self.single)}
        output.write_summary(summary)
        self.summary = summary

    def report(self, progress: bool) -> None:
        sys.stderr.write(format_reask(self.summary) + "\n")
        sys.stderr.write(
            "  objects without a re-ask (a single candidate part): "
            + (", ".join(sorted(self.single)) or "(none)")
            + "\n"
        )


def source(ctx: Context) -> CounterfactualSource:
    """The registry's factory: re-asks of the curated rows converted under ``data/interim/gapartnet/``."""
    return CounterfactualSource(ctx.interim / "gapartnet" / "curated_gapartnet", ctx.params.gapartnet.min_mask_pixels)
