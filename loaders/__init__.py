"""What users call: load a config of a published GroundBench folder (local or on the Hub)."""

from __future__ import annotations

from pathlib import Path

from datasets import Dataset, load_dataset

from groundbench.core.published import SPLIT, check_format_version, resolve_folder


def load_config(config: str, folder: str | Path | None = None, cache_dir: str | Path | None = None) -> Dataset:
    """The ``test`` split of one config, from a published folder (a path) or a Hub repo id ``ORG/NAME``.

    Without ``folder``: ``$GROUNDBENCH_DATA``, else the ``data/groundbench`` of the checkout this package
    runs from; never the working directory. The data's format version is checked against the package's
    first (a clear error on a mismatch, never a silent misread).
    """
    path = resolve_folder(folder)
    check_format_version(path)
    return load_dataset(str(path), config, split=SPLIT, cache_dir=None if cache_dir is None else str(cache_dir))


def excluded_free(dataset: Dataset) -> Dataset:
    """Rows kept for evaluation: excluded rows stay in the release, documented, but are not scored."""
    return dataset.filter(lambda excluded: not excluded, input_columns="excluded")
