"""Ordered parallel map with bounded memory: items are processed in windows across workers.

The workers are our own process pool, or a Dask distributed cluster when the caller passes a
:class:`DaskCluster` (:mod:`groundbench.core.dask_engine`; ``stages/engine.py``'s ``map_engine`` does, from
params.yaml ``engine``). Both yield the same results in the same order, so the bytes written from
them are identical.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_EXCEPTION, ProcessPoolExecutor, ThreadPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

from groundbench.core.windows import apply_chunk, chunk_size, chunks, windowed, worker_count

T = TypeVar("T")
R = TypeVar("R")

# chunks and worker_count: the converters batch items and size their pools with them, as before the split.
__all__ = [
    "DaskCluster",
    "chunks",
    "each_in_threads",
    "leave_signals_to_parent",
    "ordered_map",
    "signals_held",
    "worker_count",
]


@dataclass(frozen=True)
class DaskCluster:
    """Where ``ordered_map`` runs when not in our pool: a Dask distributed cluster."""

    address: str | None  # a running scheduler, e.g. tcp://10.0.0.5:8786; None starts a local cluster on 127.0.0.1
    mirrors: tuple[str, ...]  # source URLs every worker copies locally first (groundbench.core.remote)


def ordered_map(
    func: Callable[[T], R], items: Sequence[T], workers: int, window: int, cluster: DaskCluster | None = None
) -> Iterator[R]:
    """``map(func, items)`` in input order; at most ``window`` items are in flight at once.

    Items travel to the workers in chunks (fewer round trips), and a new chunk is submitted as soon
    as the oldest one is consumed, so the workers never wait for a whole window to drain.
    With a ``cluster`` ``workers`` is ignored (the cluster has its own) and every map of more than one
    item runs there: asking for the cluster means the work should leave this process. A local cluster
    it starts stops when the map ends.
    """
    if cluster is not None and len(items) > 1:
        from groundbench.core.dask_engine import DaskBackend

        backend = DaskBackend.start(cluster.address, cluster.mirrors)
        try:
            yield from backend.ordered_map(func, items, window)
        finally:
            backend.close()
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
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=leave_signals_to_parent)

    def submit(batch: list[T]) -> Any:
        with signals_held():  # a worker may start now: it must not meet a signal while it imports
            return pool.submit(apply_chunk, func, batch)

    try:
        yield from windowed(submit, items, size, window)
    finally:
        # Stopped early (an error, Ctrl-C, SIGTERM): chunks not started yet are dropped, not waited for.
        pool.shutdown(wait=True, cancel_futures=True)


def each_in_threads(func: Callable[[T, threading.Event], None], items: Sequence[T], workers: int) -> None:
    """``func(item, stop)`` for every item, ``workers`` at once on threads (for work that releases the GIL).

    When one fails or the caller is interrupted (Ctrl-C), ``stop`` is set and the items not started are
    dropped; a running ``func`` should end at its next step once ``stop`` is set, so the error surfaces
    at once instead of after every item has run.
    """
    stop = threading.Event()
    pool = ThreadPoolExecutor(max_workers=max(workers, 1))
    try:
        futures = [pool.submit(func, item, stop) for item in items]
        wait(futures, return_when=FIRST_EXCEPTION)  # every item done, or the first failure, whichever item it is
        for future in sorted(futures, key=lambda f: not f.done()):  # a failed one before one still running
            future.result()
    except BaseException:
        stop.set()
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


INTERRUPTS = {signal.SIGINT, signal.SIGTERM}


@contextmanager
def signals_held() -> Iterator[None]:
    """Ctrl-C and SIGTERM wait while the block runs, then take effect: a worker started here begins with them
    blocked (it drops them itself, leave_signals_to_parent) and this process never meets them half-way
    through starting it (a signal sent to the group would otherwise reach both at once)."""
    caught: list[int] = []
    main = threading.current_thread() is threading.main_thread()
    # Any thread of this process may receive a signal sent to it; its Python handler runs in the main
    # thread. Deferring that handler keeps the start-up whole; the blocked mask is what the child inherits.
    handlers = {s: signal.signal(s, lambda signum, _: caught.append(signum)) for s in INTERRUPTS} if main else {}
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, INTERRUPTS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        for signum, handler in handlers.items():
            signal.signal(signum, handler)
        for number in caught:
            signal.raise_signal(number)  # now, to the handler in place (KeyboardInterrupt, the CLI's SIGTERM)


def leave_signals_to_parent() -> None:
    """A worker ignores Ctrl-C and SIGTERM sent to the whole process group: the parent stops the map and
    unwinds its atomic writes, and a worker interrupted mid-item would only print a stack. It starts with
    them held (signals_held), so one sent while it was starting is dropped here, never raised."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, INTERRUPTS)
