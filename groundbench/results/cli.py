"""The ``table``, ``plot`` and ``results export`` sub-commands' arguments; ``groundbench/cli.py`` registers each
with one call (``register_table(sub)`` ...).

Each command's function is looked up by name in ``groundbench.results.commands`` when the command runs:
every pipeline stage builds this same parser, and a static import here would add the plotting code (and
the gallery's ``review/report`` it builds on) to every stage's code deps (``groundbench dvc-deps``),
though no stage runs it.
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable
from typing import Any

from groundbench.core.datafolder import DATA_DEFAULT

COMMANDS = "groundbench.results.commands"


def _command(name: str) -> Callable[[argparse.Namespace], int]:
    def run(args: argparse.Namespace) -> int:
        return int(getattr(importlib.import_module(COMMANDS), name)(args))

    run.__name__ = name
    return run


# Help strings are %-formats (95%% prints 95%); descriptions are printed as written.
# --data of the three commands, defined once (an argparse parent parser, as groundbench/cli.py's DATA).
SCORED_ON = argparse.ArgumentParser(add_help=False)
SCORED_ON.add_argument(
    "--data", help=f"the published GroundBench folder or Hub repo id the runs were scored on {DATA_DEFAULT}"
)


def register_table(sub: Any) -> None:
    p = sub.add_parser(
        "table",
        parents=[SCORED_ON],
        help="Models x (config, condition): headline figures with 95%% intervals and the baselines of the same rows.",
        description="Read runs (scores.json files or `groundbench eval` run folders) and print models x (config, "
        "condition) with each headline metric, its 95% interval and the baselines of the same rows; a dagger "
        "marks an interval that includes a baseline. Runs gated to different data are refused.",
    )
    p.set_defaults(func=_command("cmd_table"))
    p.add_argument("runs", nargs="+", metavar="RUN_OR_SCORES", help="scores.json files or run folders")
    p.add_argument("--format", choices=["terminal", "markdown", "latex", "csv"], default="terminal")
    p.add_argument("--out", help="write the table here (markdown, latex, csv); default: standard output")


def register_plot(sub: Any) -> None:
    p = sub.add_parser(
        "plot",
        parents=[SCORED_ON],
        help="Figures of runs (PNG + SVG, deterministic): headline figures with intervals and baselines, GUI "
        "breakdowns, a paired-difference forest plot.",
        description="Write, for the runs (scores.json files or run folders): one figure per headline metric "
        "(each model's value and 95% interval per config and condition, baselines as reference lines), GUI "
        "success per target type and per frame size, and with --compare the forest plot of `groundbench compare "
        "--json` files; plus plots.json, every plotted number.",
    )
    p.set_defaults(func=_command("cmd_plot"))
    p.add_argument("runs", nargs="*", metavar="RUN_OR_SCORES", help="scores.json files or run folders")
    p.add_argument(
        "--compare", action="append", default=[], metavar="COMPARE_JSON", help="`groundbench compare --json` output"
    )
    p.add_argument("--out", help="folder for the figures (default: build/plots of the project)")


def register_results(sub: Any) -> None:
    p = sub.add_parser("results", help="Publish results: `groundbench results export RUN --model-repo ORG/MODEL`.")
    actions = p.add_subparsers(dest="results_command", required=True, metavar="ACTION")
    e = actions.add_parser(
        "export",
        parents=[SCORED_ON],
        help="Write a run's Hub eval results (.eval_results/*.yaml, one per task headline); --push opens them "
        "as a pull request on the model repository.",
        description="Write the Hugging Face Hub eval-results entries of one run (.eval_results/*.yaml, one per task "
        "the dataset's eval.yaml declares), with the dataset revision, the gate fields and a link to the dataset; "
        "--push opens a pull request with them on the model repository (huggingface_hub create_commit).",
    )
    e.set_defaults(func=_command("cmd_results_export"))
    e.add_argument("run", metavar="RUN_OR_SCORES", help="a scores.json or a run folder")
    e.add_argument("--model-repo", required=True, help="ORG/MODEL: the model repository on the Hub")
    e.add_argument("--dataset", required=True, help="ORG/NAME: the published GroundBench dataset on the Hub")
    e.add_argument("--dataset-revision", help="the dataset's tag or commit (default: v<dataset_version>)")
    e.add_argument("--model", help="which model of the run (needed when the run holds several)")
    e.add_argument("--out", help="folder for .eval_results/ (default: <run folder>/hub)")
    e.add_argument("--push", action="store_true", help="open a pull request with the files on --model-repo")
    e.add_argument("--allow-synthetic", action="store_true", help="export scores on a synthetic sample build anyway")
    e.add_argument("--allow-subset", action="store_true", help="export the scores of a deliberate subset anyway")
    e.add_argument(
        "--allow-model-mismatch",
        action="store_true",
        help="export under --model-repo though the run's recorded model names another (refused by default)",
    )
