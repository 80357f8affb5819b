"""``groundbench results export``: a run's Hub eval-results entries, and the pull request with them
(``groundbench.results.commands``)."""

from __future__ import annotations

import argparse

from groundbench.commands.options import SCORED_ON

NAME = "export"
HELP = """Write a run's Hub eval results (.eval_results/*.yaml, one per task headline); --push opens them as a pull
request on the model repository."""
DESCRIPTION = """Write the Hugging Face Hub eval-results entries of one run (.eval_results/*.yaml, one per task the
dataset's eval.yaml declares), with the dataset revision, the gate fields and a link to the dataset; --push opens a
pull request with them on the model repository (huggingface_hub create_commit)."""
PARENTS = (SCORED_ON,)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run", metavar="RUN_OR_SCORES", help="a scores.json or a run folder")
    parser.add_argument("--model-repo", required=True, help="ORG/MODEL: the model repository on the Hub")
    parser.add_argument("--dataset", required=True, help="ORG/NAME: the published GroundBench dataset on the Hub")
    parser.add_argument("--dataset-revision", help="the dataset's tag or commit (default: v<dataset_version>)")
    parser.add_argument("--model", help="which model of the run (needed when the run holds several)")
    parser.add_argument("--out", help="folder for .eval_results/ (default: <run folder>/hub)")
    parser.add_argument("--push", action="store_true", help="open a pull request with the files on --model-repo")
    parser.add_argument(
        "--allow-synthetic", action="store_true", help="export scores on a synthetic sample build anyway"
    )
    parser.add_argument("--allow-subset", action="store_true", help="export the scores of a deliberate subset anyway")
    parser.add_argument(
        "--allow-model-mismatch",
        action="store_true",
        help="export under --model-repo though the run's recorded model names another (refused by default)",
    )


def run(args: argparse.Namespace) -> int:
    from groundbench.results.commands import cmd_results_export

    return cmd_results_export(args)
