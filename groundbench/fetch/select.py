"""``groundbench sources real|sample``: point ``params.yaml``'s ``sources:`` at the fetched trees, or back.

Only the values under ``sources:`` change; every comment and every other line stays as it is, so
the diff shows exactly what a real-source build reads. A source that was not fetched becomes
``null`` and its configs are absent from the build, with the reason (see :func:`absent_hint`).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from groundbench.core.atomic import write_text
from groundbench.core.params import PARAMS_FILE, SAMPLE
from groundbench.errors import GroundBenchError
from groundbench.fetch import catalog
from groundbench.fetch.catalog import MANUAL, SourceSpec
from groundbench.fetch.provenance import SOURCES_DIR, TREE, read_record, tree_dir

LEAF = re.compile(r"^(?P<indent> +)(?P<key>[A-Za-z_][\w]*):(?P<gap> +)(?P<value>[^#\s][^#]*?)(?P<rest>\s*(#.*)?)$")
PARENT = re.compile(r"^(?P<indent> +)(?P<key>[A-Za-z_][\w]*):\s*(#.*)?$")


def real_values(root: Path) -> dict[str, Any]:
    """Dotted params key -> value for a build on the fetched sources (null where nothing was fetched)."""
    values: dict[str, Any] = {}
    for name, spec in catalog.SOURCES.items():
        record = read_record(root, name)
        fetched = record is not None and tree_dir(root, name).is_dir()
        tree = (SOURCES_DIR / name / TREE).as_posix()
        if not spec.tree_params:
            values[spec.params_key] = tree if fetched else None
            continue
        # The folders the layout hook found in the tree (kept in the provenance record).
        layout = _layout(record)
        usable = fetched and not _incomplete(spec, layout)
        for key, folder in spec.tree_params:
            values[f"{spec.params_key}.{key}"] = _join(tree, layout.get(folder)) if usable else None
    return values


def _layout(record: dict[str, Any] | None) -> dict[str, Any]:
    return (record or {}).get("layout") or {}


def _incomplete(spec: SourceSpec, layout: dict[str, Any]) -> bool:
    """The fetched tree lacks a folder its configs need (the spec's ``requires``): it builds nothing."""
    return any(layout.get(folder) is None for folder in spec.requires)


def _join(tree: str, rel: str | None) -> str:
    return tree if rel in (None, "", ".") else f"{tree}/{rel}"


def sample_values() -> dict[str, Any]:
    return {key: SAMPLE for spec in catalog.SOURCES.values() for key in _keys(spec)}


def _keys(spec: SourceSpec) -> list[str]:
    return [f"{spec.params_key}.{key}" for key, _ in spec.tree_params] or [spec.params_key]


def _scalar(value: Any) -> str:
    return "null" if value is None else str(value)


def rewrite_sources(text: str, values: dict[str, Any]) -> str:
    """``text`` (params.yaml) with the values under ``sources:`` replaced; comments kept."""
    lines = text.splitlines(keepends=True)
    out: list[str] = []
    inside = False
    stack: list[tuple[int, str]] = []
    seen: set[str] = set()
    for line in lines:
        body = line.rstrip("\n")
        if re.match(r"^\S", body):
            inside = body.startswith("sources:")
            stack = []
            out.append(line)
            continue
        if not inside or not body.strip() or body.lstrip().startswith("#"):
            out.append(line)
            continue
        indent = len(body) - len(body.lstrip(" "))
        stack = [(i, k) for i, k in stack if i < indent]
        leaf, parent = LEAF.match(body), PARENT.match(body)
        if parent and not leaf:
            stack.append((indent, parent["key"]))
            out.append(line)
            continue
        if leaf:
            key = ".".join([k for _, k in stack] + [leaf["key"]])
            if key in values:
                seen.add(key)
                prefix = f"{leaf['indent']}{leaf['key']}: {_scalar(values[key])}"
                comment = leaf["rest"].strip()
                column = len(body) - len(leaf["rest"].lstrip())  # keep comments aligned where they were
                body = f"{prefix}{' ' * max(1, column - len(prefix))}{comment}" if comment else prefix
                line = body + ("\n" if line.endswith("\n") else "")
        out.append(line)
    text = "".join(out)
    for key in sorted(set(values) - seen):  # a source params.yaml leaves to its model's default: add its line
        text = _insert(text, key, values[key])
    return text


def _insert(text: str, key: str, value: Any) -> str:
    """``text`` with ``key: value`` added at the end of the deepest block under ``sources:`` that exists
    (``gui.new`` goes into ``gui:``), the missing parents written as they are needed."""
    lines = text.splitlines(keepends=True)
    start = next((i for i, line in enumerate(lines) if line.startswith("sources:")), None)
    if start is None:
        raise GroundBenchError(PARAMS_FILE, "sources", f"no sources: block to add {key} to; restore it")
    parts = key.split(".")
    end, indent, depth = _block_end(lines, start, 0), 2, 0  # the deepest existing block: its end and child indent
    for depth in range(len(parts) - 1):
        found = _child(lines, start + 1, end, indent, parts[depth])
        if found is None:
            break
        if LEAF.match(lines[found].rstrip("\n")):  # `gapartnet: null` where `gapartnet.assets` is needed
            raise GroundBenchError(PARAMS_FILE, f"sources.{key}", "its parent holds a value; make it a mapping")
        start, end, indent = found, _block_end(lines, found, indent), indent + 2
    else:
        depth = len(parts) - 1
    added = [f"{' ' * (indent + 2 * i)}{part}:\n" for i, part in enumerate(parts[depth:-1])]
    added.append(f"{' ' * (indent + 2 * (len(parts) - 1 - depth))}{parts[-1]}: {_scalar(value)}\n")
    if end and not lines[end - 1].endswith("\n"):
        lines[end - 1] += "\n"
    return "".join([*lines[:end], *added, *lines[end:]])


def _content(line: str) -> bool:
    return bool(line.strip()) and not line.lstrip().startswith("#")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _block_end(lines: list[str], start: int, indent: int) -> int:
    """The index after the last content line of the block opened at ``start`` (its lines indented deeper)."""
    end = start + 1
    for i in range(start + 1, len(lines)):
        if _content(lines[i]):
            if _indent(lines[i]) <= indent:
                break
            end = i + 1
    return end


def _child(lines: list[str], first: int, end: int, indent: int, name: str) -> int | None:
    for i in range(first, end):
        if _content(lines[i]) and _indent(lines[i]) == indent and lines[i].strip().split(":")[0] == name:
            return i
    return None


def use_sources(root: Path, mode: str) -> dict[str, Any]:
    if mode not in ("real", "sample"):
        raise GroundBenchError("command line", "mode", f"expected real or sample, found {mode!r}")
    values = real_values(root) if mode == "real" else sample_values()
    if mode == "real" and all(read_record(root, name) is None for name in catalog.SOURCES):
        raise GroundBenchError(
            SOURCES_DIR, "provenance.json", "no source fetched yet; run `groundbench fetch SOURCE` first"
        )
    path = root / PARAMS_FILE
    text = rewrite_sources(path.read_text(encoding="utf-8"), values)
    parsed = yaml.safe_load(text)["sources"]  # the rewrite must say exactly what was asked
    for key, value in values.items():
        node = parsed
        for part in key.split("."):
            node = node[part]
        if node != value:
            raise GroundBenchError(PARAMS_FILE, f"sources.{key}", f"rewrite gave {node!r}, expected {value!r}")
    write_text(path, text)
    return values


def absent_hint(root: Path, source: str) -> str:
    """Why a null source is null, for its configs' ABSENT markers: not fetched, or fetched without what its
    configs need (the spec's ``incomplete``)."""
    spec = catalog.SOURCES.get(source)
    if spec is None:
        return ""
    record = read_record(root, source)
    if record is None:
        option = " --from ARCHIVE_OR_FOLDER" if spec.kind == MANUAL else ""
        return f"; not fetched (run `groundbench fetch {source}{option}`)"
    if _incomplete(spec, _layout(record)):
        return f"; {spec.incomplete}"
    return ""
