"""The ``groundbench`` command: a stage command imports only its own module, every other command the CLI.

``dvc.yaml`` runs a stage per process; importing the whole command line (every command's parser, the
scorers, the review tools) in each would cost start-up and make every stage depend on all of that code.
So the command name is looked up in ``STAGES`` (a string table: nothing is imported for it) and only that
stage's module is loaded; ``groundbench.cli`` (the user commands and the full ``--help``) is imported
for everything else. A Ctrl-C before a command's own handling starts (imports, its parser) ends in the
same one line as one during the command."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable, Sequence

from groundbench.core.failures import debug_requested, one_line, safe_streams  # stdlib only: loads at once

# Stage command -> the module that defines it (groundbench/stages/command.py says what such a module holds).
STAGES = {
    "sample": "groundbench.stages.sample",
    "generate-gui": "groundbench.stages.generate_gui",
    "convert": "groundbench.stages.convert",
    "derive": "groundbench.stages.derive",
    "bake": "groundbench.stages.bake",
    "baselines": "groundbench.stages.baselines",
    "store": "groundbench.stages.store",
    "assemble": "groundbench.stages.assemble",
    "report": "groundbench.stages.report",
}
# Global options that take a value (the command is the first word that is neither one nor its value).
VALUED = ("--root",)


def command_name(argv: Sequence[str]) -> str | None:
    """The sub-command of ``argv`` (after the global options), or None (``--help``, ``--version``, nothing)."""
    skip = False
    for word in argv:
        if skip:
            skip = False
        elif word in VALUED:
            skip = True
        elif not word.startswith("-"):
            return word
    return None


def stage_parser(name: str) -> argparse.ArgumentParser:
    """A parser holding the global options and the one stage ``name``."""
    from groundbench.stages.command import add_stage
    from groundbench.stages.options import add_global_options

    parser = argparse.ArgumentParser(prog="groundbench")
    add_global_options(parser)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    add_stage(sub, importlib.import_module(STAGES[name]))
    return parser


def run_stage(argv: Sequence[str], name: str) -> int:
    """Parse and run a stage command, importing nothing but its module (and what it imports) and loading no
    source folder but its ``--folder`` (when given), its parser included."""

    def parse_and_run() -> int:
        from groundbench.core.registry import limited
        from groundbench.stages.command import run_stage as run
        from groundbench.stages.options import folder_option

        with limited(folder_option(list(argv))):
            args = stage_parser(name).parse_args(argv)
            return run(args.stage, args)

    return guarded(parse_and_run, "--debug" in argv)


def guarded(run: Callable[[], int], debug: bool) -> int:
    """Run one command; every failure ends in one ``error:`` line and an exit status (core/failures.py)."""
    from groundbench.core.failures import debug_requested, one_line, sigterm_unwinds
    from groundbench.core.terminal import quiet_progress

    quiet_progress()  # the libraries' progress bars: on a terminal only, never in a log
    try:
        with sigterm_unwinds():
            return run()
    except BaseException as exc:  # noqa: BLE001 (each kind becomes its one line; SystemExit passes)
        if isinstance(exc, SystemExit) or debug_requested(debug):
            raise
        line, status = one_line(exc)
        from groundbench.stages.options import console

        console.print(f"error: {line}", markup=False, highlight=False, soft_wrap=True)
        return status


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        return dispatch(argv)
    except KeyboardInterrupt as exc:  # before the command's own handling: while importing, building its parser
        if debug_requested("--debug" in argv):
            raise
        line, status = one_line(exc)
        print(f"error: {line}", file=sys.stderr, flush=True)
        return status


def dispatch(argv: Sequence[str]) -> int:
    safe_streams()
    name = command_name(argv)
    if name in STAGES:
        return run_stage(argv, name)
    # By name, like a stage: a stage's process never loads the user commands (nor counts them as its code).
    user: Callable[[Sequence[str]], int] = importlib.import_module("groundbench.cli").run_user
    return user(argv)
