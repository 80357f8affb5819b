"""``groundbench convert SOURCE...``: each source (as params.yaml sets it) into ``data/interim/<source>/``."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from groundbench.core import registry
from groundbench.errors import GroundBenchError
from groundbench.stages.options import ENGINE, FOLDER, QUIET, console, params, root, with_engine

if TYPE_CHECKING:
    from groundbench.core.params import Params

NAME = "convert"
HELP = "Convert sources (as set in params.yaml) into data/interim/<source>/, one after the other."
PARENTS = (QUIET, ENGINE, FOLDER)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    choices = [name for name, info in registry.SOURCES.items() if not info.derived]  # the registry's converters
    parser.add_argument(
        "sources",
        nargs="+",
        metavar="SOURCE",
        choices=choices,
        help=f"which sources to convert: {', '.join(choices)} (GUI sources are set under sources.gui in params.yaml); "
        "several run in one process (dvc.yaml's convert_gui: the GUI formats pay one start-up)",
    )


def plugins(args: argparse.Namespace) -> list[str]:
    return [registry.SOURCES[source].factory for source in args.sources]


def locks(args: argparse.Namespace) -> list[str]:
    return [f"convert-{source}" for source in args.sources]


def run_convert(root: Path, params: Params, source: str, progress: bool = True) -> dict[str, int]:
    from groundbench.stages.source_run import run_source

    info = registry.SOURCES.get(source)
    if info is None or info.derived:
        raise GroundBenchError("params.yaml", f"sources.{source}", "no converter for this source")
    return run_source(root, params, info, progress)[0]


def run(args: argparse.Namespace) -> int:
    loaded = with_engine(args, params(args))
    for source in args.sources:
        counts = run_convert(root(args), loaded, source, progress=not args.quiet)
        if not counts:
            console.print(f"source {source} is null in params.yaml: left out of the build")
        for config, rows in counts.items():
            console.print(f"{config}: {rows} rows converted")
    return 0
