"""The code dependencies of every ``dvc.yaml`` stage: its roots, written into ``dvc.yaml``, and the fingerprint
of everything they import.

DVC re-runs a stage only when one of its declared ``deps`` changes, so a module a stage runs but does not
declare lets a cached output go stale unnoticed, and a module it declares but does not run re-runs it for
nothing. A stage declares two kinds of code deps:

- its roots: the stage module its command runs (mapped through that module's own parser, so it cannot drift),
  the plug-ins it loads by a "module:function" string for the command's arguments (``plugins(args)`` of the
  stage module: a convert stage loads its own source's converter and no other's) and, when it loads the
  registry, the specs of the source folders it serves (``folders(args)``, by default its ``--folder``;
  ``groundbench.stages.command.stage_folders``). What a stage loads by name cannot be read from the import
  statements, so it is recorded here, in ``dvc.yaml``, where a reader sees it.
- ``data/code/<stage>.sha256``: every module the roots import, followed from the source text when the
  ``code`` stage runs (``groundbench/core/closure.py``, ``groundbench/stages/code.py``), with the package data
  they ship. An import added later is followed without any rewrite here.

``groundbench dvc-deps --write`` rewrites the roots (and the ``code`` stage: its deps, every package folder,
and its outs, one fingerprint per stage); ``--check`` (``make lint``, and the test suite) fails when they
differ; ``--matrix`` prints what editing each module re-runs. Code deps are every dep under a package folder
(``groundbench/``, ``converters/``, ...) and the fingerprint; every other dep (``data/...``,
``requirements.lock``) is hand-written and left alone.
"""

from __future__ import annotations

import argparse
import re
import shlex
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from groundbench.core.closure import (
    REGISTRY_MODULE,
    Closure,
    Layout,
    imported_names,
    load_layout,
    stage_files,
)
from groundbench.stages.code import CODE, DVC_FILE, dep_paths, fingerprint_dep, paths, read_stages, stage_module

__all__ = ["Closure", "Layout", "imported_names", "load_layout"]  # what the import-layer test reads through here

CODE_STAGE = "code"
CODE_COMMAND = "bin/groundbench code"
SPEC = "spec"


def command_entry(command: str) -> tuple[str, argparse.Namespace]:
    """The stage module a command runs and its parsed arguments (its own parser: it cannot be mapped wrong)."""
    from groundbench.commands import command_name
    from groundbench.stages.command import stage_parser

    module = stage_module(command)  # bin/groundbench runs the checkout's .venv (or PATH's) groundbench
    argv = shlex.split(command)[1:]
    return module, stage_parser(command_name(argv) or "").parse_args(argv)


def command_folders(command: str) -> tuple[str, ...] | None:
    """The source folders the stage loads for this command's arguments (None: every listed folder)."""
    from groundbench.stages.command import stage_folders

    _, args = command_entry(command)
    return stage_folders(args.command_module, args)


def command_roots(closure: Closure, command: str) -> set[str]:
    """The modules a command's stage names as its roots: its stage module, the plug-ins it declares for these
    arguments and, when it loads the registry, the spec of each source folder it serves."""
    from groundbench.core.plugins import split_ref
    from groundbench.stages.command import stage_folders, stage_plugins

    module, args = command_entry(command)  # parsed once for the plug-ins and the folders
    roots = {module, *(split_ref(ref)[0] for ref in stage_plugins(args.command_module, args))}
    if REGISTRY_MODULE in closure.stage(roots):
        packages = closure.listed()
        folders = stage_folders(args.command_module, args)
        roots |= {f"{packages[name]}.{SPEC}" for name in (packages if folders is None else folders)}
    return roots


def command_modules(closure: Closure, command: str) -> set[str]:
    """Every project module ``groundbench <args>`` can import (what its fingerprint lists, without the package data)."""
    return closure.stage(command_roots(closure, command))


def covered(path: PurePosixPath, deps: Iterable[str]) -> bool:
    """True when ``path`` is one of ``deps`` or lies in one of them (a folder)."""
    return any(path == PurePosixPath(d) or PurePosixPath(d) in path.parents for d in deps)


