"""Release a config's records in ``example_id`` order while screenshots arrive one item at a time.

The converter converts one screenshot (with all its annotation rows) per item, and items arrive in
the order of their smallest ``example_id``. The rows of one screenshot need not be consecutive in
``example_id`` order (a ScreenSpot file may come back to a screenshot later), so a record may only be
written once no later item can hold a smaller id: after item ``k``, everything below the first id of
item ``k + 1``. Records that must wait are held with their image bytes; on every real annotation file
at most two screenshots are open at once. Should an unusual file interleave many screenshots, the
held bytes would grow without bound, so past ``max_held_bytes`` the held records drop their bytes and
the screenshot is read again when its rows are written (and must hash to what the item saw).
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from groundbench.core.embed import read_unchanged
from groundbench.core.manifests import ManifestEntry


@dataclass(frozen=True)
class ItemResult:
    """One screenshot's records (sorted by ``example_id``) and its manifest entry."""

    records: list[dict[str, Any]]
    manifest: ManifestEntry
    path: Path  # the screenshot as read (resolved, inside the source root)
    rel: str  # the screenshot relative to the source root (for messages)


@dataclass(order=True)
class _Held:
    example_id: str
    record: dict[str, Any] = field(compare=False)
    item: ItemResult = field(compare=False)
    spilled: bool = field(default=False, compare=False)


class OrderedRelease:
    """Feed item results in first-id order; get back (record, item) pairs in ``example_id`` order."""

    def __init__(self, max_held_bytes: int) -> None:
        self.max_held_bytes = max_held_bytes
        self._heap: list[_Held] = []
        self._open: dict[str, int] = {}  # screenshot -> held records that still carry its bytes
        self._held_bytes = 0
        self._reread: tuple[Path, bytes] | None = None

    def push(self, item: ItemResult, following: str | None) -> list[tuple[dict[str, Any], ItemResult]]:
        """Add one item; return what may be written now. ``following``: the next item's first id (None: last)."""
        for record in item.records:
            heapq.heappush(self._heap, _Held(str(record["example_id"]), record, item))
        if item.records:
            self._open[item.rel] = self._open.get(item.rel, 0) + len(item.records)
            if self._open[item.rel] == len(item.records):
                self._held_bytes += item.manifest.bytes
        out = []
        while self._heap and (following is None or self._heap[0].example_id < following):
            out.append(self._release(heapq.heappop(self._heap)))
        if self._held_bytes > self.max_held_bytes:
            self._spill()
        return out

    def _release(self, held: _Held) -> tuple[dict[str, Any], ItemResult]:
        item = held.item
        if held.spilled:
            held.record["image"]["bytes"] = self._read_again(item)
        else:
            self._open[item.rel] -= 1
            if not self._open[item.rel]:
                del self._open[item.rel]
                self._held_bytes -= item.manifest.bytes
        return held.record, item

    def _spill(self) -> None:
        for held in self._heap:
            if not held.spilled:
                held.spilled = True
                held.record["image"]["bytes"] = None
        self._open.clear()
        self._held_bytes = 0

    def _read_again(self, item: ItemResult) -> bytes:
        if self._reread is None or self._reread[0] != item.path:
            self._reread = (item.path, read_unchanged(item.path, item.rel, item.manifest.sha256))
        return self._reread[1]
