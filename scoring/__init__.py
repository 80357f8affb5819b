"""Scoring GroundBench predictions: ``from groundbench.scoring import score`` (see ``scoring.api``).

The API is imported lazily: the pipeline imports ``groundbench.scoring.baselines`` while building,
long before a predictions file exists.
"""

from __future__ import annotations

from typing import Any

__all__ = ["ScoreReport", "score"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from groundbench.scoring import api

        return getattr(api, name)
    raise AttributeError(name)
