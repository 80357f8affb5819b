"""The ``dask`` engine of ``ordered_map``: the same windowed, ordered map on a Dask distributed cluster.

Dask rather than Ray: pure-Python wheels on PyPI (no 200 MB binary, no raylet/GCS daemons), a
scheduler and workers started with two plain commands (``dask-scheduler``, ``dask-worker ADDR``),
and futures whose results we can consume in submission order, which is all an ordered map needs.
Workers must import ``groundbench`` (same package version) and see the source paths the items name.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from distributed import WorkerPlugin

from groundbench.core.errors import GroundBenchError
from groundbench.core.parallel import apply_chunk, chunk_size, windowed, worker_count

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


class MirrorSources(WorkerPlugin):
    """Worker plugin: each worker copies the source URLs to the local paths the driver's items name."""

    def __init__(self, urls: tuple[str, ...]) -> None:
        self.urls = urls

    def setup(self, worker: Any) -> None:  # type: ignore[override]
        from groundbench.core.remote import mirror

        for url in self.urls:
            mirror(url)
