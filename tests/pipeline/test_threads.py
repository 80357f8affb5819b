"""``each_in_threads`` (assemble's Parquet writers, one config per core): every item runs; the error raised is
the first item's in input order whatever the threads' timing; Ctrl-C stops the running items at their next
step and drops the rest. ``ordered_map`` on threads (a GUI convert in one process): results in input order, the
first failing item's error, never more than a window in flight. And a shard writer whose last write fails
leaves no folder behind."""

from __future__ import annotations

import signal
import threading
import time
from pathlib import Path

import pyarrow as pa
import pytest

from groundbench.core.parallel import each_in_threads, ordered_map
from groundbench.core.shards import ShardWriter
from groundbench.errors import GroundBenchError


def test_every_item_runs_once() -> None:
    seen: list[int] = []
    lock = threading.Lock()

    def record(item: int, stop: threading.Event) -> None:
        with lock:
            seen.append(item)

    each_in_threads(record, list(range(20)), 2)
    assert sorted(seen) == list(range(20))


def test_the_error_is_the_first_items_in_input_order_whatever_fails_first() -> None:
    finished: list[int] = []

    def work(item: int, stop: threading.Event) -> None:
        if item == 0:
            time.sleep(0.3)  # item 1 fails long before item 0 does
            raise ValueError("item 0 failed")
        if item == 1:
            raise ValueError("item 1 failed")
        finished.append(item)

    with pytest.raises(ValueError, match="item 0 failed"):
        each_in_threads(work, [0, 1, 2, 3], 2)
    assert sorted(finished) == [2, 3]  # a failure does not drop the other items: each ran to its end


def test_ctrl_c_stops_the_running_item_and_drops_the_rest() -> None:
    started: list[int] = []
    stopped_early: list[int] = []

    def work(item: int, stop: threading.Event) -> None:
        started.append(item)
        if item == 0:
            # Ctrl-C reaches the main thread while it waits for the items
            signal.pthread_kill(threading.main_thread().ident or 0, signal.SIGINT)
        for _ in range(500):  # a long item that looks at stop between its steps
            if stop.is_set():
                stopped_early.append(item)
                return
            time.sleep(0.01)

    began = time.perf_counter()
    with pytest.raises(KeyboardInterrupt):
        each_in_threads(work, list(range(10)), 2)
    assert time.perf_counter() - began < 4  # not the 5 s each item takes when nobody stops it
    assert sorted(stopped_early) == sorted(started) and set(started) <= {0, 1}


def test_a_shard_writer_whose_last_batch_fails_leaves_no_folder(tmp_path: Path) -> None:
    schema = pa.schema([("example_id", pa.string()), ("x", pa.int64())])
    failing = pytest.raises(GroundBenchError, match="does not match the config's schema")
    with failing, ShardWriter(tmp_path / "config", 1 << 30, 4, schema=schema) as writer:
        for number in range(5):  # one full batch written, then one row left for the final flush
            writer.add({"example_id": f"{number:03d}", "x": number})
        writer.add({"example_id": "999", "x": "not a number"})  # fails only when the writer closes
    assert sorted(path.name for path in tmp_path.iterdir()) == []  # neither the folder nor its temporary


def test_ordered_map_on_threads_yields_in_input_order_with_a_window_in_flight() -> None:
    started: list[int] = []
    names: set[str] = set()
    lock = threading.Lock()

    def work(item: int) -> int:
        with lock:
            started.append(item)
            names.add(threading.current_thread().name)
        time.sleep(0.002 * (item % 3))  # later items often finish first
        return item * item

    results = []
    for item, result in enumerate(ordered_map(work, list(range(60)), workers=1, window=8, threads=3)):
        results.append(result)
        assert len(started) <= item + 1 + 8  # at most a window of items started ahead of the one consumed
    assert results == [i * i for i in range(60)] and sorted(started) == list(range(60))
    assert 1 < len(names) <= 3 and all(name.startswith("groundbench-map") for name in names)  # the pool's threads


def test_ordered_map_on_threads_raises_the_first_failing_items_error() -> None:
    def work(item: int) -> int:
        if item == 5:
            time.sleep(0.2)  # item 9 fails long before item 5 does
            raise ValueError("item 5 failed")
        if item == 9:
            raise ValueError("item 9 failed")
        return item

    with pytest.raises(ValueError, match="item 5 failed"):
        list(ordered_map(work, list(range(20)), workers=1, window=16, threads=2))
