"""The gate fields every sample and predictions line carries, read from the published folder alone.

``dataset_version`` and the config's ``manifest_sha256`` come from the dataset card: its YAML
``groundbench:`` key (``dataset_version``, ``configs.<name>.manifest_sha256``) when the card has one,
else the card's ``version`` and its Provenance table. ``template_sha256`` is per condition and is
added by :mod:`groundbench.evaluate.samples`. This is the one place that reads them: the scoring
package's ``folder_gate`` replaces its body once that lands.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from groundbench.errors import GroundBenchError

CARD = "README.md"
_SHA = re.compile(r"[0-9a-f]{64}")


def _front_matter(card: Path) -> tuple[dict[str, Any], str]:
    try:
        text = card.read_text(encoding="utf-8")
    except OSError as exc:
        raise GroundBenchError(card, "file", f"expected the dataset card of a GroundBench folder ({exc})") from exc
    parts = text.split("---\n", 2)
    if not text.startswith("---\n") or len(parts) < 3:
        raise GroundBenchError(card, "front matter", "expected YAML front matter between --- lines")
    meta = yaml.safe_load(parts[1]) or {}
    if not isinstance(meta, dict):
        raise GroundBenchError(card, "front matter", "expected a YAML mapping")
    return meta, parts[2]


def _provenance_manifest(body: str, config: str) -> str | None:
    """The manifest sha256 column of the card's Provenance table row for ``config``."""
    for line in body.splitlines():
        cells = [c.strip().strip("`") for c in line.strip().strip("|").split("|")]
        if len(cells) >= 5 and cells[0] == config and _SHA.fullmatch(cells[-1]):
            return cells[-1]
    return None


def gate_fields(folder: Path, config: str) -> dict[str, str]:
    """``{"dataset_version", "manifest_sha256"}`` of one config of the published folder."""
    card = folder / CARD
    meta, body = _front_matter(card)
    ours = meta.get("groundbench")
    ours = ours if isinstance(ours, dict) else {}
    version = ours.get("dataset_version", meta.get("version"))
    per_config = (ours.get("configs") or {}).get(config) or {}
    manifest = per_config.get("manifest_sha256") or _provenance_manifest(body, config)
    if version is None:
        raise GroundBenchError(card, "version", "the card names no dataset version")
    if manifest is None:
        raise GroundBenchError(card, "manifest_sha256", f"the card gives no manifest sha256 for config {config!r}")
    return {"dataset_version": str(version), "manifest_sha256": str(manifest)}
