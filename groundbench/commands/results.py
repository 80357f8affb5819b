"""``groundbench results ACTION``: publishing results; its one action is ``export`` (``results_export.py``)."""

from __future__ import annotations

import argparse

from groundbench.commands import results_export as export
from groundbench.commands.protocol import add_command

NAME = "results"
HELP = "Publish results: `groundbench results export RUN --model-repo ORG/MODEL`."
DESCRIPTION = None  # its --help lists the actions


def add_arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="results_command", required=True, metavar="ACTION")
    add_command(actions, export)  # no run of its own: the action's module runs (the innermost default wins)
