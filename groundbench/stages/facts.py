"""Every number the dataset card and the Croissant file print, computed from the built shards.

One pass over each config's published Parquet files (a few narrow columns, row group by row group,
through :func:`groundbench.loaders.published.iter_batches`, so memory stays at one row group) plus its
manifest. The card, the Croissant file and the publish check all read these facts; nothing in them
is typed by hand. Counts are per config and never pooled across strata.

The shared facts are computed here for every config; what a source adds (its own extras' tallies, tables)
comes from its folder's hook (``Folder.facts``: a ``groundbench.core.spec.CardFacts``), fed the same
batches, and lands in ``ConfigCard.facts`` by name. Two names mean something to every config: ``row_kind``
(the heading of its example row; default ``Object``) and ``languages`` (of its rows, beside English).
"""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa

from groundbench.cards.sources import DERIVED_SOURCE
from groundbench.core import registry
from groundbench.core.manifests import FileRecord, file_record, read_manifest, sha256_file
from groundbench.core.plugins import load
from groundbench.core.registry import ConfigInfo
from groundbench.core.spec import CardFacts
from groundbench.loaders.published import ROWS_AT_ONCE, data_files, iter_batches, open_data_file
from groundbench.schemas.baselines_features import BASELINES_CONFIG
from groundbench.schemas.conditions import ALL_CONDITIONS, valid_conditions
from groundbench.schemas.features import FORMAT_VERSION

# Columns read to compute the facts (never the image bytes).
FACT_COLUMNS = (
    "source",
    "stratum",
    "object_category",
    "render",
    "parts",
    "target_part_id",
    "target_action",
    "exclusion_tags",
    "excluded",
    "flags",
    "baselines",
    "provenance",
)
# Of the nested columns, the fields the facts read: converting a whole part (its mask runs, its 3-D axes) or
# the camera to Python objects for every row was most of assembling a config's facts.
FACT_FIELDS = {
    "parts": ("part_id", "category", "box_quality"),
    "render": ("kind",),
    "provenance": ("source_sha256", "converter", "converter_version"),
}
BASELINES = ("image_center_distance", "object_center_distance")
MISSING = "(none)"  # printed for a null category, action or box quality
ROW_KIND, LANGUAGES = "row_kind", "languages"  # the facts every config may have from its folder
DEFAULT_ROW_KIND = "Object"


def digest_of_digests(digests: list[str]) -> str:
    """sha256 of the sorted, distinct hex digests joined by newlines: one checksum for a set of files."""
    return hashlib.sha256("\n".join(sorted(set(digests))).encode()).hexdigest()


@dataclass(frozen=True)
class BaselineStats:
    count: int  # rows with a value
    mean: float | None
    minimum: float | None
    maximum: float | None


@dataclass
class ConfigCard:
    """The facts of one built config."""

    name: str
    source: str
    stratum: str
    row: str  # what one row is (registry)
    rows: int = 0
    excluded: int = 0
    images: int = 0
    image_bytes: int = 0
    shard_bytes: int = 0
    shards: list[FileRecord] = field(default_factory=list)
    by_action: dict[str, int] = field(default_factory=dict)
    by_part_class: dict[str, int] = field(default_factory=dict)
    by_object_category: dict[str, int] = field(default_factory=dict)
    by_exclusion_tag: dict[str, int] = field(default_factory=dict)
    by_box_quality: dict[str, int] = field(default_factory=dict)
    by_render_kind: dict[str, int] = field(default_factory=dict)
    by_class_box_check: dict[str, int] = field(default_factory=dict)  # "<target class>: <box check>"
    row_sources: list[str] = field(default_factory=list)  # distinct `source` values of the rows
    valid_conditions: list[str] = field(default_factory=list)  # union over the rows' render kinds
    baselines: dict[str, BaselineStats] = field(default_factory=dict)
    converters: list[str] = field(default_factory=list)  # "name version"
    source_files: int = 0
    source_checksum: str = ""
    manifest_sha256: str = ""
    single_part_objects: list[str] = field(default_factory=list)  # objects whose every row has one candidate part
    by_flag: dict[str, int] = field(default_factory=dict)  # informational flags of the rows' targets
    example: dict[str, Any] | None = None  # the first row that is not excluded (no image bytes): the card's example
    # What the config's source folder adds (its spec's `facts` hook), by name: e.g. the GUI suites' `gui`
    # tables, GAPartNet's `left_out` and `reask`, UMD's `skipped_files` (converters/<name>/facts.py).
    facts: dict[str, Any] = field(default_factory=dict)


