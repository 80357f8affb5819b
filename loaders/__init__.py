"""What users call: load a config of a published GroundBench folder (local or on the Hub)."""

from __future__ import annotations

import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Literal, TypeVar, overload

from groundbench.loaders.published import (
    SPLIT,
    check_format_version,
    config_dir,
    content_key,
    listing_key,
    recorded_config_files,
    resolve_folder,
    seal_store,
    unsealed_files,
)

if TYPE_CHECKING:
    from datasets import Dataset, DatasetBuilder, IterableDataset

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
    unchanged card would be answered with the previous rows. Files not yet remembered are hashed while
    ``datasets`` converts them (a first call costs about what ``load_dataset``'s does on two cores), under the
    key of the card's record; the rows are returned only once every file matches it.
    """
    quiet_progress()  # datasets' bars only on a terminal, never in a script's log
    path = resolve_folder(folder)  # the one rule of every --data: see groundbench.core.datafolder
    check_format_version(path)
    config_dir(path, config)  # an unpublished config: one clear error naming the configs there are
    seals = seal_store(cache_dir)
    recorded = recorded_config_files(path, config)
    if streaming or recorded is None or not unsealed_files(path, config, seals):
        builder = _builder(path, config, cache_dir, content_key(path, config, seals))  # checked first (cheap)
        return builder.as_streaming_dataset(split=SPLIT) if streaming else _prepared(builder)
    return _load_while_sealing(path, config, cache_dir, seals, recorded)


UNVERIFIED = ".groundbench-unverified"  # beside a cache being built while its files' seal check runs


def _load_while_sealing(
    path: Path, config: str, cache_dir: str | Path | None, seals: Path, recorded: dict[str, str]
) -> Dataset:
    """Load under the key of the card's record while the files not yet remembered are hashed (a thread: hashing
    releases the GIL, so it overlaps ``datasets``' conversion on another core); the dataset is returned only
    once the seal check has passed.

    A cache built by this call from files that fail the check is removed, and so is one whose check never
    finished (a killed process): a marker file beside it says so until the check passes."""
    builder = _builder(path, config, cache_dir, listing_key(recorded))
    cache = Path(builder.cache_dir)
    unverified = cache.with_name(cache.name + UNVERIFIED)
    if unverified.exists():  # an earlier build here was never checked: build it again
        shutil.rmtree(cache, ignore_errors=True)
    built_now = not cache.exists()
    if built_now:
        unverified.parent.mkdir(parents=True, exist_ok=True)
        unverified.touch()
    with ThreadPoolExecutor(max_workers=1) as pool:
        sealed = pool.submit(content_key, path, config, seals)
        try:
            dataset = _prepared(builder)
        finally:
            failure = sealed.exception()  # waits for the check, also when loading failed
    if failure is not None:
        if built_now:
            shutil.rmtree(cache, ignore_errors=True)
        unverified.unlink(missing_ok=True)
        raise failure
    unverified.unlink(missing_ok=True)
    return dataset


def _builder(path: Path, config: str, cache_dir: str | Path | None, key: str) -> DatasetBuilder:
    """``datasets``' builder of the config, its cache keyed on the content: ``datasets`` keys a local folder's
    cache on its card alone. The key travels as the builder config's ``description``, the one free-text field
    of a config that enters its cache directory name."""
    from datasets import load_dataset_builder  # here, not above: the pipeline reads published folders without it

    return load_dataset_builder(
        str(path),
        config,
        cache_dir=None if cache_dir is None else str(cache_dir),
        description=f"GroundBench {config}, data files sha256 {key}",
    )


def _prepared(builder: DatasetBuilder) -> Dataset:
    """The ``test`` split as ``datasets.load_dataset`` makes it from this builder (its default modes)."""
    from datasets.utils.info_utils import is_small_dataset

    builder.download_and_prepare()
    return builder.as_dataset(split=SPLIT, in_memory=is_small_dataset(builder.info.dataset_size))


def excluded_free(dataset: DatasetT) -> DatasetT:
    """Rows kept for evaluation: excluded rows stay in the release, documented, but are not scored."""
    return dataset.filter(lambda excluded: not excluded, input_columns="excluded")
