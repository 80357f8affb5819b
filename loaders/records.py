"""Scoring's view of a published GroundBench folder: record rows without image bytes.

A thin layer over :mod:`groundbench.loaders.published`, the one reader of the folder's Parquet data files;
scoring, requests and the sanity test read rows through it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from groundbench.errors import GroundBenchError
from groundbench.loaders import published


def config_names(folder: Path) -> list[str]:
    """The record configs of a published folder (the ``baselines`` config holds aggregates, not records)."""
    if not (folder / "data").is_dir():
        raise GroundBenchError(folder, "data", "expected a published GroundBench folder with data/<config>/ files")
    return published.record_configs(folder)


def read_config(folder: Path, config: str, *, required: bool = True) -> list[dict[str, Any]]:
    """Every row of one config of the published folder, without image bytes, in stored order."""
    if not required and not published.data_files(folder / "data" / config):
        return []
    return published.read_config(folder, config, published.row_columns(folder, config)).to_pylist()


def read_records(folder: Path, config: str) -> list[dict[str, Any]]:
    """:func:`read_config` of a config of records (``baselines`` is refused as a misspelt config is)."""
    published.record_config_dir(folder, config)
    return read_config(folder, config)
