"""The cyclic garbage collector kept out of the way while a command makes many objects that hold no cycles.

Python collects its youngest objects every 700 net allocations and, every so often, scans every object alive.
Two moments make many long-lived objects and next to no garbage:

- **Loading a command** (its modules: inspect-ai, ``datasets``, an OpenAI client, their pydantic models): about
  half a million objects that live as long as the process. With the collector on, its scans walk them again and
  again as they are made: about 0.4 CPU s of ``groundbench eval``'s 4 s start (docs/benchmark.md, "Start-up and
  warm load_config"). :func:`loading` pauses the collector while a command loads and then freezes what is loaded
  (``gc.freeze``: later scans skip it; reference counting still frees it), so the command's own work does not
  trigger full scans of it (a second of the GUI build's assemble). A process that calls the commands' functions
  again and again (the tests) freezes what is alive at each block's end, garbage cycles among it included (which
  then stay): about a thousand objects for an eval's start.
- **Scoring**: ``score`` holds the rows (dicts and lists per part) and an item per prediction line; at full scale
  the collector spent about 6 of 24 CPU s scanning them, finding nothing. :func:`rare_collections` raises the
  thresholds for a block, so young objects are still collected (cyclic garbage stays bounded), a hundred
  thousand allocations at a time, and the whole heap rarely; the previous thresholds are restored after it.
- **The audit gallery** keeps millions of objects for its index and plots: collecting among them was half the
  report stage's CPU at 58,558 rows, so :func:`paused` turns the collector off for the block.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

THRESHOLDS = (100_000, 50, 1_000)  # allocations before a young collection; young, then middle, collections per next


@contextmanager
def loading() -> Iterator[None]:
    """Load modules and set-up in this block without the cyclic collector; then freeze what is loaded and turn
    the collector back on. Inside an outer block (or where the caller has the collector off) it does nothing:
    the outer owner decides."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        gc.enable()


@contextmanager
def rare_collections() -> Iterator[None]:
    """Collect rarely within the block (:data:`THRESHOLDS`), then as before."""
    before = gc.get_threshold()
    gc.set_threshold(*THRESHOLDS)
    try:
        yield
    finally:
        gc.set_threshold(*before)


@contextmanager
def paused() -> Iterator[None]:
    """No cyclic collection within the block; the collector as it was after it."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
