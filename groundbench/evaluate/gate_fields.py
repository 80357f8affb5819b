"""The gate fields every sample and predictions line carries, read from the published folder alone.

``dataset_version`` and the config's ``manifest_sha256`` come from the dataset card's YAML
``groundbench:`` key, through the scorer's own :func:`groundbench.scoring.gate.folder_gate`, so the
eval and ``groundbench score`` read the gate from one place. ``template_sha256`` is per condition
(:func:`answer_gate` holds all three).
"""

from __future__ import annotations

import time
from pathlib import Path

from groundbench.core.sealcache import SETTLED_NS
from groundbench.errors import GroundBenchError
from groundbench.loaders.prompts import template_hash
from groundbench.scoring.gate import folder_gate
from groundbench.scoring.profiles import Profile
from groundbench.scoring.requests import manifest_sha256


def gate_fields(folder: Path, config: str) -> dict[str, str]:
    """``{"dataset_version", "manifest_sha256"}`` of one config of the published folder. Read once per card
    file identity (a command asks for them per (config, condition) and per window of rows)."""
    card = Path(folder) / "README.md"
    try:
        stat = card.stat()
        identity = (stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns)
    except OSError:  # no card: folder_gate says so
        return _gate_fields(Path(folder), config)
    key = (str(card.resolve()), identity, config)
    found = _READ.get(key)
    if found is None:
        found = _gate_fields(Path(folder), config)
        # remembered only once settled: a rewrite within a timestamp tick could keep the identity (sealcache)
        if time.time_ns() - max(stat.st_mtime_ns, stat.st_ctime_ns) >= SETTLED_NS:
            _READ[key] = found
    return dict(found)


_READ: dict[tuple[str, tuple[int, ...], str], dict[str, str]] = {}  # (card, its identity, config) -> gate fields


def _gate_fields(folder: Path, config: str) -> dict[str, str]:
    gate = folder_gate(folder)
    if gate.dataset_version is None:
        raise GroundBenchError(
            Path(folder) / "README.md", "groundbench.dataset_version", "the card names no dataset version"
        )
    return {"dataset_version": gate.dataset_version, "manifest_sha256": manifest_sha256(Path(folder), gate, config)}


def answer_gate(folder: Path, config: str, condition: str, profile: Profile | None = None) -> dict[str, str]:
    """Every gate field an answer to (config, condition) carries: the folder's two and the template's hash (the
    profile's own templates' hash when it is asked under a profile)."""
    template = template_hash(condition) if profile is None else profile.template_hash(condition)
    return {**gate_fields(folder, config), "template_sha256": template}
