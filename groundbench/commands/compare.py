"""``groundbench compare``: the paired difference of two predictions files (``groundbench.scoring.run``)."""

from __future__ import annotations

import argparse
from pathlib import Path

from groundbench.commands.options import BOOTSTRAP, DATA, out
from groundbench.commands.options import data_folder as _data_folder

NAME = "compare"
HELP = """Paired difference between two predictions files on the same rows (missing = failure), with a seeded
bootstrap interval resampled by object (screenshot for GUI)."""
PARENTS = (DATA, BOOTSTRAP)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("a", help="predictions JSONL of model A")
    parser.add_argument("b", help="predictions JSONL of model B")
    parser.add_argument("--json", type=Path, help="write the differences as JSON here")
    parser.add_argument(
        "--answer-format",
        action="append",
        metavar="NAME[:KEY=VALUE,...]",
        help="how answers are read, as for `score` (default groundbench; a line's answer_format overrides it); "
        "given once it reads both files, twice A's then B's",
    )


def run(args: argparse.Namespace) -> int:
    from groundbench.scoring.run import run_compare

    formats = args.answer_format or ["groundbench"]
    folder = _data_folder(args)
    return run_compare(folder, Path(args.a), Path(args.b), args.seed, args.resamples, args.json, out, None, formats)
