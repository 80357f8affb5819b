"""What users call: load a config of a published GroundBench folder (local or on the Hub)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Literal, TypeVar, overload

from groundbench.loaders.published import (
    SPLIT,
    check_format_version,
    config_dir,
    content_key,
    resolve_folder,
    seal_store,
)

if TYPE_CHECKING:
    from datasets import Dataset, IterableDataset

from groundbench.core.terminal import quiet_progress

DatasetT = TypeVar("DatasetT", "Dataset", "IterableDataset")


@overload
def load_config(
    config: str,
    folder: str | Path | None = None,
    cache_dir: str | Path | None = None,
    streaming: Literal[False] = False,
) -> Dataset: ...


@overload
def load_config(
    config: str, folder: str | Path | None = None, cache_dir: str | Path | None = None, *, streaming: Literal[True]
) -> IterableDataset: ...


def load_config(
    config: str, folder: str | Path | None = None, cache_dir: str | Path | None = None, streaming: bool = False
) -> Dataset | IterableDataset:
    """The ``test`` split of one config, from a published folder (a path) or a Hub repo id ``ORG/NAME``.

    Without ``folder``: ``$GROUNDBENCH_DATA``, else the ``data/groundbench`` of the GroundBench project the
    working directory lies in (it or a parent holds ``params.yaml`` and ``dvc.yaml``), else of the checkout
    this package runs from: the rule of every command's ``--data`` (:mod:`groundbench.core.datafolder`). The
    data's format version is checked against the package's first (a clear error on a mismatch, never a
    silent misread). ``streaming=True`` reads the rows as they are iterated, as
    ``datasets.load_dataset(..., streaming=True)`` does (an ``IterableDataset``; nothing is cached).

    The config's data files are hashed and checked against the sha256s the card records (a file that
    differs is refused with an error naming it; a file is hashed once per identity, and remembered beside
    the ``datasets`` cache: ``groundbench.core.sealcache``), and the ``datasets`` cache is keyed on that content:
    ``datasets`` keys a local folder's cache on its card alone, so without this a changed file with an
    unchanged card would be answered with the previous rows. The key travels as the builder config's
    ``description``, the one free-text field of a config that enters its cache directory name.
    """
    from datasets import load_dataset  # here, not above: the pipeline reads published folders without it

    quiet_progress()  # datasets' bars only on a terminal, never in a script's log
    path = resolve_folder(folder)  # the one rule of every --data: see groundbench.core.datafolder
    check_format_version(path)
    config_dir(path, config)  # an unpublished config: one clear error naming the configs there are
    key = content_key(path, config, seal_store(cache_dir))
    return load_dataset(
        str(path),
        config,
        split=SPLIT,
        cache_dir=None if cache_dir is None else str(cache_dir),
        description=f"GroundBench {config}, data files sha256 {key}",
        streaming=streaming,
    )


def excluded_free(dataset: DatasetT) -> DatasetT:
    """Rows kept for evaluation: excluded rows stay in the release, documented, but are not scored."""
    return dataset.filter(lambda excluded: not excluded, input_columns="excluded")
