"""The gate between predictions and the data they are scored against (seed 001's frozen manifests).

The published folder's card carries, in its YAML front matter, a ``groundbench`` key:
``format_version``, ``dataset_version``, ``configs.<name>.manifest_sha256`` (the sha256 of the
config's manifest, ``data/manifests/<name>.jsonl``: its images, its shard files and a digest of every
row's fields, boxes, labels and instruction included; see ``groundbench.core.manifests``) and
``data_files_sha256`` (the sha256 of every published Parquet file), written by ``groundbench
assemble``. :func:`folder_gate` reads them from the folder alone. Predictions made against rows with
other boxes, labels or prompts carry another ``manifest_sha256`` (or ``template_sha256``) and are
refused. Every request line carries ``dataset_version``, ``manifest_sha256`` and
``template_sha256``; ``groundbench score`` compares what each prediction line carries with the data
and the prompt templates it scores against (and ``image_sha256`` with the row's image, when a line
carries it), and refuses a mismatch unless explicitly overridden.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from groundbench import __version__
from groundbench.errors import GroundBenchError
from groundbench.loaders.published import DATA_FILES_KEY

CARD_KEY = "groundbench"
GATE_FIELDS = ("dataset_version", "manifest_sha256", "template_sha256")


@dataclass(frozen=True)
class Gate:
    format_version: str | None
    dataset_version: str | None
    manifest_sha256: dict[str, str] = field(default_factory=dict)  # config -> sha256 of its manifest
    package_version: str = __version__
    synthetic_configs: tuple[str, ...] = ()  # the card's groundbench.synthetic_configs (embedded samples)

    def to_dict(self) -> dict[str, Any]:
        return {
            "format_version": self.format_version,
            "dataset_version": self.dataset_version,
            "manifest_sha256": dict(sorted(self.manifest_sha256.items())),
            "package_version": self.package_version,
        }


def card_key(
    format_version: str,
    dataset_version: str,
    manifests: Mapping[str, str],
    data_files: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """The card's ``groundbench`` YAML value (what :func:`folder_gate` reads back); ``data_files``: each
    published Parquet file (path relative to the folder) -> its sha256 (``groundbench.loaders.published``)."""
    key: dict[str, Any] = {
        "format_version": format_version,
        "dataset_version": dataset_version,
        "configs": {name: {"manifest_sha256": sha} for name, sha in sorted(manifests.items())},
    }
    if data_files is not None:
        key[DATA_FILES_KEY] = dict(sorted(data_files.items()))
    return key


def _front_matter(card: Path) -> Mapping[str, Any]:
    text = card.read_text(encoding="utf-8")
    if not text.startswith("---"):
        return {}
    end = text.find("\n---", 3)
    if end < 0:
        raise GroundBenchError(card, "front matter", "expected a YAML block closed by ---")
    try:
        # libyaml's parser when present (as loaders/published.card_front_matter): the card records every data
        # file's sha256, so the YAML is long (a pure-Python parse ~0.6 s at full scale, once per gate read)
        value = yaml.load(text[3:end], Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError as exc:
        raise GroundBenchError(card, "front matter", f"expected YAML ({exc})") from exc
    return value if isinstance(value, Mapping) else {}


def folder_gate(folder: Path) -> Gate:
    """The dataset version and per-config manifest hashes of a published folder, from its card alone."""
    card = Path(folder) / "README.md"
    if not card.is_file():
        raise GroundBenchError(folder, "README.md", "expected the dataset card of a published GroundBench folder")
    key = _front_matter(card).get(CARD_KEY)
    if not isinstance(key, Mapping):
        raise GroundBenchError(
            card, CARD_KEY, "expected the card's `groundbench:` YAML key (re-run groundbench assemble)"
        )
    configs = key.get("configs") or {}
    if not isinstance(configs, Mapping):
        raise GroundBenchError(card, f"{CARD_KEY}.configs", "expected a mapping of config names")
    manifests = {}
    for name, value in configs.items():
        sha = value.get("manifest_sha256") if isinstance(value, Mapping) else None
        if not isinstance(sha, str):
            raise GroundBenchError(card, f"{CARD_KEY}.configs.{name}.manifest_sha256", "expected a sha256 string")
        manifests[str(name)] = sha
    version = key.get("dataset_version")
    fmt = key.get("format_version")
    synthetic = key.get("synthetic_configs") or []
    if not isinstance(synthetic, list):
        raise GroundBenchError(card, f"{CARD_KEY}.synthetic_configs", "expected a list of config names")
    return Gate(
        format_version=None if fmt is None else str(fmt),
        dataset_version=None if version is None else str(version),
        manifest_sha256=manifests,
        synthetic_configs=tuple(sorted(str(name) for name in synthetic)),
    )


def line_gate_fields(line: Mapping[str, Any]) -> dict[str, Any]:
    """The gate fields a prediction line carries (image_sha256 also under ``image.sha256``, as requests write it)."""
    found = {k: line[k] for k in GATE_FIELDS if line.get(k) is not None}
    image = line.get("image")
    sha = line.get("image_sha256", image.get("sha256") if isinstance(image, Mapping) else None)
    if sha is not None:
        found["image_sha256"] = sha
    return found


def mismatches(
    carried: Mapping[str, Any], gate: Gate, config: str, template_sha256: str, image_sha256: str
) -> list[str]:
    """What a line carries that differs from the data and templates it is scored against."""
    expected = {
        "dataset_version": gate.dataset_version,
        "manifest_sha256": gate.manifest_sha256.get(config),
        "template_sha256": template_sha256,
        "image_sha256": image_sha256,
    }
    return [
        f"{name} {carried[name]!r} != {expected[name]!r} ({config})"
        for name in ("dataset_version", "manifest_sha256", "template_sha256", "image_sha256")
        if name in carried and carried[name] != expected[name]
    ]
