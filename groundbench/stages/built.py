"""What a build holds so far: the configs with shards, their rows, and why the others are absent."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel

from groundbench.core.params import SAMPLE, source_value
from groundbench.core.registry import CONFIGS
from groundbench.core.shards import ABSENT_MARKER, open_shard, shard_files
from groundbench.stages.paths import SHARDS

if TYPE_CHECKING:
    from groundbench.core.params import Params

EMPTY_REASON = "built with 0 rows: its sources give no row for this config"


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
