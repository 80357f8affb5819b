"""``groundbench requests``: one JSONL line per row valid under a condition, for any model harness.

Every line carries the gate fields ``score`` checks: ``dataset_version`` and ``manifest_sha256``
(from the published folder's card, ``scoring.gate.folder_gate``) and ``template_sha256``; a harness
copies them onto its prediction lines.

Reads the published folder only (a local copy or a Hub repo id, resolved by the caller): the image
bytes are in the rows, so ``images`` (a folder) receives each requested image once, named by its
sha256, and the request line points at that file; without it the line names the image by sha256
and size, and the bytes are the row's ``image`` column.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from groundbench.core.atomic import write_bytes, write_text
from groundbench.errors import GroundBenchError, unknown_name
from groundbench.loaders.prompts import request
from groundbench.loaders.published import config_dir, iter_batches
from groundbench.schemas.request_conditions import check_condition, row_allows
from groundbench.scoring.gate import Gate, folder_gate

IMAGE_SUFFIXES = ((b"\x89PNG\r\n\x1a\n", ".png"), (b"\xff\xd8\xff", ".jpg"))


def image_name(sha256: str, data: bytes) -> str:
    suffix = next((ext for magic, ext in IMAGE_SUFFIXES if data.startswith(magic)), ".bin")
    return f"{sha256}{suffix}"


def manifest_sha256(folder: Path, gate: Gate, config: str) -> str:
    """The card's manifest sha256 of ``config``, or one error listing the configs a model can be asked
    (a misspelt config: the same list ``score`` gives)."""
    if config not in gate.manifest_sha256:
        raise unknown_name(folder, "config", config, sorted(gate.manifest_sha256))
    return gate.manifest_sha256[config]


def write_requests(folder: Path, config: str, condition: str, out: Path | None, images: Path | None = None) -> int:
    """Write the requests (sorted by example id; excluded rows are never requested); returns how many."""
    check_condition(condition, "command line")
    gate = folder_gate(folder)
    manifest = manifest_sha256(folder, gate, config)
    lines = []
    written: set[str] = set()
    for batch in iter_batches(config_dir(folder, config)):
        for index in range(batch.num_rows):
            row = batch.slice(index, 1).to_pylist()[0]
            if not row_allows(row, condition):
                continue
            image_path = None
            if images is not None:
                data = (row["image"] or {}).get("bytes") or b""
                name = image_name(row["image_sha256"], data)
                if name not in written:
                    write_bytes(images / name, data)
                    written.add(name)
                image_path = str(images / name)
            line = request(row, config, condition, image_path)
            line["dataset_version"] = gate.dataset_version
            line["manifest_sha256"] = manifest
            lines.append(json.dumps(line, sort_keys=True, ensure_ascii=False))
    if not lines:
        raise GroundBenchError(config, "condition", f"no row of {config} is valid under {condition}")
    text = "\n".join(lines) + "\n"
    if out is None:
        sys.stdout.write(text)
    else:
        write_text(out, text)
    return len(lines)
