"""``groundbench plot``: figures of scored runs (``groundbench.results.commands``)."""

from __future__ import annotations

import argparse

from groundbench.commands.options import SCORED_ON

NAME = "plot"
HELP = """Figures of runs (PNG + SVG, deterministic): headline figures with intervals and baselines, GUI breakdowns,
a paired-difference forest plot."""
DESCRIPTION = """Write, for the runs (scores.json files or run folders): one figure per headline metric (each model's
value and 95% interval per config and condition, baselines as reference lines), GUI success per target type and per
frame size, and with --compare the forest plot of `groundbench compare --json` files; plus plots.json, every plotted
number."""
PARENTS = (SCORED_ON,)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("runs", nargs="*", metavar="RUN_OR_SCORES", help="scores.json files or run folders")
    parser.add_argument(
        "--compare", action="append", default=[], metavar="COMPARE_JSON", help="`groundbench compare --json` output"
    )
    parser.add_argument("--out", help="folder for the figures (default: build/plots of the project)")


def run(args: argparse.Namespace) -> int:
    from groundbench.results.commands import cmd_plot

    return cmd_plot(args)
