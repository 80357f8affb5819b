"""Every ``--help`` of the command line reads cleanly: the top-level help lists each command once, users'
commands first, then the maintainers' tools, then the pipeline's stages; no text (the top-level listing,
each sub-command's and each nested action's help) shows a formatting artifact: an unexpanded ``%%`` or
``%(``, argparse's ``==SUPPRESS==``, a ``default: None``, an unclosed bracket or backtick (a sentence cut
short, as "(e.g" was)."""

from __future__ import annotations

import difflib
import re
import sys
from pathlib import Path

import pytest

from groundbench.commands import STAGES
from groundbench.commands.parser import build_parser, first_sentence
from tests.support.helptexts import WIDTH, _sub_parsers, columns, help_texts, snapshot

TEXTS = help_texts()
ARTIFACTS = ("%%", "%(", "==SUPPRESS==", "default: None")
GROUPS = ("user commands", "maintainer tools", "pipeline stages")
# Every text as committed (a deliberate change rewrites it: tests/support/helptexts.py says how).
SNAPSHOT = Path(__file__).with_name("help-texts.txt")


def listing(text: str) -> dict[str, str]:
    """The top-level help's command listing: command -> its entry (continuation lines joined)."""
    entries: dict[str, str] = {}
    last = None
    for line in text[text.index(f"\n{GROUPS[0]}") :].splitlines():
        if match := re.match(r"  (\S+)\s+(.*)$", line):
            last = match.group(1)
            assert last not in entries, f"{last} is listed twice"
            entries[last] = match.group(2)
        elif line.startswith(" " * 16) and last is not None:
            entries[last] += " " + line.strip()
        else:
            last = None
    return entries


def balanced(text: str) -> bool:
    """Every bracket closed in order, and backticks paired."""
    closing = {")": "(", "]": "[", "}": "{"}
    stack: list[str] = []
    for char in text:
        if char in "([{":
            stack.append(char)
        elif char in closing and (not stack or stack.pop() != closing[char]):
            return False
    return not stack and text.count("`") % 2 == 0


def test_every_command_and_nested_action_is_rendered() -> None:
    assert {"groundbench", "groundbench eval", "groundbench results export", "groundbench convert"} <= set(TEXTS)
    assert len(TEXTS) == 1 + len(_sub_parsers(build_parser())) + 1  # + `results export`


@pytest.mark.parametrize("command", sorted(TEXTS))
def test_no_formatting_artifact(command: str) -> None:
    text = TEXTS[command]
    for artifact in ARTIFACTS:
        assert artifact not in text, f"{command} --help shows {artifact!r}"
    description = text.split("\n\n")[1] if "\n\n" in text else ""
    assert balanced(" ".join(description.split())), f"{command} --help: {description}"
    assert balanced(" ".join(text.split())), f"{command} --help: a bracket or backtick left open"  # options too
    cut = re.search(r"\b(e\.g|i\.e)(?![.\w])", text)  # an abbreviation cut at its dot, as "(e.g" was
    assert cut is None, f"{command} --help: {text[max(0, cut.start() - 40) : cut.end()] if cut else ''}"


def test_the_top_level_help_lists_each_command_once_by_group() -> None:
    text = TEXTS["groundbench"]
    starts = [text.index(f"\n{group}") for group in GROUPS]
    assert starts == sorted(starts)
    assert "positional arguments:\n  COMMAND      one of the commands below\n\noptions:" in text  # no second list
    entries = listing(text)
    assert set(entries) == set(_sub_parsers(build_parser()))
    for command, entry in entries.items():
        assert balanced(entry), f"{command}: {entry}"
        group = GROUPS[sum(text.index(f"\n  {command} ") > start for start in starts) - 1]
        assert (group == "pipeline stages") == (command in STAGES), command
    for command in ("list", "requests", "eval", "score", "table"):
        assert text.index(f"\n  {command} ") < starts[1], command
    for command in ("fetch", "verify", "publish", "dvc-deps"):
        assert starts[1] < text.index(f"\n  {command} ") < starts[2], command


def test_the_listing_keeps_abbreviations_and_percent_signs() -> None:
    assert first_sentence("Contact sheets (e.g. every row tagged x), written to OUT. More here.") == (
        "Contact sheets (e.g. every row tagged x), written to OUT"
    )
    assert first_sentence("Headline figures with 95%% intervals. Second.") == "Headline figures with 95% intervals"
    entries = listing(TEXTS["groundbench"])
    assert "95% intervals" in entries["table"] and "(e.g. every row tagged box_projection_mismatch)" in entries["sheet"]


def test_the_snapshot_is_every_text_at_a_fixed_width() -> None:
    text = snapshot()
    assert text.count("==== groundbench") == len(TEXTS)
    with columns(60):  # a narrow terminal does not change them
        assert help_texts() == TEXTS
    assert help_texts(60) != TEXTS and WIDTH == 100


@pytest.mark.skipif(sys.version_info[:2] != (3, 11), reason="argparse lays options out differently after 3.11")
def test_every_help_text_is_as_committed() -> None:
    """A restructure of the command line leaves every command, option, default and word of help in place."""
    before, after = SNAPSHOT.read_text(encoding="utf-8"), snapshot()
    diff = difflib.unified_diff(before.splitlines(), after.splitlines(), "committed", "now", lineterm="", n=1)
    assert after == before, "\n".join(diff)
