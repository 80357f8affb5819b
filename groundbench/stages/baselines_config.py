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
    keeps its mask (no baseline reads another part's; as Python lists they are most of a row)."""
    rows: list[dict[str, Any]] = []
    for batch in read_table(shards).drop_columns(["image", "provenance"]).to_batches():
        for row in batch.to_pylist():
            for part in row["parts"]:
                if part["part_id"] != row["target_part_id"]:
                    part["mask_rle"] = None
            rows.append(row)
    return rows