@dataclass(frozen=True)
class StageCode:
    """One stage of ``dvc.yaml``: its command, its roots and the code its command runs."""

    name: str
    command: str
    roots: tuple[str, ...]  # the code deps it should declare (files, sorted)
    needed: frozenset[PurePosixPath]  # every file its fingerprint lists (once dvc.yaml declares the roots)
    declared: tuple[str, ...]  # the code deps dvc.yaml declares today (the fingerprint apart)
    fingerprinted: bool  # it depends on its data/code/<stage>.sha256


def stage_code(root: Path) -> list[StageCode]:
    """Every stage of ``root/dvc.yaml`` but the ``code`` stage, with its roots and the code they run."""
    layout = load_layout(root)
    closure = Closure(root, layout)
    result = []
    for name, stage in read_stages(root).items():
        if name == CODE_STAGE or "foreach" in stage:
            continue  # a foreach stage: dvcstages.check names it
        modules = command_roots(closure, stage["cmd"])
        roots = tuple(sorted(str(layout.modules[m]) for m in modules))
        deps = dep_paths(stage)
        result.append(
            StageCode(
                name,
                stage["cmd"],
                roots,
                frozenset(stage_files(closure, roots)),
                tuple(d for d in deps if layout.is_code(d)),
                fingerprint_dep(name) in deps,
            )
        )
    return result


def code_stage(layout: Layout, stages: Iterable[str]) -> dict[str, Any]:
    """The ``code`` stage: re-run when any file of a package folder (or the package map) changes, it writes
    one fingerprint per stage."""
    return {
        "cmd": CODE_COMMAND,
        "deps": [*(str(folder) for folder in layout.roots), "pyproject.toml"],
        "outs": [{fingerprint_dep(name): {"persist": True}} for name in stages],
    }


def check(root: Path) -> list[str]:
    """One line per stage whose code deps differ from its roots (empty: dvc.yaml is current)."""
    layout = load_layout(root)
    problems = []
    code = stage_code(root)
    for stage in code:
        if list(stage.declared) != list(stage.roots):
            missing = sorted(set(stage.roots) - set(stage.declared))
            extra = sorted(set(stage.declared) - set(stage.roots))
            problems.append(
                f"{stage.name}: code deps differ from its roots (missing {missing or 'nothing'}; "
                f"not roots {extra or 'nothing'})"
            )
        if not stage.fingerprinted:
            problems.append(f"{stage.name}: no dep on {fingerprint_dep(stage.name)} (the code its roots import)")
    defined = read_stages(root)
    want = code_stage(layout, [s.name for s in code])
    got = defined.get(CODE_STAGE)
    if got is None:
        problems.append(f"{CODE_STAGE}: no such stage (it writes every stage's {CODE}/<stage>.sha256)")
    else:
        for field in ("cmd", "deps", "outs"):
            have, want_field = _plain(got.get(field)), _plain(want[field])
            if have != want_field:
                problems.append(f"{CODE_STAGE}: {field} {have!r} != {want_field!r}")
    gone = stale_lock_entries(root)
    if gone:
        problems.append(f"dvc.lock: entries of stages dvc.yaml no longer has: {', '.join(gone)} (DVC keeps them)")
    return problems + stale_deps(root)


LOCK_FILE = "dvc.lock"
LOCK_STAGE = re.compile(r"^  (\S+):\n")


def stale_lock_entries(root: Path) -> list[str]:
    """Stages ``dvc.lock`` records that ``dvc.yaml`` no longer defines (a renamed or removed stage: DVC never
    drops its entry, so it would stay in the lock for good)."""
    path = root / LOCK_FILE
    if not path.is_file():
        return []
    names = set(read_stages(root))
    return [
        m.group(1)
        for line in path.read_text().splitlines(keepends=True)
        if (m := LOCK_STAGE.match(line)) and m.group(1) not in names
    ]


