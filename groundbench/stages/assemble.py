"""``groundbench assemble``: the Hugging Face dataset folder ``data/groundbench/`` (card, croissant.json,
version-stamped Parquet files), from the baked shards; the ``baselines`` config is computed from them here."""

from __future__ import annotations

import argparse
import functools
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from groundbench.core.manifests import sha256_file
from groundbench.core.registry import BY_NAME, CONFIGS, DEFAULT_CONFIG
from groundbench.fetch.provenance import source_provenance
from groundbench.schemas.baselines_features import configs_counted
from groundbench.stages.baselines_config import baselines_table
from groundbench.stages.built import absent_reasons, published_configs, synthetic_configs
from groundbench.stages.facts import DatasetFacts, FactsMeta, source_setting
from groundbench.stages.hffolder import assemble
from groundbench.stages.options import console, params, root
from groundbench.stages.paths import BUILD_LOCK_FILE, HF_FOLDER, LOCK_FILE, MANIFESTS, SHARDS

if TYPE_CHECKING:
    from groundbench.core.params import Params

NAME = "assemble"
HELP = (
    "Write the Hugging Face dataset folder data/groundbench/ (card, croissant.json, version-stamped shards; "
    "the baselines config computed from the shards)."
)


def plugins(args: argparse.Namespace) -> list[str]:
    """The source folders' card-facts hooks (``Folder.facts``), which the card's facts load by name."""
    from groundbench.core.registry import FOLDERS

    return [folder.facts for folder in FOLDERS if folder.facts]


# Curated configs chosen by a human-written audit file: config -> its params.yaml value (the specs name the key).
def _param(params: Params, key: str) -> str:
    node: Any = params
    for part in key.split("."):
        node = getattr(node, part)
    return str(node)


AUDITED: dict[str, Callable[[Params], str]] = {
    c.name: functools.partial(_param, key=c.audit) for c in CONFIGS if c.audit
}


def audit_files(root: Path, params: Params) -> dict[str, tuple[str, Path]]:
    """Audit files of the published curated configs: file name -> (config, path)."""
    published = set(published_configs(root))
    found = {}
    for config, audit in AUDITED.items():
        path = root / audit(params)
        if config in published and path.is_file():
            found[path.name] = (config, path)
    return found


def facts_meta(root: Path, params: Params) -> FactsMeta:
    lock, build_lock = root / LOCK_FILE, root / BUILD_LOCK_FILE
    sources = params.sources.model_dump()
    return FactsMeta(
        version=params.dataset.version,
        default=DEFAULT_CONFIG,
        source_settings={name: source_setting(value) for name, value in sorted(sources.items())},
        lock_sha256=sha256_file(lock) if lock.is_file() else "(no requirements.lock)",
        build_lock_sha256=sha256_file(build_lock) if build_lock.is_file() else "(no requirements-build.lock)",
        absent=absent_reasons(root),
        source_provenance=source_provenance(root, params),
        synthetic=synthetic_configs(params),
        date_published=params.dataset.date_published,
        url=params.dataset.url,
        audits=tuple((name, config) for name, (config, _) in sorted(audit_files(root, params).items())),
    )


def run_assemble(root: Path, params: Params) -> DatasetFacts:
    configs = [BY_NAME[name] for name in sorted(published_configs(root))]
    return assemble(
        root / HF_FOLDER,
        root / SHARDS,
        root / MANIFESTS,
        configs,
        facts_meta(root, params),
        baselines_table(root, params.dataset.version),
        {name: path for name, (_, path) in audit_files(root, params).items()},
    )


def run(args: argparse.Namespace) -> int:
    facts = run_assemble(root(args), params(args))
    counted = configs_counted(len(facts.configs), facts.baselines is not None)
    console.print(f"data/groundbench: {counted}, card and croissant.json, version {facts.version}")
    return 0
