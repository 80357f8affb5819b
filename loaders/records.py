"""Scoring's view of a published GroundBench folder: record rows without image bytes.

A thin layer over :mod:`groundbench.loaders.published`, the one reader of the folder's Parquet data files;
scoring, requests and the sanity test read rows through it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

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


# What no scoring path reads: the image bytes, every condition's prompt text (about 40 % of a row as Python
# objects), provenance and the licence.
UNSCORED_COLUMNS = ("image", "prompts", "provenance", "license")
MASK_FIELD = "mask_rle"


def read_scored(folder: Path, config: str) -> list[dict[str, Any]]:
    """The rows ``score`` reads, in stored order: :func:`read_config`'s without :data:`UNSCORED_COLUMNS`, each
    part's ``mask_rle`` a read-only numpy int64 array over the data file's decoded buffer (8 bytes a run; as
    Python ints in lists the runs were about half of a row's memory). Converted one row group at a time."""
    path = published.record_config_dir(folder, config)
    columns = [name for name in published.row_columns(folder, config) if name not in UNSCORED_COLUMNS]
    rows: list[dict[str, Any]] = []
    for batch in published.iter_batches(path, columns):
        rows.extend(_compact_rows(batch))
    return rows


def _compact_rows(batch: pa.RecordBatch) -> list[dict[str, Any]]:
    if "parts" not in batch.schema.names:
        return batch.to_pylist()
    index = batch.schema.get_field_index("parts")
    parts = batch.column(index)
    fields = list(parts.type.value_type)
    names = [f.name for f in fields]
    if MASK_FIELD not in names:
        return batch.to_pylist()
    every = parts.flatten()  # the parts of all rows in order (a null list has none)
    runs = every.flatten()[names.index(MASK_FIELD)]  # a null part's mask is null too
    values = runs.flatten()
    if values.null_count:  # not a valid mask: kept as read, for scoring to name
        return batch.to_pylist()
    flat = values.to_numpy(zero_copy_only=True)
    lengths = runs.value_lengths().fill_null(0).to_numpy(zero_copy_only=False)
    ends, null = np.cumsum(lengths).tolist(), runs.is_null().to_numpy(zero_copy_only=False).tolist()
    starts = (np.cumsum(lengths) - lengths).tolist()
    masks = iter([None if n else flat[a:b] for a, b, n in zip(starts, ends, null, strict=True)])
    kept = pa.list_(pa.struct([f for f in fields if f.name != MASK_FIELD]))
    columns = [parts.cast(kept) if i == index else batch.column(i) for i in range(batch.num_columns)]
    rows = pa.RecordBatch.from_arrays(columns, names=batch.schema.names).to_pylist()
    last = names.index(MASK_FIELD) == len(names) - 1
    for row in rows:
        found = row["parts"] or []
        for number, part in enumerate(found):
            mask = next(masks)
            if part is not None and last:
                part[MASK_FIELD] = mask
            elif part is not None:  # the stored field order, as to_pylist gives it
                found[number] = {f: mask if f == MASK_FIELD else part[f] for f in names}
    return rows
