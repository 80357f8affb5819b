"""The options several user and maintainer commands share, each defined once (argparse parent parsers), what
reads them, and the console their results print to (the stages' own are in ``groundbench/stages/options.py``)."""

from __future__ import annotations

import argparse
from pathlib import Path

from groundbench.core.datafolder import DATA_DEFAULT, DATA_HELP
from groundbench.core.terminal import ResultConsole
from groundbench.stages.options import root

out = ResultConsole()  # $COLUMNS, else the terminal's width, else a wide table when piped (core/terminal.py)

PROFILE_HELP = (
    "a model family's profile: its documented GUI prompt, the frame it is sent (Qwen's smart_resize where its "
    "processor would) and its answer format, recorded on every line (`groundbench profiles` lists them)"
)
# `score --layout` and `table --layout`: the names of scoring/layouts.py's LAYOUTS, written here so that building the
# parser imports no scoring code (tests/scoring/test_layouts.py checks they are the registry's).
LAYOUT_NAMES = ("screenspot-pro", "screenspot-pro-apps", "screenspot", "pointerbench", "osworld-g", "ui-vision")
# What `score`, `eval` and `eval-log` print: the headline figures; every metric with --verbose (always in the JSON).
VERBOSE = argparse.ArgumentParser(add_help=False)
VERBOSE.add_argument(
    "--verbose", action="store_true", help="after the headline figures, print every metric and the gate's hashes"
)
DATA = argparse.ArgumentParser(add_help=False)
DATA.add_argument("--data", help=DATA_HELP)
# Help strings are %-formats (95%% prints 95%); descriptions are printed as written.
# --data of `table`, `plot` and `results export`: the folder the runs were scored on.
SCORED_ON = argparse.ArgumentParser(add_help=False)
SCORED_ON.add_argument(
    "--data", help=f"the published GroundBench folder or Hub repo id the runs were scored on {DATA_DEFAULT}"
)
BOOTSTRAP = argparse.ArgumentParser(add_help=False)  # score and compare: the seeded bootstrap intervals
BOOTSTRAP.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
BOOTSTRAP.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples (default 1000)")
WHERE = argparse.ArgumentParser(add_help=False)
WHERE.add_argument(
    "--where",
    action="append",
    default=[],
    metavar="TERM",
    help="keep rows matching TERM (repeatable, ANDed): an exclusion tag (e.g. no_render) or a flag (e.g. "
    "box_clamped), excluded, included, reask, or key=value with key in stratum, source, action, class, quality, "
    "tag, flag, object_category, answer_type, target_type (action, class and quality describe the target part; "
    "target_type is the type summary and score show, e.g. a GUI row's corner, where class is its cell_corner)",
)


def output_root(args: argparse.Namespace) -> Path:
    """Where a reading command's default outputs go: the project (found as for every command), else the
    working directory (a wheel install reading a Hub copy has no project)."""
    from groundbench.core.project import find_project

    return find_project(args.root) or Path.cwd()


def data_folder(args: argparse.Namespace) -> Path:
    """``--data``: a published folder (relative to --root when it lies there, else as given) or a Hub repo id;
    its format version is checked before any row is read."""
    from groundbench.loaders.published import check_format_version, resolve_folder

    folder = resolve_folder(args.data, None if args.root is None else root(args))
    check_format_version(folder)
    return folder
