"""The publishable Hugging Face dataset folder ``data/groundbench/``: card, Croissant file, Parquet data.

The YAML (``configs`` with ``data_files``; ``dataset_info`` with features and ``num_examples``) is
written with the ``datasets`` / ``huggingface_hub`` serializers, never by hand; the body and
``croissant.json`` are rendered from :mod:`groundbench.stages.facts`. Each config's Arrow shards are
written as Parquet (:mod:`groundbench.loaders.published`: image bytes embedded, the ``datasets`` features in
the schema metadata, the dataset version beside them) with the published columns added
(:mod:`groundbench.stages.published_columns`: prompts and licence). Besides the record configs the folder
holds the ``baselines`` config, with its own features (``schemas/baselines_features.py``), when it
was built. A config with no rows is not written: the card lists it as absent, with the reason.

The folder is sealed: the card's ``groundbench.data_files_sha256`` records every Parquet file's sha256
(what ``load_config`` checks on any copy, a Hub download included), and ``SHA256SUMS`` lists every
other file of the folder too, the card itself included (what ``groundbench verify`` checks; it stays
in the build, since ``publish`` writes the commit into the uploaded card).
"""

from __future__ import annotations

import shutil
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
from datasets import Features
from datasets.info import DatasetInfo, DatasetInfosDict
from datasets.splits import SplitDict, SplitInfo
from datasets.utils.metadata import MetadataConfigs
from huggingface_hub import DatasetCard, DatasetCardData

from groundbench.cards.notice import synthetic_notice
from groundbench.cards.render import render_body, sources_read
from groundbench.cards.sources import DERIVED_SOURCE, SOURCES, SYNTHETIC_KEYS, licence_text
from groundbench.core.atomic import atomic_dir
from groundbench.core.manifests import sha256_file, write_sha256sums
from groundbench.core.parallel import each_in_threads, worker_count
from groundbench.core.registry import ConfigInfo
from groundbench.core.shards import SPLIT, iter_batches, open_shard, shard_files
from groundbench.loaders.published import CHECKSUMS, DATA_GLOB, iter_rows, rows_per_group, write_config
from groundbench.results.tasks import EVAL_YAML, folder_eval_yaml
from groundbench.schemas.baselines_features import BASELINE_FEATURES, BASELINES_CONFIG
from groundbench.schemas.features import FORMAT_VERSION, PUBLISHED_FEATURES, published_arrow_schema
from groundbench.scoring.gate import card_key
from groundbench.stages.croissant import write_croissant
from groundbench.stages.facts import BaselinesCard, ConfigCard, DatasetFacts, FactsMeta, dataset_facts
from groundbench.stages.published_columns import with_published_columns


@dataclass(frozen=True)
class ConfigFacts:
    name: str
    stratum: str
    source: str
    rows: int
    excluded: int
    images: int
    image_bytes: int
    shard_bytes: int


def chosen_default(facts: Sequence[ConfigFacts | ConfigCard | BaselinesCard], default: str) -> str:
    """The configured default config, or the first built one when that config is absent."""
    names = [f.name for f in facts]
    return default if default in names or not names else names[0]


def features_of(name: str) -> Features:
    """The config's columns as ``datasets.Features``, for the card's ``dataset_info``."""
    return (BASELINE_FEATURES if name == BASELINES_CONFIG else PUBLISHED_FEATURES).to_datasets()


def groundbench_metadata(facts: Sequence[ConfigCard | BaselinesCard], version: str, synthetic: Sequence[str]) -> dict:
    """The card's ``groundbench:`` YAML: what tools check before reading the folder (format version,
    dataset version, each config's manifest sha256, each data file's sha256) and which configs are
    synthetic samples."""
    manifests = {f.name: f.manifest_sha256 for f in facts if isinstance(f, ConfigCard)}
    # The scoring gate (groundbench.scoring.gate.folder_gate) reads this key from the published folder alone.
    key = card_key(FORMAT_VERSION, version, manifests, data_file_sums(facts))
    return {**key, "synthetic_configs": sorted(synthetic)}


def data_file_sums(facts: Sequence[ConfigCard | BaselinesCard]) -> dict[str, str]:
    """Every Parquet file of the folder (``data/<config>/<file>``) -> its sha256, as the facts measured it."""
    return {f"data/{f.name}/{shard.name}": shard.sha256 for f in facts for shard in f.shards}


