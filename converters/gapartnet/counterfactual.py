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

Reads the converted curated rows (``data/interim/gapartnet/curated_gapartnet/``) and writes
``<out>/counterfactual_gapartnet/`` (shards + manifest) and ``<out>/summary.json``.
"""

from __future__ import annotations

import json
import sys
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
from groundbench.core.atomic import atomic_dir
from groundbench.core.errors import GroundBenchError
from groundbench.core.manifests import ManifestEntry, read_manifest, write_manifest
from groundbench.core.shards import ShardWriter, iter_batches
from groundbench.schemas.conditions import valid_conditions
from groundbench.scoring.baselines import bake_row_baselines

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


def reasks_of(row: dict[str, Any], min_mask_pixels: int = 16) -> list[dict[str, Any]]:
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


def derive_counterfactual(
    curated: Path, out: Path, max_shard_bytes: int, rows_per_batch: int, min_mask_pixels: int = 16
) -> dict[str, Any]:
    """Write the config from the curated rows; returns the summary (also written to summary.json)."""
    manifest_path = curated / "manifest.jsonl"
    if not manifest_path.is_file():
        raise GroundBenchError(curated, "manifest.jsonl", "missing; run `groundbench convert gapartnet` first")
    source_manifest = read_manifest(manifest_path)
    manifest: dict[str, ManifestEntry] = {}
    rows: list[dict[str, Any]] = []
    single: list[str] = []
    sources = 0
    with atomic_dir(out) as tmp:
        with ShardWriter(tmp / CONFIG, max_shard_bytes, rows_per_batch, complete=bake_row_baselines) as writer:
            for batch in iter_batches(curated):  # curated rows arrive sorted by example id
                for row in batch.to_pylist():
                    sources += 1
                    derived = reasks_of(row, min_mask_pixels)
                    if not derived:
                        single.append(row["object_id"])
                    for record in derived:
                        writer.add(record)
                        rows.append(light(record))
                        manifest[record["image_sha256"]] = source_manifest[record["image_sha256"]]
        write_manifest(tmp / CONFIG / "manifest.jsonl", manifest)
        summary = summarize_reask(rows, CONSTRUCTION)
        summary["source_rows"] = sources
        summary["objects_without_reask"] = {o: "a single candidate part" for o in sorted(single)}
        (tmp / "summary.json").write_text(json.dumps(summary, indent=1, sort_keys=True, ensure_ascii=False) + "\n")
    sys.stderr.write(format_reask(summary) + "\n")
    sys.stderr.write(
        "  objects without a re-ask (a single candidate part): " + (", ".join(sorted(single)) or "(none)") + "\n"
    )
    return summary
