"""Which rows of a config may be asked under a condition, decided column-wise.

:func:`groundbench.schemas.request_conditions.row_allows` reads five fields of a row; rows that agree on them
(their *kind*) are valid under the same conditions, and a config has a handful of kinds. So the fields are read
as Arrow columns, each row's kind found by dictionary-encoding a key made of them, and ``row_allows`` asked once
per kind: a config of 58,558 rows is sorted out without turning a row into a Python object (``groundbench
eval``'s row choice and ``groundbench requests``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from groundbench.schemas.request_conditions import conditions_of, row_allows

# The columns row_allows reads: selecting a row's validity never converts its parts (masks) or image.
VALIDITY_COLUMNS = ("example_id", "excluded", "stratum", "original_target_part_id", "conditions")
SEPARATOR = "\x1f"  # between a row's validity fields in its kind's key (no field holds it)


@dataclass(frozen=True)
class Validity:
    """The config's rows by kind: rows of one kind agree on every field :func:`row_allows` reads, so a
    condition is decided once per kind (a handful), never once per row as a Python object."""

    kinds: list[dict[str, Any]]  # one row of each kind (its validity columns)
    kind_of: np.ndarray  # each row's kind (an index into ``kinds``)
    example_ids: pa.ChunkedArray

    @classmethod
    def of(cls, table: pa.Table) -> Validity:
        """The kinds of a table's rows (its ``example_id`` and whichever :data:`VALIDITY_COLUMNS` it has)."""
        names = [c for c in VALIDITY_COLUMNS if c in table.column_names and c != "example_id"]
        fields = [_as_text(table.column(name), name) for name in names]
        key = pc.binary_join_element_wise(*fields, SEPARATOR).combine_chunks() if fields else None
        if key is None:  # no validity column: every row is of one kind
            kind_of = np.zeros(table.num_rows, dtype=np.int64)
        elif key.null_count:  # a list holding a null item: each such row decided on its own
            kind_of = np.arange(table.num_rows, dtype=np.int64)
        else:  # dictionary codes number the kinds 0, 1, ... in the order they first occur
            kind_of = pc.dictionary_encode(key).indices.to_numpy(zero_copy_only=False).astype(np.int64)
        _, first = np.unique(kind_of, return_index=True)
        kinds = table.select(names).take(pa.array(first, pa.int64())).to_pylist()
        return cls(kinds, kind_of, table.column("example_id"))

    def mask(self, condition: str) -> np.ndarray:
        """Whether each row (in table order) is valid under the condition."""
        allowed = [number for number, row in enumerate(self.kinds) if row_allows(row, condition)]
        return np.isin(self.kind_of, allowed)

    def allowed(self, condition: str) -> list[tuple[str, int]]:
        """(example id, index) of every row valid under the condition, by example id."""
        indices = np.flatnonzero(self.mask(condition))
        ids = self.example_ids.take(pa.array(indices, pa.int64())).to_pylist()
        return sorted(zip(ids, indices.tolist(), strict=True))

    def conditions(self) -> set[str]:
        """The base conditions some row is valid under."""
        return {c for row in self.kinds for c in conditions_of(row)}


def _as_text(column: pa.ChunkedArray, name: str) -> pa.ChunkedArray:
    """A validity column as text for its kind's key: what row_allows distinguishes of it, null said apart."""
    if name == "original_target_part_id":  # only whether the row has one
        return pc.cast(pc.is_valid(column), pa.string())
    if pa.types.is_list(column.type) or pa.types.is_large_list(column.type):
        joined = pc.binary_join(column, SEPARATOR)  # a list's items in order
        return pc.if_else(pc.is_valid(column), pc.binary_join_element_wise("[", joined, ""), "null")
    text = pc.cast(column, pa.string())
    return pc.if_else(pc.is_valid(column), pc.binary_join_element_wise("=", text, ""), "null")


# What no prompt reads of a row's parts (loaders/prompts, scoring/profiles, the resize's ``scaled_row``): the masks'
# runs, most of a row's bytes after its image.
UNPROMPTED_PART_FIELDS = ("mask_rle",)


def without_masks(rows: pa.Table | pa.RecordBatch) -> pa.Table:
    """The rows with their parts' masks left out: what a prompt reads, converted without the runs."""
    table = rows if isinstance(rows, pa.Table) else pa.Table.from_batches([rows])
    if "parts" not in table.column_names:
        return table
    part = table.schema.field("parts").type.value_type
    kept = [part.field(i) for i in range(part.num_fields) if part.field(i).name not in UNPROMPTED_PART_FIELDS]
    parts = table.column("parts").cast(pa.list_(pa.struct(kept)))
    return table.set_column(table.column_names.index("parts"), "parts", parts)


def take_rows(table: pa.Table, indices: list[int]) -> pa.Table:
    """The rows at ``indices`` of a table of many chunks (a memory-mapped config), in that order, copying only
    them: ``Table.take`` first concatenates every chunk of a nested column (all the parts' masks of a config)."""
    if not indices:
        return table.slice(0, 0)
    batches = table.to_batches()  # zero-copy slices, one set of row boundaries for every column
    starts = np.cumsum([0] + [batch.num_rows for batch in batches])
    found = np.searchsorted(starts, np.asarray(indices), side="right") - 1
    rows = [batches[b].slice(index - int(starts[b]), 1) for b, index in zip(found.tolist(), indices, strict=True)]
    return pa.Table.from_batches(rows, schema=table.schema).combine_chunks()
