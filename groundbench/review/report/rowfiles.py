"""One details file of a config's gallery, written by whichever process runs its job: the job names the
batches (and the rows in them) the file covers, read from the config's shards (memory-mapped), and what the
parent needs back is small (the rows' summaries for the plots and their index lines). Jobs are independent,
so a large config's files are written on every core (``build.py``) and give the same bytes as in one process."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa

from groundbench.core.shards import open_shard, shard_files
from groundbench.review.report.collect import RowSummary, summarize
from groundbench.review.report.rowdata import DetailFile, index_entry, records, script


@dataclass(frozen=True)
class Piece:
    """Rows ``first`` to ``first + rows`` of one batch of one shard."""

    shard: str
    batch: int
    first: int
    rows: int


@dataclass(frozen=True)
class FileJob:
    pieces: tuple[Piece, ...]  # the file's rows, in order
    number: int  # the file is details/<number>.js
    path: str  # where to write it


def file_jobs(shards: Path, rows_per_file: int, folder: Path) -> list[FileJob]:
    """The details files of a shard folder's rows, ``rows_per_file`` rows each (the last fewer), each job
    naming its batches: a job reads only its own (reading up to them would cost every job the whole
    folder's batch headers, quadratic in the rows)."""
    jobs: list[FileJob] = []
    pieces: list[Piece] = []
    room = rows_per_file

    def close() -> None:
        nonlocal pieces, room
        number = len(jobs)
        jobs.append(FileJob(tuple(pieces), number, str(folder / f"{number}.js")))
        pieces, room = [], rows_per_file

    for shard in shard_files(shards):
        reader = open_shard(shard)
        for batch in range(reader.num_record_batches):
            rows, first = reader.get_batch(batch).num_rows, 0
            while first < rows:
                taken = min(room, rows - first)
                pieces.append(Piece(str(shard), batch, first, taken))
                first, room = first + taken, room - taken
                if room == 0:
                    close()
    if pieces:
        close()
    return jobs


def read_pieces(pieces: tuple[Piece, ...]) -> Iterator[pa.RecordBatch]:
    """The rows of ``pieces`` as zero-copy slices of their batches."""
    readers: dict[str, pa.ipc.RecordBatchFileReader] = {}
    for piece in pieces:
        if piece.shard not in readers:
            readers[piece.shard] = open_shard(Path(piece.shard))
        yield readers[piece.shard].get_batch(piece.batch).slice(piece.first, piece.rows)


def write_file(job: FileJob) -> tuple[list[RowSummary], list[list[Any]]]:
    """Write ``job``'s details file; returns its rows' summaries and index lines, in row order."""
    details = DetailFile()
    summaries: list[RowSummary] = []
    entries: list[list[Any]] = []
    for record in records(read_pieces(job.pieces)):
        summary = summarize(record)
        summaries.append(summary)
        entries.append(index_entry(record, summary))
        details.add(record)
    path = Path(job.path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(script("details", job.number, details.payload()))
    return summaries, entries
