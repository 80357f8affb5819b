"""The one call from ``groundbench eval`` into GroundBench's scorer.

It scores the written predictions file exactly as ``groundbench score PREDICTIONS --json OUT`` does
(same API, same defaults), so the two reports are the same. A ``--limit`` run answers a deliberate
subset of the rows, so it is scored as one (``groundbench score --subset`` reproduces it); the
report says so.
"""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from groundbench.scoring.api import ScoreOptions
from groundbench.scoring.run import ScoreOutputs, run_score


def score_file(
    predictions: Path, folder: Path, json_out: Path, out: Console, err: Console, subset: bool = False
) -> None:
    """Write ``json_out``: the report of ``groundbench score`` on ``predictions`` against ``folder``."""
    run_score(folder, predictions, ScoreOptions(subset=subset), ScoreOutputs(json=json_out), out, err)
