"""The UMD split files: ``category_split.txt``, ``novel_split.txt``, ``category_10_fold.txt``,
``tool_categories.txt`` (ASCII, one tool per line)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from groundbench.core.paths import inside_root, relative_to
from groundbench.errors import GroundBenchError

SPLIT_FILES = ("category_split.txt", "novel_split.txt", "category_10_fold.txt", "tool_categories.txt")
_TOOL = r"[a-z]+_\d{2}"
_SPLIT_LINE = re.compile(rf"^(?P<code>\d+) (?P<tool>{_TOOL})$")
_FOLD_LINE = re.compile(rf"^folds:(?P<bits>( [01]){{10}})\s+object: (?P<tool>{_TOOL})$")
_SPLIT_NAMES = {"1": "train", "2": "test"}


@dataclass(frozen=True)
class ToolSplits:
    category_split: str | None = None
    novel_split: str | None = None
    category_id: int | None = None
    heldout_folds: tuple[int, ...] = ()


@dataclass
class Splits:
    """Per-tool split fields; tools absent from a file get ``None`` for that file."""

    by_tool: dict[str, ToolSplits] = field(default_factory=dict)
    files: dict[str, Path] = field(default_factory=dict)

    def of(self, tool: str) -> ToolSplits:
        return self.by_tool.get(tool, ToolSplits())


def _lines(path: Path, where: str) -> list[tuple[int, str]]:
    """Non-blank lines with their 1-based numbers in the file (blank lines still count)."""
    raw = path.read_bytes()
    try:
        text = raw.decode("ascii")
    except UnicodeDecodeError as exc:
        raise GroundBenchError(where, f"byte {exc.start}", "expected ASCII text") from exc
    return [(number, line.rstrip("\r")) for number, line in enumerate(text.split("\n"), start=1) if line.strip()]


def parse_split_file(
    path: Path, allowed_codes: dict[str, str] | None = None, where: str | None = None
) -> dict[str, str]:
    """``<code> <tool>`` per line; with ``allowed_codes`` the code is mapped through it."""
    where = where or str(path)
    result: dict[str, str] = {}
    for number, line in _lines(path, where):
        match = _SPLIT_LINE.match(line)
        if not match:
            raise GroundBenchError(where, f"line {number}", f"expected '<code> <tool>', got {line!r}")
        code, tool = match["code"], match["tool"]
        if allowed_codes is not None and code not in allowed_codes:
            raise GroundBenchError(where, f"line {number}", f"expected code in {sorted(allowed_codes)}, got {code!r}")
        if tool in result:
            raise GroundBenchError(where, f"line {number}", f"tool {tool} listed twice")
        result[tool] = allowed_codes[code] if allowed_codes is not None else code
    return result


def parse_fold_file(path: Path, where: str | None = None) -> dict[str, tuple[int, ...]]:
    """``folds: b1 .. b10    object: <tool>``; returns the folds the tool is held out in, numbered 1..10.

    The README: "each column corresponds to a fold, and 1 indicates if the tool is left out for
    testing". Folds are numbered as the file's columns are counted, first column = fold 1, so a
    tool's numbers match what a reader of the file sees (0-based indices were an off-by-one trap).
    """
    where = where or str(path)
    result: dict[str, tuple[int, ...]] = {}
    for number, line in _lines(path, where):
        match = _FOLD_LINE.match(line)
        if not match:
            raise GroundBenchError(
                where, f"line {number}", f"expected 'folds: <10 bits>    object: <tool>', got {line!r}"
            )
        bits = match["bits"].split()
        result[match["tool"]] = tuple(i for i, bit in enumerate(bits, start=1) if bit == "1")
    return result


def read_splits(folder: Path, root: Path) -> Splits:
    """Read whichever split files sit in ``folder`` (next to ``tools/``); they must stay inside ``root``."""
    splits = Splits()
    category: dict[str, str] = {}
    novel: dict[str, str] = {}
    ids: dict[str, str] = {}
    folds: dict[str, tuple[int, ...]] = {}
    for name in SPLIT_FILES:
        path = folder / name
        if not path.is_file():
            continue
        where = relative_to(root, path)
        inside_root(root, path, "split file")
        splits.files[name] = path
        if name == "category_split.txt":
            category = parse_split_file(path, _SPLIT_NAMES, where)
        elif name == "novel_split.txt":
            novel = parse_split_file(path, _SPLIT_NAMES, where)
        elif name == "tool_categories.txt":
            ids = parse_split_file(path, where=where)
        else:
            folds = parse_fold_file(path, where)
    for tool in sorted(set(category) | set(novel) | set(ids) | set(folds)):
        splits.by_tool[tool] = ToolSplits(
            category_split=category.get(tool),
            novel_split=novel.get(tool),
            category_id=int(ids[tool]) if tool in ids else None,
            heldout_folds=folds.get(tool, ()),
        )
    return splits
