"""Is a fetched UMD tree what the converter reads? (the fetch's layout hook, named in spec.py)"""

from __future__ import annotations

from pathlib import Path

from groundbench.errors import GroundBenchError


def check_layout(tree: Path) -> None:
    if not any(p.name == "tools" and p.is_dir() for p in tree.glob("*/tools")) and not (tree / "tools").is_dir():
        raise GroundBenchError(tree.name, "layout", "no tools/ folder (expected part-affordance-dataset/tools/)")
