"""``groundbench import``: another framework's per-sample output as prediction lines (``scoring/imports``)."""

from __future__ import annotations

import argparse
from pathlib import Path

from groundbench.commands.options import DATA, out
from groundbench.commands.options import data_folder as _data_folder

NAME = "import"
HELP = """Turn another framework's per-sample output (the official ScreenSpot-Pro script, lmms-eval --log_samples,
VLMEvalKit, PointerBench) into a predictions JSONL joined to a config's rows; report every row (matched, absent,
extra, ambiguous) and, where the file carries its own verdicts, its count beside GroundBench's."""
PARENTS = (DATA,)
KINDS = ("screenspot-pro-eval", "lmms-eval", "vlmevalkit", "pointerbench")  # scoring/imports/__init__.py


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="+", metavar="FILE", help="the framework's output file(s)")
    parser.add_argument("--from", dest="kind", required=True, choices=KINDS, help="which framework wrote FILE")
    parser.add_argument("--config", required=True, help="the GUI config the file's rows are joined to")
    parser.add_argument("--model", required=True, help="the model name written on every line")
    parser.add_argument("--out", type=Path, required=True, help="the predictions JSONL to write")
    parser.add_argument("--report", type=Path, help="write the whole import report (every row's fate) as JSON here")
    parser.add_argument(
        "--answer",
        choices=("raw", "stored"),
        default="raw",
        help="raw: the raw answer becomes `response` (default); stored: the framework's own parsed click, in "
        "pixels, which reproduces its own count",
    )
    parser.add_argument(
        "--answer-format",
        metavar="NAME[:KEY=VALUE,...]",
        help="the format the raw answers are written in, stored on every line (`groundbench profiles` lists "
        "them); none: the lines name none and `score --answer-format` reads them",
    )


def run(args: argparse.Namespace) -> int:
    from groundbench.scoring.imports.run import ImportOptions, run_import

    options = ImportOptions(args.kind, args.config, args.model, args.answer, args.answer_format)
    run_import(_data_folder(args), [Path(f) for f in args.files], options, args.out, args.report, out)
    return 0
