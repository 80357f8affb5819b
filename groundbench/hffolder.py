"""The publishable Hugging Face dataset folder ``data/groundbench/``: card, Croissant file and shards.

The YAML (``configs`` with ``data_files``; ``dataset_info`` with features and ``num_examples``) is
written with the ``datasets`` / ``huggingface_hub`` serializers, never by hand; the body and
``croissant.json`` are rendered from :mod:`groundbench.facts`. The shards are copied with the
dataset version added to their schema metadata (``groundbench`` key).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
from datasets.info import DatasetInfo, DatasetInfosDict
from datasets.splits import SplitDict, SplitInfo
from datasets.utils.metadata import MetadataConfigs
from huggingface_hub import DatasetCard, DatasetCardData

from groundbench.atomic import atomic_dir
from groundbench.cards.render import render_body
from groundbench.croissant import write_croissant
from groundbench.facts import ConfigCard, DatasetFacts, FactsMeta, dataset_facts
from groundbench.registry import ConfigInfo
from groundbench.schemas.features import FEATURES, arrow_schema
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


def chosen_default(facts: Sequence[ConfigFacts | ConfigCard], default: str) -> str:
    """The configured default config, or the first built one when that config is absent."""
    names = [f.name for f in facts]
    return default if default in names or not names else names[0]


def card_data(facts: Sequence[ConfigFacts | ConfigCard], default: str, version: str) -> DatasetCardData:
    total = sum(f.rows for f in facts)
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
    default_name = chosen_default(facts, default)
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
                features=FEATURES,
                config_name=f.name,
                splits=SplitDict({SPLIT: SplitInfo(name=SPLIT, num_examples=f.rows, num_bytes=f.shard_bytes)}),
            )
            for f in facts
        }
    ).to_dataset_card_data(data)
    return data


def card_text(facts: DatasetFacts) -> str:
    data = card_data(facts.configs, facts.default, facts.version)
    return str(DatasetCard(f"---\n{data.to_yaml()}\n---\n\n{render_body(facts)}"))


def stamp_shard(source: Path, target: Path, version: str) -> None:
    """Copy a shard batch by batch with the dataset version in its schema metadata."""
    reader = open_shard(source)
    schema = arrow_schema(version)
    with pa.OSFile(str(target), "wb") as sink, pa.ipc.new_file(sink, schema) as writer:
        for index in range(reader.num_record_batches):
            writer.write_batch(reader.get_batch(index))


def assemble(
    folder: Path, shards_root: Path, manifests_root: Path, configs: list[ConfigInfo], meta: FactsMeta
) -> DatasetFacts:
    """Write the folder: stamped shard copies, then the card and Croissant file computed from those copies."""
    with atomic_dir(folder) as tmp:
        for info in configs:
            target = tmp / "data" / info.name
            target.mkdir(parents=True)
            for shard in shard_files(shards_root / info.name):
                stamp_shard(shard, target / shard.name, meta.version)
        facts = dataset_facts(tmp / "data", manifests_root, configs, meta)
        (tmp / "README.md").write_text(card_text(facts), encoding="utf-8")
        write_croissant(tmp, facts)
    return facts
