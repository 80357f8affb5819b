"""The pipeline's stages, one function each; ``dvc.yaml`` runs them through the CLI.

sample -> convert (per source) -> bake (per config: baselines, validation, shards, manifest)
-> store (content-addressed images) -> assemble (the Hugging Face folder).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from groundbench.atomic import atomic_dir
from groundbench.bake import ABSENT_MARKER, BakeResult, bake_config
from groundbench.converters.umd.convert import UmdParams, convert_umd
from groundbench.converters.umd.sample import write_sample
from groundbench.errors import GroundBenchError
from groundbench.hffolder import ConfigFacts, assemble
from groundbench.manifests import read_manifest
from groundbench.params import get, source_root
from groundbench.registry import BY_NAME, CONFIGS, DEFAULT_CONFIG, configs_of
from groundbench.shards import ShardWriter, open_shard, read_table, shard_files
from groundbench.store import build_store

INTERIM = Path("data/interim")
SHARDS = Path("data/shards")
MANIFESTS = Path("data/manifests")
IMAGES = Path("data/images")
HF_FOLDER = Path("data/groundbench")
BASELINES = Path("data/baselines")  # the `baselines` config's shards (outside data/shards: DVC needs it)


def _sample_umd(root: Path, params: dict[str, Any]) -> int:
    knobs = get(params, "sample.umd")
    return write_sample(root / get(params, "sample.root") / "umd", knobs["frames_per_tool"], knobs["seed"])


# One entry per source with an embedded sample; each returns how many items it wrote.
SAMPLERS: dict[str, Callable[[Path, dict[str, Any]], int]] = {
    "umd": _sample_umd,
}


def run_sample(root: Path, params: dict[str, Any], source: str) -> int:
    if source not in SAMPLERS:
        raise GroundBenchError("params.yaml", f"sample.{source}", "no embedded sample for this source")
    return SAMPLERS[source](root, params)


def _convert_umd(folder: Path, out: Path, root: Path, params: dict[str, Any], progress: bool) -> dict[str, int]:
    knobs = get(params, "umd")
    shards = get(params, "shards")
    return convert_umd(
        folder,
        out,
        UmdParams(
            audit=root / knobs["audit"],
            workers=knobs["workers"],
            window=knobs["window"],
            max_image_pixels=knobs["max_image_pixels"],
            max_shard_bytes=shards["max_bytes"],
            rows_per_batch=shards["rows_per_batch"],
        ),
        progress=progress,
    )


# One entry per source: (source folder, interim output folder, repo root, params, progress) -> rows per config.
CONVERTERS: dict[str, Callable[[Path, Path, Path, dict[str, Any], bool], dict[str, int]]] = {
    "umd": _convert_umd,
}


def run_convert(root: Path, params: dict[str, Any], source: str, progress: bool = True) -> dict[str, int]:
    out = root / INTERIM / source
    if source not in CONVERTERS:
        raise GroundBenchError("params.yaml", f"sources.{source}", "no converter for this source")
    folder = source_root(root, params, source)
    if folder is None:
        # The source is left out: each of its configs gets a folder saying so (dvc.yaml needs it).
        with atomic_dir(out) as tmp:
            for config in configs_of(source):
                (tmp / config.name).mkdir()
                (tmp / config.name / ABSENT_MARKER).write_text(f"sources.{source} is null in params.yaml\n")
        return {}
    return CONVERTERS[source](folder, out, root, params, progress)


def run_bake(root: Path, params: dict[str, Any], config: str) -> BakeResult:
    info = BY_NAME.get(config)
    if info is None:
        raise GroundBenchError("dvc.yaml", "config", f"unknown config {config!r}; expected one of {sorted(BY_NAME)}")
    shards = get(params, "shards")
    return bake_config(
        config,
        root / INTERIM / info.source / config,
        root / SHARDS / config,
        root / MANIFESTS / f"{config}.jsonl",
        shards["max_bytes"],
        shards["rows_per_batch"],
    )


def built_configs(root: Path) -> list[str]:
    """Configs with shards on disk (absent sources are marked and skipped)."""
    return [
        c.name
        for c in CONFIGS
        if (root / SHARDS / c.name).is_dir() and not (root / SHARDS / c.name / ABSENT_MARKER).exists()
    ]


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


def run_baselines(root: Path, params: dict[str, Any]) -> int:
    """Compute the `baselines` config from every built config's shards; returns its row count."""
    from groundbench.schemas.baselines_features import BASELINES_KEY, baselines_arrow_schema
    from groundbench.scoring.baselines import config_baselines

    shards = get(params, "shards")
    with ShardWriter(
        root / BASELINES, shards["max_bytes"], shards["rows_per_batch"], baselines_arrow_schema(), BASELINES_KEY
    ) as writer:
        for name in sorted(built_configs(root)):
            rows = read_table(root / SHARDS / name).drop_columns(["image"]).to_pylist()
            for entry in config_baselines(name, rows):
                writer.add(entry)
    return writer.rows


def baselines_facts(root: Path) -> list[ConfigFacts]:
    """The `baselines` config as a config of the HF folder (empty list when it was not built)."""
    from groundbench.schemas.baselines_features import BASELINE_FEATURES, BASELINES_CONFIG

    files = shard_files(root / BASELINES)
    if not files:
        return []
    rows = sum(open_shard(f).read_all().num_rows for f in files)
    size = sum(f.stat().st_size for f in files)
    return [
        ConfigFacts(
            name=BASELINES_CONFIG,
            stratum="all (one row per stratum)",
            source="all",
            rows=rows,
            excluded=0,
            images=0,
            image_bytes=0,
            shard_bytes=size,
            features=BASELINE_FEATURES,
            shards=root / BASELINES,
        )
    ]


def baseline_rows(root: Path) -> list[dict[str, Any]]:
    files = shard_files(root / BASELINES)
    return [row for f in files for row in open_shard(f).read_all().to_pylist()]


def run_assemble(root: Path, params: dict[str, Any]) -> list[ConfigFacts]:
    facts = collect_facts(root) + baselines_facts(root)
    assemble(
        root / HF_FOLDER,
        root / SHARDS,
        facts,
        DEFAULT_CONFIG,
        str(get(params, "dataset.version")),
        baselines=baseline_rows(root),
    )
    return facts
