"""What the UMD folder adds to its configs' card facts (its spec's ``facts``): the operating-system clutter
files skipped in the tool folders of the config's rows (``extras.umd.skipped_files``)."""

from __future__ import annotations

from typing import Any

import pyarrow as pa


class UmdFacts:
    """``skipped_files``: distinct (tool, file) clutter entries over the config's rows
    (``groundbench.core.spec.CardFacts``)."""

    columns = ("object_id", "extras")

    def __init__(self) -> None:
        self.clutter: set[tuple[str, str]] = set()

    def add(self, batch: pa.RecordBatch) -> None:
        skipped = batch.column("extras").field("umd").field("skipped_files").to_pylist()
        for object_id, names in zip(batch.column("object_id").to_pylist(), skipped, strict=True):
            self.clutter.update((str(object_id), name) for name in names or [])

    def facts(self) -> dict[str, Any]:
        return {"skipped_files": len(self.clutter)}
