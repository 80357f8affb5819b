"""Arrow shards: sorted rows, size-capped files, HF features metadata, written atomically.

A config's shards live in one folder as ``test-00000-of-0000N.arrow`` (Arrow IPC file format, which
has a footer, so a truncated shard fails to open instead of yielding fewer rows). The writer streams:
rows arrive in ``example_id`` order and are flushed in fixed-size record batches, so memory stays
bounded by one batch whatever the config's size.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from types import TracebackType
from typing import Any

import numpy as np
import pyarrow as pa

from groundbench.core.atomic import atomic_dir
from groundbench.errors import GroundBenchError
from groundbench.schemas.features import arrow_schema

# Written into a config's folder instead of shards when the config is absent from the build; it says why.
ABSENT_MARKER = "ABSENT"

SHARD_GLOB = "test-*.arrow"
SPLIT = "test"


class ShardWriter:
    """Write one config's rows, sorted by ``key`` (``example_id``), into capped shards inside ``folder``.

    ``schema`` defaults to the record schema; a config with its own rows (``baselines``) passes its own.
    """

    def __init__(
        self,
        folder: Path,
        max_shard_bytes: int,
        rows_per_batch: int,
        schema: pa.Schema | None = None,
        key: str = "example_id",
        batch_step: Callable[[pa.RecordBatch], pa.RecordBatch] | None = None,
    ) -> None:
        self.folder = folder
        self.batch_step = batch_step  # applied to each batch cut from add/add_rows' rows just before it is written
        self.max_shard_bytes = max_shard_bytes
        self.rows_per_batch = rows_per_batch
        self.schema = arrow_schema() if schema is None else schema
        self.key = key
        self.rows = 0
        self.bytes = 0
        self._buffer: list[dict[str, Any]] = []
        self._pieces: list[pa.RecordBatch] = []  # rows from add_rows not yet written
        self._piece_rows = 0
        self._last_id: str | None = None
        self._files: list[Path] = []
        self._writer: pa.ipc.RecordBatchFileWriter | None = None
        self._sink: Any = None
        self._file_bytes = 0
        self._dir_context = atomic_dir(folder)
        self._tmp: Path | None = None

    def __enter__(self) -> ShardWriter:
        self._tmp = self._dir_context.__enter__()
        return self

    def add(self, record: dict[str, Any]) -> None:
        example_id = record[self.key]
        if self._last_id is not None and example_id <= self._last_id:
            raise GroundBenchError(
                self.folder, self.key, f"rows must arrive strictly sorted: {example_id!r} after {self._last_id!r}"
            )
        self._last_id = example_id
        self._buffer.append(record)
        if len(self._buffer) >= self.rows_per_batch:
            self._flush()

    def add_batch(self, batch: pa.RecordBatch) -> None:
        """Append an already-built batch (same schema) as it is; ids are checked for order."""
        self._check_order(batch)
        self._write_batch(batch)

    def add_rows(self, batch: pa.RecordBatch) -> None:
        """Append rows built elsewhere (e.g. in a worker process) as Arrow, any number at a time.

        They are cut into the same ``rows_per_batch`` batches as :meth:`add` would make, so the
        shards do not depend on how the rows were grouped on their way here. Each cut batch goes
        through ``batch_step`` (if given) before it is written.
        """
        if self._buffer:
            raise ValueError("add_rows after add: use one of them per writer")
        self._check_order(batch)
        if batch.num_rows == 0:
            return
        self._pieces.append(batch)
        self._piece_rows += batch.num_rows
        while self._piece_rows >= self.rows_per_batch:
            table = pa.Table.from_batches(self._pieces, schema=self.schema)
            head, rest = table.slice(0, self.rows_per_batch), table.slice(self.rows_per_batch)
            self._pieces = rest.to_batches()  # zero-copy views; copied once, when written
            self._piece_rows = rest.num_rows
            self._write_batch(self._stepped(_one_batch(head)))

    def _stepped(self, batch: pa.RecordBatch) -> pa.RecordBatch:
        return batch if self.batch_step is None else self.batch_step(batch)

    def _check_order(self, batch: pa.RecordBatch) -> None:
        for example_id in batch.column(self.key).to_pylist():
            if self._last_id is not None and example_id <= self._last_id:
                raise GroundBenchError(self.folder, self.key, f"rows not strictly sorted at {example_id!r}")
            self._last_id = example_id

    def _flush(self) -> None:
        if self._pieces:
            table = pa.Table.from_batches(self._pieces, schema=self.schema)
            self._pieces, self._piece_rows = [], 0
            self._write_batch(self._stepped(_one_batch(table)))
        if not self._buffer:
            return
        batch = records_to_batch(self._buffer, self.schema, self.folder)
        self._buffer = []
        self._write_batch(self._stepped(batch))

    def _write_batch(self, batch: pa.RecordBatch) -> None:
        assert self._tmp is not None, "use ShardWriter as a context manager"
        size = batch.nbytes
        if self._writer is not None and self._file_bytes and self._file_bytes + size > self.max_shard_bytes:
            self._close_file()
        if self._writer is None:
            path = self._tmp / f"part-{len(self._files):05d}.arrow"
            self._files.append(path)
            self._sink = pa.OSFile(str(path), "wb")
            self._writer = pa.ipc.new_file(self._sink, self.schema)
            self._file_bytes = 0
        self._writer.write_batch(batch)
        self._file_bytes += size
        self.rows += batch.num_rows
        self.bytes += size

    def _close_file(self) -> None:
        if self._writer is not None:
            self._writer.close()
            self._sink.close()
            self._writer = None

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        try:
            self._finish(complete=exc_type is None)
        except BaseException as error:  # the last writes failed: the folder is left out, as for the caller's error
            self._dir_context.__exit__(type(error), error, error.__traceback__)
            raise
        self._dir_context.__exit__(exc_type, exc, tb)

    def _finish(self, complete: bool) -> None:
        if complete:
            self._flush()
            if not self._files:  # an empty config still gets one (empty) shard with its schema
                self._write_batch(pa.RecordBatch.from_pylist([], schema=self.schema))
        self._close_file()
        if complete:
            total = len(self._files)
            for number, path in enumerate(self._files):
                path.rename(path.with_name(f"{SPLIT}-{number:05d}-of-{total:05d}.arrow"))


def records_to_batch(records: list[dict[str, Any]], schema: pa.Schema, where: Path | str) -> pa.RecordBatch:
    """Rows as one Arrow batch; a row that does not fit the schema is an error naming ``where``."""
    try:
        return pa.RecordBatch.from_pylist(records, schema=schema)
    except (pa.ArrowInvalid, pa.ArrowTypeError, KeyError) as exc:
        raise GroundBenchError(where, "record", f"does not match the config's schema: {exc}") from exc


def _one_batch(table: pa.Table) -> pa.RecordBatch:
    """A table's rows as one batch in fresh buffers, byte for byte what ``from_pylist`` gives.

    ``concat_batches`` copies even a single slice; ``combine_chunks`` would keep a slice's offset,
    which the IPC writer serialises differently.
    """
    return pa.concat_batches(table.to_batches())


def shard_files(folder: Path) -> list[Path]:
    return sorted(folder.glob(SHARD_GLOB))


def open_shard(path: Path) -> pa.ipc.RecordBatchFileReader:
    try:
        return pa.ipc.open_file(pa.memory_map(str(path)))
    except (pa.ArrowInvalid, OSError) as exc:
        raise GroundBenchError(path, "file", f"not a complete Arrow IPC file ({exc})") from exc


def iter_batches(folder: Path) -> Iterator[pa.RecordBatch]:
    for path in shard_files(folder):
        reader = open_shard(path)
        for index in range(reader.num_record_batches):
            yield reader.get_batch(index)


def read_table(folder: Path) -> pa.Table:
    tables = [open_shard(path).read_all() for path in shard_files(folder)]
    if not tables:
        return arrow_schema().empty_table()
    return pa.concat_tables(tables)


def embedded_images(images: pa.Array) -> Iterator[memoryview | None]:
    """Each row's bytes of a binary array as a view into the Arrow buffer (None for a null)."""
    validity, offsets_buffer, values = images.buffers()
    offsets = np.frombuffer(offsets_buffer, dtype=np.int32 if pa.types.is_binary(images.type) else np.int64)
    offsets = offsets[images.offset : images.offset + len(images) + 1]
    view = memoryview(values) if values is not None else memoryview(b"")
    has_nulls = validity is not None and images.null_count > 0
    for row, (start, end) in enumerate(zip(offsets[:-1].tolist(), offsets[1:].tolist(), strict=True)):
        yield None if has_nulls and not images[row].is_valid else view[start:end]
