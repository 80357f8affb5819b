"""A command's start-up with the cyclic garbage collector paused, and what it loaded frozen out of later scans.

Loading a command (its modules: inspect-ai, ``datasets``, an OpenAI client, their pydantic models) makes about
half a million objects that live as long as the process and next to no garbage (a few thousand objects, which
stay). With the collector on, its generational scans walk those objects again and again as they are made:
about 0.4 CPU s of ``groundbench eval``'s 4 s start (measured: docs/benchmark.md, "Start-up and warm
load_config"). So the collector is paused while a command loads and, once it has, the loaded objects are
frozen (``gc.freeze``: the collector's later scans skip them; reference counting still frees them) before it
runs again for the command's own work, whose rows' objects would otherwise trigger full scans of them all (a
second of the GUI build's assemble). A process that calls the commands' functions again and again (the tests)
freezes what is alive at each block's end, garbage cycles among it included (which then stay): about a
thousand objects for an eval's start.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


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
