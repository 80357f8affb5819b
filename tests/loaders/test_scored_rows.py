"""``read_scored``: the rows ``score`` keeps are the published rows less the columns and fields no scoring path
reads, each part's mask runs a read-only int64 array holding the same numbers (issue 43: the rows' memory)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from groundbench.loaders.records import (
    SCORED_EXTRAS,
    UNSCORED_COLUMNS,
    UNSCORED_PART_FIELDS,
    config_names,
    read_records,
    read_scored,
)
from tests.scoring.test_scoring_hand import _write_folder

RUNS = pa.list_(pa.int64())
PART = pa.struct(  # the mask not last, a field no scoring path reads
    [("part_id", pa.string()), ("mask_rle", RUNS), ("mask_area", pa.int64()), ("category", pa.string())]
)
EXTRAS = pa.struct([("umd", pa.struct([("tool_id", pa.string())])), ("gui", pa.struct([("eval_type", pa.string())]))])
SCHEMA = pa.schema(
    [("example_id", pa.string()), ("parts", pa.list_(PART)), ("prompts", pa.string()), ("extras", EXTRAS)]
)
GUI = {"umd": None, "gui": {"eval_type": "e"}}


def _part(name: str, runs: list[int] | None, category: str | None = "lid") -> dict[str, Any]:
    return {"part_id": name, "mask_rle": runs, "mask_area": 3, "category": category}


ROWS: list[dict[str, Any]] = [
    {"example_id": "a", "parts": None, "prompts": "p", "extras": None},
    {"example_id": "b", "parts": [], "prompts": "p", "extras": GUI},
    {"example_id": "c", "parts": [_part("x", None)], "prompts": "p", "extras": {"umd": {"tool_id": "t"}, "gui": None}},
    {"example_id": "d", "parts": [_part("y", [0, 3, 2], None), None], "prompts": None, "extras": None},
    {"example_id": "e", "parts": [_part("z", [])], "prompts": "p", "extras": None},
    {"example_id": "f", "parts": [_part("u", [5, 1])] * 2, "prompts": "p", "extras": None},
]


def _unread(row: dict[str, Any]) -> dict[str, Any]:
    """What ``read_scored`` should give for a row as ``to_pylist`` reads it."""
    out = {k: v for k, v in row.items() if k not in UNSCORED_COLUMNS}
    if out.get("parts") is not None:
        out["parts"] = [
            None if p is None else {k: v for k, v in p.items() if k not in UNSCORED_PART_FIELDS} for p in out["parts"]
        ]
    if out.get("extras") is not None:
        out["extras"] = {k: v for k, v in out["extras"].items() if k in SCORED_EXTRAS}
    return out


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
    assert _as_read(rows) == [_unread(r) for r in ROWS]
    assert rows[2]["extras"] == {"gui": None} and rows[1]["extras"] == {"gui": {"eval_type": "e"}}


def test_scored_rows_are_the_records_less_unread_columns(tmp_path: Path) -> None:
    folder = _write_folder(tmp_path)
    for config in config_names(folder):
        assert _as_read(read_scored(folder, config)) == [_unread(r) for r in read_records(folder, config)]
