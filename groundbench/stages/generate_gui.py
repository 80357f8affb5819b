"""``groundbench generate-gui``: the deterministic GUI suites, the sample of the four GUI sources."""

from __future__ import annotations

import argparse

from groundbench.core import registry
from groundbench.core.plugins import load
from groundbench.stages.options import FOLDER, FORCE, QUIET, console, params, root
from groundbench.stages.unused_sample import skip_unused_sample

NAME = "generate-gui"
HELP = """Generate the deterministic GUI suites (Sheets, Text; every frame in params sample.gui.frames) in
PointerBench's format, plus ScreenSpot / ScreenSpot-v2 / ScreenSpot-Pro files, under <sample.root>/gui/."""
PARENTS = (FORCE, QUIET, FOLDER)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--examples", type=int, help="examples per suite (default: params sample.gui.examples_per_suite)"
    )


def plugins(args: argparse.Namespace) -> list[str]:
    return [registry.SAMPLES["gui"].writer]


def locks(args: argparse.Namespace) -> list[str]:
    return ["sample-gui"]


def run(args: argparse.Namespace) -> int:
    loaded = params(args)
    if skip_unused_sample(args, loaded, "gui"):
        return 0
    if args.examples is not None:
        gui = loaded.sample.gui.model_copy(update={"examples_per_suite": args.examples})
        loaded = loaded.model_copy(update={"sample": loaded.sample.model_copy(update={"gui": gui})})
    # One generator feeds the four GUI sources: <sample.root>/gui/{pointerbench,screenspot,screenspot_v2,screenspot_pro}
    (ref,) = plugins(args)
    written = load(ref)(root(args), loaded, progress=not args.quiet)
    console.print(f"wrote the generated GUI suites: {written} screenshots (PointerBench format + ScreenSpot files)")
    return 0
