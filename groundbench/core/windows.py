"""The parts of an ordered map both engines share (our process pool, core/parallel.py, and Dask,
core/dask_engine.py): how many workers, how items are chunked, and the window that keeps results in order.
Their own module, so neither engine imports the other's."""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

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


def apply_chunk(func: Callable[[T], R], chunk: list[T]) -> list[R]:
    return [func(item) for item in chunk]


def chunk_size(window: int, workers: int) -> int:
    return max(1, min(64, window // (workers * 4)))


def windowed(
    submit: Callable[[list[T]], Any],
    items: Iterable[T],
    size: int,
    window: int,
    pending: deque[Any] | None = None,
) -> Iterator[Any]:
    """Chunks of ``size`` items handed to ``submit`` (which returns a future), about ``window`` items in
    flight; results in item order. A next chunk goes out as soon as the oldest is consumed, so the workers
    never wait for a whole window to drain. ``pending`` (if given) holds the futures in flight, for a
    caller that must cancel them when the map stops early."""
    pending = deque() if pending is None else pending  # futures whose .result() is a list of results
    batches = chunks(items, size)
    for batch in batches:
        pending.append(submit(batch))
        if len(pending) * size >= window:
            break
    while pending:
        results = pending.popleft().result()
        following = next(batches, None)
        if following is not None:
            pending.append(submit(following))
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
