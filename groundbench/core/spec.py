"""What a source folder declares about itself (``converters/<name>/spec.py``).

Every stage of a source imports its folder's spec, so specs hold only strings, these dataclasses and
pydantic models: code is named by ``"module:function"`` and imported only where it runs. The registry, the
fetch catalogue, the card's source table, ``params.yaml``'s model and ``dvc.yaml``'s per-source stages are
made from them (``groundbench.core.registry``). What the folder's rows add to the record (columns, row
``source`` values) is its ``columns.py`` (``groundbench.schemas.folders``), not its spec: those shape every
config's shards, a spec only its own stages.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import pyarrow as pa

HTTP = "http"  # one archive over HTTP(S), unpacked
HUB = "hub"  # a Hugging Face dataset repository, pinned to a commit
MANUAL = "manual"  # the user downloads it (request form); `--from` checks and unpacks it
GITHUB = "github"  # files of a GitHub repository at a pinned commit (raw.githubusercontent.com), each one checked


@dataclass(frozen=True)
class ConfigInfo:
    name: str
    source: str  # the source whose `sources:` value in params.yaml feeds it
    stratum: str
    row: str  # what one row is
    interim: str = ""  # folder under data/interim/ holding its rows; "" = the source's converter folder
    audit: str = ""  # the params.yaml key naming its human-written audit file (published with it), if any

    @property
    def interim_folder(self) -> str:
        return self.interim or self.source


@dataclass(frozen=True)
class Card:
    """A line of the card's source table: the material's name, its terms, the BibTeX keys to cite."""

    title: str
    licence: str
    citations: tuple[str, ...]  # BibTeX keys: in cards/citations.bib or the folder's own `bibtex`
    dataset_id: str = ""  # the source's Hub dataset id, for the card's source_datasets


@dataclass(frozen=True)
class Fetch:
    """Where the real source lives and under which terms (``groundbench fetch NAME``)."""

    title: str
    kind: str  # HTTP, HUB, GITHUB or MANUAL
    origin: str  # URL (http), repo id (hub), owner/name (github) or request page (manual)
    licence: str
    terms: str  # what a user agrees to by downloading; printed before every download
    size: str  # expected download size, as documented
    # http: the archive's documented size and sha256 (None: recorded at the first fetch)
    archive_bytes: int | None = None
    archive_sha256: str | None = None
    # hub: files to take (fnmatch on repo paths) and files to skip; archives to unpack in place
    # (github: ``allow`` lists the exact repo paths to take)
    allow: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    unzip: tuple[str, ...] = ()
    # hub: repo path prefix -> folder in the tree (the converter's layout)
    relocate: tuple[tuple[str, str], ...] = ()
    notes: tuple[str, ...] = ()
    # "module:function" taking the unpacked tree: raises GroundBenchError when it is not what the converter
    # reads; a manual source's hook returns the layout it found (kept in the provenance record)
    layout: str = ""
    # A tree the hook finds folders in: params.yaml ``sources.<key>.<name>`` <- the hook's folder ``<folder>``,
    # as (name, folder) pairs; () = ``sources.<key>`` is the tree itself.
    tree_params: tuple[tuple[str, str], ...] = ()
    requires: tuple[str, ...] = ()  # hook folders without which the tree builds nothing (then every entry is null)
    incomplete: str = ""  # why such a tree builds nothing and what to do (the configs' absent reason)
    automatic: bool = True  # fetched by `make fetch` (the Makefile's FETCH)
    # github: the commit the release is read at; (repo path, sha256) known for that commit; "module:function"
    # naming the further repo paths to take, given the folder the ``allow`` files were downloaded to
    revision: str = ""
    pins: tuple[tuple[str, str], ...] = ()
    listing: str = ""


@dataclass(frozen=True)
class Sample:
    """An embedded sample: synthetic files in the source's on-disk format, written by ``writer``."""

    name: str  # `groundbench sample NAME`; its folder is <sample.root>/<name>/ and its knobs sample.<name>
    writer: str  # "module:function" with the signature write(root, params, progress=False) -> int
    params: Any = None  # the pydantic model of params.yaml sample.<name> (None: no knobs)
    parts: tuple[str, ...] = ()  # sub-folders read one by one (each gets a marker when the sample is unused)
    stage: str = ""  # its dvc.yaml stage; "" = sample_<name>
    command: str = ""  # that stage's command; "" = bin/groundbench sample <name>


@dataclass(frozen=True)
class SourceSpec:
    """One source: ``groundbench convert NAME`` (or ``derive NAME``) runs its converter through the runner."""

    name: str
    factory: str  # "module:function" making its runner.Source from a runner.Context (imported when run)
    configs: tuple[ConfigInfo, ...] = ()
    sources_key: str = ""  # its key under `sources:` in params.yaml (dotted when nested); "" = its name
    reads: str = ""  # a derived source: the source whose null leaves it out; "" = its name
    interim: str = ""  # folder under data/interim/ it writes; "" = its name
    derived: bool = False  # made by `groundbench derive` from rows other sources converted
    sample: str = ""  # the name of its embedded sample ("" = none)
    card: Card | None = None
    fetch: Fetch | None = None
    # data deps of its convert stage beyond its sample and fetched folders (audit files, ...)
    data: tuple[str, ...] = ()
    reads_raw: bool = False  # derived: its stage also reads the source's own files (sample and fetched folders)
    params: tuple[str, ...] = ()  # params.yaml keys its convert stage reads beyond sources.* and shards.*


@dataclass(frozen=True)
class Folder:
    """What ``converters/<name>/spec.py`` exports as ``SPEC``: the folder's sources, samples and params."""

    sources: tuple[SourceSpec, ...]
    samples: tuple[Sample, ...] = ()
    # params.yaml `sources:` entries: key -> (type, default); a default makes the entry optional
    sources_params: dict[str, tuple[Any, Any]] = field(default_factory=dict)
    # top-level params.yaml sections: key -> pydantic model (optional when every field has a default)
    sections: dict[str, Any] = field(default_factory=dict)
    cards: dict[str, Card] = field(default_factory=dict)  # card entries that are not sources (shared assets)
    # BibTeX entries its cards cite that cards/citations.bib does not hold, each as its full text
    bibtex: tuple[str, ...] = ()
    # "module:Class" of what its configs add to the card's facts (a CardFacts), "" = nothing beyond the shared
    facts: str = ""


class CardFacts(Protocol):
    """What a folder adds to the card facts of each of its configs (``groundbench.stages.facts``): made once
    per config, given every batch of the config's published rows (``columns`` only), then asked for its facts.

    Facts are plain data by name (counts, tables); the card prints the names it knows in their sections and
    every other fact in its "Source facts" table (``cards/render.py``)."""

    columns: tuple[str, ...]  # the record columns it reads

    def add(self, batch: pa.RecordBatch) -> None: ...

    def facts(self) -> dict[str, Any]: ...
