"""Seeded cluster bootstrap intervals: rows of one object (one screenshot for GUI) are resampled together.

Rows of the same object share its image and its part layout, so they are not independent draws;
resampling objects (seed 001: a paired scene-group bootstrap) keeps that dependence in the interval.

The draw is ``numpy.random.default_rng(seed).integers(0, k, size=(resamples, k))`` over the k clusters in
sorted order; each resample's rate is its hits over its rows, and the interval is
``numpy.percentile(rates, [2.5, 97.5])`` (linear). The same seed and inputs give the same interval.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

Interval = tuple[float | None, float | None]


def cluster_of(row: Mapping[str, Any]) -> str:
    """The resampling unit of a row: its object (for GUI rows the object id is the screenshot's identity)."""
    return str(row["object_id"])


def _totals(outcomes: Iterable[tuple[str, float]]) -> tuple[np.ndarray, np.ndarray]:
    sums: dict[str, float] = defaultdict(float)
    counts: dict[str, int] = defaultdict(int)
    for cluster, value in outcomes:
        sums[cluster] += float(value)
        counts[cluster] += 1
    keys = sorted(sums)
    return np.array([sums[k] for k in keys], dtype=np.float64), np.array([counts[k] for k in keys], dtype=np.float64)


def cluster_bootstrap(per_cluster: Sequence[tuple[float, float]], seed: int, resamples: int) -> Interval:
    """95% percentile interval of sum(values) / sum(rows) over clusters given as (value sum, rows)."""
    if not per_cluster or resamples <= 0:
        return None, None
    values = np.array([v for v, _ in per_cluster], dtype=np.float64)
    rows = np.array([n for _, n in per_cluster], dtype=np.float64)
    draw = np.random.default_rng(seed).integers(0, len(per_cluster), size=(resamples, len(per_cluster)))
    rates = values[draw].sum(axis=1) / rows[draw].sum(axis=1)
    low, high = np.percentile(rates, [2.5, 97.5])
    return float(low), float(high)


def rate_interval(outcomes: Iterable[tuple[str, float]], seed: int, resamples: int) -> Interval:
    """Interval of a rate from (cluster, outcome) pairs, one per counted row (outcome 1 = hit, or a
    paired difference in -1..1)."""
    values, rows = _totals(outcomes)
    return cluster_bootstrap(list(zip(values.tolist(), rows.tolist(), strict=True)), seed, resamples)
