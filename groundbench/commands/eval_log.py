"""``groundbench eval-log``: inspect logs into predictions and scores, as ``eval`` writes them
(``groundbench.evaluate.run``)."""

from __future__ import annotations

import argparse
from pathlib import Path

from groundbench.commands.eval import print_scores_breakdown
from groundbench.commands.options import DATA, VERBOSE, out
from groundbench.commands.options import data_folder as _data_folder
from groundbench.errors import GroundBenchError
from groundbench.stages.options import console

NAME = "eval-log"
HELP = """Turn inspect logs of `inspect eval groundbench/groundbench ...` into OUT/predictions.jsonl and
OUT/scores.json, exactly as `groundbench eval` writes them (answered samples only)."""
PARENTS = (DATA, VERBOSE)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("logs", nargs="+", metavar="LOG", help="inspect .eval (or .json) logs of the groundbench task")
    parser.add_argument("--out", required=True, help="folder for predictions.jsonl and scores.json")
    parser.add_argument(
        "--subset",
        action="store_true",
        help="the logs answer a deliberate subset (inspect eval --limit): score it as one",
    )


def run(args: argparse.Namespace) -> int:
    try:
        from groundbench.evaluate.run import score_logs
    except ImportError as exc:
        raise GroundBenchError(
            "environment",
            "inspect_ai",
            f"groundbench eval-log needs the eval extra: pip install 'groundbench[eval]' ({exc})",
        ) from exc
    result = score_logs([Path(p) for p in args.logs], _data_folder(args), Path(args.out), out, console, args.subset)
    if args.verbose:
        print_scores_breakdown(result.scores)
    console.print(f"eval-log: {result.rows} answered rows -> {result.predictions} and {result.scores}", soft_wrap=True)
    return 0
