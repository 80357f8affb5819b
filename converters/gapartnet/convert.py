"""GAPartNet converter, top-down: find objects and views -> convert each object (in parallel) -> write.

Writes ``<out>/bulk_gapartnet/`` and ``<out>/curated_gapartnet/`` (shards plus ``manifest.jsonl``)
and ``<out>/summary.json`` (per-stratum counts). Objects are processed in id order and each
object's rows are sorted, so rows reach the shard writer sorted by ``example_id``.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tqdm import tqdm

from groundbench.converters.gapartnet.audit import read_audit
from groundbench.converters.gapartnet.layout import find_objects, find_views
from groundbench.converters.gapartnet.records import ObjectResult, Settings, Task, convert_object
from groundbench.converters.gapartnet.summary import (
    format_left_out,
    format_summary,
    left_out_summary,
    object_left_out,
    summarize,
)
from groundbench.core.atomic import atomic_dir
from groundbench.core.errors import GroundBenchError
from groundbench.core.manifests import ManifestEntry, write_manifest
from groundbench.core.parallel import ordered_map, worker_count
from groundbench.core.shards import ShardWriter
from groundbench.scoring.baselines import bake_row_baselines

CONFIGS = ("bulk_gapartnet", "curated_gapartnet")


@dataclass(frozen=True)
class GapartnetParams:
    audit: Path
    workers: int = 0
    window: int = 64
    iou_min: float = 0.5
    coverage_min: float = 0.9
    max_image_pixels: int = 64_000_000
    instance_coverage_min: float = 0.5
    instance_ambiguity_margin: float = 0.05
    min_mask_pixels: int = 16
    max_shard_bytes: int = 256 * 1024 * 1024
    rows_per_batch: int = 256


def _light(record: dict[str, Any]) -> dict[str, Any]:
    """What the summary needs, without the image bytes."""
    return {
        k: record[k]
        for k in (
            "parts",
            "target_part_id",
            "target_action",
            "object_category",
            "excluded",
            "exclusion_tags",
            "flags",
            "object_id",
        )
    }


def list_items(assets: Path, renders: Path, params: GapartnetParams) -> tuple[int, list[Task]]:
    """(objects found, one task per object with rendered views): the units :func:`convert_item` converts."""
    objects = find_objects(assets)
    views = find_views(renders)
    known = {o.object_id for o in objects}
    stray = sorted(set(views) - known)
    if stray:
        raise GroundBenchError(
            views[stray[0]][0].files["rgb"], "object id", f"render of object {stray[0]} not in the assets"
        )
    audit = {e.object_id: e for e in read_audit(params.audit)}
    for object_id in audit:
        if object_id not in known:
            raise GroundBenchError(params.audit, f"objects[{object_id}]", "audited object not found in the assets")
    settings = Settings(
        params.iou_min,
        params.coverage_min,
        params.max_image_pixels,
        params.instance_coverage_min,
        params.instance_ambiguity_margin,
        params.min_mask_pixels,
    )
    tasks = [
        Task(assets, renders, o, tuple(views[o.object_id]), audit.get(o.object_id), str(params.audit), settings)
        for o in objects
        if o.object_id in views
    ]
    for object_id in audit:
        if object_id not in views:
            raise GroundBenchError(params.audit, f"objects[{object_id}]", "audited object has no rendered view")
    return len(objects), tasks


def convert_item(task: Task) -> ObjectResult:
    """One object's bulk and curated records and manifest entries: a pure function of the object's own files."""
    return convert_object(task)


def convert_gapartnet(
    assets: Path, renders: Path, out: Path, params: GapartnetParams, progress: bool = True
) -> dict[str, int]:
    object_count, tasks = list_items(assets, renders, params)
    manifests: dict[str, dict[str, ManifestEntry]] = {c: {} for c in CONFIGS}
    light: dict[str, list[dict[str, Any]]] = {c: [] for c in CONFIGS}
    curated_rows: list[dict[str, Any]] = []
    left_out: dict[str, dict[str, Any]] = {}  # object id -> what it left out of bulk, and why
    counts: dict[str, int] = {}
    with atomic_dir(out) as tmp:
        with ShardWriter(
            tmp / "bulk_gapartnet", params.max_shard_bytes, params.rows_per_batch, complete=bake_row_baselines
        ) as bulk:
            results = ordered_map(convert_object, tasks, worker_count(params.workers), params.window)
            result: ObjectResult
            for result in tqdm(
                results, total=len(tasks), desc="gapartnet objects", unit="object", disable=not progress
            ):
                for record in sorted(result.bulk, key=lambda r: str(r["example_id"])):
                    bulk.add(record)
                    light["bulk_gapartnet"].append(_light(record))
                curated_rows.extend(result.curated)
                if result.left_out or result.unassigned:
                    left_out[result.object_id] = object_left_out(result)
                manifests["bulk_gapartnet"].update(result.manifest_bulk)
                manifests["curated_gapartnet"].update(result.manifest_curated)
        counts["bulk_gapartnet"] = bulk.rows
        with ShardWriter(
            tmp / "curated_gapartnet", params.max_shard_bytes, params.rows_per_batch, complete=bake_row_baselines
        ) as curated:
            for record in sorted(curated_rows, key=lambda r: str(r["example_id"])):
                curated.add(record)
                light["curated_gapartnet"].append(_light(record))
        counts["curated_gapartnet"] = curated.rows
        for config in CONFIGS:
            write_manifest(tmp / config / "manifest.jsonl", manifests[config])
        strata = [summarize(light[c], c.split("_")[0]) for c in ("curated_gapartnet", "bulk_gapartnet")]
        summary = {
            "objects": object_count,
            "objects_without_render": object_count - len(tasks),
            "views": sum(len(t.views) for t in tasks),
            "strata": strata,
            "left_out": left_out_summary(left_out),
        }
        (tmp / "summary.json").write_text(json.dumps(summary, indent=1, sort_keys=True) + "\n")
    for stratum in strata:  # printed always: the per-action counts are part of the audit trail
        sys.stderr.write(format_summary(stratum) + "\n")
    sys.stderr.write(format_left_out(summary["left_out"]) + "\n")
    return counts
