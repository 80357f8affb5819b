"""Run one registry source through the runner into ``data/interim/<its folder>/`` (convert and derive)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from groundbench.core import registry
from groundbench.core.params import source_root
from groundbench.core.plugins import load
from groundbench.core.remote import localise_sources
from groundbench.core.runner import Context, Source, mark_absent, run
from groundbench.fetch.select import absent_hint
from groundbench.scoring.baselines import bake_row_baselines
from groundbench.stages.engine import map_engine
from groundbench.stages.paths import INTERIM

if TYPE_CHECKING:
    from groundbench.core.params import Params
    from groundbench.core.registry import SourceInfo


def build_source(root: Path, params: Params, info: SourceInfo) -> Source[Any, Any]:
    """The registry entry's source, made by its factory (a plug-in: a run loads one converter only)."""
    source: Source[Any, Any] = load(info.factory)(Context(root, params, root / INTERIM, info.name))
    return source


def run_source(
    root: Path,
    params: Params,
    info: SourceInfo,
    progress: bool = True,
    prepare: Callable[[Source[Any, Any]], None] | None = None,
) -> tuple[dict[str, int], Source[Any, Any] | None]:
    """Write ``data/interim/<its folder>/`` through the runner; a null source marks its configs absent.
    ``prepare`` adjusts the source before it runs (``derive contrast --write-pool-draft``)."""
    out = root / INTERIM / info.interim_folder
    if source_root(root, params, info.reads_from) is None:
        # The source is left out: each of its configs gets a folder saying so (dvc.yaml needs it).
        key = registry.NESTED_SOURCES.get(info.reads_from, info.reads_from)
        reason = f"sources.{key} is null in params.yaml{absent_hint(root, info.reads_from)}"
        mark_absent(out, {c.name: reason for c in registry.CONFIGS if c.interim_folder == info.interim_folder})
        return {}, None
    params, mirrors = localise_sources(params)
    source = build_source(root, params, info)
    if prepare is not None:
        prepare(source)
    # The rows leave the converter's writer baked, so `groundbench bake` links the files instead of copying.
    return run(source, out, params.shards, progress, map_engine(params, mirrors), bake_row_baselines), source
