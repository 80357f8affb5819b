"""The one reader of a published GroundBench folder's data files (scoring, requests and the sanity test use it).

Today the folder keeps each config's rows as Arrow shards under ``data/<config>/``; when the
publication format changes, this is the one place to follow it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from groundbench.errors import GroundBenchError
from groundbench.schemas.baselines_features import BASELINES_CONFIG
from groundbench.shards import read_table


def config_names(folder: Path) -> list[str]:
    """The record configs of a published folder (the ``baselines`` config holds aggregates, not records)."""
    data = folder / "data"
    if not data.is_dir():
        raise GroundBenchError(folder, "data", "expected a built GroundBench folder with data/<config>/")
    return sorted(p.name for p in data.iterdir() if p.is_dir() and p.name != BASELINES_CONFIG)


def read_config(folder: Path, config: str, *, required: bool = True) -> list[dict[str, Any]]:
    """Every row of one config of the published folder, without image bytes, in stored order."""
    path = folder / "data" / config
    if not path.is_dir():
        if not required:
            return []
        raise GroundBenchError(folder / "data", config, f"config {config!r} is not in this GroundBench folder")
    table = read_table(path)
    if "image" in table.column_names:
        table = table.drop_columns(["image"])
    return table.to_pylist()
