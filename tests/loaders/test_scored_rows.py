"""``read_scored``: the rows ``score`` keeps are the published rows less the columns no scoring path reads, each
part's mask runs a read-only int64 array holding the same numbers (issue 43: the rows' memory)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from groundbench.loaders.records import UNSCORED_COLUMNS, config_names, read_records, read_scored
from tests.scoring.test_scoring_hand import _write_folder

RUNS = pa.list_(pa.int64())
PART = pa.struct([("part_id", pa.string()), ("mask_rle", RUNS), ("category", pa.string())])  # the mask not last
SCHEMA = pa.schema([("example_id", pa.string()), ("parts", pa.list_(PART)), ("prompts", pa.string())])
ROWS: list[dict[str, Any]] = [
    {"example_id": "a", "parts": None, "prompts": "p"},
    {"example_id": "b", "parts": [], "prompts": "p"},
    {"example_id": "c", "parts": [{"part_id": "x", "mask_rle": None, "category": "lid"}], "prompts": "p"},
    {"example_id": "d", "parts": [{"part_id": "y", "mask_rle": [0, 3, 2], "category": None}, None], "prompts": None},
    {"example_id": "e", "parts": [{"part_id": "z", "mask_rle": [], "category": "k"}], "prompts": "p"},
    {"example_id": "f", "parts": [{"part_id": "u", "mask_rle": [5, 1], "category": "h"}] * 2, "prompts": "p"},
]


def _as_read(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows with each mask array back as a list of ints (what ``to_pylist`` gives)."""
    out = []
    for row in rows:
        parts = row.get("parts")
        if parts is not None:
            parts = [None if p is None else {k: _plain(v) for k, v in p.items()} for p in parts]
        out.append({**row, "parts": parts} if "parts" in row else dict(row))
    return out


def _plain(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        assert value.dtype == np.int64 and not value.flags.writeable
        return [int(v) for v in value]
    return value


def test_scored_rows_keep_every_mask_in_order(tmp_path: Path) -> None:
    config = tmp_path / "data" / "made"
    config.mkdir(parents=True)
    pq.write_table(pa.Table.from_pylist(ROWS, schema=SCHEMA), config / "test-00000-of-00001.parquet", row_group_size=4)
    rows = read_scored(tmp_path, "made")
    assert [list(p) for r in rows for p in r["parts"] or [] if p] == [["part_id", "mask_rle", "category"]] * 5
    assert isinstance(rows[3]["parts"][0]["mask_rle"], np.ndarray)
    assert _as_read(rows) == [{k: v for k, v in r.items() if k != "prompts"} for r in ROWS]


def test_scored_rows_are_the_records_less_unread_columns(tmp_path: Path) -> None:
    folder = _write_folder(tmp_path)
    for config in config_names(folder):
        expected = [{k: v for k, v in r.items() if k not in UNSCORED_COLUMNS} for r in read_records(folder, config)]
        assert _as_read(read_scored(folder, config)) == expected
