"""What every stage command shares: its parser, and the run around it.

A stage module (``groundbench/stages/<command>.py``) is a command (``groundbench/commands/protocol.py`` says
what a command's module holds; the table's ``STAGES`` lists them) that may also define ``plugins(args)`` (the
"module:function" references it loads for these arguments: ``groundbench dvc-deps`` follows exactly those;
default none), ``folders(args)`` (the source folders it loads: default its ``--folder`` when it has the option
and was given one, else every folder) and ``locks(args)`` (the outputs it writes, one run each at a time;
default ``[NAME]``)."""

from __future__ import annotations

import argparse
import importlib
from types import ModuleType

from groundbench.commands import STAGES
from groundbench.commands.protocol import add_command
from groundbench.stages.options import add_global_options


def stage_parser(name: str) -> argparse.ArgumentParser:
    """A parser holding the global options and the one stage ``name`` (its module the only command loaded)."""
    parser = argparse.ArgumentParser(prog="groundbench")
    add_global_options(parser)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    add_command(sub, importlib.import_module(STAGES[name]))
    return parser


def run_stage(module: ModuleType, args: argparse.Namespace) -> int:
    """Within its source folders: check params.yaml, take the output locks, clear a killed run's temporaries,
    then run the stage."""
    from groundbench.core.locks import output_locks
    from groundbench.core.params import PARAMS_FILE
    from groundbench.core.registry import limited
    from groundbench.stages.options import params, root
    from groundbench.stages.paths import clear_leftovers

    with limited(stage_folders(module, args)):
        if (root(args) / PARAMS_FILE).is_file():
            params(args)  # a bad knob stops the stage before anything (its lock included) is written
        # One run per output at a time; the cleanup then removes only temporaries of dead runs (core/atomic.py).
        with output_locks(root(args), stage_locks(module, args)):
            clear_leftovers(root(args))
            return int(module.run(args))


def stage_folders(module: ModuleType, args: argparse.Namespace) -> tuple[str, ...] | None:
    """The source folders the stage loads for ``args`` (None: every folder): what it runs within, and what
    ``groundbench dvc-deps`` makes it depend on."""
    if hasattr(module, "folders"):
        return module.folders(args)  # type: ignore[no-any-return]
    folder = getattr(args, "folder", None)
    return None if folder is None else (folder,)


def stage_plugins(module: ModuleType, args: argparse.Namespace) -> list[str]:
    """The "module:function" references the stage loads for ``args`` (none unless it declares ``plugins``)."""
    return list(module.plugins(args)) if hasattr(module, "plugins") else []


def stage_locks(module: ModuleType, args: argparse.Namespace) -> list[str]:
    """The outputs the stage locks for ``args`` (its own name unless it declares ``locks``)."""
    return list(module.locks(args)) if hasattr(module, "locks") else [module.NAME]
