"""Ordered parallel map with bounded memory: items are processed in windows across worker processes."""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")


def worker_count(requested: int) -> int:
    """``0`` means every core this process may use."""
    if requested > 0:
        return requested
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def ordered_map(func: Callable[[T], R], items: Sequence[T], workers: int, window: int) -> Iterator[R]:
    """``map(func, items)`` in input order; at most ``window`` results are in flight at once."""
    if workers <= 1 or len(items) <= 1:
        yield from map(func, items)
        return
    # spawn, not fork: the parent may hold Arrow/OpenCV thread pools that fork would copy mid-state.
    context = multiprocessing.get_context("spawn")
    chunk = max(1, window // (workers * 4))
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        for start in range(0, len(items), window):
            yield from pool.map(func, items[start : start + window], chunksize=chunk)


def chunks(items: Iterable[T], size: int) -> Iterator[list[T]]:
    batch: list[T] = []
    for item in items:
        batch.append(item)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch
