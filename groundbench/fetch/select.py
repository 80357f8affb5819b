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
from groundbench.fetch.catalog import SOURCES
from groundbench.fetch.provenance import SOURCES_DIR, TREE, read_record, tree_dir

LEAF = re.compile(r"^(?P<indent> +)(?P<key>[A-Za-z_][\w]*):(?P<gap> +)(?P<value>[^#\s][^#]*?)(?P<rest>\s*(#.*)?)$")
PARENT = re.compile(r"^(?P<indent> +)(?P<key>[A-Za-z_][\w]*):\s*(#.*)?$")


def real_values(root: Path) -> dict[str, Any]:
    """Dotted params key -> value for a build on the fetched sources (null where nothing was fetched)."""
    values: dict[str, Any] = {}
    for name, spec in SOURCES.items():
        record = read_record(root, name)
        fetched = record is not None and tree_dir(root, name).is_dir()
        tree = (SOURCES_DIR / name / TREE).as_posix()
        if name == "gapartnet":
            layout = (record or {}).get("layout") or {}
            ok = fetched and layout.get("renders") is not None
            values["gapartnet.assets"] = _join(tree, layout.get("assets")) if ok else None
            values["gapartnet.renders"] = _join(tree, layout.get("renders")) if ok else None
        else:
            values[spec.params_key] = tree if fetched else None
    return values


def _join(tree: str, rel: str | None) -> str:
    return tree if rel in (None, "", ".") else f"{tree}/{rel}"


def sample_values() -> dict[str, Any]:
    keys = [s.params_key for s in SOURCES.values() if s.name != "gapartnet"]
    return {**{k: SAMPLE for k in keys}, "gapartnet.assets": SAMPLE, "gapartnet.renders": SAMPLE}


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
    missing = sorted(set(values) - seen)
    if missing:
        raise GroundBenchError(PARAMS_FILE, "sources", f"no line for {missing}; restore the sources: block")
    return "".join(out)


def use_sources(root: Path, mode: str) -> dict[str, Any]:
    if mode not in ("real", "sample"):
        raise GroundBenchError("command line", "mode", f"expected real or sample, found {mode!r}")
    values = real_values(root) if mode == "real" else sample_values()
    if mode == "real" and all(read_record(root, name) is None for name in SOURCES):
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
    """Why a null source is null, for its configs' ABSENT markers: not fetched, or fetched without renders."""
    name = "gapartnet" if source.startswith("gapartnet") else source
    if name not in SOURCES:
        return ""
    record = read_record(root, name)
    if record is None:
        option = " --from ARCHIVE_OR_FOLDER" if name == "gapartnet" else ""
        return f"; not fetched (run `groundbench fetch {name}{option}`)"
    if name == "gapartnet" and not (record.get("layout") or {}).get("renders"):
        return (
            "; the fetched GAPartNet has no rendered views (rgb/ segmentation/ metafile/): the release ships "
            "object folders only; render views with `groundbench render` and fetch them together"
        )
    return ""
