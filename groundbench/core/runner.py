"""The converter contract and the one runner that writes every source's configs.

A source (``converters/<name>/``) only says *what* its rows are: it lists its items (picklable, in a
fixed order) and turns one item into a result, in a worker process (:attr:`Source.convert`); back in
the writing process, :meth:`Source.accept` turns each result, in item order, into rows of its configs
plus their manifest entries (:class:`Emit`), and :meth:`Source.finalize` writes what needs everything
seen (a curated selection, a re-ask derivation, the summary). The runner does the rest, the same for
every source, as the Hugging Face ``datasets`` packaged builders do: the ordered parallel map with
bounded memory (:func:`groundbench.core.parallel.ordered_map`), one shard writer and one image manifest
per config, the atomic output folder (a failed run leaves the previous output in place), ``ABSENT``
markers for configs without data, and the progress bar.

One name per job: a *batch step* is what each Arrow batch of a config goes through just before it is
written (:meth:`Source.batch_step`, then the runner's ``batch_step``: the per-row baselines);
``finalize`` is the source's last word. One output channel: rows and the summary go through
:class:`Output`, which owns the summary's serialisation (no source writes a file itself).

Output: ``<out>/<config>/`` (shards + ``manifest.jsonl``) for every config of the source,
``<out>/<config>/ABSENT`` for each absent one, and the source's summary (``summary.json``, when it has one).
"""

from __future__ import annotations

import dataclasses
import json
from abc import ABC, abstractmethod
from collections.abc import Callable, Generator, Iterable, Mapping, Sequence
from contextlib import ExitStack, closing
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Generic, TypeVar, cast

import pyarrow as pa
from tqdm import tqdm

from groundbench.core.atomic import atomic_dir
from groundbench.core.manifests import ManifestEntry, write_manifest
from groundbench.core.parallel import ordered_map
from groundbench.core.params import ShardParams
from groundbench.core.shards import ShardWriter

if TYPE_CHECKING:
    from groundbench.core.params import Params

ABSENT_MARKER = "ABSENT"
MANIFEST = "manifest.jsonl"
SUMMARY = "summary.json"

Step = Callable[[pa.RecordBatch], pa.RecordBatch]  # one Arrow batch in, the batch to write out
I = TypeVar("I")  # noqa: E741 - an item, as the source lists it
R = TypeVar("R")  # what converting one item gives


@dataclass(frozen=True)
class Context:
    """What a source's factory (its registry entry) is given to build the source."""

    root: Path  # the repository root: relative paths in params.yaml resolve against it
    params: Params
    interim: Path  # data/interim: where sources are written (and derived sources read their inputs)
    name: str  # the registry name being built (one factory may serve several formats)


@dataclass(frozen=True)
class Emit:
    """Rows of one config, sorted by ``example_id`` and after every row emitted for it before.

    ``rows`` are records (dicts) or an Arrow batch built in the worker (written through the config's
    ``batch_step``); ``manifest`` the entries of their images (a later entry for the same sha256
    replaces an earlier one).
    """

    config: str
    rows: Sequence[dict[str, Any]] | pa.RecordBatch = ()
    manifest: Iterable[ManifestEntry] = ()


@dataclass(frozen=True)
class MapOptions:
    """How the items are mapped; every field is passed to ``ordered_map`` as a keyword, in one place."""

    workers: int  # processes (1 = in this process)
    window: int  # items in flight at once (bounds memory)
    threads: int = 1  # with one worker: threads of this process running the items (work that releases the GIL)

    def as_kwargs(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}


class Source(ABC, Generic[I, R]):
    """The contract of a source format: what a ``converters/<name>/`` module gives the runner.

    Subclasses set the class attributes and :attr:`convert` and implement the abstract :meth:`items`,
    :meth:`map_options` and :meth:`accept`; the other hooks default to "nothing to add".
    """

    label: str = ""  # progress bar description, e.g. "umd frames"
    unit: str = "item"
    configs: tuple[str, ...] = ()  # configs written (each gets shards and a manifest, even with 0 rows)
    summary: Mapping[str, Any] = MappingProxyType({})  # what finalize wrote as summary.json (read by `derive`, report)

    # A module-level function (or functools.partial of one): it runs in worker processes.
    convert: Callable[[I], R]

    @abstractmethod
    def items(self) -> Sequence[I]:
        """The items to convert, picklable, in a fixed order."""

    @abstractmethod
    def map_options(self, items: Sequence[I]) -> MapOptions:
        """Workers and window for these items (from the source's params section)."""

    def absent(self) -> Mapping[str, str]:
        """Configs of this source without data -> the one line of their ``ABSENT`` marker."""
        return {}

    def batch_step(self, config: str) -> Step | None:
        """The step each Arrow batch of ``config`` goes through just before it is written (e.g. embedding images)."""
        return None

    def total(self, items: Sequence[I]) -> int:
        """Progress units of the whole run (default: one per item)."""
        return len(items)

    def units(self, result: R) -> int:
        return 1

    @abstractmethod
    def accept(self, result: R) -> Iterable[Emit]:
        """One item's result, in item order, as rows to write (the source may keep what it needs to finalize)."""

    def finalize(self, output: Output) -> None:
        """After every result was accepted: write what needs all of them (curated selection, derivations) and
        the summary, through ``output``."""

    def report(self, progress: bool) -> None:
        """After the output is in place: what to tell the user (stderr; ``progress`` is False under --quiet)."""


