"""Where the pipeline's outputs live (relative to the project root), and the cleanup every stage runs first."""

from __future__ import annotations

from pathlib import Path

from groundbench.core.atomic import remove_stale_temporaries

INTERIM = Path("data/interim")
SHARDS = Path("data/shards")
MANIFESTS = Path("data/manifests")
IMAGES = Path("data/images")
HF_FOLDER = Path("data/groundbench")
LOCK_FILE = Path("requirements.lock")  # the light runtime
BUILD_LOCK_FILE = Path("requirements-build.lock")  # what the build extra adds: with LOCK_FILE, what builds
# Folders whose children are written atomically (temp sibling + rename): where a killed build can
# leave a hidden `.name.*.tmp` behind.
ATOMIC_PARENTS = (Path("data"), INTERIM, SHARDS, MANIFESTS, Path("data/sources/sample"))


def clear_leftovers(root: Path) -> None:
    """Remove what a killed build left half-written (never visible under an output's real name)."""
    for folder in ATOMIC_PARENTS:
        remove_stale_temporaries(root / folder)
        if (root / folder).is_dir():
            for child in (root / folder).iterdir():
                if child.is_dir() and not child.name.startswith("."):
                    remove_stale_temporaries(child)
