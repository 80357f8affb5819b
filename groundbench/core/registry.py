"""Which configs exist, which source feeds each, what a row of each is, and which converter builds it:
made from the source folders' specs (``converters/<name>/spec.py``, listed in ``converters/__init__.py``).

A folder's spec is loaded only when a command asks for it, and a command may be limited to some folders
(:func:`limited`): a stage that serves one source (``--folder NAME``: its sample, convert, derive stages)
loads that folder's spec and no other, so editing another source's spec re-runs none of its stages
(``groundbench dvc-deps`` follows the same folders). The module-level names below (``CONFIGS``,
``SOURCES``, ...) are those of every folder the command may load (all of them unless it is limited), read
when used: code on a stage's path reads ``registry.NAME`` where it needs it, not at import.

Adding a source format: docs/adding-a-source.md (its folder plus one line in that listing).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from groundbench.core.plugins import load
from groundbench.core.spec import Card, ConfigInfo, Fetch, Folder, Sample, SourceSpec
from groundbench.errors import GroundBenchError
from groundbench.schemas.folders import SPEC, listed, module_of

__all__ = ["BY_NAME", "CONFIGS", "DEFAULT_CONFIG", "SOURCES", "ConfigInfo", "SourceInfo", "View"]

HERE = "groundbench/core/registry.py"
DEFAULT_CONFIG = "curated_gapartnet"


@dataclass(frozen=True)
class SourceInfo:
    """A converter: ``groundbench convert NAME`` (or ``derive NAME``) runs its source through the runner."""

    name: str
    factory: str  # "module:function" making its runner.Source from a runner.Context (imported when run)
    reads: str = ""  # key under `sources:` whose null leaves it out; "" = its name
    interim: str = ""  # folder under data/interim/ it writes; "" = its name
    derived: bool = False  # made by `groundbench derive` from rows other sources converted
    # "module:function" writing its embedded sample: write(root, params, progress=False) -> int; "" = none
    sample: str = ""

    @property
    def reads_from(self) -> str:
        return self.reads or self.name

    @property
    def interim_folder(self) -> str:
        return self.interim or self.name


def spec_ref(folder: str) -> str:
    """The "module:SPEC" reference of a listed folder's spec."""
    packages = listed()
    if folder not in packages:
        raise GroundBenchError(
            HERE, "folder", f"expected one of the listed source folders {list(packages)}, got {folder!r}"
        )
    return f"{module_of(packages[folder], SPEC)}:SPEC"


# The folders this process may load now (None: every listed one).
_scope: tuple[str, ...] | None = None


@contextmanager
def limited(folders: Iterable[str] | None) -> Iterator[None]:
    """Inside: load no source folder but ``folders`` (None: no further limit); the limit before is restored after.

    A stage command runs inside the folders it serves (``groundbench.stages.command.stage_folders``), first
    while its parser is built (its ``--folder``), then while it runs; ``groundbench dvc-deps`` makes the
    stage depend on exactly those folders' specs, so reading any other folder fails here instead."""
    global _scope
    if folders is None:
        yield
        return
    wanted = tuple(dict.fromkeys(folders))
    for name in wanted:
        spec_ref(name)  # a listed folder, or one clear error
    before = _scope
    _scope = wanted if before is None else tuple(name for name in before if name in wanted)
    try:
        yield
    finally:
        _scope = before


def in_scope() -> tuple[str, ...]:
    """The folders this process may load, in listing order."""
    return tuple(name for name in listed() if _scope is None or name in _scope)


def folder(name: str) -> Folder:
    """A listed folder's spec, loaded now (an error outside the process's limit)."""
    if name not in in_scope():
        raise GroundBenchError(
            HERE, "folder", f"this process loads only the source folders {list(in_scope())}, not {name!r}"
        )
    return _load(name)


@functools.cache
def _load(name: str) -> Folder:
    loaded = load(spec_ref(name))
    where = f"converters/{name}/spec.py"
    if not isinstance(loaded, Folder):
        raise GroundBenchError(where, "SPEC", "expected a groundbench.core.spec.Folder")
    own = {s.name for s in loaded.sources}
    for s in loaded.sources:
        # A stage loads one folder: a derived source reads rows its own folder converts.
        if s.reads and s.reads not in own:
            raise GroundBenchError(where, f"{s.name}.reads", f"expected a source of this folder {sorted(own)}")
    return loaded


