"""Source-root containment: annotation paths must never leave the root they belong to."""

from __future__ import annotations

import os
from pathlib import Path

from groundbench.errors import GroundBenchError


def inside_root(root: Path, candidate: Path, field: str = "path") -> Path:
    """Return ``candidate`` resolved, or raise if it (or a symlink on the way) leaves ``root``."""
    return Containment(root).resolve(candidate, field)


class Containment:
    """:func:`inside_root` for many files of one root in one pass (a converter's plan).

    ``os.path.realpath`` checks every component of every path (most of planning 4,000 screenshots);
    here each folder is resolved once and a file adds one ``lstat`` (a symlinked file is resolved in
    full). Use one instance per pass: a folder swapped for a symlink later is not seen by it.
    """

    def __init__(self, root: Path) -> None:
        self.root = root
        self.real_root = os.path.realpath(root)
        self._folders: dict[str, str] = {}

    def resolve(self, candidate: Path, field: str = "path") -> Path:
        real = self._realpath(os.fspath(candidate))
        if real != self.real_root and not real.startswith(self.real_root.rstrip(os.sep) + os.sep):
            where = relative_to(self.root, candidate)
            raise GroundBenchError(where, field, f"resolves to {real}, outside the source root {self.real_root}")
        return Path(real)

    def _realpath(self, path: str) -> str:
        folder, name = os.path.split(path)
        if name in ("", ".", "..") or not folder:
            return os.path.realpath(path)
        real_folder = self._folders.get(folder)
        if real_folder is None:
            real_folder = self._folders[folder] = os.path.realpath(folder)
        joined = os.path.join(real_folder, name)
        return os.path.realpath(joined) if os.path.islink(joined) else joined


def relative_to(root: Path, path: Path) -> str:
    """A path as written in manifests: POSIX, relative to its source root when it is inside it."""
    try:
        return Path(path).relative_to(root).as_posix()
    except ValueError:
        return Path(path).as_posix()
