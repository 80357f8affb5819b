"""Builds made once per test run and shared by every test (and every xdist worker) that needs them.

A build is deterministic (same inputs => byte-identical outputs; tests/pipeline/test_pipeline.py checks it), so a
second build from the same inputs is pure cost. Two tools:

- :func:`once` makes a folder once per run, whichever worker asks first; the others wait on a file lock
  and reuse it. Such a folder is read only: copy it (:func:`copy_tree`) before changing anything.
- :func:`run_stages` runs CLI stages on a fresh project root. When the root's inputs (params.yaml with
  each source tree replaced by its content digest, audit files, every other file beside ``data/``) equal
  those of an earlier build in this run, it copies that build's ``data/`` instead of running the stages.
  A root whose ``data/`` holds anything but ``audits/`` always runs the stages for real.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import yaml

RUN_DIR: Path | None = None  # set by conftest's session fixture: the folder every worker of this run shares


def run_dir(basetemp: Path) -> Path:
    """The folder shared by the whole run: under xdist each worker's basetemp is ``<controller's>/popen-gwN``."""
    return basetemp.parent if os.environ.get("PYTEST_XDIST_WORKER") else basetemp


def _shared() -> Path:
    if RUN_DIR is None:
        raise RuntimeError("tests.support.builds.RUN_DIR is set by the session fixture in tests/conftest.py")
    folder = RUN_DIR / "shared"
    folder.mkdir(exist_ok=True)
    return folder


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)  # released when the file is closed, also if the build fails
        yield


def once(name: str, build: Callable[[Path], object]) -> Path:
    """``build(folder)`` run once per test run; returns ``folder`` (read only for the caller)."""
    shared = _shared()
    folder, done = shared / name, shared / f"{name}.done"
    with _locked(shared / f"{name}.lock"):
        if not done.exists():
            shutil.rmtree(folder, ignore_errors=True)  # what a failed attempt left
            folder.mkdir()
            build(folder)
            done.touch()
    return folder


def copy_tree(source: Path, target: Path) -> Path:
    """A private, writable copy (real copies, not hard links: tests flip bytes in place)."""
    shutil.copytree(source, target, symlinks=True, dirs_exist_ok=True)
    return target


def tree_digest(root: Path) -> str:
    """sha256 over every file's relative path and bytes (symlinks by their target)."""
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        digest.update(str(path.relative_to(root)).encode() + b"\0")
        if path.is_symlink():
            digest.update(b"link:" + os.readlink(path).encode())
        elif path.is_file():
            digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def _sources_by_content(value: Any) -> Any:
    """A ``sources:`` entry with every absolute folder replaced by its content digest."""
    if isinstance(value, dict):
        return {key: _sources_by_content(item) for key, item in sorted(value.items())}
    if isinstance(value, str) and Path(value).is_absolute():
        return f"tree:{tree_digest(Path(value))}" if Path(value).is_dir() else f"missing:{value}"
    return value


def inputs_key(root: Path, commands: Sequence[Sequence[str]]) -> str | None:
    """What a build of ``root`` by ``commands`` can read, as one digest; None if ``data/`` is not fresh."""
    data = root / "data"
    if data.exists() and {p.name for p in data.iterdir()} - {"audits"}:
        return None
    params = yaml.safe_load((root / "params.yaml").read_text())
    params["sources"] = _sources_by_content(params.get("sources"))
    files = {
        str(path.relative_to(root)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(root.rglob("*"))
        if path.is_file()
        and path.name != "params.yaml"
        and path.relative_to(root).parts[0] not in {".git"}
        and (path.relative_to(root).parts[0] != "data" or path.relative_to(root).parts[1] == "audits")
    }
    text = json.dumps({"params": params, "files": files, "commands": [list(c) for c in commands]}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def run_stages(root: Path, commands: Sequence[Sequence[str]], run: Callable[[Path, Sequence[str]], int]) -> None:
    """Run each command (``run(root, command)`` must return 0), or copy an identical earlier build's ``data/``."""

    def build() -> None:
        for command in commands:
            assert run(root, command) == 0, command

    key = inputs_key(root, commands)
    if key is None:
        build()
        return
    shared = _shared()
    cached, done = shared / f"build-{key}", shared / f"build-{key}.done"
    with _locked(shared / f"build-{key}.lock"):
        if done.exists():
            copy_tree(cached, root / "data")
            return
        build()
        shutil.rmtree(cached, ignore_errors=True)
        shutil.copytree(root / "data", cached, symlinks=True)
        done.touch()