def source_datasets(facts: DatasetFacts) -> list[str]:
    """The card's ``source_datasets``: ``original`` for synthetic samples, ``extended|<source>`` per source read."""
    found = set()
    for key in sources_read(facts):
        if key in SYNTHETIC_KEYS:
            found.add("original")
        elif key != DERIVED_SOURCE:
            info = SOURCES.get(key)
            found.add(f"extended|{info.dataset_id if info and info.dataset_id else key}")
    return sorted(found)


def card_data(facts: DatasetFacts) -> DatasetCardData:
    """The card's YAML: Hub metadata, configs with their Parquet files, features, and the ``groundbench`` key."""
    data = _card_data(facts.published, facts.default, facts.version, facts.synthetic)
    data.language = facts.languages
    data.multilinguality = "multilingual" if len(facts.languages) > 1 else "monolingual"
    data.source_datasets = source_datasets(facts)
    # The sources' own annotations (by experts) converted and checked by code; a synthetic sample's
    # annotations are generated by code alone.
    real = [c for c in facts.configs if c.name not in facts.synthetic]
    data.annotations_creators = ["expert-generated", "machine-generated"] if real else ["machine-generated"]
    return data


def _card_data(
    facts: Sequence[ConfigCard | BaselinesCard], default: str, version: str, synthetic: Sequence[str] = ()
) -> DatasetCardData:
    # The size category counts examples: the baselines config's aggregates are not examples.
    total = sum(f.rows for f in facts if f.name != BASELINES_CONFIG)
    size = (
        "n<1K" if total < 1000 else "1K<n<10K" if total < 10_000 else "10K<n<100K" if total < 100_000 else "100K<n<1M"
    )
    data = DatasetCardData(
        pretty_name="GroundBench",
        license="other",
        license_name="per-source",
        license_link="README.md#licences",
        task_categories=["object-detection", "visual-question-answering", "robotics"],
        tags=["affordance", "grounding", "vision-language-models", "benchmark"],
        size_categories=[size],
        version=version,
        groundbench=groundbench_metadata(facts, version, synthetic),  # CARD_KEY: what tools check first
    )
    default_name = chosen_default([f for f in facts if f.name != BASELINES_CONFIG], default)
    MetadataConfigs(
        {
            f.name: {
                "data_files": [{"split": SPLIT, "path": f"data/{f.name}/{DATA_GLOB}"}],
                **({"default": True} if f.name == default_name else {}),
            }
            for f in facts
        }
    ).to_dataset_card_data(data)
    DatasetInfosDict(
        {
            f.name: DatasetInfo(
                features=features_of(f.name),
                config_name=f.name,
                splits=SplitDict({SPLIT: SplitInfo(name=SPLIT, num_examples=f.rows, num_bytes=f.shard_bytes)}),
            )
            for f in facts
        }
    ).to_dataset_card_data(data)
    return data


def card_text(facts: DatasetFacts) -> str:
    data = card_data(facts)
    return str(DatasetCard(f"---\n{data.to_yaml()}\n---\n\n{render_body(facts)}"))


def _sizes(shards: list[Path]) -> tuple[int, int]:
    """Rows and uncompressed bytes of Arrow shards, from their batches' metadata (no data read)."""
    rows = nbytes = 0
    for shard in shards:
        reader = open_shard(shard)
        for index in range(reader.num_record_batches):
            batch = reader.get_batch(index)
            rows += batch.num_rows
            nbytes += batch.nbytes
    return rows, nbytes


def publish_config(
    source: Path, target: Path, info: ConfigInfo, version: str, synthetic: bool, stop: threading.Event | None = None
) -> None:
    """One record config's Arrow shards as published Parquet, with prompts and licences added (``stop``: set
    when the command is ending early; the config is then left unwritten at the next batch)."""
    schema = published_arrow_schema(version)
    rows, nbytes = _sizes(shard_files(source))

    def licence_of(row_source: str) -> str:
        return licence_text(row_source, synthetic)

    def batches() -> Iterator[pa.RecordBatch]:
        for batch in iter_batches(source):
            if stop is not None and stop.is_set():
                raise InterruptedError(f"{target}: stopped before it was written")
            yield with_published_columns(batch, licence_of, schema)

    write_config(target, batches(), schema, rows_per_group(rows, nbytes))


