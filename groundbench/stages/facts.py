"""Every number the dataset card and the Croissant file print, computed from the built shards.

One pass over each config's published Parquet files (a few narrow columns, row group by row group,
through :func:`groundbench.loaders.published.iter_batches`, so memory stays at one row group) plus its
manifest. The card, the Croissant file and the publish check all read these facts; nothing in them
is typed by hand. Counts are per config and never pooled across strata.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from groundbench.cards.sources import DERIVED_SOURCE
from groundbench.core.manifests import FileRecord, file_record, read_manifest, sha256_file
from groundbench.core.registry import ConfigInfo
from groundbench.loaders.published import data_files, iter_batches, open_data_file
from groundbench.schemas.baselines_features import BASELINES_CONFIG
from groundbench.schemas.conditions import ALL_CONDITIONS, valid_conditions
from groundbench.schemas.features import FORMAT_VERSION
from groundbench.stages.gui_facts import COLUMNS as GUI_COLUMNS
from groundbench.stages.gui_facts import config_facts as gui_config_facts
from groundbench.stages.gui_facts import is_gui

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
BASELINES = ("image_center_distance", "object_center_distance")
MISSING = "(none)"  # printed for a null category, action or box quality


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
class ReaskCard:
    """Re-ask facts of a counterfactual or contrast config (rows with ``extras.reask``)."""

    rows_per_object: dict[str, int] = field(default_factory=dict)  # object id -> rows (sorted by id)
    informative_per_object: dict[str, int] = field(default_factory=dict)
    excluded_per_object: dict[str, int] = field(default_factory=dict)
    informative: int = 0
    transitions: dict[str, int] = field(default_factory=dict)  # "orig→requested" -> rows
    pool_transitions: dict[str, int] = field(default_factory=dict)  # the same over non-excluded rows
    pool_objects: int = 0  # the frozen pool: objects and pairs (rows) not excluded
    pool_pairs: int = 0

    @property
    def rows(self) -> int:
        return sum(self.rows_per_object.values())

    @property
    def informative_share(self) -> float | None:
        return self.informative / self.rows if self.rows else None


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
    reask: ReaskCard | None = None  # re-ask configs only
    by_flag: dict[str, int] = field(default_factory=dict)  # informational flags of the rows' targets
    # GAPartNet: object id -> reason -> annotated GAParts without a bulk row (extras.gapartnet.left_out)
    left_out: dict[str, dict[str, list[str]]] = field(default_factory=dict)
    skipped_files: int = 0  # UMD: OS clutter files skipped in the tool folders of the rows (extras.umd)
    example: dict[str, Any] | None = None  # the first row that is not excluded (no image bytes): the card's example

    # GUI configs only (groundbench/stages/gui_facts.py): per target type, target sizes as % of the frame,
    # languages, frames and the centre-click baseline.
    gui: dict[str, Any] | None = None


def _count(counter: Counter[str]) -> dict[str, int]:
    """Largest count first, ties by name: a stable order for the tables."""
    return dict(sorted(counter.items(), key=lambda item: (-item[1], item[0])))


def _target_part(parts: list[dict] | None, target: str | None) -> dict | None:
    for part in parts or []:
        if part.get("part_id") == target:
            return part
    return None


def config_card(name: str, source: str, stratum: str, row: str, shards: Path, manifest: Path) -> ConfigCard:
    card = ConfigCard(name=name, source=source, stratum=stratum, row=row)
    counters: dict[str, Counter[str]] = {
        key: Counter() for key in ("action", "part", "object", "tag", "flag", "box", "class_box", "render", "source")
    }
    left_out: dict[str, dict[str, set[str]]] = {}
    clutter: set[tuple[str, str]] = set()
    sums = {key: 0.0 for key in BASELINES}
    values: dict[str, list[float]] = {key: [] for key in BASELINES}
    converters: set[str] = set()
    source_digests: list[str] = []
    kinds: set[tuple[str, str]] = set()
    part_counts: dict[str, set[int]] = {}
    reasks: list[tuple[str, bool, dict]] = []  # (object id, excluded, extras.reask)
    gui_rows: list[dict[str, Any]] = []
    columns = sorted({*FACT_COLUMNS, *GUI_COLUMNS, "object_id"})
    for path in data_files(shards):
        card.shards.append(file_record(path))
        card.shard_bytes += card.shards[-1].bytes
    for batch in iter_batches(shards, columns):
        if is_gui(source):
            gui_rows += batch.select(GUI_COLUMNS).to_pylist()
        extras = batch.column("extras")
        reask_column = extras.field("reask").to_pylist()
        objects = batch.column("object_id").to_pylist()
        _left_out_and_clutter(extras, objects, left_out, clutter)
        for record, reask, object_id in zip(
            batch.select(list(FACT_COLUMNS)).to_pylist(), reask_column, objects, strict=True
        ):
            part_counts.setdefault(str(object_id), set()).add(len(record["parts"] or []))
            if reask is not None:
                reasks.append((str(object_id), bool(record["excluded"]), reask))
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
    card.left_out = {
        o: {reason: sorted(parts) for reason, parts in sorted(reasons.items())}
        for o, reasons in sorted(left_out.items())
    }
    card.skipped_files = len(clutter)
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
    if reasks:
        card.reask = reask_card(reasks)
    entries = read_manifest(manifest)
    card.images = len(entries)
    card.image_bytes = sum(e.bytes for e in entries.values())
    card.manifest_sha256 = sha256_file(manifest)
    if is_gui(source):
        card.gui = gui_config_facts(gui_rows)
    card.example = first_included_row(shards)
    return card


def first_included_row(config_dir: Path) -> dict[str, Any] | None:
    """The first row of a published config that is not excluded, every column but the image bytes."""
    files = data_files(config_dir)
    if not files:
        return None
    columns = [name for name in open_data_file(files[0]).schema_arrow.names if name != "image"]
    for batch in iter_batches(config_dir, columns):
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


def _left_out_and_clutter(
    extras: Any, objects: list[str], left_out: dict[str, dict[str, set[str]]], clutter: set[tuple[str, str]]
) -> None:
    """Per object, the GAPartNet parts without a bulk row (by reason), and the UMD clutter files skipped."""
    gapartnet = extras.field("gapartnet").field("left_out").to_pylist()
    umd = extras.field("umd").field("skipped_files").to_pylist()
    for object_id, parts, skipped in zip(objects, gapartnet, umd, strict=True):
        for part in parts or []:
            left_out.setdefault(str(object_id), {}).setdefault(part["reason"], set()).add(part["part_id"])
        clutter.update((str(object_id), name) for name in skipped or [])


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


def reask_card(reasks: list[tuple[str, bool, dict]]) -> ReaskCard:
    card = ReaskCard()
    rows: Counter[str] = Counter()
    informative: Counter[str] = Counter()
    excluded: Counter[str] = Counter()
    transitions: Counter[str] = Counter()
    pool: Counter[str] = Counter()
    pool_objects: set[str] = set()
    for object_id, is_excluded, reask in reasks:
        rows[object_id] += 1
        informative[object_id] += bool(reask["informative"])
        excluded[object_id] += is_excluded
        transitions[reask["transition"] or MISSING] += 1
        if not is_excluded:
            pool[reask["transition"] or MISSING] += 1
            pool_objects.add(object_id)
    card.rows_per_object = dict(sorted(rows.items()))
    card.informative_per_object = {o: informative[o] for o in card.rows_per_object}
    card.excluded_per_object = {o: excluded[o] for o in card.rows_per_object}
    card.informative = sum(informative.values())
    card.transitions = _count(transitions)
    card.pool_transitions = _count(pool)
    card.pool_objects = len(pool_objects)
    card.pool_pairs = sum(pool.values())
    return card


@dataclass(frozen=True)
class FactsMeta:
    """What the facts need besides the data: read from params.yaml and the lock file."""

    version: str
    default: str
    source_settings: dict[str, str]
    lock_sha256: str
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
    absent: dict[str, str] = field(default_factory=dict)  # config -> why it is not in this build
    baselines: BaselinesCard | None = None  # the `baselines` config, when built
    source_provenance: list[dict] = field(default_factory=list)  # fetched sources read: origin, revision, checksum
    synthetic: list[str] = field(default_factory=list)  # built configs made from embedded samples
    date_published: str = "1970-01-01"
    url: str = ""
    audits: tuple[tuple[str, str], ...] = ()

    @property
    def total_rows(self) -> int:
        """Record rows over every record config (the baselines config's aggregates are not examples)."""
        return sum(c.rows for c in self.configs)

    @property
    def examples(self) -> dict[str, dict[str, Any]]:
        """One example row per record type: "<type> row (`config`)" -> row (first config of each type)."""
        found: dict[str, dict[str, Any]] = {}
        for config in sorted(self.configs, key=lambda c: c.stratum != "curated"):  # curated first, then the rest
            if config.example is None:
                continue
            kind = "GUI" if config.gui is not None else "Re-ask" if config.reask is not None else "Object"
            if not any(key.startswith(f"{kind} row") for key in found):
                found[f"{kind} row (`{config.name}`)"] = config.example
        return dict(sorted(found.items(), key=lambda item: ["Object", "GUI", "Re-ask"].index(item[0].split()[0])))

    @property
    def languages(self) -> list[str]:
        """Languages of the rows: English (every prompt and object row) plus the GUI suites' languages."""
        found = {"en"}
        for config in self.configs:
            if config.gui is not None:
                found.update(k for k in config.gui["all"]["languages"] if k and k != "unknown")
        return sorted(found)

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
    cards = [
        config_card(c.name, c.source, c.stratum, c.row, data_root / c.name, manifests_root / f"{c.name}.jsonl")
        for c in configs
    ]
    names = [c.name for c in cards]
    default = meta.default if meta.default in names or not names else names[0]
    return DatasetFacts(
        version=meta.version,
        format_version=FORMAT_VERSION,
        default=default,
        configs=cards,
        source_settings=meta.source_settings,
        lock_sha256=meta.lock_sha256,
        absent={name: reason for name, reason in meta.absent.items() if name not in names},
        baselines=baselines_card(data_root / BASELINES_CONFIG),
        source_provenance=meta.source_provenance,
        synthetic=[name for name in names if name in meta.synthetic],
        date_published=meta.date_published,
        url=meta.url,
        audits=tuple((file, config) for file, config in meta.audits if config in names),
    )
