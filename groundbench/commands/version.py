"""``groundbench version``: show or bump the dataset version (``groundbench.tools.version``)."""

from __future__ import annotations

import argparse

from groundbench.stages.options import console
from groundbench.stages.options import params as _params
from groundbench.stages.options import root as _root

NAME = "version"
HELP = """Show the dataset version, or bump it: params.yaml dataset.version plus a CHANGELOG-data.md entry (rows
added/removed/changed per config since the previous bump, computed from the built shards)."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", choices=["show", "bump"], help="show the version, or bump it")
    parser.add_argument("part", nargs="?", choices=["major", "minor", "patch"], default="patch", help="what to bump")


def run(args: argparse.Namespace) -> int:
    from groundbench.stages.built import built_configs
    from groundbench.stages.paths import SHARDS
    from groundbench.tools.version import bump

    root = _root(args)
    if args.action == "show":
        print(_params(args).dataset.version)
        return 0
    new, changes = bump(root, root / SHARDS, built_configs(root), args.part)
    for c in changes:
        console.print(f"{c.config}: +{c.added} -{c.removed} ~{c.changed} ={c.unchanged}")
    console.print(f"dataset version {new}: params.yaml and CHANGELOG-data.md updated; run `make build` to stamp it")
    return 0
