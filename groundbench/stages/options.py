"""The options several commands share, each defined once (argparse parent parsers), and what reads them.

Light on purpose: every stage process imports this module before anything else it runs."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console

from groundbench.core.project import ROOT_HELP, project_root

if TYPE_CHECKING:
    from groundbench.core.params import Params

console = Console(stderr=True)  # what a command says goes to stderr; stdout is for its data


def add_global_options(parser: argparse.ArgumentParser) -> None:
    """``--root`` and ``--debug``: given before the command (``groundbench --root DIR COMMAND ...``)."""
    parser.add_argument("--root", help=ROOT_HELP)
    parser.add_argument(
        "--debug",
        action="store_true",
        help="print the stack of a failure (also: GROUNDBENCH_DEBUG=1); default: one line",
    )


def _parent() -> argparse.ArgumentParser:
    return argparse.ArgumentParser(add_help=False)


QUIET = _parent()
QUIET.add_argument("--quiet", action="store_true", help="no progress bar")

FORCE = _parent()
FORCE.add_argument(
    "--force", action="store_true", help="write the sample even when params.yaml sources.* reads none of it"
)

FOLDER = _parent()
FOLDER.add_argument(
    "--folder",
    metavar="NAME",
    help="load only the source folder converters/NAME/ (dvc.yaml names each stage's, so a stage runs and depends on "
    "its own folder's code only; default: every folder)",
)

ENGINE = _parent()
ENGINE.add_argument(
    "--engine",
    choices=["local", "dask"],
    help="where the per-item work runs: local (our process pool) or dask (default: params.yaml engine.name)",
)
ENGINE.add_argument(
    "--address",
    help="Dask scheduler, e.g. tcp://10.0.0.5:8786 (default: params.yaml engine.address; none: a local cluster)",
)


def folder_option(argv: list[str]) -> tuple[str, ...] | None:
    """The ``--folder`` of a command line, read before its parser is built (the parser lists that folder's names)."""
    known, _ = FOLDER.parse_known_args(argv)
    if known.folder is None:
        return None
    from groundbench.errors import GroundBenchError
    from groundbench.schemas.folders import listed

    if known.folder not in listed():
        raise GroundBenchError(
            "command line", "--folder", f"expected a source folder {list(listed())}, got {known.folder!r}"
        )
    return (known.folder,)


def root(args: argparse.Namespace) -> Path:
    """The project every command works on: ``--root``, else the one around the working directory (one rule,
    ``groundbench.core.project``); ``args.root`` stays None when not given (the --data resolver tells the two apart)."""
    return project_root(args.root)


def params(args: argparse.Namespace) -> Params:
    from groundbench.core.params import load_params

    return load_params(root(args))


def with_engine(args: argparse.Namespace, params: Params) -> Params:
    """``params`` with ``--engine``/``--address`` in place of params.yaml ``engine`` (when given)."""
    if args.engine is None and args.address is None:
        return params
    from groundbench.core.params import EngineParams, validate

    engine = params.engine.model_dump()
    if args.engine is not None:
        # --engine local drops a configured dask address; --engine dask alone starts a local cluster.
        engine = {"name": args.engine, "address": None}
    if args.address is not None:
        engine["address"] = args.address
    return params.model_copy(update={"engine": validate(EngineParams, engine, "command line --engine/--address")})
