"""The content-addressed image store ``data/images/<sha[:2]>/<sha>.<ext>``, shared by all configs.

Built from the shards (whose bytes were checked against the manifests when they were baked), so a
derived config that reuses an image costs no new bytes.
"""

from __future__ import annotations

import argparse
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from groundbench.core.atomic import atomic_dir
from groundbench.core.manifests import ManifestEntry, read_manifest
from groundbench.core.parallel import worker_count
from groundbench.core.shards import embedded_images, iter_batches
from groundbench.stages.built import built_configs
from groundbench.stages.options import console, root
from groundbench.stages.paths import IMAGES, MANIFESTS, SHARDS


def _write(files: list[tuple[Path, memoryview]]) -> None:
    for target, data in files:
        target.write_bytes(data)


def build_store(store: Path, configs: dict[str, tuple[Path, dict[str, ManifestEntry]]]) -> tuple[int, int]:
    """Write every image of every config once; returns (images, bytes)."""
    written: set[str] = set()
    total = 0
    # Writing thousands of small files is the kernel's work (page cache, file creation), and a write
    # releases the GIL: one thread per core writes them about as fast as the disk takes them.
    threads = worker_count(0)
    with atomic_dir(store) as tmp, ThreadPoolExecutor(threads) as pool:
        for _config, (shards, manifest) in sorted(configs.items()):
            for batch in iter_batches(shards):
                shas = batch.column("image_sha256").to_pylist()
                # Views into the memory-mapped shard: written without a copy into Python bytes.
                images = embedded_images(batch.column("image").field("bytes"))
                todo = []
                for sha, data in zip(shas, images, strict=True):
                    if sha in written or data is None:
                        continue
                    target = tmp / manifest[sha].store_path()
                    target.parent.mkdir(exist_ok=True)
                    todo.append((target, data))
                    written.add(sha)
                    total += len(data)
                # One share of the batch per thread; the batch's views stay alive until every write is done.
                list(pool.map(_write, [todo[start::threads] for start in range(threads)]))
    return len(written), total


# The `groundbench store` command (groundbench/stages/command.py).
NAME = "store"
HELP = "Fill the content-addressed image store data/images/ from the shards."


def run_store(root: Path) -> tuple[int, int]:
    configs = {
        name: (root / SHARDS / name, read_manifest(root / MANIFESTS / f"{name}.jsonl")) for name in built_configs(root)
    }
    return build_store(root / IMAGES, configs)


def run(args: argparse.Namespace) -> int:
    images, size = run_store(root(args))
    console.print(f"image store: {images} images, {size} bytes")
    return 0