@dataclass(frozen=True, eq=False)  # one per process and limit: compared (and cached) by identity
class View:
    """What a set of source folders declares, indexed the ways the stages look things up."""

    names: tuple[str, ...]  # the folders, in listing order
    folders: tuple[Folder, ...]
    complete: bool  # every listed folder (params.yaml is then validated whole)

    @functools.cached_property
    def specs(self) -> tuple[SourceSpec, ...]:
        return tuple(s for f in self.folders for s in f.sources)

    @functools.cached_property
    def samples(self) -> dict[str, Sample]:
        return {sample.name: sample for f in self.folders for sample in f.samples}

    @functools.cached_property
    def configs(self) -> tuple[ConfigInfo, ...]:
        return tuple(c for s in self.specs for c in s.configs)

    @functools.cached_property
    def sources(self) -> dict[str, SourceInfo]:
        return {
            s.name: SourceInfo(
                s.name, s.factory, s.reads, s.interim, s.derived, self.samples[s.sample].writer if s.sample else ""
            )
            for s in self.specs
        }

    @functools.cached_property
    def folder_of(self) -> dict[str, str]:
        """Source, sample and config name -> the folder declaring it."""
        found: dict[str, str] = {}
        for name, f in zip(self.names, self.folders, strict=True):
            for s in f.sources:
                found.update({s.name: name, **{c.name: name for c in s.configs}})
            found.update({sample.name: name for sample in f.samples})
        return found

    def facts_hook(self, config: str) -> str:
        """The "module:Class" of the card facts the config's folder adds ("" when it adds none)."""
        return self.folders[self.names.index(self.folder_of[config])].facts


def view() -> View:
    """The folders this process may load now (every listed one unless limited), loaded."""
    return _view(in_scope())


@functools.cache  # one view per set of folders: what is made from it (params models, catalogue) is cached by it
def _view(names: tuple[str, ...]) -> View:
    return View(names, tuple(folder(name) for name in names), complete=names == tuple(listed()))


@functools.cache
def _names(v: View) -> dict[str, Any]:
    """The module-level names, computed from a view."""
    specs = v.specs
    return {
        "FOLDERS": v.folders,
        "SPECS": specs,
        "SAMPLES": v.samples,
        "CONFIGS": v.configs,
        "BY_NAME": {c.name: c for c in v.configs},
        "SOURCES": v.sources,
        "BY_SPEC": {s.name: s for s in specs},
        # Sources whose key under `sources:` is nested (sources.gui.<name>); their embedded sample lives in the
        # matching nested folder (<sample.root>/gui/<name>).
        "NESTED_SOURCES": {s.name: s.sources_key for s in specs if s.sources_key and s.sources_key != s.name},
        # The card's source table: each source's entry, then the folders' other entries (shared assets, samples).
        "CARDS": {
            **{s.name: s.card for s in specs if s.card is not None},
            **{key: card for f in v.folders for key, card in f.cards.items()},
        },
        # BibTeX entries the folders bring themselves (the card adds them to cards/citations.bib's).
        "BIBTEX": tuple(entry for f in v.folders for entry in f.bibtex),
        # What `groundbench fetch NAME` downloads.
        "FETCHES": {s.name: s.fetch for s in specs if s.fetch is not None},
    }


if TYPE_CHECKING:
    FOLDERS: tuple[Folder, ...]
    SPECS: tuple[SourceSpec, ...]
    SAMPLES: dict[str, Sample]
    CONFIGS: tuple[ConfigInfo, ...]
    BY_NAME: dict[str, ConfigInfo]
    SOURCES: dict[str, SourceInfo]
    BY_SPEC: dict[str, SourceSpec]
    NESTED_SOURCES: dict[str, str]
    CARDS: dict[str, Card]
    BIBTEX: tuple[str, ...]
    FETCHES: dict[str, Fetch]
else:
    NAMES = ("FOLDERS", "SPECS", "SAMPLES", "CONFIGS", "BY_NAME", "SOURCES", "BY_SPEC", "NESTED_SOURCES", "CARDS")
    NAMES += ("BIBTEX", "FETCHES")

    def __getattr__(name: str) -> Any:
        # PEP 562: the names above load the command's folders when first read, not when this module is imported.
        # Any other name (``__path__``, which every ``from ... import`` asks for) loads nothing.
        if name not in NAMES:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        return _names(view())[name]


def sources_key(name: str) -> str:
    """A source's key under ``sources:`` in params.yaml (``umd``, ``gui.pointerbench``)."""
    spec = {s.name: s for s in view().specs}.get(name)
    return (spec.sources_key or spec.name) if spec is not None else name


def configs_of(name: str) -> tuple[str, ...]:
    """The configs a source's rows become: its own, and those derived from it."""
    return tuple(c.name for s in view().specs if s.name == name or s.reads == name for c in s.configs)
