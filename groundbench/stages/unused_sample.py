"""A sample stage whose sample nobody reads writes only its marker (core/sample_marker.py)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from groundbench.stages.options import console, root

if TYPE_CHECKING:
    from groundbench.core.params import Params


def skip_unused_sample(args: argparse.Namespace, params: Params, source: str) -> bool:
    """When params.yaml reads no part of ``source``'s sample, write its marker instead (unless --force)."""
    from groundbench.core.sample_marker import MARKER, marker_parts, unused_reason, write_marker

    reason = None if args.force else unused_reason(params, source)
    if reason is None:
        return False
    folder = Path(params.sample.root) / source
    write_marker(root(args) / folder, reason, marker_parts(source))
    console.print(f"sources.{source} reads no embedded sample: wrote only {folder / MARKER} (--force builds it)")
    return True
