"""The ``dask`` engine of ``ordered_map``: the same windowed, ordered map on a Dask distributed cluster.

Dask rather than Ray: pure-Python wheels on PyPI (no 200 MB binary, no raylet/GCS daemons), a
scheduler and workers started with two plain commands (``dask-scheduler``, ``dask-worker ADDR``),
and futures whose results we can consume in submission order, which is all an ordered map needs.
Workers must import ``groundbench`` (same package version) and see the source paths the items name.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import dask.config
from distributed import WorkerPlugin

from groundbench.core.windows import apply_chunk, chunk_size, windowed, worker_count
from groundbench.errors import GroundBenchError

# Dask's nannies start every worker with MALLOC_TRIM_THRESHOLD_=65536. Setting that variable at all
# turns off glibc's dynamic mmap threshold, so every large buffer (a decoded image, a decompressed .mat
# variable) becomes an mmap, page faults and an munmap. The statistical profiler samples the running
# task's stack every 10 ms. Measured on UMD, worker CPU: 10.5 s on Dask's defaults, 7.3 s without the
# variable, 5.9 s without the profiler as well (our pool: 5.8 s). The settings live in one YAML file,
# which workers started by hand read through DASK_CONFIG (docs/scaling.md).
WORKER_CONFIG_DIR = Path(__file__).with_name("dask_config")


def worker_config() -> dict[str, Any]:
    """The file's settings as dotted keys: ``dask.config.set`` replaces whole sections given as nested dicts."""

    def leaves(tree: dict[str, Any], prefix: str) -> Iterator[tuple[str, Any]]:
        for key, value in tree.items():
            if isinstance(value, dict):
                yield from leaves(value, f"{prefix}{key}.")
            else:
                yield f"{prefix}{key}", value

    return dict(leaves(dask.config.collect(paths=[str(WORKER_CONFIG_DIR)], env={}), ""))


T = TypeVar("T")
R = TypeVar("R")


@dataclass
class DaskBackend:
    client: Any
    cluster: Any  # the LocalCluster we started, or None when connected to a running scheduler

    @classmethod
    def start(cls, address: str | None, mirrors: tuple[str, ...] = ()) -> DaskBackend:
        backend = cls._connect(address)
        if mirrors:
            backend.client.register_plugin(MirrorSources(mirrors), name="groundbench-mirror-sources")
        return backend

    @classmethod
    def _connect(cls, address: str | None) -> DaskBackend:
        from distributed import Client, LocalCluster

        if address is None:
            # Processes (not threads: the per-item work holds the GIL), loopback only, no dashboard.
            with dask.config.set(worker_config()), environ_kept():
                cluster = LocalCluster(
                    n_workers=worker_count(0),
                    threads_per_worker=1,
                    processes=True,
                    host="127.0.0.1",
                    dashboard_address=None,
                    silence_logs=40,
                )
            return cls(Client(cluster), cluster)
        try:
            client = Client(address, timeout=30)
        except OSError as exc:
            raise GroundBenchError("engine.address", address, f"cannot reach the Dask scheduler ({exc})") from exc
        return cls(client, None)

    def workers(self) -> int:
        return max(1, len(self.client.scheduler_info(n_workers=-1)["workers"]))

    def ordered_map(self, func: Callable[[T], R], items: Sequence[T], window: int) -> Iterator[R]:
        size = chunk_size(window, self.workers())
        # The function goes to the cluster once, not with every chunk.
        [remote_func] = self.client.scatter([func], broadcast=True, hash=False)
        pending: deque[Any] = deque()
        try:
            yield from windowed(self._submitter(remote_func), items, size, window, pending)
        finally:
            # An error (or the caller closing the generator) leaves nothing running on the cluster.
            for future in pending:
                future.cancel()
            remote_func.release()

    def _submitter(self, remote_func: Any) -> Callable[[list[Any]], Any]:
        def submit(batch: list[Any]) -> Any:
            return self.client.submit(apply_chunk, remote_func, batch, pure=False)

        return submit

    def close(self) -> None:
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()


@contextmanager
def environ_kept() -> Iterator[None]:
    """Undo what starting the cluster does to this process's environment: each nanny writes its workers'
    variables into ``os.environ`` before spawning them, and our own pool's workers (started later by the
    same process) would inherit them."""
    before = dict(os.environ)
    try:
        yield
    finally:
        for name in set(os.environ) - set(before):
            del os.environ[name]
        os.environ.update(before)


class MirrorSources(WorkerPlugin):
    """Worker plugin: each worker copies the source URLs to the local paths the driver's items name."""

    def __init__(self, urls: tuple[str, ...]) -> None:
        self.urls = urls

    def setup(self, worker: Any) -> None:  # type: ignore[override]
        from groundbench.core.remote import mirror

        for url in self.urls:
            mirror(url)
