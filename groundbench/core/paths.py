"""Source-root containment: annotation paths must never leave the root they belong to."""

from __future__ import annotations

import os
from pathlib import Path

from groundbench.errors import GroundBenchError


def inside_root(root: Path, candidate: Path, field: str = "path") -> Path:
    """Return ``candidate`` resolved, or raise if it (or a symlink on the way) leaves ``root``."""
    real_root = Path(os.path.realpath(root))
    real = Path(os.path.realpath(candidate))
    if real != real_root and real_root not in real.parents:
        raise GroundBenchError(
            relative_to(root, candidate), field, f"resolves to {real}, outside the source root {real_root}"
        )
    return real


def relative_to(root: Path, path: Path) -> str:
    """A path as written in manifests: POSIX, relative to its source root when it is inside it."""
    try:
        return Path(path).relative_to(root).as_posix()
    except ValueError:
        return Path(path).as_posix()
