"""``groundbench sample SOURCE``: write a source's embedded sample, in its real on-disk format."""

from __future__ import annotations

import argparse

from groundbench.core import registry
from groundbench.core.plugins import load
from groundbench.stages.options import ENGINE, FOLDER, FORCE, console, params, root, with_engine
from groundbench.stages.unused_sample import skip_unused_sample

NAME = "sample"
HELP = """Write the embedded sample of a source, in its real on-disk format (only a marker file when params.yaml
points the source at a folder or null: nothing reads the sample then)."""
PARENTS = (FORCE, ENGINE, FOLDER)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    # The registry's samples (GUI's dvc.yaml stage runs its sample as `generate-gui`).
    parser.add_argument("source", choices=list(registry.SAMPLES), help="which source's sample to write")


def plugins(args: argparse.Namespace) -> list[str]:
    return [registry.SAMPLES[args.source].writer]


def locks(args: argparse.Namespace) -> list[str]:
    return [f"sample-{args.source}"]


def run(args: argparse.Namespace) -> int:
    loaded = params(args)
    if skip_unused_sample(args, loaded, args.source):
        return 0
    (ref,) = plugins(args)
    frames = load(ref)(root(args), with_engine(args, loaded))
    console.print(f"wrote the embedded {args.source} sample: {frames} frames")
    return 0
