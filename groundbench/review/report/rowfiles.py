"""One details file of a config's gallery, written by whichever process runs its job: the rows it covers
are read from the config's shards (memory-mapped), and what the parent needs back is small (the rows'
summaries for the plots and their index lines). Jobs are independent, so a large config's files are
written on every core (``build.py``) and give the same bytes as in one process."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa

from groundbench.core.shards import iter_batches
from groundbench.review.report.collect import RowSummary, summarize
from groundbench.review.report.rowdata import DetailFile, index_entry, records, script


@dataclass(frozen=True)
class FileJob:
    shards: str  # the config's shard folder
    start: int  # first row (in shard order) of the file
    stop: int  # one past its last row
    number: int  # the file is details/<number>.js
    path: str  # where to write it


def row_count(shards: Path) -> int:
    """Rows of a shard folder, from its batches' headers (no column is read)."""
    return sum(batch.num_rows for batch in iter_batches(shards))


def rows_between(shards: Path, start: int, stop: int) -> Iterator[pa.RecordBatch]:
    """Rows ``start`` to ``stop`` (exclusive) of a shard folder, as zero-copy slices of its batches."""
    offset = 0
    for batch in iter_batches(shards):
        end = offset + batch.num_rows
        if end > start and offset < stop:
            first = max(start, offset) - offset
            yield batch.slice(first, min(stop, end) - offset - first)
        if end >= stop:
            return
        offset = end


def write_file(job: FileJob) -> tuple[list[RowSummary], list[list[Any]]]:
    """Write ``job``'s details file; returns its rows' summaries and index lines, in row order."""
    details = DetailFile()
    summaries: list[RowSummary] = []
    entries: list[list[Any]] = []
    for record in records(rows_between(Path(job.shards), job.start, job.stop)):
        summary = summarize(record)
        summaries.append(summary)
        entries.append(index_entry(record, summary))
        details.add(record)
    path = Path(job.path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(script("details", job.number, details.payload()))
    return summaries, entries
