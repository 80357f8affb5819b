"""The report's every scored prediction, kept as JSON text in an anonymous temporary file, not as objects.

A predictions file of a million lines would otherwise hold a million report records (the raw response beside
its parse) until ``--json`` is written. :class:`KeptRecords` encodes each record when it is added (the text
``groundbench score --json`` writes for it, NaN and infinities as null) and writes it to a file the operating
system deletes when it is closed (nothing is left on disk); reading an item back decodes its text.
"""

from __future__ import annotations

import json
from array import array
from collections.abc import Iterator, Mapping
from typing import Any, overload

from groundbench.core.jsonindent import EncodedList, dumps_flat_object
from groundbench.scoring.scratch import read_at, scratch_error, scratch_file

READ_BYTES = 1 << 20  # read back a megabyte at a time


class KeptRecords(EncodedList):
    """A list of records held as their indented JSON text (``indent`` 1, keys sorted) in a temporary file."""

    indent = 1

    def __init__(self) -> None:
        self._file = scratch_file()  # open while the report lives
        self._ends = array("q")  # where each record's text ends in the file
        self._size = 0

    def append(self, record: Mapping[str, Any]) -> None:
        self.append_text(dumps_flat_object(record, self.indent, finite=True))

    def append_text(self, text: str) -> None:
        """Keep a record given as its text (what :meth:`append` writes for it)."""
        data = text.encode("utf-8", "surrogatepass")
        try:  # not `with writing()`: a record is written per line, and a context manager costs a microsecond
            self._file.write(data)
        except OSError as exc:
            raise scratch_error(exc) from exc
        self._size += len(data)
        self._ends.append(self._size)

    def __len__(self) -> int:
        return len(self._ends)

    @overload
    def __getitem__(self, index: int) -> dict[str, Any]: ...

    @overload
    def __getitem__(self, index: slice) -> list[dict[str, Any]]: ...

    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if not -len(self) <= index < len(self):
            raise IndexError("record index out of range")
        index %= len(self)
        start = self._ends[index - 1] if index else 0
        return json.loads(self._read(start, self._ends[index] - start))

    def __iter__(self) -> Iterator[dict[str, Any]]:
        for text in self.texts():
            yield json.loads(text)

    def texts(self) -> Iterator[str]:
        """Each record's text, in order, read a megabyte at a time."""
        buffer, base, start = b"", 0, 0  # base: the file offset of buffer[0]
        for end in self._ends:
            while base + len(buffer) < end:
                buffer, base = buffer[start - base :], start  # what was yielded is dropped
                more = self._read(base + len(buffer), max(READ_BYTES, end - base - len(buffer)))
                if not more:
                    raise OSError("the kept records' temporary file is shorter than written")
                buffer += more
            yield buffer[start - base : end - base].decode("utf-8", "surrogatepass")
            start = end

    def _read(self, offset: int, size: int) -> bytes:
        return read_at(self._file, offset, size)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, KeptRecords | list):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # mutable, like a list

    def __repr__(self) -> str:
        return f"<KeptRecords: {len(self)} records>"
