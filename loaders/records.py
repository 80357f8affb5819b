"""Scoring's view of a published GroundBench folder: record rows without image bytes.

A thin layer over :mod:`groundbench.loaders.published`, the one reader of the folder's Parquet data files;
scoring, requests and the sanity test read rows through it.
"""

from __future__ import annotations

from collections.abc import Iterator
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
# objects), provenance and the licence; of a part, the fields below; of ``extras``, all but the GUI suites'.
UNSCORED_COLUMNS = ("image", "prompts", "provenance", "license")
UNSCORED_PART_FIELDS = (
    "box_quality",
    "motion_axis_3d",
    "motion_axis_2d",
    "mask_area",
    "secondary_actions",
    "projected_bbox_xyxy",
    "mask_pieces",
)
SCORED_EXTRAS = ("gui",)
MASK_FIELD = "mask_rle"


def read_scored(folder: Path, config: str) -> list[dict[str, Any]]:
    """The rows ``score`` reads, in stored order: :func:`read_config`'s without what no scoring path reads
    (:data:`UNSCORED_COLUMNS`, :data:`UNSCORED_PART_FIELDS`, ``extras`` but :data:`SCORED_EXTRAS`), each part's
    ``mask_rle`` a read-only numpy int64 array over the data file's decoded buffer (8 bytes a run; as Python
    ints in lists the runs were about half of a row's memory). Converted one row group at a time."""
    path = published.record_config_dir(folder, config)
    columns = [name for name in published.row_columns(folder, config) if name not in UNSCORED_COLUMNS]
    rows: list[dict[str, Any]] = []
    for batch in published.iter_batches(path, columns):
        rows.extend(_scored_rows(batch))
    return rows


def _scored_rows(batch: pa.RecordBatch) -> list[dict[str, Any]]:
    names = batch.schema.names
    columns = [_scored_column(name, batch.column(i)) for i, name in enumerate(names)]
    if "parts" not in names:
        return pa.RecordBatch.from_arrays(columns, names=names).to_pylist()
    index = names.index("parts")
    parts = batch.column(index)
    fields = [f.name for f in parts.type.value_type if f.name not in UNSCORED_PART_FIELDS]
    masks = _masks(parts) if MASK_FIELD in fields else None
    if masks is None:  # no masks, or runs with a null (not a valid mask: kept as read, for scoring to name)
        return pa.RecordBatch.from_arrays(columns, names=names).to_pylist()
    columns[index] = _without(parts, (MASK_FIELD, *UNSCORED_PART_FIELDS))
    rows = pa.RecordBatch.from_arrays(columns, names=names).to_pylist()
    last = fields[-1] == MASK_FIELD
    for row in rows:
        found = row["parts"] or []
        for number, part in enumerate(found):
            mask = next(masks)
            if part is not None and last:
                part[MASK_FIELD] = mask
            elif part is not None:  # the stored field order, as to_pylist gives it
                found[number] = {f: mask if f == MASK_FIELD else part[f] for f in fields}
    return rows


def _scored_column(name: str, column: pa.Array) -> pa.Array:
    if name == "parts" and pa.types.is_list(column.type) and pa.types.is_struct(column.type.value_type):
        return _without(column, UNSCORED_PART_FIELDS)
    if name == "extras" and pa.types.is_struct(column.type):
        kept = [f for f in column.type if f.name in SCORED_EXTRAS]
        return column.cast(pa.struct(kept))
    return column


def _without(parts: pa.Array, dropped: tuple[str, ...]) -> pa.Array:
    """A list of structs cast to the struct without the ``dropped`` fields (no copy of the fields kept)."""
    return parts.cast(pa.list_(pa.struct([f for f in parts.type.value_type if f.name not in dropped])))


def _masks(parts: pa.Array) -> Iterator[np.ndarray | None] | None:
    """Each part's mask runs in order (every row's parts; a null list has none), None for a null mask; None
    when a run is null."""
    every = parts.flatten()
    runs = every.flatten()[every.type.get_field_index(MASK_FIELD)]  # a null part's mask is null too
    values = runs.flatten()
    if values.null_count:
        return None
    flat = _int_view(values)
    null = _null_flags(runs)
    lengths = np.where(null, 0, _int_view(runs.value_lengths()))  # a null list's slot: no runs
    ends = np.cumsum(lengths)
    bounds = zip((ends - lengths).tolist(), ends.tolist(), null.tolist(), strict=True)
    return iter([None if n else flat[a:b] for a, b, n in bounds])


def _int_view(array: pa.Array) -> np.ndarray:
    """A read-only numpy view of an integer array's values (a null's value is whatever its slot holds), read off
    its data buffer: ``to_numpy`` and ``fill_null`` would import pandas (about 0.3 CPU s of a ``score``
    command) to ask whether a value is a pandas one."""
    if not pa.types.is_integer(array.type):
        return array.to_numpy(zero_copy_only=False)
    dtype = np.dtype(("u" if pa.types.is_unsigned_integer(array.type) else "i") + str(array.type.bit_width // 8))
    if not len(array):
        return np.zeros(0, dtype=dtype)
    view = np.frombuffer(array.buffers()[1], dtype=dtype, count=len(array), offset=array.offset * dtype.itemsize)
    view.setflags(write=False)  # the Arrow buffer is shared: never written through
    return view


def _null_flags(array: pa.Array) -> np.ndarray:
    """Whether each item of the array is null, from its validity bitmap (no bitmap: none is)."""
    if not array.null_count:
        return np.zeros(len(array), dtype=bool)
    bits = np.unpackbits(np.frombuffer(array.buffers()[0], dtype=np.uint8), bitorder="little")
    return bits[array.offset : array.offset + len(array)] == 0
