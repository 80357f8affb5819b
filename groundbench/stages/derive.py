"""``groundbench derive CONSTRUCTION``: a re-ask config built from the converted GAPartNet rows."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from groundbench.core import registry
from groundbench.errors import GroundBenchError
from groundbench.stages.options import ENGINE, FOLDER, QUIET, console, params, root, with_engine

if TYPE_CHECKING:
    from groundbench.core.params import Params

NAME = "derive"
HELP = """Build a re-ask config from the converted GAPartNet rows: counterfactual (every curated row re-asked about
each non-target part) or contrast (every object mined for parts with different actions; raw objects rendered clean;
failing rows kept, tagged, excluded). Prints the frozen pool's size."""
PARENTS = (QUIET, ENGINE, FOLDER)


def derived() -> list[str]:
    """The registry's derived sources."""
    return sorted(name for name, info in registry.SOURCES.items() if info.derived)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("construction", choices=derived(), help="which re-ask config to build")
    parser.add_argument(
        "--write-pool-draft",
        metavar="FILE",
        help="contrast: also write the mined pool to FILE in data/audits/contrast_pool.yaml's format, every reason "
        "empty (the build refuses empty reasons: review each pair, write what you checked, point contrast.pool at it)",
    )


def plugins(args: argparse.Namespace) -> list[str]:
    return [registry.SOURCES[args.construction].factory]


def locks(args: argparse.Namespace) -> list[str]:
    return [f"derive-{args.construction}"]


def run_derive(
    root: Path, params: Params, construction: str, progress: bool = True, pool_draft: Path | None = None
) -> dict[str, Any]:
    """Build a derived config's rows (re-asks); returns its summary, empty when its source is null.
    ``pool_draft``: contrast only, also write the mined pool there in the pool file's format, reasons empty
    (before the pool check, so a pool that differs gets its starting point)."""
    from groundbench.core.runner import Source
    from groundbench.stages.source_run import run_source

    info = registry.SOURCES.get(construction)
    if info is None or not info.derived:
        raise GroundBenchError("command line", "construction", f"expected one of {derived()}")
    if pool_draft is not None and construction != "contrast":
        raise GroundBenchError("command line", "--write-pool-draft", "only the contrast construction has a pool")

    def prepare(source: Source[Any, Any]) -> None:
        source.pool_draft = pool_draft  # type: ignore[attr-defined]  # ContrastSource (checked above)

    _, source = run_source(root, params, info, progress, prepare if pool_draft is not None else None)
    return {} if source is None else dict(source.summary)


def run(args: argparse.Namespace) -> int:
    draft = None if args.write_pool_draft is None else Path(args.write_pool_draft)
    summary = run_derive(
        root(args), with_engine(args, params(args)), args.construction, progress=not args.quiet, pool_draft=draft
    )
    if not summary:
        console.print("source gapartnet is null in params.yaml: left out of the build")
        return 0
    pool = summary["pool"]
    console.print(
        f"{args.construction}: {summary['rows']} rows, {summary['excluded']} excluded; "
        f"frozen pool {pool['objects']} objects, {pool['pairs']} pairs"
    )
    return 0