def _count(counter: Counter[str]) -> dict[str, int]:
    """Largest count first, ties by name: a stable order for the tables."""
    return dict(sorted(counter.items(), key=lambda item: (-item[1], item[0])))


def _target_part(parts: list[dict] | None, target: str | None) -> dict | None:
    for part in parts or []:
        if part.get("part_id") == target:
            return part
    return None


def config_card(
    name: str, source: str, stratum: str, row: str, shards: Path, manifest: Path, hook: str = ""
) -> ConfigCard:
    """The facts of one config; ``hook``: its folder's "module:Class" adding its own (``Folder.facts``)."""
    card = ConfigCard(name=name, source=source, stratum=stratum, row=row)
    added: CardFacts | None = load(hook)() if hook else None
    counters: dict[str, Counter[str]] = {
        key: Counter() for key in ("action", "part", "object", "tag", "flag", "box", "class_box", "render", "source")
    }
    sums = {key: 0.0 for key in BASELINES}
    values: dict[str, list[float]] = {key: [] for key in BASELINES}
    converters: set[str] = set()
    source_digests: list[str] = []
    kinds: set[tuple[str, str]] = set()
    part_counts: dict[str, set[int]] = {}
    columns = sorted({*FACT_COLUMNS, "object_id", *(added.columns if added is not None else ())})
    for path in data_files(shards):
        card.shards.append(file_record(path))
        card.shard_bytes += card.shards[-1].bytes
    for batch in iter_batches(shards, columns):
        if added is not None:
            added.add(batch)
        objects = batch.column("object_id").to_pylist()
        for record, object_id in zip(fact_rows(batch), objects, strict=True):
            part_counts.setdefault(str(object_id), set()).add(len(record["parts"] or []))
            card.rows += 1
            card.excluded += bool(record["excluded"])
            counters["action"][record["target_action"] or MISSING] += 1
            target = _target_part(record["parts"], record["target_part_id"])
            counters["part"][(target or {}).get("category") or MISSING] += 1
            counters["box"][(target or {}).get("box_quality") or MISSING] += 1
            counters["class_box"][class_box_check(target, record["exclusion_tags"] or [])] += 1
            counters["object"][record["object_category"] or MISSING] += 1
            for tag in record["exclusion_tags"] or []:
                counters["tag"][tag] += 1
            for flag in record["flags"] or []:
                counters["flag"][flag] += 1
            render_kind = (record["render"] or {}).get("kind") or MISSING
            counters["render"][render_kind] += 1
            counters["source"][record["source"] or MISSING] += 1
            kinds.add((record["stratum"], render_kind))
            for key in BASELINES:
                value = (record["baselines"] or {}).get(key)
                if value is not None:
                    values[key].append(float(value))
                    sums[key] += float(value)
            provenance = record["provenance"] or {}
            converters.add(f"{provenance.get('converter')} {provenance.get('converter_version')}")
            source_digests.extend(provenance.get("source_sha256") or [])
    card.by_action = _count(counters["action"])
    card.by_part_class = _count(counters["part"])
    card.by_object_category = _count(counters["object"])
    card.by_exclusion_tag = _count(counters["tag"])
    card.by_flag = _count(counters["flag"])
    card.by_box_quality = _count(counters["box"])
    card.by_render_kind = _count(counters["render"])
    card.by_class_box_check = _count(counters["class_box"])
    card.row_sources = sorted(counters["source"])
    valid: set[str] = set()
    for row_stratum, render_kind in kinds:
        valid.update(valid_conditions(row_stratum, render_kind))
    # Keep the design's order (schemas/conditions.py), not alphabetical.
    card.valid_conditions = [c for c in ALL_CONDITIONS if c in valid]
    for key in BASELINES:
        seen = values[key]
        card.baselines[key] = BaselineStats(
            count=len(seen),
            mean=sums[key] / len(seen) if seen else None,
            minimum=min(seen) if seen else None,
            maximum=max(seen) if seen else None,
        )
    card.converters = sorted(converters)
    card.source_files = len(set(source_digests))
    card.source_checksum = digest_of_digests(source_digests)
    card.single_part_objects = sorted(o for o, counts in part_counts.items() if counts == {1})
    entries = read_manifest(manifest)
    card.images = len(entries)
    card.image_bytes = sum(e.bytes for e in entries.values())
    card.manifest_sha256 = sha256_file(manifest)
    if added is not None:
        card.facts = added.facts()
    card.example = first_included_row(shards)
    return card


