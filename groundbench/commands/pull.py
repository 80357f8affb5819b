"""``groundbench pull``: ``dvc pull`` of one config (``groundbench.tools.dvcpull``)."""

from __future__ import annotations

import argparse

from groundbench.errors import unknown_name
from groundbench.stages.options import console
from groundbench.stages.options import root as _root

NAME = "pull"
HELP = """`dvc pull` one config only: its shards, manifest, published folder and exactly the images its manifest
lists from the shared store."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("config", help="config name, e.g. curated_umd, or baselines")
    parser.add_argument("--remote", help="DVC remote name (default: the project's default remote)")


def run(args: argparse.Namespace) -> int:
    from groundbench.core.registry import BY_NAME
    from groundbench.schemas.baselines_features import BASELINES_CONFIG
    from groundbench.tools.dvcpull import pull_config

    names = sorted([*BY_NAME, BASELINES_CONFIG])
    if args.config not in names:
        raise unknown_name("command line", "config", args.config, names)
    _, images = pull_config(_root(args), args.config, args.remote)
    if args.config == BASELINES_CONFIG:
        console.print(f"{args.config}: shards and published folder pulled (no images)")
        return 0
    console.print(f"{args.config}: shards, manifest, published folder and {images} store images pulled")
    return 0
