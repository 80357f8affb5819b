"""``each_in_threads``: every item runs; the first failure surfaces at once, stops the running items at their
next step and drops the items not started (assemble's Parquet writers, one config per core)."""

from __future__ import annotations

import threading
import time

import pytest

from groundbench.core.parallel import each_in_threads


def test_every_item_runs_once() -> None:
    seen: list[int] = []
    lock = threading.Lock()

    def record(item: int, stop: threading.Event) -> None:
        with lock:
            seen.append(item)

    each_in_threads(record, list(range(20)), 2)
    assert sorted(seen) == list(range(20))


def test_a_failure_stops_the_running_item_and_drops_the_rest() -> None:
    started: list[int] = []
    stopped_early: list[int] = []

    def work(item: int, stop: threading.Event) -> None:
        started.append(item)
        if item == 1:
            raise ValueError("item 1 is bad")
        for _ in range(500):  # a long item that looks at stop between its steps
            if stop.is_set():
                stopped_early.append(item)
                return
            time.sleep(0.01)

    began = time.perf_counter()
    with pytest.raises(ValueError, match="item 1 is bad"):
        each_in_threads(work, list(range(10)), 2)
    assert time.perf_counter() - began < 4  # not the 5 s the long item takes when nobody stops it
    assert stopped_early == [0]  # the item running beside the failure ended at its next step
    assert set(started) <= {0, 1, 2}  # at most one more item began before the failure was seen
