"""The (model, example id, condition) of every prediction line ``score`` reads, one bit per row.

The join refuses a second line for a key and ``expand`` asks which expected rows have none; a set of key tuples
held a tuple and a set slot per line (about 0.1 KB: a million lines, 0.1 GB). :class:`SeenKeys` numbers the
dataset's example ids once and keeps, per (model, condition), a bitmap over them: the same questions answered,
memory flat in the lines.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Set
from typing import Any

Key = tuple[str, str, str]  # (model, example id, condition)


class SeenKeys(Set[Key]):
    """A set of (model, example id, condition) keys, a bit per example id per (model, condition)."""

    def __init__(self, example_ids: Iterable[str] = ()) -> None:
        self._ids: list[str] = list(example_ids)
        self._index = {example_id: i for i, example_id in enumerate(self._ids)}
        self._bits: dict[tuple[str, str], bytearray] = {}
        self._count = 0

    def add(self, key: Key) -> None:
        self.add_new(key)

    def add_new(self, key: Key) -> bool:
        """Add ``key``; False when it was there already (one lookup where ``in`` then ``add`` would take two)."""
        model, example_id, condition = key
        index = self._index.get(example_id)
        if index is None:  # an id beyond the numbered ones: numbered now
            index = self._index[example_id] = len(self._ids)
            self._ids.append(example_id)
        bits = self._bits.get((model, condition))
        if bits is None:
            bits = self._bits[(model, condition)] = bytearray((len(self._ids) + 7) // 8)
        if index >> 3 >= len(bits):
            bits.extend(bytes((index >> 3) - len(bits) + 1))
        mask = 1 << (index & 7)
        if bits[index >> 3] & mask:
            return False
        bits[index >> 3] |= mask
        self._count += 1
        return True

    def __contains__(self, key: Any) -> bool:
        if not isinstance(key, tuple) or len(key) != 3:
            return False
        model, example_id, condition = key
        try:
            index = self._index.get(example_id)
            bits = self._bits.get((model, condition))
        except TypeError:  # an unhashable part: no key of the set
            return False
        if index is None or bits is None or index >> 3 >= len(bits):
            return False
        return bool(bits[index >> 3] >> (index & 7) & 1)

    def __iter__(self) -> Iterator[Key]:
        for (model, condition), bits in self._bits.items():
            for byte_at, byte in enumerate(bits):
                if byte:
                    for bit in range(8):
                        if byte & (1 << bit):
                            yield (model, self._ids[byte_at * 8 + bit], condition)

    def __len__(self) -> int:
        return self._count

    def __repr__(self) -> str:
        return f"<SeenKeys: {self._count} keys>"
