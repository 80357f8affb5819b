"""Every ``--help`` text of the ``groundbench`` command, rendered in-process at a fixed width: the top-level
help, each sub-command's and each nested action's (``results export``), keyed by the command words.

For checking the texts (tests/cli/test_help.py) and for comparing them across a change (a restructure of the
command line must leave every option in place)::

    .venv/bin/python -m tests.support.helptexts > build/help-before.txt   # on the old commit
    .venv/bin/python -m tests.support.helptexts > build/help-after.txt    # on the new one
    diff build/help-before.txt build/help-after.txt

tests/cli/help-texts.txt holds them as committed (tests/cli/test_help.py compares); a deliberate change of a
help text rewrites it: ``.venv/bin/python -m tests.support.helptexts > tests/cli/help-texts.txt``.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterator
from contextlib import contextmanager

WIDTH = 100  # argparse wraps to $COLUMNS; fixed, so the texts do not depend on the terminal


@contextmanager
def columns(width: int) -> Iterator[None]:
    saved = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = str(width)
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = saved


def _sub_parsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:  # argparse keeps its sub-parsers only here
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _walk(words: tuple[str, ...], parser: argparse.ArgumentParser) -> Iterator[tuple[tuple[str, ...], str]]:
    yield words, parser.format_help()
    for name, sub in _sub_parsers(parser).items():
        yield from _walk((*words, name), sub)


def help_texts(width: int = WIDTH) -> dict[str, str]:
    """``"groundbench results export"`` -> that command's ``--help`` text, for every command and nested action."""
    from groundbench.commands.parser import build_parser

    with columns(width):
        parser = build_parser()  # the top-level listing is wrapped when the parser is built
        return {" ".join(words): text for words, text in _walk(("groundbench",), parser)}


def snapshot(width: int = WIDTH) -> str:
    """Every help text, one after the other under its command's name: the text to compare across a change."""
    return "".join(f"==== {command} --help\n{text}\n" for command, text in sorted(help_texts(width).items()))


if __name__ == "__main__":
    print(snapshot(), end="")
