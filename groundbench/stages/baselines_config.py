"""``groundbench baselines``: the `baselines` config, computed from every built config's shards."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from groundbench.core.shards import ShardWriter, read_table
from groundbench.stages.built import built_configs
from groundbench.stages.options import console, params, root
from groundbench.stages.paths import BASELINES, SHARDS

if TYPE_CHECKING:
    from groundbench.core.params import Params

NAME = "baselines"
HELP = "Compute the `baselines` config (majority, text-only blind bound, tau, centre baselines) from the shards."


def run_baselines(root: Path, params: Params) -> int:
    """Compute the `baselines` config from every built config's shards; returns its row count."""
    from groundbench.schemas.baselines_features import BASELINES_KEY, baselines_arrow_schema
    from groundbench.scoring.baselines import config_baselines

    with ShardWriter(
        root / BASELINES, params.shards.max_bytes, params.shards.rows_per_batch, baselines_arrow_schema(), BASELINES_KEY
    ) as writer:
        for name in sorted(built_configs(root)):
            for entry in config_baselines(name, baseline_rows(root / SHARDS / name)):
                writer.add(entry)
    return writer.rows


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


def run(args: argparse.Namespace) -> int:
    rows = run_baselines(root(args), params(args))
    console.print(f"baselines: {rows} rows (one per config, stratum, condition and baseline)")
    return 0