def fact_rows(batch: pa.RecordBatch) -> list[dict[str, Any]]:
    """The batch's ``FACT_COLUMNS`` as Python rows, the nested ones narrowed to ``FACT_FIELDS``."""
    columns = []
    for name in FACT_COLUMNS:
        column = batch.column(name)
        if name in FACT_FIELDS:
            column = column.cast(_narrowed(column.type, FACT_FIELDS[name]))
        columns.append(column)
    return pa.RecordBatch.from_arrays(columns, names=list(FACT_COLUMNS)).to_pylist()


def _narrowed(kind: pa.DataType, keep: tuple[str, ...]) -> pa.DataType:
    """A struct type (or a list of one) with only those of the fields ``keep`` it has (Arrow casts a struct to
    a subset of its fields by name; the facts read every field with ``.get``, so an older format's missing one
    reads as before)."""
    if pa.types.is_list(kind):
        return pa.list_(_narrowed(kind.value_type, keep))
    return pa.struct([kind.field(name) for name in keep if kind.get_field_index(name) >= 0])


def first_included_row(config_dir: Path) -> dict[str, Any] | None:
    """The first row of a published config that is not excluded, every column but the image bytes."""
    files = data_files(config_dir)
    if not files:
        return None
    columns = [name for name in open_data_file(files[0]).schema_arrow.names if name != "image"]
    for batch in iter_batches(config_dir, columns, rows=ROWS_AT_ONCE):  # a few rows' pages, not a row group
        for row in batch.to_pylist():
            if not row["excluded"]:
                return dict(row)
    return None


@dataclass
class BaselinesCard:
    """The facts of the ``baselines`` config: aggregate rows derived from every record config.

    Its rows are not records (own features, ``schemas/baselines_features.py``), so it has no
    images, manifest, exclusions or per-row counts; the card prints its rows as a table.
    """

    name: str = BASELINES_CONFIG
    source: str = DERIVED_SOURCE  # derived from every config's rows (catalogued in cards/sources.py)
    stratum: str = "all (one row per config, stratum, condition and baseline)"
    row: str = "one (config, stratum, condition, baseline) aggregate, computed from the record configs"
    rows: int = 0
    shard_bytes: int = 0
    shards: list[FileRecord] = field(default_factory=list)
    entries: list[dict] = field(default_factory=list)  # the rows themselves, sorted by baseline_id


def class_box_check(target: dict | None, tags: list[str]) -> str:
    """The target's part class and how its box fared in verification (per-class counts in the card)."""
    target = target or {}
    check = "box_projection_mismatch" if "box_projection_mismatch" in tags else target.get("box_quality") or MISSING
    return f"{target.get('category') or MISSING}: {check}"


def baselines_card(shards: Path) -> BaselinesCard | None:
    """Facts of the ``baselines`` config whose shards are in ``shards`` (None when it was not built)."""
    files = data_files(shards)
    if not files:
        return None
    card = BaselinesCard()
    for path in files:
        card.shards.append(file_record(path))
        card.shard_bytes += card.shards[-1].bytes
    for batch in iter_batches(shards):
        card.entries.extend(batch.to_pylist())
    card.rows = len(card.entries)
    return card


@dataclass(frozen=True)
class FactsMeta:
    """What the facts need besides the data: read from params.yaml and the lock file."""

    version: str
    default: str
    source_settings: dict[str, str]
    lock_sha256: str
    build_lock_sha256: str = "(no requirements-build.lock)"
    # Registry configs this build does not contain -> why (from data/shards/<config>/ABSENT).
    absent: dict[str, str] = field(default_factory=dict)
    # Provenance records of the fetched sources the build read (groundbench.fetch.provenance).
    source_provenance: list[dict] = field(default_factory=list)
    # Configs built from an embedded (synthetic) sample, as params.yaml's sources say.
    synthetic: tuple[str, ...] = ()
    date_published: str = "1970-01-01"  # params.yaml dataset.date_published (ISO date of this version)
    url: str = ""  # params.yaml dataset.url: where the dataset is published
    audits: tuple[tuple[str, str], ...] = ()  # (audit file name, its config), as published under audits/


