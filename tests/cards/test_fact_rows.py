"""The card's facts read nested columns narrowed to the fields they use (groundbench/stages/facts.py): the rows
they see must be the full rows with only those fields, nulls and empty lists kept as they are."""

from __future__ import annotations

import copy
from typing import Any

import pyarrow as pa

from groundbench.schemas.features import arrow_schema
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