TEASER = "assets/teaser.png"
AUDITS = "audits"
TEASER_LAYOUT_COLUMNS = 4


def teaser_rows(folder: Path, configs: list[ConfigInfo]) -> list[dict]:
    """Per config, its first included row whose image no earlier tile shows (the ScreenSpot variants share
    screenshots: their first rows would be one picture three times); a config with none is left out."""
    rows: list[dict] = []
    shown: set[str] = set()
    for info in configs:
        row = next(
            (r for r in iter_rows(folder, info.name) if not r["excluded"] and r["image_sha256"] not in shown), None
        )
        if row is not None:
            rows.append(row)
            shown.add(row["image_sha256"])
    return rows


def teaser_png(folder: Path, configs: list[ConfigInfo]) -> bytes | None:
    """A contact sheet of one included row per config, targets drawn, captions whole (the card's picture)."""
    from groundbench.review.sheet import SheetLayout, page

    rows = teaser_rows(folder, configs)
    if not rows:
        return None
    columns = min(TEASER_LAYOUT_COLUMNS, len(rows))
    return page(rows, SheetLayout(side=256, columns=columns, rows=-(-len(rows) // columns), wrap=True))


def eval_yaml_text(folder: Path, facts: DatasetFacts) -> str:
    """The folder's Hub task declaration (``eval.yaml``: one task per config, condition and headline metric)."""
    names = [c.name for c in facts.configs]
    return folder_eval_yaml(folder, names, facts.version, synthetic_notice(facts.synthetic))


def assemble(
    folder: Path,
    shards_root: Path,
    manifests_root: Path,
    configs: list[ConfigInfo],
    meta: FactsMeta,
    baselines: pa.Table | None = None,
    audits: dict[str, Path] | None = None,
) -> DatasetFacts:
    """Write the folder: Parquet data files, then the card and Croissant file computed from those files.

    ``configs`` are the configs with rows (see ``pipeline.published_configs``). ``baselines`` holds
    the ``baselines`` config's rows (``stages/baselines_config.py``); it is left out when None.
    ``audits`` (file name -> path) are the human-written audit files of the curated configs, copied to
    ``audits/`` so the card links them; the teaser picture goes to ``assets/teaser.png``, the Hub task
    declaration to ``eval.yaml``.
    """
    with atomic_dir(folder) as tmp:

        def publish(info: ConfigInfo, stop: threading.Event) -> None:
            synthetic = info.name in meta.synthetic
            publish_config(shards_root / info.name, tmp / "data" / info.name, info, meta.version, synthetic, stop)

        # One config per core at once: Parquet encoding and writing release the GIL, and each config is its
        # own files, so the bytes do not depend on the order.
        each_in_threads(publish, configs, worker_count(0))
        if baselines is not None:
            group = rows_per_group(baselines.num_rows, baselines.nbytes)
            write_config(tmp / "data" / BASELINES_CONFIG, baselines.to_batches(), baselines.schema, group)
        for name, path in sorted((audits or {}).items()):
            (tmp / AUDITS).mkdir(exist_ok=True)
            shutil.copyfile(path, tmp / AUDITS / name)
        teaser = teaser_png(tmp, configs)
        if teaser is not None:
            (tmp / TEASER).parent.mkdir()
            (tmp / TEASER).write_bytes(teaser)
        facts = dataset_facts(tmp / "data", manifests_root, configs, meta)
        (tmp / "README.md").write_text(card_text(facts), encoding="utf-8")
        (tmp / EVAL_YAML).write_text(eval_yaml_text(tmp, facts), encoding="utf-8")
        write_croissant(tmp, facts)
        write_sha256sums(tmp / CHECKSUMS, folder_sums(tmp, data_file_sums(facts.published)))
    return facts


def folder_sums(folder: Path, data_files: dict[str, str]) -> dict[str, str]:
    """Every file of the folder but ``SHA256SUMS`` -> sha256 (the Parquet files' already measured)."""
    sums = {}
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        name = path.relative_to(folder).as_posix()
        if name != CHECKSUMS:
            sums[name] = data_files.get(name) or sha256_file(path)
    return sums
