"""The images eval sends, read through maps of the config's Arrow cache whose pages are handed back.

Every row's bytes must be the dataset's own, whether read through the maps (a loaded config), or through the
dataset's table (held in memory, or behind an indices mapping); and once read, the maps' pages must leave the
process's resident set (measured in /proc/self/smaps, the figure RSS is made of).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pyarrow as pa
import pytest
from datasets import Dataset

from groundbench.evaluate import image_column as module
from groundbench.evaluate.image_column import ImageColumn, image_column
from groundbench.evaluate.samples import rows_table
from groundbench.loaders import load_config

CONFIG = "bulk_umd"


@pytest.fixture
def loaded(published_sample: Path, tmp_path: Path) -> Dataset:
    return load_config(CONFIG, published_sample, cache_dir=tmp_path / "cache")


def own_bytes(dataset: Dataset) -> list[bytes]:
    return [image["bytes"] for image in rows_table(dataset).column("image").to_pylist()]


def resident_bytes(column: ImageColumn) -> int:
    """RSS of the column's own maps: the smaps entries that start at their addresses."""
    starts = {pa.py_buffer(mapped).address for mapped in column.maps}
    total, counting = 0, False
    with open("/proc/self/smaps") as smaps:
        for line in smaps:
            head = line.split()[0]
            if "-" in head and not head.endswith(":"):  # a mapping's first line: start-end perms ...
                counting = int(head.split("-")[0], 16) in starts
            elif counting and head == "Rss:":
                total += int(line.split()[1]) * 1024
    return total


def test_a_loaded_config_is_read_through_maps_of_its_own_with_the_same_bytes(loaded: Dataset) -> None:
    column = image_column(loaded, rows_table(loaded))
    assert len(column.maps) == len(loaded.cache_files) > 0
    assert [column.bytes_at(index) for index in range(len(loaded))] == own_bytes(loaded)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/smaps")
def test_pages_read_leave_the_resident_set_once_drop_bytes_are_read(
    loaded: Dataset, monkeypatch: pytest.MonkeyPatch
) -> None:
    column = image_column(loaded, rows_table(loaded))
    expected = own_bytes(loaded)
    monkeypatch.setattr(module, "DROP_BYTES", sum(map(len, expected)) + 1)  # no drop while reading them all
    assert [column.bytes_at(index) for index in range(len(loaded))] == expected
    assert resident_bytes(column) >= sum(map(len, expected)) // 2  # pages touched, and counted
    assert column.unreleased == sum(map(len, expected))
    column.release()
    assert resident_bytes(column) == 0 and column.unreleased == 0
    monkeypatch.setattr(module, "DROP_BYTES", 1)  # a drop after every image: still the same bytes
    assert [column.bytes_at(index) for index in reversed(range(len(loaded)))] == expected[::-1]
    assert resident_bytes(column) == 0


def test_rows_behind_an_indices_mapping_are_read_through_the_dataset(loaded: Dataset) -> None:
    shuffled = loaded.select(list(reversed(range(len(loaded)))))
    column = image_column(shuffled, rows_table(shuffled))
    assert column.maps == []
    assert [column.bytes_at(index) for index in range(len(shuffled))] == own_bytes(loaded)[::-1]


def test_a_dataset_in_memory_is_read_through_its_table(loaded: Dataset) -> None:
    in_memory = Dataset(rows_table(loaded))
    column = image_column(in_memory, rows_table(in_memory))
    assert column.maps == []
    assert [column.bytes_at(index) for index in range(len(in_memory))] == own_bytes(loaded)
