"""The one call from ``groundbench eval`` into GroundBench's scorer.

It scores the written predictions file exactly as ``groundbench score PREDICTIONS --json OUT`` does,
with that command's defaults (seed and bootstrap resamples), so the two reports are the same.
"""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

# The defaults of `groundbench score` (the tests compare the two reports and catch any drift).
SEED = 0
RESAMPLES = 2000


def score_file(predictions: Path, folder: Path, json_out: Path, out: Console, err: Console) -> None:
    """Write ``json_out``: the report of ``groundbench score`` on ``predictions`` against ``folder``."""
    from groundbench.scoring.run import run_score

    run_score(folder, predictions, json_out, None, SEED, RESAMPLES, out, err)
