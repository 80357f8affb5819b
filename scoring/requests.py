"""``groundbench requests``: one JSONL line per row valid under a condition, for any model harness."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from groundbench.atomic import write_text
from groundbench.errors import GroundBenchError
from groundbench.loaders.prompts import request
from groundbench.manifests import read_manifest
from groundbench.scoring.conditions import is_known, row_allows
from groundbench.shards import read_table


def write_requests(folder: Path, root: Path, config: str, condition: str, out: Path | None) -> int:
    """Write the requests (sorted by example id; excluded rows are never requested); returns how many."""
    if not is_known(condition):
        raise GroundBenchError("requests", "condition", f"unknown condition {condition!r}")
    shards = folder / "data" / config
    if not shards.is_dir():
        raise GroundBenchError(folder, "data", f"config {config!r} is not in this GroundBench folder")
    manifest_path = root / "data" / "manifests" / f"{config}.jsonl"
    manifest = read_manifest(manifest_path) if manifest_path.is_file() else {}
    lines = []
    for row in read_table(shards).drop_columns(["image"]).to_pylist():
        if not row_allows(row, condition):
            continue
        entry = manifest.get(row["image_sha256"])
        image_path = None if entry is None else f"data/images/{entry.store_path()}"
        lines.append(json.dumps(request(row, config, condition, image_path), sort_keys=True, ensure_ascii=False))
    if not lines:
        raise GroundBenchError(config, "condition", f"no row of {config} is valid under {condition}")
    text = "\n".join(lines) + "\n"
    if out is None:
        sys.stdout.write(text)
    else:
        write_text(out, text)
    return len(lines)
