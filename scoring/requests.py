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

import hashlib
import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from groundbench.core.atomic import write_bytes, write_text
from groundbench.loaders.prompts import request
from groundbench.loaders.published import config_dir, iter_batches, read_config, row_columns, unknown_config
from groundbench.loaders.validity import VALIDITY_COLUMNS, Validity, without_masks
from groundbench.schemas.request_conditions import check_condition, no_valid_rows
from groundbench.scoring.gate import Gate, folder_gate
from groundbench.scoring.profiles import Profile, parse_profile
from groundbench.scoring.profiles.resample import resized_png, scaled_row

IMAGE_SUFFIXES = ((b"\x89PNG\r\n\x1a\n", ".png"), (b"\xff\xd8\xff", ".jpg"))


def image_name(sha256: str, data: bytes) -> str:
    suffix = next((ext for magic, ext in IMAGE_SUFFIXES if data.startswith(magic)), ".bin")
    return f"{sha256}{suffix}"


def manifest_sha256(folder: Path, gate: Gate, config: str) -> str:
    """The card's manifest sha256 of ``config``, or one error listing the configs a model can be asked
    (a misspelt config: the same list ``score`` gives)."""
    if config not in gate.manifest_sha256:
        raise unknown_config(folder, config, sorted(gate.manifest_sha256))
    return gate.manifest_sha256[config]


def profiled(line: dict[str, Any], row: Mapping[str, Any], condition: str, profile: Profile) -> tuple[int, int]:
    """Restate a request line under a profile (its prompt, system text, frame and format); the size to send."""
    width, height = profile.sent_size(int(row["width"]), int(row["height"]))
    resized = (width, height) != (row["width"], row["height"])
    system, prompt = profile.prompt(scaled_row(row, width, height) if resized else row, condition)
    line.update(prompt=prompt, profile=profile.spec, answer_format=profile.format.spec)
    line["template_sha256"] = profile.template_hash(condition)
    if system is not None:
        line["system"] = system
    if profile.request_body:  # the server options the family's answer syntax needs (keep its box tokens)
        line["request_body"] = profile.request_body
    if resized:
        line["resize"] = {"row_size": [row["width"], row["height"]], "sent_size": [width, height]}
    return width, height


def written_image(row: Mapping[str, Any], size: tuple[int, int], images: Path, written: set[str]) -> dict[str, Any]:
    """Write the image to send into ``images`` (once per name); the line's ``image``: that file's path, sha256
    and size. When the profile resizes, the file is the resized PNG (``<row sha256>_<w>x<h>.png``), so its sha256
    is not the row's; the line then also carries the row's as ``image_sha256``."""
    data = (row["image"] or {}).get("bytes") or b""
    sha256, name = row["image_sha256"], image_name(row["image_sha256"], data)
    if size != (row["width"], row["height"]):
        data = resized_png(data, *size)
        sha256, name = hashlib.sha256(data).hexdigest(), f"{row['image_sha256']}_{size[0]}x{size[1]}.png"
    if name not in written:
        write_bytes(images / name, data)
        written.add(name)
    return {"sha256": sha256, "path": str(images / name), "width": size[0], "height": size[1]}


def write_requests(
    folder: Path,
    config: str,
    condition: str,
    out: Path | None,
    images: Path | None = None,
    profile_spec: str | None = None,
) -> int:
    """Write the requests (sorted by example id; excluded rows are never requested); returns how many. Under a
    profile each line also carries ``profile``, ``answer_format``, its ``system`` text and, when the image is
    to be sent in another frame, ``resize`` (the image written to ``images`` is then the resized one)."""
    check_condition(condition, "command line")
    profile = None if profile_spec is None else parse_profile(profile_spec)
    gate = folder_gate(folder)
    manifest = manifest_sha256(folder, gate, config)
    lines = []
    written: set[str] = set()
    where = config_dir(folder, config)
    columns = row_columns(folder, config)
    rows = Validity.of(read_config(folder, config, [c for c in VALIDITY_COLUMNS if c in columns]))
    wanted = rows.mask(condition)  # decided column-wise: only the rows asked become Python objects
    if images is not None:
        columns.append("image")  # the bytes are read only to be written there
    start = 0
    for batch in iter_batches(where, columns):
        chosen = np.flatnonzero(wanted[start : start + batch.num_rows])
        start += batch.num_rows
        for row in without_masks(batch.take(pa.array(chosen, pa.int64()))).to_pylist() if len(chosen) else []:
            line = request(row, config, condition, None)
            size = (row["width"], row["height"]) if profile is None else profiled(line, row, condition, profile)
            if line["image"] is not None and size != (row["width"], row["height"]):
                line["image_sha256"] = row["image_sha256"]  # the row's image: what the gate checks
            if images is not None and line["image"] is not None:
                line["image"] = written_image(row, size, images, written)
            line["dataset_version"] = gate.dataset_version
            line["manifest_sha256"] = manifest
            lines.append(json.dumps(line, sort_keys=True, ensure_ascii=False))
    if not lines:
        raise no_valid_rows(config, condition, rows.conditions())
    text = "\n".join(lines) + "\n"
    if out is None:
        sys.stdout.write(text)
    else:
        write_text(out, text)
    return len(lines)
