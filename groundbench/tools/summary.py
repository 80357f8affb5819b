"""``groundbench summary``'s numbers: rows, excluded rows, images and bytes per built config."""

from __future__ import annotations

from pathlib import Path

from groundbench.core.manifests import read_manifest
from groundbench.core.registry import BY_NAME
from groundbench.core.shards import open_shard, shard_files
from groundbench.stages.built import built_configs
from groundbench.stages.hffolder import ConfigFacts
from groundbench.stages.paths import MANIFESTS, SHARDS


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
