"""What a command's module holds, and the one function that reads it: its sub-parser.

A command (a user command, a maintainer tool or a pipeline stage: the table in ``groundbench/commands/__init__.py``)
is a module that defines

- ``NAME``: the word on the command line; ``HELP``: its help, prose (its lines are folded), whose first
  sentence is its line in ``groundbench --help`` and the whole its own ``--help``'s description
  (``DESCRIPTION`` instead, where it sets one; None: no description);
- ``PARENTS`` (optional): the shared options it takes, argparse parent parsers each defined once
  (``groundbench/commands/options.py``, ``groundbench/stages/options.py``);
- ``add_arguments(parser)`` (optional): its own arguments;
- ``run(args) -> int``: the command, returning its exit status. A command made of actions (``results``) adds
  them in ``add_arguments`` with :func:`add_command` and has no ``run``: its action's module runs;
- a pipeline stage, where it needs them: ``plugins(args)``, ``folders(args)``, ``locks(args)``
  (``groundbench/stages/command.py`` runs a stage within them).

The module is the command line's edge: what the command does stays in its own package, imported inside
``run`` (``--help`` builds every command's parser, so a command module loads only what its arguments need).
"""

from __future__ import annotations

import argparse
from types import ModuleType
from typing import Any


def add_command(sub: Any, module: ModuleType) -> argparse.ArgumentParser:
    """The command's sub-parser under ``sub`` (an argparse sub-parsers action), from its module; the parsed
    arguments carry the module (``args.command_module``), whose ``run`` runs them."""
    parser: argparse.ArgumentParser = sub.add_parser(
        module.NAME,
        help=module.HELP,
        description=getattr(module, "DESCRIPTION", module.HELP),
        parents=list(getattr(module, "PARENTS", ())),
    )
    if hasattr(module, "add_arguments"):
        module.add_arguments(parser)
    parser.set_defaults(command_module=module)
    return parser
