"""The ``baselines`` config's rows, computed from every built config's shards; ``groundbench assemble``
publishes them beside the record configs.

Computed where they are published, not in a stage of their own: they are a few aggregate rows per config,
and a stage's process, DVC's hashing and its dvc.lock update cost far more than the numbers (GUI at full
scale: 0.01 s of work in 0.7 s).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from groundbench.core.shards import read_table
from groundbench.stages.built import built_configs
from groundbench.stages.paths import SHARDS


def baselines_table(root: Path, version: str) -> pa.Table:
    """One row per (config, stratum, condition, baseline) of every built config, by ``baseline_id``."""
    from groundbench.schemas.baselines_features import baselines_arrow_schema, validate_baselines_table
    from groundbench.scoring.baselines import config_baselines

    entries = [
        entry
        for name in sorted(built_configs(root))
        for entry in config_baselines(name, baseline_rows(root / SHARDS / name))
    ]
    table = pa.Table.from_pylist(entries, schema=baselines_arrow_schema(version))
    validate_baselines_table(table, "baselines")  # unique ids in ascending order, each naming its row
    return table


def baseline_rows(shards: Path) -> list[dict[str, Any]]:
    """A config's rows as the baselines read them: no image bytes or provenance, and only the target part
    keeps its mask (no baseline reads another part's). Masks are most of a row as Python objects, so the parts
    are converted without them and the target's mask put back (UMD at full scale: seconds of ``assemble``)."""
    rows: list[dict[str, Any]] = []
    for batch in read_table(shards).drop_columns(["image", "provenance"]).to_batches():
        parts = batch.column("parts")
        flat = parts.flatten()  # every part of the batch, row by row, in the order the rows list them
        targets = pc.take(batch.column("target_part_id"), pc.list_parent_indices(parts))
        is_target = pc.fill_null(pc.equal(flat.field("part_id"), targets), False)
        masks = flat.field("mask_rle")
        kept = iter(pc.if_else(is_target, masks, pa.nulls(len(masks), masks.type)).to_pylist())
        light = parts.cast(_without_masks(parts.type))
        for row in batch.set_column(batch.schema.get_field_index("parts"), "parts", light).to_pylist():
            for part in row["parts"] or []:
                part["mask_rle"] = next(kept)  # the struct's last field, so the keys keep their order
            rows.append(row)
    return rows


def _without_masks(parts: pa.DataType) -> pa.DataType:
    """``list<struct<...>>`` of the parts without ``mask_rle``."""
    fields = [field for field in parts.value_type if field.name != "mask_rle"]
    return pa.list_(pa.struct(fields))
