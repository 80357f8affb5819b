"""What tests/project/test_markdown.py checks in a Markdown file, read the CommonMark way (markdown-it-py): fences that
never close, relative links to a missing file or to a heading the target does not have (GitHub's anchors),
and the README's shell blocks with the marker comment that says where each one runs."""

from __future__ import annotations

import re
import string
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

from markdown_it import MarkdownIt
from markdown_it.token import Token

SHELL = {"bash", "sh", "console", "shell"}
# The comment on the line before a README shell block that no test runs as written, or that another runs.
MARKER = re.compile(r"<!--\s*(needs:\s*(network|gpu)|runs-in:\s*(?P<where>[^>]+?))\s*-->")
# cards/*.md are string.Template texts: the built card replaces every $name (tests/project/test_markdown.py then
# checks the built card's links, which are relative to the published folder, not to cards/).
TEMPLATES = "cards"


def tracked(repo: Path) -> list[Path]:
    """Every Markdown file of the checkout (git ls-files), without data/ and .venv."""
    names = subprocess.run(["git", "ls-files", "-z", "*.md"], cwd=repo, capture_output=True, check=True).stdout
    paths = [Path(n) for n in names.decode().split("\0") if n]
    return [p for p in paths if p.parts[0] not in {"data", ".venv"} and (repo / p).is_file()]


def text_of(path: Path, repo: Path) -> str:
    text = (repo / path).read_text(encoding="utf-8")
    if path.parts[0] == TEMPLATES:

        class Blank(dict[str, str]):
            def __missing__(self, key: str) -> str:
                return ""

        text = string.Template(text).safe_substitute(Blank())
    return text


def tokens(text: str) -> list[Token]:
    return MarkdownIt("commonmark", {"html": True}).enable("table").parse(text)


def _walk(items: list[Token]) -> Iterator[Token]:
    for token in items:
        yield token
        if token.children:
            yield from _walk(token.children)


def slug(title: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped (letters, digits, '-' and '_' kept),
    each space a hyphen."""
    kept = "".join(c for c in title.strip().lower() if c.isalnum() or c in " -_")
    return kept.replace(" ", "-")


def anchors(items: list[Token]) -> set[str]:
    """Every heading's anchor, the second and later of a name numbered as GitHub numbers them."""
    seen: dict[str, int] = {}
    found = set()
    for index, token in enumerate(items):
        if token.type != "heading_open":
            continue
        inline = items[index + 1]
        title = "".join(c.content for c in inline.children or [] if c.type in ("text", "code_inline"))
        base = slug(title)
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def unclosed_fences(text: str, items: list[Token]) -> list[int]:
    """1-based lines of fences that do not close where they seem to: a fence that runs to the end of its
    container, and a would-be closing fence with text after it (CommonMark reads it as content, so the
    block goes on and swallows what follows, headings included)."""
    lines = text.splitlines()
    bad = []
    for token in items:
        if token.type != "fence" or token.map is None:
            continue
        start, end = token.map
        fence = token.markup[0] * len(token.markup)
        last = lines[end - 1].lstrip(" >") if end - 1 > start else ""
        closed = last.startswith(fence) and set(last.strip()) == {fence[0]}
        if not closed:
            bad.append(start + 1)
        inner = range(start + 1, end - 1 if closed else end)
        bad.extend(i + 1 for i in inner if lines[i].lstrip(" >").startswith(fence))
    return bad


@dataclass(frozen=True)
class Link:
    source: Path
    target: str


def links(items: list[Token], source: Path) -> list[Link]:
    found = []
    for token in _walk(items):
        if token.type == "link_open":
            found.append(Link(source, str(token.attrs.get("href", ""))))
        elif token.type == "image":
            found.append(Link(source, str(token.attrs.get("src", ""))))
    return found


def broken(link: Link, repo: Path, templates_too: bool = False) -> str | None:
    """Why a relative link does not resolve (None: it does, or it is not relative)."""
    parts = urlsplit(link.target)
    if parts.scheme or parts.netloc or not (parts.path or parts.fragment):
        return None
    if link.source.parts[0] == TEMPLATES and parts.path and not templates_too:
        return None  # relative to the published folder the template becomes: checked on the built card
    target = (repo / link.source).parent / unquote(parts.path) if parts.path else repo / link.source
    target = Path(target).resolve()
    if not target.exists():
        return f"{link.source}: {link.target}: no such file"
    if not target.is_relative_to(repo.resolve()):
        return f"{link.source}: {link.target}: outside the repository"
    if parts.fragment and target.suffix == ".md":
        names = anchors(tokens(text_of(target.relative_to(repo.resolve()), repo.resolve())))
        if unquote(parts.fragment) not in names:
            return f"{link.source}: {link.target}: no heading #{parts.fragment} in {target.name}"
    return None


@dataclass(frozen=True)
class Block:
    line: int  # 1-based line of the opening fence
    info: str
    body: str
    marker: str | None  # the marker comment on the line before, if any

    @property
    def runs_here(self) -> bool:
        """A README block the README test runs itself (shell or Python, without a marker)."""
        return self.marker is None and self.info in SHELL | {"python"}


def blocks(text: str) -> list[Block]:
    """The fenced blocks of ``text`` with their language and the marker comment just before each."""
    lines = text.splitlines()
    found = []
    for token in tokens(text):
        if token.type != "fence" or token.map is None:
            continue
        start = token.map[0]
        before = next((lines[i].strip() for i in range(start - 1, -1, -1) if lines[i].strip()), "")
        marker = before if MARKER.fullmatch(before) else None
        found.append(Block(start + 1, token.info.strip().split(" ")[0], token.content, marker))
    return found


def runs_in(marker: str) -> list[str]:
    """The places a ``runs-in`` marker names (empty for a ``needs`` marker)."""
    match = MARKER.fullmatch(marker)
    return [] if match is None or match["where"] is None else match["where"].split()