def prune_lock(root: Path) -> list[str]:
    """Drop those entries from ``dvc.lock`` (the rest byte for byte as DVC wrote it); the stages dropped."""
    from groundbench.core.atomic import write_text

    gone = set(stale_lock_entries(root))
    if not gone:
        return []
    kept, keep = [], True
    for line in (root / LOCK_FILE).read_text().splitlines(keepends=True):
        named = LOCK_STAGE.match(line)
        if named:
            keep = named.group(1) not in gone
        elif not line.startswith("    "):
            keep = True  # the top-level keys (schema, stages)
        if keep:
            kept.append(line)
    write_text(root / LOCK_FILE, "".join(kept))
    return sorted(gone)


def stale_deps(root: Path) -> list[str]:
    """Module or folder deps outside ``data/`` that name nothing: code that moved out of every package folder
    is no longer a code dep (``--write`` leaves it alone), so it would stay behind and fail ``dvc repro``."""
    problems = []
    for name, stage in read_stages(root).items():
        for path in dep_paths(stage.get("do", stage)):
            code_like = path.endswith(".py") or "/" in path  # a module or a folder's path, not a top-level file
            if code_like and "${" not in path and not path.startswith("data/") and not (root / path).exists():
                problems.append(f"{name}: dep {path} does not exist (moved or removed: delete it from dvc.yaml)")
    return problems


def write(root: Path) -> list[str]:
    """Rewrite every stage's roots and fingerprint dep and the ``code`` stage (comments and data deps kept);
    the stages changed."""
    from ruamel.yaml import YAML
    from ruamel.yaml.comments import CommentedMap

    from groundbench.core.atomic import write_bytes
    from groundbench.tools.dvcstages import dumped

    layout = load_layout(root)
    code = {stage.name: stage for stage in stage_code(root)}
    yaml = YAML()
    yaml.preserve_quotes = True
    yaml.width = 120
    yaml.indent(mapping=2, sequence=4, offset=2)
    path = root / DVC_FILE
    spec = yaml.load(path.read_text())
    stages = spec["stages"]
    changed = []
    for name, stage in stages.items():
        if name not in code:
            continue
        deps = stage.get("deps", [])
        wanted = [*code[name].roots, fingerprint_dep(name)]
        current = [d for d in deps if isinstance(d, str) and (layout.is_code(d) or d.startswith(CODE + "/"))]
        if current == wanted:
            continue
        changed.append(name)
        for dep in current:
            deps.remove(dep)
        deps.extend(wanted)
        stage["deps"] = deps
    want = code_stage(layout, list(code))
    if CODE_STAGE not in stages:
        stages.insert(0, CODE_STAGE, CommentedMap(want))
        changed.append(CODE_STAGE)
    else:
        body = stages[CODE_STAGE]
        for field in ("cmd", "deps", "outs"):
            if _plain(body.get(field)) != _plain(want[field]):
                body[field] = want[field]
                changed.append(CODE_STAGE)
    if changed:
        write_bytes(path, dumped(yaml, spec))
    return list(dict.fromkeys(changed))


def _plain(value: Any) -> Any:
    """A field of a stage as compared: a deps or outs list as its paths, the command as it is."""
    return paths(value) if isinstance(value, list) else value


def matrix(root: Path) -> tuple[list[str], str]:
    """Each module file -> the stages whose fingerprint lists it (what editing it re-runs), and a summary."""
    layout = load_layout(root)
    needed = {stage.name: stage.needed for stage in stage_code(root)}
    lines = []
    counts = {"none": 0, "all": 0, "some": 0}
    files = sorted(set(layout.modules.values()))
    for path in files:
        stages = [name for name, files_ in needed.items() if path in files_]
        kind = "none" if not stages else "all" if len(stages) == len(needed) else "some"
        counts[kind] += 1
        lines.append(f"{path} -> {', '.join(stages) if stages else '(no stage)'}")
    summary = (
        f"{len(files)} module files: {counts['none']} invalidate no stage, {counts['all']} all {len(needed)} "
        f"stages, {counts['some']} some"
    )
    return lines, summary
