"""``groundbench sources``: point params.yaml at the fetched trees or the embedded samples
(``groundbench.fetch.select``)."""

from __future__ import annotations

import argparse

from groundbench.stages.options import console
from groundbench.stages.options import root as _root

NAME = "sources"
HELP = """Point params.yaml's sources: at the fetched trees (real; sources not fetched become null and their configs
are absent, with the reason) or back at the embedded samples (sample)."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("mode", choices=["real", "sample"], help="which sources the next build reads")


def run(args: argparse.Namespace) -> int:
    from groundbench.fetch.select import use_sources

    values = use_sources(_root(args), args.mode)
    for key, value in sorted(values.items()):
        console.print(f"sources.{key}: {'null (not fetched)' if value is None else value}", markup=False)
    return 0
