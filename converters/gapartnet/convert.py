"""GAPartNet source, top-down: find objects and views -> convert each object (in parallel) -> bulk rows;
the curated rows, gathered from every object, are written at the end.

The source side of the converter contract (:mod:`groundbench.core.runner`): objects are processed in
id order and each object's rows are sorted, so rows reach the runner sorted by ``example_id``. The
runner writes ``<out>/bulk_gapartnet/`` and ``<out>/curated_gapartnet/`` (shards plus
``manifest.jsonl``) and ``<out>/summary.json`` (per-stratum counts).
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from groundbench.converters.gapartnet.audit import read_audit
from groundbench.converters.gapartnet.layout import find_objects, find_views
from groundbench.converters.gapartnet.params import GapartnetParams
from groundbench.converters.gapartnet.records import ObjectResult, Task, convert_object
from groundbench.converters.gapartnet.summary import (
    format_left_out,
    format_summary,
    left_out_summary,
    object_left_out,
    summarize,
)
from groundbench.core.parallel import worker_count
from groundbench.core.params import ShardParams, source_root
from groundbench.core.runner import Context, Emit, MapOptions, Output, Source, run
from groundbench.errors import GroundBenchError

CONFIGS = ("bulk_gapartnet", "curated_gapartnet")


def _light(record: dict[str, Any]) -> dict[str, Any]:
    """What the summary needs, kept for every row until the end: no image bytes, and of the parts only the
    target's category and box quality. Every part of a bulk row carries its mask's run lengths as Python
    ints: whole part lists cost ~0.3 GB of the writing process at full scale (1,046 objects)."""
    target = next(p for p in record["parts"] if p["part_id"] == record["target_part_id"])
    light = {
        k: record[k]
        for k in (
            "target_part_id",
            "target_action",
            "object_category",
            "excluded",
            "exclusion_tags",
            "flags",
            "object_id",
        )
    }
    light["parts"] = [{k: target[k] for k in ("part_id", "category", "box_quality")}]
    return light


def list_items(assets: Path, renders: Path, audit_path: Path, knobs: GapartnetParams) -> tuple[int, list[Task]]:
    """(objects found, one task per object with rendered views): the units :func:`convert_item` converts."""
    objects = find_objects(assets)
    views = find_views(renders)
    known = {o.object_id for o in objects}
    stray = sorted(set(views) - known)
    if stray:
        raise GroundBenchError(
            views[stray[0]][0].files["rgb"], "object id", f"render of object {stray[0]} not in the assets"
        )
    audit = {e.object_id: e for e in read_audit(audit_path)}
    for object_id in audit:
        if object_id not in known:
            raise GroundBenchError(audit_path, f"objects[{object_id}]", "audited object not found in the assets")
    tasks = [
        Task(assets, renders, o, tuple(views[o.object_id]), audit.get(o.object_id), str(audit_path), knobs)
        for o in objects
        if o.object_id in views
    ]
    for object_id in audit:
        if object_id not in views:
            raise GroundBenchError(audit_path, f"objects[{object_id}]", "audited object has no rendered view")
    return len(objects), tasks


def convert_item(task: Task) -> ObjectResult:
    """One object's bulk and curated records and manifest entries: a pure function of the object's own files."""
    return convert_object(task)


class GapartnetSource(Source[Task, ObjectResult]):
    """GAPartNet assets + renders -> ``bulk_gapartnet`` and ``curated_gapartnet``."""

    label, unit, configs = "gapartnet objects", "object", CONFIGS

    def __init__(self, assets: Path, renders: Path, audit: Path, knobs: GapartnetParams) -> None:
        self.knobs = knobs
        self.convert = convert_object
        self.object_count, self.tasks = list_items(assets, renders, audit, knobs)
        self.light: dict[str, list[dict[str, Any]]] = {c: [] for c in CONFIGS}
        self.curated_rows: list[dict[str, Any]] = []
        self.curated_manifest: dict[str, Any] = {}
        self.left_out: dict[str, dict[str, Any]] = {}  # object id -> what it left out of bulk, and why
        self.summary: dict[str, Any] = {}

    def items(self) -> Sequence[Task]:
        return self.tasks

    def map_options(self, items: Sequence[Task]) -> MapOptions:
        return MapOptions(worker_count(self.knobs.workers), self.knobs.window)

    def accept(self, result: ObjectResult) -> Iterable[Emit]:
        bulk = sorted(result.bulk, key=lambda r: str(r["example_id"]))
        self.light["bulk_gapartnet"] += [_light(record) for record in bulk]
        self.curated_rows.extend(result.curated)
        self.curated_manifest.update(result.manifest_curated)
        if result.left_out or result.unassigned:
            self.left_out[result.object_id] = object_left_out(result)
        return [Emit("bulk_gapartnet", bulk, result.manifest_bulk.values())]

    def finalize(self, output: Output) -> None:
        curated = sorted(self.curated_rows, key=lambda r: str(r["example_id"]))
        self.light["curated_gapartnet"] = [_light(record) for record in curated]
        output.write(Emit("curated_gapartnet", curated, self.curated_manifest.values()))
        strata = [summarize(self.light[c], c.split("_")[0]) for c in ("curated_gapartnet", "bulk_gapartnet")]
        self.summary = {
            "objects": self.object_count,
            "objects_without_render": self.object_count - len(self.tasks),
            "views": sum(len(t.views) for t in self.tasks),
            "strata": strata,
            "left_out": left_out_summary(self.left_out),
        }
        output.write_summary(self.summary)

    def report(self, progress: bool) -> None:
        for stratum in self.summary["strata"]:  # printed always: the per-action counts are part of the audit trail
            sys.stderr.write(format_summary(stratum) + "\n")
        sys.stderr.write(format_left_out(self.summary["left_out"]) + "\n")


def convert_gapartnet(
    assets: Path,
    renders: Path,
    out: Path,
    audit: Path,
    knobs: GapartnetParams,
    shards: ShardParams,
    progress: bool = True,
) -> dict[str, int]:
    """Convert a GAPartNet tree into ``out`` through the runner; returns rows per config."""
    return run(GapartnetSource(assets, renders, audit, knobs), out, shards, progress)


def source(ctx: Context) -> GapartnetSource:
    """The registry's factory: GAPartNet as ``params.yaml`` configures it."""
    assets = source_root(ctx.root, ctx.params, "gapartnet.assets")
    renders = source_root(ctx.root, ctx.params, "gapartnet.renders")
    assert assets is not None and renders is not None  # the pipeline marks a null source absent
    return GapartnetSource(assets, renders, ctx.root / ctx.params.gapartnet.audit, ctx.params.gapartnet)
