"""Ordered parallel map with bounded memory: items are processed in windows across workers.

The workers are our own process pool (engine ``local``) or a Dask distributed cluster (engine
``dask``, :mod:`groundbench.core.dask_engine`). Which one runs is set once per command with
:func:`use_engine`; every caller of :func:`ordered_map` picks it up without a new argument, and both
engines yield the same results in the same order, so the bytes written from them are identical.
"""

from __future__ import annotations

import multiprocessing
import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

from groundbench.core.errors import GroundBenchError

T = TypeVar("T")
R = TypeVar("R")

ENGINES = ("local", "dask")


@dataclass(frozen=True)
class EngineSpec:
    """Where ``ordered_map`` runs: ``local`` (our process pool) or ``dask`` (``address`` of a running
    scheduler, e.g. ``tcp://10.0.0.5:8786``; None starts a local cluster on 127.0.0.1)."""

    name: str = "local"
    address: str | None = None
    mirrors: tuple[str, ...] = ()  # source URLs every worker copies locally first (groundbench.core.remote)

    def __post_init__(self) -> None:
        if self.name not in ENGINES:
            raise GroundBenchError("params.yaml", "engine.name", f"expected one of {list(ENGINES)}, got {self.name!r}")
        if self.address is not None and self.name == "local":
            raise GroundBenchError("params.yaml", "engine.address", "an address needs engine.name: dask")


class _Active:
    spec = EngineSpec()
    backend: Any = None  # the dask backend (client, maybe its local cluster) once first used


@contextmanager
def use_engine(spec: EngineSpec) -> Iterator[None]:
    """Run every ``ordered_map`` inside the block on ``spec``; a cluster it starts stops at the end."""
    previous, previous_backend = _Active.spec, _Active.backend
    _Active.spec, _Active.backend = spec, None
    try:
        yield
    finally:
        if _Active.backend is not None:
            _Active.backend.close()
        _Active.spec, _Active.backend = previous, previous_backend


def active_engine() -> EngineSpec:
    return _Active.spec


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


def ordered_map(func: Callable[[T], R], items: Sequence[T], workers: int, window: int) -> Iterator[R]:
    """``map(func, items)`` in input order; at most ``window`` items are in flight at once.

    Items travel to the workers in chunks (fewer round trips), and a new chunk is submitted as soon
    as the oldest one is consumed, so the workers never wait for a whole window to drain.
    On the dask engine ``workers`` is ignored (the cluster has its own) and every map of more than
    one item runs there: asking for the engine means the work should leave this process.
    """
    if _Active.spec.name == "dask" and len(items) > 1:
        if _Active.backend is None:
            from groundbench.core.dask_engine import DaskBackend

            _Active.backend = DaskBackend.start(_Active.spec.address, _Active.spec.mirrors)
        yield from _Active.backend.ordered_map(func, items, window)
        return
    if workers <= 1 or len(items) <= 1:
        yield from map(func, items)
        return
    # One BLAS/OpenMP thread per worker: the workers already use every core.
    for variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(variable, "1")
    # spawn, not fork: the parent may hold Arrow/OpenCV thread pools that fork would copy mid-state.
    context = multiprocessing.get_context("spawn")
    size = chunk_size(window, workers)
    pending: deque[Future[list[R]]] = deque()
    batches = chunks(items, size)
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        for batch in batches:
            pending.append(pool.submit(apply_chunk, func, batch))
            if len(pending) * size >= window:
                break
        while pending:
            results = pending.popleft().result()
            following = next(batches, None)
            if following is not None:
                pending.append(pool.submit(apply_chunk, func, following))
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
