"""``groundbench requests``: one JSONL line per row valid under a condition, for any model harness.

Every line carries the gate fields ``score`` checks: ``dataset_version`` and ``manifest_sha256``
(from the published folder's card, ``scoring.gate.folder_gate``) and ``template_sha256``; a harness
copies them onto its prediction lines.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from groundbench.atomic import write_text
from groundbench.errors import GroundBenchError
from groundbench.loaders.prompts import request
from groundbench.manifests import read_manifest
from groundbench.scoring.conditions import is_known, row_allows
from groundbench.scoring.gate import folder_gate
from groundbench.scoring.published import read_config


def write_requests(folder: Path, root: Path, config: str, condition: str, out: Path | None) -> int:
    """Write the requests (sorted by example id; excluded rows are never requested); returns how many."""
    if not is_known(condition):
        raise GroundBenchError("requests", "condition", f"unknown condition {condition!r}")
    gate = folder_gate(folder)
    rows = read_config(folder, config)
    if config not in gate.manifest_sha256:
        raise GroundBenchError(folder / "README.md", f"groundbench.configs.{config}", "expected its manifest_sha256")
    manifest_path = root / "data" / "manifests" / f"{config}.jsonl"
    manifest = read_manifest(manifest_path) if manifest_path.is_file() else {}
    lines = []
    for row in rows:
        if not row_allows(row, condition):
            continue
        entry = manifest.get(row["image_sha256"])
        image_path = None if entry is None else f"data/images/{entry.store_path()}"
        line = request(row, config, condition, image_path)
        line["dataset_version"] = gate.dataset_version
        line["manifest_sha256"] = gate.manifest_sha256[config]
        lines.append(json.dumps(line, sort_keys=True, ensure_ascii=False))
    if not lines:
        raise GroundBenchError(config, "condition", f"no row of {config} is valid under {condition}")
    text = "\n".join(lines) + "\n"
    if out is None:
        sys.stdout.write(text)
    else:
        write_text(out, text)
    return len(lines)
