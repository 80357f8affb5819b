"""``load_config`` against ``datasets.load_dataset`` on the same published folder, and the seal check alone.

Each call runs in a fresh child process (``measure.run_in_child``; ``datasets`` and GroundBench's loaders are
imported before the clock starts), so what is timed is one call as a new ``groundbench eval`` or script pays
it: warm means the ``datasets`` cache (and the remembered seals) are there from an earlier call, cold that
the cache folder is new; the warm calls of the two alternate, once both caches are built. ``content_key`` is
the seal check ``load_config`` makes before it loads: hashing the config's Parquet files (every byte) on a
file's first check, a ``stat`` and a small record once remembered (``groundbench/core/sealcache.py``).

Run: ``.venv/bin/python benchmarks/load_config_bench.py [--folder data/groundbench] [--config bulk_umd]
[--repeat 5]``; prints one line per measure (median wall and CPU seconds). ``--synthetic-gb 2`` times the seal
check alone on a made-up folder of one 2 GB data file (the sample build's configs are a few MB).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from measure import Usage, measured, run_in_child

from groundbench.core import sealcache

REPO = Path(__file__).resolve().parent.parent


def child_call(kind: str, folder: str, config: str, cache: str) -> Usage:
    import datasets

    import groundbench.loaders as loaders
    from groundbench.loaders.published import content_key, seal_store

    calls = {
        "load_config": lambda: len(loaders.load_config(config, folder, cache_dir=cache)),
        "load_dataset": lambda: len(datasets.load_dataset(folder, config, split="test", cache_dir=cache)),
        "content_key": lambda: content_key(Path(folder), config, seal_store(cache)),
    }
    return measured(lambda: {"result": calls[kind]()})


def timed(kind: str, folder: Path, config: str, cache: Path, repeat: int) -> list[Usage]:
    return [run_in_child(child_call, kind, str(folder), config, str(cache))[0] for _ in range(repeat)]


def line(label: str, runs: list[Usage]) -> str:
    """Median wall and CPU seconds (CPU is the steadier one on a shared machine), and the wall range."""
    wall, cpu = [u.wall_s for u in runs], [u.cpu_s for u in runs]
    return (
        f"{label:<40} wall {statistics.median(wall):7.3f} s ({min(wall):.3f}-{max(wall):.3f}), "
        f"CPU {statistics.median(cpu):7.3f} s"
    )


def synthetic_folder(root: Path, config: str, size: int) -> Path:
    """A folder holding one data file of ``size`` random bytes and a card recording its sha256: all the seal
    check reads (it hashes files, it does not parse them), at a size the sample build does not reach."""
    data = root / "data" / config
    data.mkdir(parents=True)
    path = data / "test-00000-of-00001.parquet"
    digest = hashlib.sha256()
    with open(path, "wb") as handle:
        for _ in range(size // (1 << 24)):
            block = os.urandom(1 << 24)
            handle.write(block)
            digest.update(block)
    card = f"---\ngroundbench:\n  data_files_sha256:\n    data/{config}/{path.name}: {digest.hexdigest()}\n---\n"
    (root / "README.md").write_text(card)
    old = time.time() - 10  # settled: its last change well before it is first hashed
    os.utime(path, (old, old))
    time.sleep(sealcache.SETTLED_NS / 1e9)  # the ctime too (utime sets it to now)
    return root


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--folder", type=Path, default=REPO / "data" / "groundbench")
    parser.add_argument("--config", default="bulk_umd")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--synthetic-gb", type=float, default=0.0, help="time the seal check alone on a made-up file")
    args = parser.parse_args()
    if args.synthetic_gb:
        with tempfile.TemporaryDirectory(prefix="load-config-bench-") as scratch:
            folder = synthetic_folder(Path(scratch) / "folder", args.config, int(args.synthetic_gb * 1e9))
            cache = Path(scratch) / "cache"
            print(f"synthetic {args.config}: one {args.synthetic_gb:g} GB data file, content_key only")
            print(line("content_key, first check (hashes)", timed("content_key", folder, args.config, cache, 1)))
            print(line("content_key, remembered", timed("content_key", folder, args.config, cache, args.repeat)))
        return
    size = sum(p.stat().st_size for p in (args.folder / "data" / args.config).glob("*.parquet"))
    print(f"{args.folder} {args.config}: {size / 1e6:.1f} MB of Parquet, {args.repeat} calls each")
    kinds = ("load_dataset", "load_config")
    with tempfile.TemporaryDirectory(prefix="load-config-bench-") as scratch:
        for kind in kinds:
            cache = Path(scratch) / kind
            cold = []
            for _ in range(args.repeat):
                shutil.rmtree(cache, ignore_errors=True)
                cold += timed(kind, args.folder, args.config, cache, 1)
            print(line(f"{kind}, cold cache", cold))
        # Warm calls alternate between the two, once both caches exist: a warm call memory-maps its cache's Arrow
        # files, and a full-scale config's two caches and data files do not all stay in the page cache, so warm
        # calls made right after one kind's cold builds would read from disk what the other kind's find in memory.
        warm: dict[str, list[Usage]] = {kind: [] for kind in kinds}
        for _ in range(args.repeat):
            for kind in kinds:
                warm[kind] += timed(kind, args.folder, args.config, Path(scratch) / kind, 1)
        for kind in kinds:
            print(line(f"{kind}, warm cache", warm[kind]))
        print(line("content_key (the seal check alone)", timed("content_key", args.folder, args.config, cache, 3)))


if __name__ == "__main__":
    main()
