"""What users call: load a config of a built or downloaded GroundBench folder."""

from __future__ import annotations

from pathlib import Path

from datasets import Dataset, load_dataset

from groundbench.shards import SPLIT


def load_config(config: str, folder: str | Path = "data/groundbench", cache_dir: str | Path | None = None) -> Dataset:
    """The ``test`` split of one config, from a local GroundBench folder (offline) or a Hub id."""
    return load_dataset(str(folder), config, split=SPLIT, cache_dir=None if cache_dir is None else str(cache_dir))


def excluded_free(dataset: Dataset) -> Dataset:
    """Rows kept for evaluation: excluded rows stay in the release, documented, but are not scored."""
    return dataset.filter(lambda excluded: not excluded, input_columns="excluded")
