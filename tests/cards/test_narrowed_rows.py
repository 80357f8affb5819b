"""Rows read narrowed, for speed, must equal the full rows: the card's facts read nested columns cast to the
fields they use (groundbench/stages/facts.py), nulls and empty lists kept as they are; the baselines read every
part without the masks of the parts that are not the target (groundbench/stages/baselines_config.py)."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pyarrow as pa

from groundbench.core.shards import ShardWriter
from groundbench.schemas.features import arrow_schema
from groundbench.stages.baselines_config import baseline_rows
from groundbench.stages.facts import FACT_COLUMNS, FACT_FIELDS, fact_rows
from tests.schemas.test_schema import _row


def _expected(row: dict[str, Any]) -> dict[str, Any]:
    def narrow(value: Any, keep: tuple[str, ...]) -> Any:
        if value is None:
            return None
        if isinstance(value, list):
            return [narrow(item, keep) for item in value]
        return {name: value[name] for name in keep}

    return {name: narrow(row[name], FACT_FIELDS[name]) if name in FACT_FIELDS else row[name] for name in FACT_COLUMNS}


def test_fact_rows_are_the_full_rows_narrowed() -> None:
    rows = [_row("t/1"), copy.deepcopy(_row("t/2")), copy.deepcopy(_row("t/3"))]
    rows[1]["render"] = None
    rows[1]["provenance"] = None
    rows[2]["parts"] = []
    batch = pa.RecordBatch.from_pylist(rows, schema=arrow_schema())
    full = batch.to_pylist()
    assert full[0]["parts"][0]["mask_rle"] == [0, 10, 90]  # the fields left out hold data
    assert fact_rows(batch) == [_expected(row) for row in full]
    assert fact_rows(batch.slice(1)) == [_expected(row) for row in full[1:]]  # a slice keeps its offset


def test_baseline_rows_keep_only_the_targets_mask(tmp_path: Path) -> None:
    rows = [copy.deepcopy(_row(f"t/{n}")) for n in range(1, 6)]
    rows[1]["parts"][1]["mask_rle"] = [0, 5, 95]  # another part's mask: dropped
    rows[2]["target_part_id"], rows[2]["target_action"] = "contain", "contain"  # the second part is the target
    rows[2]["parts"][1]["mask_rle"] = [3, 4, 93]
    rows[3]["parts"][0]["mask_rle"] = None  # the target without a mask
    with ShardWriter(tmp_path / "config", 1 << 30, 2) as writer:  # several batches
        for row in rows:
            writer.add(row)
    expected = []
    for row in pa.Table.from_pylist(rows, schema=arrow_schema()).drop_columns(["image", "provenance"]).to_pylist():
        for part in row["parts"]:
            if part["part_id"] != row["target_part_id"]:
                part["mask_rle"] = None
        expected.append(row)
    got = baseline_rows(tmp_path / "config")
    assert got == expected and [list(p) for r in got for p in r["parts"]] == [
        list(p) for r in expected for p in r["parts"]
    ]
    assert [[p["mask_rle"] for p in r["parts"]] for r in got[:4]] == [
        [[0, 10, 90], None],
        [[0, 10, 90], None],
        [None, [3, 4, 93]],
        [None, None],
    ]
