"""Ordered parallel map with bounded memory: items are processed in windows across workers.

The workers are our own process pool, or a Dask distributed cluster when the caller passes a
:class:`DaskCluster` (:mod:`groundbench.core.dask_engine`; ``stages/engine.py``'s ``map_engine`` does, from
params.yaml ``engine``). Both yield the same results in the same order, so the bytes written from
them are identical.
"""

from __future__ import annotations

import multiprocessing
import os
import queue
import signal
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
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
    func: Callable[[T], R],
    items: Sequence[T],
    workers: int,
    window: int,
    cluster: DaskCluster | None = None,
    threads: int = 1,
) -> Iterator[R]:
    """``map(func, items)`` in input order; at most ``window`` items are in flight at once.

    Items travel to the workers in chunks (fewer round trips), and a new chunk is submitted as soon
    as the oldest one is consumed, so the workers never wait for a whole window to drain.
    With a ``cluster`` ``workers`` is ignored (the cluster has its own) and every map of more than one
    item runs there: asking for the cluster means the work should leave this process. A local cluster
    it starts stops when the map ends. ``threads``: with one worker, the items still run on this many threads
    of this process (for work that mostly reads files and hashes bytes, which release the GIL).
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
        if threads > 1 and len(items) > 1:
            yield from _on_threads(func, items, threads, window)
            return
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


def _on_threads(func: Callable[[T], R], items: Sequence[T], threads: int, window: int) -> Iterator[R]:
    """``ordered_map`` on threads: results in input order, so the first error raised is the first failing item's,
    as in one thread. Stopped early, chunks not started are dropped and the running ones (a few items) finish."""
    pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="groundbench-map")

    def submit(batch: list[T]) -> Any:
        return pool.submit(apply_chunk, func, batch)

    try:
        yield from windowed(submit, items, chunk_size(window, threads), window)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def each_in_threads(func: Callable[[T, threading.Event], None], items: Sequence[T], workers: int) -> None:
    """``func(item, stop)`` for every item, ``workers`` at once on threads (for work that releases the GIL).

    Every item runs to its end, and the error raised is the first item's in input order, as if they had run
    one after another: which of two configs meets a full disk first must not depend on the threads' timing.
    Only when the caller is interrupted (Ctrl-C) is ``stop`` set: the items not started are dropped, a running
    ``func`` should end at its next step, and every thread has ended before the interruption goes on.
    """
    stop = threading.Event()
    pending: queue.SimpleQueue[tuple[int, T]] = queue.SimpleQueue()
    for number, item in enumerate(items):
        pending.put((number, item))
    errors: dict[int, BaseException] = {}

    def work() -> None:
        while not stop.is_set():
            try:
                number, item = pending.get_nowait()
            except queue.Empty:
                return
            try:
                func(item, stop)
            except BaseException as exc:  # noqa: BLE001 (kept, and raised in the caller's thread below)
                errors[number] = exc

    threads = [threading.Thread(target=work, daemon=True) for _ in range(max(1, min(workers, len(items))))]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    except BaseException:
        stop.set()
        for thread in threads:
            if thread.ident is not None:  # started: its item stops at its next step
                thread.join()
        raise
    if errors:
        raise errors[min(errors)]


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
