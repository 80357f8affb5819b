"""``groundbench table``: models x (config, condition) of scored runs (``groundbench.results.commands``)."""

from __future__ import annotations

import argparse

from groundbench.commands.options import LAYOUT_NAMES, SCORED_ON

NAME = "table"
HELP = "Models x (config, condition): headline figures with 95%% intervals and the baselines of the same rows."
DESCRIPTION = """Read runs (scores.json files or `groundbench eval` run folders) and print models x (config,
condition) with each headline metric, its 95% interval and the baselines of the same rows; a dagger marks an interval
that includes a baseline. Runs gated to different data are refused."""
PARENTS = (SCORED_ON,)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("runs", nargs="+", metavar="RUN_OR_SCORES", help="scores.json files or run folders")
    parser.add_argument("--format", choices=["terminal", "markdown", "latex", "csv"], default="terminal")
    parser.add_argument("--out", help="write the table here (markdown, latex, csv); default: standard output")
    parser.add_argument(
        "--layout",
        choices=LAYOUT_NAMES,
        metavar="NAME",
        help="the published table NAME instead, from runs scored with `groundbench score --layout NAME --json`: "
        f"{', '.join(LAYOUT_NAMES)}",
    )


def run(args: argparse.Namespace) -> int:
    from groundbench.results.commands import cmd_table

    return cmd_table(args)
