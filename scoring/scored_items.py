"""The join's scored items, kept by group in an anonymous temporary file and read back one group at a time.

A predictions file of a million lines would otherwise hold a million :class:`~groundbench.scoring.metrics.Scored`
items, and every distinct answer among them, until the last group is scored: memory growing with the file. Here
an item is written as (its row's number, its answer's fields) to a file the operating system deletes when it is
closed (nothing is left on disk), and the scorer asks for one group, (model, config, condition), at a time: memory
follows the largest group, which the dataset bounds, not the file.

The file is ``marshal``'s: it writes and reads back exactly the values an answer is made of (strings, floats,
tuples, the JSON object it was read from), an answer shared by many lines once per chunk, and it is fast. It is
read only by the process that wrote it, from a file no other process can open by name, so the format's lack of
defence against crafted input does not apply. An answer holding a value ``marshal`` does not write (a Python
caller's own objects in parsed fields) stays in memory instead.
"""

from __future__ import annotations

import marshal
from collections import Counter, defaultdict
from collections.abc import Iterator, Mapping
from dataclasses import fields
from operator import attrgetter
from typing import IO, Any

from groundbench.scoring.metrics import Scored
from groundbench.scoring.parse import MALFORMED, Answer
from groundbench.scoring.scratch import read_at, scratch_file, writing

GroupKey = tuple[str, str, str]  # (model, config, condition)
PENDING = 1 << 15  # items held as objects before every group's are written out
_ANSWER_FIELDS = attrgetter(*(f.name for f in fields(Answer)))  # an answer's fields in Answer(*...)'s order


class ScoredItems:
    """Scored items by (model, config, condition): appended in line order, read back group by group (the groups in
    sorted order, each group's items in the order they were appended)."""

    def __init__(self) -> None:
        self._rows: list[Mapping[str, Any]] = []  # every row an item names, numbered in the order first seen
        self._row_at: dict[int, int] = {}  # id(row) -> its number (the row is held above, so its id stays its own)
        self._pending: dict[GroupKey, list[tuple[int, Answer]]] = defaultdict(list)
        self._held_back = 0  # items in _pending
        self._chunks: dict[GroupKey, list[tuple[int, int]]] = defaultdict(list)  # (offset, size) in the file
        self.counts: Counter[GroupKey] = Counter()  # items per group
        self.malformed: Counter[str] = Counter()  # malformed answers per model
        self._kept_whole: list[Answer] = []  # answers marshal cannot write, referred to by position
        self._file: IO[bytes] | None = None
        self._size = 0

    def append(self, item: Scored) -> None:
        self.add(item.model, item.config, item.condition, item.row, item.answer)

    def add(self, model: str, config: str, condition: str, row: Mapping[str, Any], answer: Answer) -> None:
        at = self._row_at.get(id(row))
        if at is None:
            at = self._row_at[id(row)] = len(self._rows)
            self._rows.append(row)
        key = (model, config, condition)
        self._pending[key].append((at, answer))
        self.counts[key] += 1
        if answer.status == MALFORMED:
            self.malformed[model] += 1
        self._held_back += 1
        if self._held_back >= PENDING:
            self._write_out()

    def __len__(self) -> int:
        return self.counts.total()

    def per_model(self) -> Counter[str]:
        """Items per model."""
        out: Counter[str] = Counter()
        for (model, _, _), n in self.counts.items():
            out[model] += n
        return out

    def group_keys(self) -> list[GroupKey]:
        """The groups, in sorted order."""
        return sorted(self.counts)

    def group(self, key: GroupKey) -> list[Scored]:
        """One group's items, in the order they were appended."""
        model, config, condition = key
        out: list[Scored] = []
        for offset, size in self._chunks.get(key, ()):
            made: dict[int, Answer] = {}  # a chunk gives an answer shared by many lines as one value: one Answer
            for at, written in marshal.loads(self._read(offset, size)):
                if type(written) is int:
                    answer = self._kept_whole[written]
                else:
                    answer = made.get(id(written))
                    if answer is None:
                        answer = made[id(written)] = Answer(*written)
                out.append(Scored(model, config, condition, self._rows[at], answer))
        out += [Scored(model, config, condition, self._rows[at], answer) for at, answer in self._pending.get(key, ())]
        return out

    def groups(self) -> Iterator[tuple[GroupKey, list[Scored]]]:
        for key in self.group_keys():
            yield key, self.group(key)

    def __iter__(self) -> Iterator[Scored]:
        """Every item, group by group."""
        for _, items in self.groups():
            yield from items

    def _write_out(self) -> None:
        """Every group's pending items, one chunk per group, to the end of the file."""
        if self._file is None:
            self._file = scratch_file()  # open while the items live
        for key, pending in self._pending.items():
            data = self._encode(pending)
            with writing():
                self._file.write(data)
            self._chunks[key].append((self._size, len(data)))
            self._size += len(data)
        self._pending.clear()
        self._held_back = 0

    def _encode(self, pending: list[tuple[int, Answer]]) -> bytes:
        written: dict[int, Any] = {}  # id(answer) -> its fields: one tuple per answer, which marshal writes once
        chunk = []
        for at, answer in pending:
            value = written.get(id(answer))
            if value is None:
                value = written[id(answer)] = _ANSWER_FIELDS(answer)
            chunk.append((at, value))
        try:
            return marshal.dumps(chunk)
        except ValueError:  # some answer holds a value marshal does not write: those stay in memory
            return marshal.dumps([(at, self._writable(answer)) for at, answer in pending])

    def _writable(self, answer: Answer) -> Any:
        value = _ANSWER_FIELDS(answer)
        try:
            marshal.dumps(value)
        except ValueError:
            self._kept_whole.append(answer)
            return len(self._kept_whole) - 1
        return value

    def _read(self, offset: int, size: int) -> bytes:
        assert self._file is not None
        data = read_at(self._file, offset, size)
        if len(data) != size:
            raise OSError("the scored items' temporary file is shorter than written")
        return data

    def close(self) -> None:
        if self._file is not None:
            self._file.close()

    def __repr__(self) -> str:
        return f"<ScoredItems: {len(self)} items in {len(self.counts)} groups>"
