"""The publishable Hugging Face dataset folder ``data/groundbench/``: card with generated YAML + shards.

The YAML (``configs`` with ``data_files``; ``dataset_info`` with features and ``num_examples``) is
written with the ``datasets`` / ``huggingface_hub`` serializers, never by hand.
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from datasets import Features
from datasets.info import DatasetInfo, DatasetInfosDict
from datasets.splits import SplitDict, SplitInfo
from datasets.utils.metadata import MetadataConfigs
from huggingface_hub import DatasetCard, DatasetCardData

from groundbench.atomic import atomic_dir
from groundbench.cards.render import render_body
from groundbench.schemas.features import FEATURES
from groundbench.shards import SPLIT, shard_files


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
    features: Features | None = None  # a config with its own rows (baselines); None = the record schema
    shards: Path | None = None  # where its shards are, when not <shards_root>/<name>


def chosen_default(facts: list[ConfigFacts], default: str) -> str:
    """The configured default config, or the first built one when that config is absent."""
    names = [f.name for f in facts]
    return default if default in names or not names else names[0]


def card_data(facts: list[ConfigFacts], default: str, version: str) -> DatasetCardData:
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
                features=FEATURES if f.features is None else f.features,
                config_name=f.name,
                splits=SplitDict({SPLIT: SplitInfo(name=SPLIT, num_examples=f.rows, num_bytes=f.shard_bytes)}),
            )
            for f in facts
        }
    ).to_dataset_card_data(data)
    return data


def assemble(
    folder: Path,
    shards_root: Path,
    facts: list[ConfigFacts],
    default: str,
    version: str,
    baselines: Sequence[dict[str, Any]] = (),
) -> None:
    with atomic_dir(folder) as tmp:
        for fact in facts:
            target = tmp / "data" / fact.name
            target.mkdir(parents=True)
            for shard in shard_files(shards_root / fact.name if fact.shards is None else fact.shards):
                shutil.copyfile(shard, target / shard.name)
        data = card_data(facts, default, version)
        card = DatasetCard(
            f"---\n{data.to_yaml()}\n---\n\n{render_body(facts, version, chosen_default(facts, default), baselines)}"
        )
        (tmp / "README.md").write_text(str(card), encoding="utf-8")