@dataclass(frozen=True)
class DatasetFacts:
    version: str
    format_version: str
    default: str
    configs: list[ConfigCard]
    source_settings: dict[str, str]  # source -> "embedded sample" / "a source tree" (never a machine path)
    lock_sha256: str  # requirements.lock
    build_lock_sha256: str = "(no requirements-build.lock)"  # with requirements.lock: the packages that built it
    absent: dict[str, str] = field(default_factory=dict)  # config -> why it is not in this build
    baselines: BaselinesCard | None = None  # the `baselines` config, when built
    source_provenance: list[dict] = field(default_factory=list)  # fetched sources read: origin, revision, checksum
    synthetic: list[str] = field(default_factory=list)  # built configs made from embedded samples
    date_published: str = "1970-01-01"
    url: str = ""
    audits: tuple[tuple[str, str], ...] = ()
    row_kinds: tuple[str, ...] = (DEFAULT_ROW_KIND,)  # the configs' record types: objects, then in registry order

    @property
    def total_rows(self) -> int:
        """Record rows over every record config (the baselines config's aggregates are not examples)."""
        return sum(c.rows for c in self.configs)

    @property
    def examples(self) -> dict[str, dict[str, Any]]:
        """One example row per record type (its folder's ``row_kind``): "<type> row (`config`)" -> row, the first
        config of each type, curated first; the types in ``row_kinds`` order."""
        found: dict[str, tuple[str, dict[str, Any]]] = {}
        for config in sorted(self.configs, key=lambda c: c.stratum != "curated"):  # curated first, then the rest
            kind = config.facts.get(ROW_KIND, DEFAULT_ROW_KIND)
            if config.example is not None and kind not in found:
                found[kind] = (f"{kind} row (`{config.name}`)", config.example)
        order = [*self.row_kinds, *found]  # a type the build did not rank goes last
        return dict(found[kind] for kind in sorted(found, key=order.index))

    @property
    def languages(self) -> list[str]:
        """Languages of the rows: English (every prompt and object row) plus those the folders' facts name."""
        return sorted({"en", *(k for config in self.configs for k in config.facts.get(LANGUAGES, ()))})

    @property
    def published(self) -> list[ConfigCard | BaselinesCard]:
        """Every config of the folder, record configs first, then the baselines config."""
        return [*self.configs, *([self.baselines] if self.baselines else [])]


def source_setting(value: object) -> str:
    """How a source was read, without machine-specific paths (they would break byte-identical builds)."""
    if value == "sample":
        return "embedded sample (synthetic files in the source's real format)"
    if value is None:
        return "left out (null)"
    if isinstance(value, dict):  # a source with several parts (e.g. gapartnet assets + renders)
        return "; ".join(f"{key}: {source_setting(value[key])}" for key in sorted(value))
    return "a source tree (path set in params.yaml)"


def dataset_facts(data_root: Path, manifests_root: Path, configs: list[ConfigInfo], meta: FactsMeta) -> DatasetFacts:
    """Facts of every config in ``configs`` (registry order), from ``data_root/<config>/`` shards.

    The ``baselines`` config is taken from ``data_root/baselines/`` when its shards are there.
    """
    view = registry.view()
    cards = [
        config_card(
            c.name,
            c.source,
            c.stratum,
            c.row,
            data_root / c.name,
            manifests_root / f"{c.name}.jsonl",
            view.facts_hook(c.name),
        )
        for c in configs
    ]
    names = [c.name for c in cards]
    by_name = {card.name: card for card in cards}
    in_order = [by_name[c.name] for c in view.configs if c.name in by_name]
    kinds = dict.fromkeys([DEFAULT_ROW_KIND, *(c.facts.get(ROW_KIND, DEFAULT_ROW_KIND) for c in in_order)])
    default = meta.default if meta.default in names or not names else names[0]
    return DatasetFacts(
        version=meta.version,
        format_version=FORMAT_VERSION,
        default=default,
        configs=cards,
        source_settings=meta.source_settings,
        lock_sha256=meta.lock_sha256,
        build_lock_sha256=meta.build_lock_sha256,
        absent={name: reason for name, reason in meta.absent.items() if name not in names},
        baselines=baselines_card(data_root / BASELINES_CONFIG),
        source_provenance=meta.source_provenance,
        synthetic=[name for name in names if name in meta.synthetic],
        date_published=meta.date_published,
        url=meta.url,
        audits=tuple((file, config) for file, config in meta.audits if config in names),
        row_kinds=tuple(kinds),
    )
