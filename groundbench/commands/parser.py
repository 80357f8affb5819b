"""The command line: every command of the table (``groundbench/commands/__init__.py``), listed in
``groundbench --help`` by group, users' first, then the maintainers', then the pipeline's stages.

The whole of it is built for ``groundbench --help`` and for a name the table does not hold (argparse's error
lists every command). A named command is parsed by a parser holding it alone (:func:`command_parser`): the
same sub-parser, so the same options, help and errors, without importing every other command's module (the
stages' pull in pyarrow, pandera and datasets: ~1.3 s of start-up for a command that needs none of them)."""

from __future__ import annotations

import argparse
import importlib
import re
import shutil
import textwrap
from typing import Any

from groundbench import __version__
from groundbench.commands import GROUPS
from groundbench.commands.protocol import add_command
from groundbench.core.extras import missing_extra, needs_extra
from groundbench.stages.options import add_global_options


def first_sentence(help_text: str) -> str:
    """A command's help up to its first full stop before a capital ("e.g. every" goes on), as argparse shows it
    (help strings are %-formats: ``95%%`` is printed ``95%``)."""
    text = help_text.replace("%%", "%")
    return re.split(r"\.\s+(?=[A-Z`-])", text, maxsplit=1)[0].rstrip(".")


class Commands:
    """The sub-commands, listed in ``--help`` by group (argparse lists one flat group; its listing is ours)."""

    def __init__(self, sub: Any) -> None:
        self.sub = sub
        self.groups: list[tuple[str, list[tuple[str, str]]]] = []

    def group(self, title: str) -> None:
        self.groups.append((title, []))

    def add_parser(self, name: str, help: str = "", **options: Any) -> argparse.ArgumentParser:  # noqa: A002
        """``sub.add_parser`` (what ``add_command`` calls): listed in the current group."""
        self.groups[-1][1].append((name, help))
        parser: argparse.ArgumentParser = self.sub.add_parser(name, **options)
        return parser

    def listing(self) -> str:
        """Each group's commands with the first sentence of their help, wrapped to the terminal."""
        width = min(shutil.get_terminal_size().columns, 120)
        lines: list[str] = []
        for title, entries in self.groups:
            lines.append(f"{title}:")
            for name, text in entries:
                lines.extend(
                    textwrap.wrap(
                        first_sentence(text), width, initial_indent=f"  {name:<14}", subsequent_indent=" " * 16
                    )
                )
            lines.append("")
        return "\n".join(lines).rstrip()


def command_parser(module_name: str) -> argparse.ArgumentParser:
    """The global options and the one command defined by ``module_name`` (its module the only one loaded)."""
    parser = argparse.ArgumentParser(prog="groundbench")
    add_global_options(parser)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    add_command(sub, importlib.import_module(module_name))
    return parser


def build_parser() -> argparse.ArgumentParser:
    """Every command, by group (each from its own module)."""
    parser = argparse.ArgumentParser(
        prog="groundbench",
        description="Use, build and check the GroundBench dataset. The pipeline's stages are normally run by "
        "`dvc repro` (`make build`).",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"groundbench {__version__}")
    add_global_options(parser)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", help="one of the commands below")
    commands = Commands(sub)
    for title, table in GROUPS:
        commands.group(title)
        for name, module in table.items():
            try:
                loaded = importlib.import_module(module)
            except ModuleNotFoundError as exc:  # a command of an extra that is not installed: listed, saying so
                extra = missing_extra(exc)
                if extra is None:
                    raise
                commands.add_parser(name, help=needs_extra(name, extra), add_help=False, prefix_chars="\0")
                continue
            add_command(commands, loaded)
    parser.epilog = commands.listing()
    return parser
