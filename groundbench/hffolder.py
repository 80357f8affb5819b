"""The publishable Hugging Face dataset folder ``data/groundbench/``: card, Croissant file and shards.

The YAML (``configs`` with ``data_files``; ``dataset_info`` with features and ``num_examples``) is
written with the ``datasets`` / ``huggingface_hub`` serializers, never by hand; the body and
``croissant.json`` are rendered from :mod:`groundbench.facts`. The shards are copied with the
dataset version added to their schema metadata (``groundbench`` key). Besides the record configs
(schema ``schemas/features.py``) the folder holds the ``baselines`` config, with its own features
(``schemas/baselines_features.py``), when it was built.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
from datasets import Features
from datasets.info import DatasetInfo, DatasetInfosDict
from datasets.splits import SplitDict, SplitInfo
from datasets.utils.metadata import MetadataConfigs
from huggingface_hub import DatasetCard, DatasetCardData

from groundbench.atomic import atomic_dir
from groundbench.cards.render import render_body
from groundbench.croissant import write_croissant
from groundbench.facts import BaselinesCard, ConfigCard, DatasetFacts, FactsMeta, dataset_facts
from groundbench.registry import ConfigInfo
from groundbench.schemas.baselines_features import BASELINE_FEATURES, BASELINES_CONFIG, baselines_arrow_schema
from groundbench.schemas.features import FEATURES, arrow_schema
from groundbench.scoring.gate import card_key
from groundbench.shards import SPLIT, open_shard, shard_files


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
    return BASELINE_FEATURES if name == BASELINES_CONFIG else FEATURES


def card_data(facts: Sequence[ConfigFacts | ConfigCard | BaselinesCard], default: str, version: str) -> DatasetCardData:
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
    )
    default_name = chosen_default([f for f in facts if f.name != BASELINES_CONFIG], default)
    MetadataConfigs(
        {
            f.name: {
                "data_files": [{"split": SPLIT, "path": f"data/{f.name}/{SPLIT}-*.arrow"}],
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
    data = card_data(facts.published, facts.default, facts.version)
    # The scoring gate (groundbench.scoring.gate.folder_gate) reads this key from the published folder alone.
    manifests = {c.name: c.manifest_sha256 for c in facts.configs}
    data.groundbench = card_key(facts.format_version, facts.version, manifests)  # type: ignore[attr-defined]
    return str(DatasetCard(f"---\n{data.to_yaml()}\n---\n\n{render_body(facts)}"))


def stamp_shard(source: Path, target: Path, version: str, schema: pa.Schema | None = None) -> None:
    """Copy a shard batch by batch with the dataset version in its schema metadata.

    ``schema`` is the stamped schema to write (default: the record schema with ``version``).
    """
    reader = open_shard(source)
    schema = arrow_schema(version) if schema is None else schema
    with pa.OSFile(str(target), "wb") as sink, pa.ipc.new_file(sink, schema) as writer:
        for index in range(reader.num_record_batches):
            writer.write_batch(reader.get_batch(index))


def assemble(
    folder: Path,
    shards_root: Path,
    manifests_root: Path,
    configs: list[ConfigInfo],
    meta: FactsMeta,
    baselines_root: Path | None = None,
) -> DatasetFacts:
    """Write the folder: stamped shard copies, then the card and Croissant file computed from those copies.

    ``baselines_root`` holds the ``baselines`` config's shards (``groundbench baselines``); it is
    left out when None or empty.
    """
    with atomic_dir(folder) as tmp:
        for info in configs:
            target = tmp / "data" / info.name
            target.mkdir(parents=True)
            for shard in shard_files(shards_root / info.name):
                stamp_shard(shard, target / shard.name, meta.version)
        baseline_shards = [] if baselines_root is None else shard_files(baselines_root)
        if baseline_shards:
            target = tmp / "data" / BASELINES_CONFIG
            target.mkdir(parents=True)
            for shard in baseline_shards:
                stamp_shard(shard, target / shard.name, meta.version, baselines_arrow_schema(meta.version))
        facts = dataset_facts(tmp / "data", manifests_root, configs, meta)
        (tmp / "README.md").write_text(card_text(facts), encoding="utf-8")
        write_croissant(tmp, facts)
    return facts
