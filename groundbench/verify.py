"""``groundbench verify``: re-hash the image store and the bytes embedded in shards against manifests."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from groundbench.errors import GroundBenchError
from groundbench.manifests import read_manifest, sha256_bytes, sha256_file
from groundbench.shards import open_shard, shard_files


@dataclass
class VerifyReport:
    checked_files: int = 0
    checked_images: int = 0
    mismatches: list[str] = field(default_factory=list)


def verify(data: Path, configs: list[str]) -> VerifyReport:
    report = VerifyReport()
    store = data / "images"
    for config in configs:
        manifest_path = data / "manifests" / f"{config}.jsonl"
        try:
            manifest = read_manifest(manifest_path)
        except GroundBenchError as exc:
            report.mismatches.append(str(exc))
            continue
        for sha, entry in sorted(manifest.items()):
            path = store / entry.store_path()
            report.checked_files += 1
            if not path.is_file():
                report.mismatches.append(f"{path}: missing from the image store (listed in {manifest_path})")
            elif sha256_file(path) != sha:
                report.mismatches.append(f"{path}: sha256 differs from {manifest_path}")
            elif path.stat().st_size != entry.bytes:
                report.mismatches.append(f"{path}: size differs from {manifest_path}")
        for folder in (data / "shards" / config, data / "groundbench" / "data" / config):
            for shard in shard_files(folder):
                _verify_shard(shard, manifest, manifest_path, report)
    return report


def _verify_shard(shard: Path, manifest: dict, manifest_path: Path, report: VerifyReport) -> None:
    report.checked_files += 1
    try:
        reader = open_shard(shard)
        for index in range(reader.num_record_batches):
            batch = reader.get_batch(index)
            images = batch.column("image").field("bytes")
            for row, (example_id, sha) in enumerate(
                zip(batch.column("example_id").to_pylist(), batch.column("image_sha256").to_pylist(), strict=True)
            ):
                report.checked_images += 1
                data = images[row].as_py()
                if data is None or sha256_bytes(data) != sha:
                    report.mismatches.append(f"{shard}: {example_id}: embedded image does not hash to {sha}")
                elif sha not in manifest:
                    report.mismatches.append(f"{shard}: {example_id}: image {sha} not listed in {manifest_path}")
    except GroundBenchError as exc:
        report.mismatches.append(str(exc))
    except Exception as exc:  # a damaged shard can fail anywhere inside Arrow
        report.mismatches.append(f"{shard}: unreadable ({type(exc).__name__}: {exc})")
