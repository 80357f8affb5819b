"""Ordered parallel map with bounded memory: items are processed in windows across worker processes."""

from __future__ import annotations

import multiprocessing
import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
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


def _apply(func: Callable[[T], R], chunk: list[T]) -> list[R]:
    return [func(item) for item in chunk]


def ordered_map(func: Callable[[T], R], items: Sequence[T], workers: int, window: int) -> Iterator[R]:
    """``map(func, items)`` in input order; at most ``window`` items are in flight at once.

    Items travel to the workers in chunks (fewer round trips), and a new chunk is submitted as soon
    as the oldest one is consumed, so the workers never wait for a whole window to drain.
    """
    if workers <= 1 or len(items) <= 1:
        yield from map(func, items)
        return
    # One BLAS/OpenMP thread per worker: the workers already use every core.
    for variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(variable, "1")
    # spawn, not fork: the parent may hold Arrow/OpenCV thread pools that fork would copy mid-state.
    context = multiprocessing.get_context("spawn")
    size = max(1, min(64, window // (workers * 4)))
    pending: deque[Future[list[R]]] = deque()
    batches = chunks(items, size)
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        for batch in batches:
            pending.append(pool.submit(_apply, func, batch))
            if len(pending) * size >= window:
                break
        while pending:
            results = pending.popleft().result()
            following = next(batches, None)
            if following is not None:
                pending.append(pool.submit(_apply, func, following))
            yield from results


def chunks(items: Iterable[T], size: int) -> Iterator[list[T]]:
    batch: list[T] = []
    for item in items:
        batch.append(item)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch
