"""The synthetic notice on a terminal, one rule for every command that reads a build or scores on one
(``summary``, ``score``, ``compare``, ``eval``, ``eval-log``, ``table``, ``results export``): one line
(:func:`groundbench.cards.notice.synthetic_line`, after a warning sign), once per command, on standard
error, where everything a command says goes. Standard output holds only the command's result (a table, CSV,
JSONL), so it is the same for a synthetic build as for a real one and pipes cleanly. The documents a
command writes carry the notice in their own form: the whole text in ``scores.json``, the card, ``eval.yaml``
and ``croissant.json``; at the top of a Markdown table, inside a LaTeX one, in a figure's title.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console

from groundbench.cards.notice import synthetic_line

SIGN = "⚠"


def say_notice(err: Console, line: str) -> None:
    """Print one notice line (a :func:`synthetic_line`) as every command does: after the sign, not wrapped."""
    if line:
        err.print(f"{SIGN} {line}", style="bold red", markup=False, highlight=False, soft_wrap=True)


def say_synthetic(err: Console, configs: Sequence[str]) -> None:
    """The notice for ``configs`` (the synthetic ones among those the command read, named in sorted order as
    ``scores.json`` lists them); nothing when none."""
    say_notice(err, synthetic_line(sorted(configs)))
