"""The columns a published row gains at assembly: its prompts and its licence.

Prompts are added here, when the folder is assembled, and not when the shards are baked: the Arrow
shards are the schema-validated artifact that DVC tracks (byte-identical across builds and across
prompt edits), while the prompt text is a product of the package's templates
(``groundbench.loaders.prompts``, the one source of prompt text). Adding them at assembly keeps one
source for the wording, lets a template change reach the published copy without re-baking any
config, and makes the Hub copy alone enough to reproduce a run.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pyarrow as pa

from groundbench.loaders.prompts import TEMPLATE_VERSION, build_prompt, template_hash
from groundbench.schemas.features import PUBLISHED_COLUMNS, PUBLISHED_FEATURES
from groundbench.schemas.request_conditions import conditions_of


def prompts_of(row: dict[str, Any]) -> list[dict[str, str]]:
    """The prompt of every condition the row can be requested under (none for an excluded row)."""
    return [
        {
            "condition": condition,
            "text": build_prompt(row, condition),
            "template_version": TEMPLATE_VERSION,
            "template_sha256": template_hash(condition),
        }
        for condition in conditions_of(row)
    ]


def with_published_columns(
    batch: pa.RecordBatch, licence_of: Callable[[str], str], schema: pa.Schema
) -> pa.RecordBatch:
    """``batch`` (record schema) with ``prompts`` and ``license`` (``licence_of(row source)``) appended."""
    rows = batch.drop_columns(["image"]).to_pylist()
    arrow = PUBLISHED_FEATURES.arrow_schema
    prompts = pa.array([prompts_of(row) for row in rows], type=arrow.field("prompts").type)
    licences = pa.array([licence_of(row["source"]) for row in rows], type=arrow.field("license").type)
    columns = [*batch.columns, prompts, licences]
    assert list(PUBLISHED_COLUMNS) == ["prompts", "license"]  # the order of `columns` above
    return pa.RecordBatch.from_arrays(columns, schema=schema)