class Output:
    """The writing side of a run: the rows of every config (from :meth:`Source.accept` and
    :meth:`Source.finalize`) and the source's summary."""

    def __init__(self, folder: Path, writers: dict[str, ShardWriter]) -> None:
        self.folder = folder
        self._writers = writers
        self.manifests: dict[str, dict[str, ManifestEntry]] = {config: {} for config in writers}
        # Rows handed to each writer (its own count lags: it counts rows flushed, not rows buffered).
        self._rows = dict.fromkeys(writers, 0)

    def write(self, emit: Emit) -> None:
        writer = self._writers[emit.config]
        if isinstance(emit.rows, pa.RecordBatch):
            writer.add_rows(emit.rows)
            self._rows[emit.config] += emit.rows.num_rows
        else:
            for record in emit.rows:
                writer.add(record)
            self._rows[emit.config] += len(emit.rows)
        for entry in emit.manifest:
            self.manifests[emit.config][entry.sha256] = entry

    def rows(self, config: str) -> int:
        """Rows of ``config`` written so far (all of them once the map is done)."""
        return self._rows[config]

    def counts(self) -> dict[str, int]:
        return dict(self._rows)

    def write_summary(self, summary: Mapping[str, Any]) -> None:
        """``summary.json`` beside the configs: one serialiser for every source (keys sorted, one-space
        indent, UTF-8 text as it is, e.g. a ``grasp→pull`` transition, never ``\\u`` escapes)."""
        text = json.dumps(summary, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
        (self.folder / SUMMARY).write_text(text, encoding="utf-8")


def write_absent(folder: Path, markers: Mapping[str, str]) -> None:
    """``<folder>/<config>/ABSENT`` holding its one-line reason, for each config."""
    for config, line in sorted(markers.items()):
        (folder / config).mkdir()
        (folder / config / ABSENT_MARKER).write_text(f"{line}\n", encoding="utf-8")


def mark_absent(out: Path, markers: Mapping[str, str]) -> None:
    """Replace ``out`` with only the ``ABSENT`` markers (a source left out of the build)."""
    with atomic_dir(out) as tmp:
        write_absent(tmp, markers)


def _then(first: Step | None, second: Step | None) -> Step | None:
    """``first`` then ``second`` (either may be absent)."""
    if first is None or second is None:
        return first or second

    def both(batch: pa.RecordBatch) -> pa.RecordBatch:
        return second(first(batch))

    return both


def run(
    source: Source[Any, Any],
    out: Path,
    shards: ShardParams,
    progress: bool = True,
    engine: Mapping[str, Any] = MappingProxyType({}),
    batch_step: Step | None = None,
) -> dict[str, int]:
    """Convert ``source`` into ``out`` (replaced atomically); returns rows per config.

    ``engine``: further ``ordered_map`` keywords for every source alike (how and where the map runs),
    added to the source's own :class:`MapOptions`. ``batch_step``: the step every config's batches take
    after the source's own :meth:`Source.batch_step` (the pipeline bakes the per-row baselines there, so
    the rows leave the writer as ``groundbench bake`` would write them and bake can link the files).
    """
    items = source.items()
    options = {**source.map_options(items).as_kwargs(), **engine}
    with atomic_dir(out) as tmp:
        write_absent(tmp, source.absent())
        with ExitStack() as stack:
            writers = {
                config: stack.enter_context(
                    ShardWriter(
                        tmp / config,
                        shards.max_bytes,
                        shards.rows_per_batch,
                        batch_step=_then(source.batch_step(config), batch_step),
                    )
                )
                for config in source.configs
            }
            output = Output(tmp, writers)
            # ordered_map is a generator: closing it on an error shuts its workers down at once.
            mapped = cast(Generator[Any], ordered_map(source.convert, items, **options))
            results = stack.enter_context(closing(mapped))
            # disable=None: tqdm draws only on a terminal, never into a log (dvc repro, CI).
            bar = stack.enter_context(
                tqdm(total=source.total(items), desc=source.label, unit=source.unit, disable=None if progress else True)
            )
            for result in results:
                for emit in source.accept(result):
                    output.write(emit)
                bar.update(source.units(result))
            source.finalize(output)
        # The writers are closed (each replaced its folder): the manifests go in beside the shards.
        for config in source.configs:
            write_manifest(tmp / config / MANIFEST, output.manifests[config])
        counts = output.counts()
    source.report(progress)
    return counts
