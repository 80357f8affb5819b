"""A config's embedded images, read one row at a time through memory maps whose pages are handed back.

``groundbench eval`` reads each asked row's image once, when its sample is sent. Read through ``datasets``'
own memory map of the config's Arrow cache, every page of every image read stays in the process's resident
set until the kernel needs the memory back, so RSS grows with the distinct images a run reads: about 112 KB
a row, gigabytes over a full-scale config. Here the images are read through maps of the same cache files that
this module opens itself (the layout ``datasets`` reads: one Arrow stream per file, in ``cache_files``
order), and once :data:`DROP_BYTES` of images have been read the maps' pages are dropped
(``madvise(MADV_DONTNEED)``): the file is unchanged and a later read faults its pages in again from the
page cache. The bytes are the same bytes, and the caller still checks each against its row's sha256.

A dataset this cannot map the same way (held in memory, or read through an indices mapping) is read
through its own table, as before.
"""

from __future__ import annotations

import mmap
from collections.abc import Sequence

import pyarrow as pa
from datasets import Dataset

# Image bytes read between two drops of the maps' pages: what the maps may keep resident at most, give or
# take the samples in flight (a drop over a full-scale config's ten maps takes about 4 ms at this size).
DROP_BYTES = 64 * 2**20
COLUMN = "image"  # {"bytes", "path"}, datasets' Image feature as stored


class ImageColumn:
    """The ``image`` column of a config's rows; :meth:`bytes_at` copies one row's bytes out."""

    def __init__(self, column: pa.ChunkedArray, maps: Sequence[mmap.mmap] = ()) -> None:
        self.column = column
        self.maps = list(maps)  # empty: read through the dataset's own table, nothing to drop
        self.unreleased = 0  # bytes read since the last drop

    def bytes_at(self, index: int) -> bytes | None:
        """Row ``index``'s embedded bytes (a copy), or None when the row has none."""
        image = self.column[index].as_py()
        data = (image or {}).get("bytes")
        self.unreleased += len(data or b"")
        if self.maps and self.unreleased >= DROP_BYTES:
            self.release()
        return data

    def release(self) -> None:
        """Drop the maps' resident pages (they stay mapped; the next read refills them from the page cache)."""
        for mapped in self.maps:
            mapped.madvise(mmap.MADV_DONTNEED)
        self.unreleased = 0


def image_column(dataset: Dataset, table: pa.Table) -> ImageColumn:
    """The config's images (``table``: the dataset's rows in order, :func:`groundbench.evaluate.samples.rows_table`),
    read through maps of its own when the dataset's rows are its cache files' rows in order."""
    files = [entry["filename"] for entry in dataset.cache_files]
    if not files or dataset._indices is not None or not hasattr(mmap, "MADV_DONTNEED"):
        return ImageColumn(table.column(COLUMN))
    try:
        maps = [_mapped(name) for name in files]
        own = pa.concat_tables([pa.ipc.open_stream(pa.py_buffer(m)).read_all().select([COLUMN]) for m in maps])
    except (OSError, ValueError, pa.ArrowException):  # e.g. a cache file removed since: its own table
        return ImageColumn(table.column(COLUMN))
    if own.num_rows != table.num_rows or own.schema.field(COLUMN) != table.schema.field(COLUMN):
        return ImageColumn(table.column(COLUMN))  # not the layout datasets reads: its own table is the truth
    return ImageColumn(own.column(COLUMN), maps)


def _mapped(name: str) -> mmap.mmap:
    with open(name, "rb") as handle:  # the map keeps its own descriptor
        return mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
