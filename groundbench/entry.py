"""The ``groundbench`` command: a stage command imports only its own module, every other command the whole
command line.

``dvc.yaml`` runs a stage per process; importing the whole command line (every command's parser, the
scorers, the review tools) in each would cost start-up and make every stage depend on all of that code.
So the command name is looked up in the command table (``groundbench/commands/__init__.py``: module names,
nothing is imported for them) and a stage's process loads that stage's module only; the whole command line
(``groundbench/commands/parser.py``: every command and the full ``--help``) is loaded for everything else. A
Ctrl-C before a command's own handling starts (imports, its parser) ends in the same one line as one during
the command."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Sequence

from groundbench.commands import MAINTAINERS, STAGES, USERS, command_name
from groundbench.core.collector import loading  # stdlib only
from groundbench.core.failures import (  # stdlib only: loads at once
    debug_requested,
    one_line,
    safe_streams,
    sigterm_unwinds,
)

COMMANDS = {**USERS, **MAINTAINERS}  # name -> module of every command that is not a stage


def run_stage(argv: Sequence[str], name: str) -> int:
    """Parse and run a stage command, importing nothing but its module (and what it imports) and loading no
    source folder but its ``--folder`` (when given), its parser included."""

    def parse_and_run() -> int:
        from groundbench.core.registry import limited
        from groundbench.stages.command import run_stage as run
        from groundbench.stages.command import stage_parser
        from groundbench.stages.options import folder_option

        with limited(folder_option(list(argv))):
            with loading():  # the stage's modules and parser (groundbench/core/collector.py)
                args = stage_parser(name).parse_args(argv)
            return run(args.command_module, args)

    return guarded(parse_and_run, "--debug" in argv, name)


def run_command(argv: Sequence[str], name: str | None) -> int:
    """A user or maintainer command: parsed by a parser of that command alone (the whole command line for
    ``--help`` or a name not in the table), loaded by name like a stage's module: a stage's process never loads
    the other commands, nor counts them as its code. Then run. Loading the command is guarded too: a module of an
    extra that is not installed ends in the line naming the extra."""

    def parse_and_run() -> int:
        with loading():  # the command's modules and parser (groundbench/core/collector.py)
            parser_module = importlib.import_module("groundbench.commands.parser")
            module = COMMANDS.get(name or "")
            parser = parser_module.build_parser() if module is None else parser_module.command_parser(module)
            args = parser.parse_args(argv)
        return int(args.command_module.run(args))

    return guarded(parse_and_run, "--debug" in argv, name or "COMMAND")


def guarded(run: Callable[[], int], debug: bool, name: str) -> int:
    """Run the command ``name``; every failure ends in one ``error:`` line and an exit status (core/failures.py),
    a module of a missing extra in the line naming the extra to install (core/extras.py)."""
    from groundbench.core.extras import missing_extra, needs_extra
    from groundbench.core.terminal import quiet_progress

    quiet_progress()  # the libraries' progress bars: on a terminal only, never in a log
    try:
        with sigterm_unwinds():
            return run()
    except BaseException as exc:  # noqa: BLE001 (each kind becomes its one line; SystemExit passes)
        if isinstance(exc, SystemExit) or debug_requested(debug):
            raise
        extra = missing_extra(exc)
        line, status = (needs_extra(name, extra), 2) if extra is not None else one_line(exc)
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
    return run_command(argv, name)
