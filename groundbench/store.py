"""The content-addressed image store ``data/images/<sha[:2]>/<sha>.<ext>``, shared by all configs.

Built from the shards (whose bytes were checked against the manifests when they were baked), so a
derived config that reuses an image costs no new bytes.
"""

from __future__ import annotations

from pathlib import Path

from groundbench.atomic import atomic_dir
from groundbench.manifests import ManifestEntry
from groundbench.shards import iter_batches


def build_store(store: Path, configs: dict[str, tuple[Path, dict[str, ManifestEntry]]]) -> tuple[int, int]:
    """Write every image of every config once; returns (images, bytes)."""
    written: set[str] = set()
    total = 0
    with atomic_dir(store) as tmp:
        for _config, (shards, manifest) in sorted(configs.items()):
            for batch in iter_batches(shards):
                shas = batch.column("image_sha256").to_pylist()
                images = batch.column("image").field("bytes")
                for index, sha in enumerate(shas):
                    if sha in written:
                        continue
                    target = tmp / manifest[sha].store_path()
                    target.parent.mkdir(exist_ok=True)
                    data = images[index].as_py()
                    target.write_bytes(data)
                    written.add(sha)
                    total += len(data)
    return len(written), total
