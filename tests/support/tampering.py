"""Changing built rows the way a bad disk, a hand edit or another build would (for the integrity tests)."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from groundbench.core.shards import open_shard, shard_files
from groundbench.loaders.published import data_files, rows_per_group, write_config


def rewrite_parquet(path: Path, change: Callable[[list[dict[str, Any]]], None]) -> None:
    """Rewrite one published Parquet file the way assemble writes it, its rows changed by ``change(rows)``."""
    table = pq.read_table(path)
    rows = table.to_pylist()
    change(rows)
    new = pa.Table.from_pylist(rows, schema=table.schema)
    scratch = path.parent.parent / ".scratch"
    write_config(scratch, new.to_batches(), table.schema, rows_per_group(new.num_rows, new.nbytes))
    shutil.copyfile(data_files(scratch)[0], path)
    shutil.rmtree(scratch)


def move_interim_box(root: Path, config: str = "curated_umd") -> str:
    """Widen the first row's target box by a pixel in its interim shard (the converter's output); returns its id."""
    shard = shard_files(root / "data/interim/umd" / config)[0]
    table = open_shard(shard).read_all()
    rows = table.to_pylist()
    target = next(p for p in rows[0]["parts"] if p["part_id"] == rows[0]["target_part_id"])
    target["bbox_xyxy"][0] -= 1.0  # a bigger box: the grasp point stays inside it
    shard.unlink()
    with pa.ipc.new_file(str(shard), table.schema) as writer:
        writer.write_table(pa.Table.from_pylist(rows, schema=table.schema))
    return str(rows[0]["example_id"])
