"""``groundbench code``: each ``dvc.yaml`` stage's code, hashed into ``data/code/<stage>.sha256``.

A stage's code deps in ``dvc.yaml`` are its roots (its stage module, the plug-ins and source-folder specs it
loads by name); the modules those import, directly or not, are followed here from the source text
(``groundbench/core/closure.py``) and every file of the closure is listed with its sha256. The file is one of
the stage's deps, so an edit to any module the stage imports re-runs it and an edit to any other module
does not, while ``dvc.lock`` holds one entry for all of that code. ``dvc.yaml``'s ``code`` stage runs this
whenever a file under a package folder changes; a file whose text comes out the same is left untouched.
"""

from __future__ import annotations

import argparse
import shlex
from pathlib import Path, PurePosixPath
from typing import Any

from groundbench.commands import STAGES, command_name
from groundbench.core.closure import Closure, fingerprint, load_layout, stage_files
from groundbench.errors import GroundBenchError
from groundbench.stages.options import console, root

NAME = "code"
HELP = """Hash the code each dvc.yaml stage runs (its code deps and every module they import, with their package
data) into data/code/<stage>.sha256, the dep that re-runs a stage when its code changes."""
CODE = "data/code"
DVC_FILE = "dvc.yaml"


def fingerprint_dep(stage: str) -> str:
    """The dep through which ``stage`` depends on the code it runs."""
    return f"{CODE}/{stage}.sha256"


def stage_module(command: str) -> str:
    """The stage module a ``bin/groundbench STAGE ...`` command runs (the command table's ``STAGES``)."""
    argv = shlex.split(command)
    name = command_name(argv[1:]) if argv and argv[0] in ("groundbench", "bin/groundbench") else None
    if name not in STAGES:
        raise GroundBenchError(
            DVC_FILE,
            command,
            f"not a stage command: a stage command is `bin/groundbench STAGE ...`, STAGE one of {sorted(STAGES)}",
        )
    return STAGES[name]


def paths(entries: list[Any]) -> list[str]:
    """The paths of a dvc.yaml ``deps`` or ``outs`` list (an entry is a path, or a path with its options)."""
    return [d if isinstance(d, str) else next(iter(d)) for d in entries]


def dep_paths(body: dict[str, Any]) -> list[str]:
    return paths(body.get("deps", []))


def read_stages(root: Path) -> dict[str, dict[str, Any]]:
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    spec = yaml.load((root / DVC_FILE).read_text(encoding="utf-8"), Loader=loader)  # noqa: S506 (a safe loader)
    stages: dict[str, dict[str, Any]] = spec.get("stages", {})
    return stages


def fingerprints(root: Path) -> dict[str, bytes]:
    """Stage name -> its fingerprint file's bytes, for every stage that depends on one."""
    layout = load_layout(root)
    closure = Closure(root, layout)
    found = {}
    for name, stage in read_stages(root).items():
        if "foreach" in stage or fingerprint_dep(name) not in dep_paths(stage):
            continue
        roots = [PurePosixPath(d) for d in dep_paths(stage) if layout.is_code(d)]
        roots.append(layout.modules[stage_module(stage["cmd"])])
        found[name] = fingerprint(root, stage_files(closure, roots))
    return found


def write_fingerprints(root: Path) -> list[str]:
    """Write every stage's fingerprint file (each one atomically, and only when its text changed), remove
    those of stages that are gone; the stages whose file changed."""
    from groundbench.core.atomic import write_bytes

    folder = root / CODE
    folder.mkdir(parents=True, exist_ok=True)
    wanted = fingerprints(root)
    changed = []
    for name, text in wanted.items():
        path = folder / f"{name}.sha256"
        if not path.is_file() or path.read_bytes() != text:
            write_bytes(path, text)
            changed.append(name)
    for stale in folder.glob("*.sha256"):
        if stale.stem not in wanted:
            stale.unlink()
    return changed


def run(args: argparse.Namespace) -> int:
    changed = write_fingerprints(root(args))
    console.print(f"code changed for: {', '.join(changed)}" if changed else "no stage's code changed")
    return 0
