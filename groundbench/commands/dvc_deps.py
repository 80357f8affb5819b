"""``groundbench dvc-deps``: dvc.yaml's source stages and code deps against the specs and the code
(``groundbench.tools.dvcstages``, ``groundbench.tools.dvcdeps``)."""

from __future__ import annotations

import argparse

from groundbench.stages.options import console
from groundbench.stages.options import root as _root

NAME = "dvc-deps"
HELP = """Compare dvc.yaml with the source specs (each source's stages, the foreach matrices) and each stage's code
deps with the import closure of its command (and the package data those modules ship); exit 1 on any difference.
--write regenerates both (hand-written data deps are left alone)."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="compare only (the default)")
    mode.add_argument("--write", action="store_true", help="rewrite the source stages and the code deps of dvc.yaml")
    mode.add_argument(
        "--matrix", action="store_true", help="print each module file -> the stages editing it re-runs, and a summary"
    )


def run(args: argparse.Namespace) -> int:
    from groundbench.tools import dvcstages
    from groundbench.tools.dvcdeps import check, matrix, write

    root = _root(args)
    if args.matrix:
        lines, summary = matrix(root)
        for line in lines:
            print(line)  # plain: one module per line, for grep
        console.print(summary)
        return 0
    if args.write:
        # The source stages and foreach matrices first (from the specs), then every stage's code deps.
        written = dvcstages.write(root)
        if written:
            console.print(f"dvc.yaml: stages written from the source specs: {', '.join(written)}")
        changed = write(root)
        console.print(f"dvc.yaml: code deps rewritten for {', '.join(changed)}" if changed else "dvc.yaml: up to date")
        return 0
    problems = dvcstages.check(root) + check(root)
    for problem in problems:
        console.print(problem, markup=False, highlight=False, soft_wrap=True)
    if problems:
        console.print("run `groundbench dvc-deps --write` to regenerate dvc.yaml's source stages and code deps")
        return 1
    console.print("dvc.yaml: every stage's code deps match the import closure of its command")
    return 0
