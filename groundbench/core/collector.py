"""The cyclic garbage collector made to run rarely while a command builds millions of objects that hold no cycles.

Python collects its youngest objects every 700 net allocations and, every so often, scans every object alive.
``score`` holds the rows (dicts and lists per part) and an item per prediction line: at full scale the collector
spent about 6 of 24 CPU seconds scanning them again and again, finding nothing (rows, answers and items hold no
cycles). :func:`rare_collections` raises the thresholds for the duration of a block, so the young objects are
still collected (any cyclic garbage stays bounded), a hundred thousand allocations at a time, and the whole heap
rarely; the previous thresholds are restored after it.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

THRESHOLDS = (100_000, 50, 1_000)  # allocations before a young collection; young, then middle, collections per next


@contextmanager
def rare_collections() -> Iterator[None]:
    """Collect rarely within the block (:data:`THRESHOLDS`), then as before."""
    before = gc.get_threshold()
    gc.set_threshold(*THRESHOLDS)
    try:
        yield
    finally:
        gc.set_threshold(*before)
