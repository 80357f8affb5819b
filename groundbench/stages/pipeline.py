"""The pipeline's stages, one function each; ``dvc.yaml`` runs them through the CLI.

sample -> convert (per source) -> bake (per config: baselines, validation, shards, manifest)
-> store (content-addressed images) -> assemble (the Hugging Face folder).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from groundbench.core.atomic import remove_stale_temporaries
from groundbench.core.errors import GroundBenchError
from groundbench.core.manifests import read_manifest, sha256_file
from groundbench.core.parallel import DaskCluster
from groundbench.core.params import NESTED_SOURCES, SAMPLE, Params, source_root, source_value
from groundbench.core.registry import BY_NAME, CONFIGS, DEFAULT_CONFIG, SAMPLES, SOURCES, SourceInfo, load
from groundbench.core.remote import localise_sources
from groundbench.core.runner import Context, Source, mark_absent, run
from groundbench.core.shards import ShardWriter, open_shard, read_table, shard_files
from groundbench.fetch.provenance import source_provenance
from groundbench.fetch.select import absent_hint
from groundbench.scoring.baselines import bake_row_baselines
from groundbench.stages.bake import ABSENT_MARKER, BakeResult, bake_config
from groundbench.stages.facts import DatasetFacts, FactsMeta, source_setting
from groundbench.stages.hffolder import ConfigFacts, assemble
from groundbench.stages.store import build_store

INTERIM = Path("data/interim")
SHARDS = Path("data/shards")
MANIFESTS = Path("data/manifests")
IMAGES = Path("data/images")
HF_FOLDER = Path("data/groundbench")
BASELINES = Path("data/baselines")  # the `baselines` config's shards (outside data/shards: DVC needs it)
# Folders whose children are written atomically (temp sibling + rename): where a killed build can
# leave a hidden `.name.*.tmp` behind.
ATOMIC_PARENTS = (Path("data"), INTERIM, SHARDS, MANIFESTS, Path("data/sources/sample"))


def clear_leftovers(root: Path) -> None:
    """Remove what a killed build left half-written (never visible under an output's real name)."""
    for folder in ATOMIC_PARENTS:
        remove_stale_temporaries(root / folder)
        if (root / folder).is_dir():
            for child in (root / folder).iterdir():
                if child.is_dir() and not child.name.startswith("."):
                    remove_stale_temporaries(child)


LOCK_FILE = Path("requirements.lock")


# The sample writers are imported where they run (the registry names them): the GAPartNet one pulls in
# the renderer (trimesh, scipy), half a second of start-up that every other stage's process would pay for nothing.
def _sample(name: str) -> Callable[..., int]:
    writer: Callable[..., int] = load(SAMPLES[name].writer)
    return writer


def _sample_gui(root: Path, params: Params, progress: bool = False) -> int:
    return _sample("gui")(root, params, progress)


def run_sample(root: Path, params: Params, source: str) -> int:
    if source not in SAMPLES:
        raise GroundBenchError("params.yaml", f"sample.{source}", "no embedded sample for this source")
    return _sample(source)(root, params)


def build_source(root: Path, params: Params, info: SourceInfo) -> Source[Any, Any]:
    """The registry entry's source, made by its factory (imported only now: a run loads one converter)."""
    factory = load(info.factory)
    source: Source[Any, Any] = factory(Context(root, params, root / INTERIM, info.name))
    return source


def run_source(
    root: Path,
    params: Params,
    info: SourceInfo,
    progress: bool = True,
    prepare: Callable[[Source[Any, Any]], None] | None = None,
) -> tuple[dict[str, int], Source[Any, Any] | None]:
    """Write ``data/interim/<its folder>/`` through the runner; a null source marks its configs absent.
    ``prepare`` adjusts the source before it runs (``derive contrast --write-pool-draft``)."""
    out = root / INTERIM / info.interim_folder
    if source_root(root, params, info.reads_from) is None:
        # The source is left out: each of its configs gets a folder saying so (dvc.yaml needs it).
        key = NESTED_SOURCES.get(info.reads_from, info.reads_from)
        reason = f"sources.{key} is null in params.yaml{absent_hint(root, info.reads_from)}"
        mark_absent(out, {c.name: reason for c in CONFIGS if c.interim_folder == info.interim_folder})
        return {}, None
    params, mirrors = localise_sources(params)
    source = build_source(root, params, info)
    if prepare is not None:
        prepare(source)
    # The rows leave the converter's writer baked, so `groundbench bake` links the files instead of copying.
    return run(source, out, params.shards, progress, map_engine(params, mirrors), bake_row_baselines), source


def map_engine(params: Params, mirrors: tuple[str, ...] = ()) -> dict[str, Any]:
    """``ordered_map`` keywords every source's map gets: where it runs (params.yaml ``engine``).

    ``mirrors``: the source URLs (fsspec) every Dask worker copies locally before its first item.
    """
    if params.engine.name == "dask":
        return {"cluster": DaskCluster(params.engine.address, mirrors)}
    return {}


def run_convert(root: Path, params: Params, source: str, progress: bool = True) -> dict[str, int]:
    info = SOURCES.get(source)
    if info is None or info.derived:
        raise GroundBenchError("params.yaml", f"sources.{source}", "no converter for this source")
    return run_source(root, params, info, progress)[0]


DERIVED = sorted(name for name, info in SOURCES.items() if info.derived)


def run_derive(
    root: Path, params: Params, construction: str, progress: bool = True, pool_draft: Path | None = None
) -> dict[str, Any]:
    """Build a derived config's rows (re-asks); returns its summary, empty when its source is null.
    ``pool_draft``: contrast only, also write the mined pool there in the pool file's format, reasons empty
    (before the pool check, so a pool that differs gets its starting point)."""
    info = SOURCES.get(construction)
    if info is None or not info.derived:
        raise GroundBenchError("command line", "construction", f"expected one of {DERIVED}")
    if pool_draft is not None and construction != "contrast":
        raise GroundBenchError("command line", "--write-pool-draft", "only the contrast construction has a pool")

    def prepare(source: Source[Any, Any]) -> None:
        source.pool_draft = pool_draft  # type: ignore[attr-defined]  # ContrastSource (checked above)

    _, source = run_source(root, params, info, progress, prepare if pool_draft is not None else None)
    return {} if source is None else dict(source.summary)


def run_bake(root: Path, params: Params, config: str) -> BakeResult:
    info = BY_NAME.get(config)
    if info is None:
        raise GroundBenchError("dvc.yaml", "config", f"unknown config {config!r}; expected one of {sorted(BY_NAME)}")
    return bake_config(
        config,
        root / INTERIM / info.interim_folder / config,
        root / SHARDS / config,
        root / MANIFESTS / f"{config}.jsonl",
        params.shards.max_bytes,
        params.shards.rows_per_batch,
    )


def built_configs(root: Path) -> list[str]:
    """Configs with shards on disk (absent sources are marked and skipped)."""
    return [
        c.name
        for c in CONFIGS
        if (root / SHARDS / c.name).is_dir() and not (root / SHARDS / c.name / ABSENT_MARKER).exists()
    ]


def config_rows(root: Path, name: str) -> int:
    """Rows of a built config, from its shards' batch headers (no data read)."""
    rows = 0
    for shard in shard_files(root / SHARDS / name):
        reader = open_shard(shard)
        rows += sum(reader.get_batch(index).num_rows for index in range(reader.num_record_batches))
    return rows


EMPTY_REASON = "built with 0 rows: its sources give no row for this config"


def published_configs(root: Path) -> list[str]:
    """Built configs with at least one row: what the published folder holds (an empty config is absent)."""
    return [name for name in built_configs(root) if config_rows(root, name) > 0]


def synthetic_configs(params: Params) -> tuple[str, ...]:
    """Configs whose source is the embedded sample in params.yaml (any part of it, for GAPartNet)."""

    def is_sample(value: object) -> bool:
        if isinstance(value, BaseModel):
            return any(is_sample(v) for v in value.model_dump().values())
        return value == SAMPLE

    return tuple(c.name for c in CONFIGS if is_sample(source_value(params, c.source)))


def collect_facts(root: Path) -> list[ConfigFacts]:
    facts = []
    for name in sorted(built_configs(root)):
        info = BY_NAME[name]
        rows = excluded = shard_bytes = 0
        for shard in shard_files(root / SHARDS / name):
            table = open_shard(shard).read_all().select(["excluded"])
            rows += table.num_rows
            excluded += sum(1 for value in table.column("excluded").to_pylist() if value)
            shard_bytes += shard.stat().st_size
        manifest = read_manifest(root / MANIFESTS / f"{name}.jsonl")
        facts.append(
            ConfigFacts(
                name=name,
                stratum=info.stratum,
                source=info.source,
                rows=rows,
                excluded=excluded,
                images=len(manifest),
                image_bytes=sum(e.bytes for e in manifest.values()),
                shard_bytes=shard_bytes,
            )
        )
    return facts


def run_store(root: Path) -> tuple[int, int]:
    configs = {
        name: (root / SHARDS / name, read_manifest(root / MANIFESTS / f"{name}.jsonl")) for name in built_configs(root)
    }
    return build_store(root / IMAGES, configs)


def absent_reasons(root: Path) -> dict[str, str]:
    """Every registry config without shards in this build -> why (its ABSENT marker, else "not built")."""
    built = set(published_configs(root))
    reasons = {}
    for config in CONFIGS:
        if config.name in built:
            continue
        if (root / SHARDS / config.name).is_dir() and shard_files(root / SHARDS / config.name):
            reasons[config.name] = EMPTY_REASON
            continue
        marker = root / SHARDS / config.name / ABSENT_MARKER
        reason = marker.read_text(encoding="utf-8").strip() if marker.is_file() else ""
        # Markers are one line "<config>: <reason>" (converter) or just the reason (null source).
        reasons[config.name] = reason.removeprefix(f"{config.name}: ") or "not built (no shards)"
    return reasons


def run_baselines(root: Path, params: Params) -> int:
    """Compute the `baselines` config from every built config's shards; returns its row count."""
    from groundbench.schemas.baselines_features import BASELINES_KEY, baselines_arrow_schema
    from groundbench.scoring.baselines import config_baselines

    with ShardWriter(
        root / BASELINES, params.shards.max_bytes, params.shards.rows_per_batch, baselines_arrow_schema(), BASELINES_KEY
    ) as writer:
        for name in sorted(built_configs(root)):
            for entry in config_baselines(name, baseline_rows(root / SHARDS / name)):
                writer.add(entry)
    return writer.rows


def baseline_rows(shards: Path) -> list[dict[str, Any]]:
    """A config's rows as the baselines read them: no image bytes or provenance, and only the target part
    keeps its mask (no baseline reads another part's; as Python lists they are most of a row)."""
    rows: list[dict[str, Any]] = []
    for batch in read_table(shards).drop_columns(["image", "provenance"]).to_batches():
        for row in batch.to_pylist():
            for part in row["parts"]:
                if part["part_id"] != row["target_part_id"]:
                    part["mask_rle"] = None
            rows.append(row)
    return rows


# Curated configs chosen by a human-written audit file: config -> its params.yaml value (the specs name the key).
def _param(params: Params, key: str) -> str:
    node: Any = params
    for part in key.split("."):
        node = getattr(node, part)
    return str(node)


AUDITED: dict[str, Callable[[Params], str]] = {
    c.name: functools.partial(_param, key=c.audit) for c in CONFIGS if c.audit
}


def audit_files(root: Path, params: Params) -> dict[str, tuple[str, Path]]:
    """Audit files of the published curated configs: file name -> (config, path)."""
    published = set(published_configs(root))
    found = {}
    for config, audit in AUDITED.items():
        path = root / audit(params)
        if config in published and path.is_file():
            found[path.name] = (config, path)
    return found


def facts_meta(root: Path, params: Params) -> FactsMeta:
    lock = root / LOCK_FILE
    sources = params.sources.model_dump()
    return FactsMeta(
        version=params.dataset.version,
        default=DEFAULT_CONFIG,
        source_settings={name: source_setting(value) for name, value in sorted(sources.items())},
        lock_sha256=sha256_file(lock) if lock.is_file() else "(no requirements.lock)",
        absent=absent_reasons(root),
        source_provenance=source_provenance(root, params),
        synthetic=synthetic_configs(params),
        date_published=params.dataset.date_published,
        url=params.dataset.url,
        audits=tuple((name, config) for name, (config, _) in sorted(audit_files(root, params).items())),
    )


def run_assemble(root: Path, params: Params) -> DatasetFacts:
    configs = [BY_NAME[name] for name in sorted(published_configs(root))]
    return assemble(
        root / HF_FOLDER,
        root / SHARDS,
        root / MANIFESTS,
        configs,
        facts_meta(root, params),
        root / BASELINES,
        {name: path for name, (_, path) in audit_files(root, params).items()},
    )
