"""Which configs exist, which source feeds each, what a row of each is, and which converter builds it:
made from the source folders' specs (``converters/<name>/spec.py``, listed in ``converters/__init__.py``).

Adding a source format: docs/adding-a-source.md (its folder plus one line in that listing).
"""

from __future__ import annotations

from dataclasses import dataclass

from groundbench.core.plugins import load
from groundbench.core.spec import Card, ConfigInfo, Fetch, Folder, Sample, SourceSpec

# Named by string, not imported: the specs import the core, so the core loads them as plug-ins.
LISTING = "groundbench.converters:FOLDERS"

__all__ = ["BY_NAME", "CONFIGS", "DEFAULT_CONFIG", "SOURCES", "ConfigInfo", "SourceInfo"]


def _folders() -> tuple[Folder, ...]:
    return tuple(load(reference) for reference in load(LISTING))


FOLDERS: tuple[Folder, ...] = _folders()
SPECS: tuple[SourceSpec, ...] = tuple(s for f in FOLDERS for s in f.sources)
SAMPLES: dict[str, Sample] = {sample.name: sample for f in FOLDERS for sample in f.samples}

CONFIGS: tuple[ConfigInfo, ...] = tuple(c for s in SPECS for c in s.configs)
BY_NAME = {c.name: c for c in CONFIGS}
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


SOURCES: dict[str, SourceInfo] = {
    s.name: SourceInfo(s.name, s.factory, s.reads, s.interim, s.derived, SAMPLES[s.sample].writer if s.sample else "")
    for s in SPECS
}
BY_SPEC: dict[str, SourceSpec] = {s.name: s for s in SPECS}

# Sources whose key under `sources:` is nested (sources.gui.<name>); their embedded sample lives in the
# matching nested folder (<sample.root>/gui/<name>).
NESTED_SOURCES: dict[str, str] = {s.name: s.sources_key for s in SPECS if s.sources_key and s.sources_key != s.name}

# The row `source` values a record may carry (schemas/rules.py checks them).
ROW_SOURCES: tuple[str, ...] = tuple(
    dict.fromkeys(
        [
            *(name for s in SPECS for name in (s.row_sources if s.row_sources is not None else (s.name,))),
            *(name for sample in SAMPLES.values() for name in sample.row_sources),
        ]
    )
)

# The card's source table: each source's entry, then the folders' other entries (shared assets, samples).
CARDS: dict[str, Card] = {
    **{s.name: s.card for s in SPECS if s.card is not None},
    **{key: card for f in FOLDERS for key, card in f.cards.items()},
}

# BibTeX entries the folders bring themselves (the card adds them to cards/citations.bib's).
BIBTEX: tuple[str, ...] = tuple(entry for f in FOLDERS for entry in f.bibtex)

# What `groundbench fetch NAME` downloads.
FETCHES: dict[str, Fetch] = {s.name: s.fetch for s in SPECS if s.fetch is not None}


def sources_key(name: str) -> str:
    """A source's key under ``sources:`` in params.yaml (``umd``, ``gui.pointerbench``)."""
    spec = BY_SPEC.get(name)
    return (spec.sources_key or spec.name) if spec is not None else name


def configs_of(name: str) -> tuple[str, ...]:
    """The configs a source's rows become: its own, and those derived from it."""
    return tuple(c.name for s in SPECS if s.name == name or s.reads == name for c in s.configs)
