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


def mean_of_rates_interval(
    outcomes: Iterable[tuple[str, int, float]], parts: int, seed: int, resamples: int
) -> Interval:
    """Interval of the unweighted mean of ``parts`` rates, from (cluster, part index, outcome) per counted row.

    The clusters are resampled together, as for one rate (the same draw), so parts sharing a screenshot move
    together; each resample's figure is the mean of its parts' rates. A resample in which a part has no row has
    no such mean and is left out (with more than a handful of clusters per part this does not happen). With one
    part this is :func:`rate_interval`'s interval exactly."""
    hits: dict[str, np.ndarray] = {}
    rows: dict[str, np.ndarray] = {}
    for cluster, part, value in outcomes:
        if cluster not in hits:
            hits[cluster], rows[cluster] = np.zeros(parts), np.zeros(parts)
        hits[cluster][part] += float(value)
        rows[cluster][part] += 1
    if not hits or resamples <= 0 or parts < 1:
        return None, None
    keys = sorted(hits)
    h = np.array([hits[k] for k in keys], dtype=np.float64)
    n = np.array([rows[k] for k in keys], dtype=np.float64)
    draw = np.random.default_rng(seed).integers(0, len(keys), size=(resamples, len(keys)))
    sums, counts = h[draw].sum(axis=1), n[draw].sum(axis=1)  # (resamples, parts)
    defined = (counts > 0).all(axis=1)
    if not defined.any():
        return None, None
    means = (sums[defined] / counts[defined]).mean(axis=1)
    low, high = np.percentile(means, [2.5, 97.5])
    return float(low), float(high)


def cluster_index(rows: Iterable[Mapping[str, Any]]) -> np.ndarray:
    """Each row's cluster as its position among the rows' clusters in sorted order (for
    :func:`indexed_rate_interval`)."""
    names = [cluster_of(r) for r in rows]
    position = {name: i for i, name in enumerate(sorted(set(names)))}
    return np.fromiter((position[n] for n in names), dtype=np.int64, count=len(names))


def indexed_rate_interval(clusters: np.ndarray, outcomes: np.ndarray, seed: int, resamples: int) -> Interval:
    """:func:`rate_interval` of one outcome per counted row given as arrays: each row's cluster position
    (:func:`cluster_index` of rows, a subset of them taken) and its outcome, summed per cluster by counting.
    The same interval: the per-cluster sums are exact (outcomes 0/1), the clusters absent from the rows are
    left out, the rest in sorted order."""
    size = int(clusters.max()) + 1 if len(clusters) else 0
    sums = np.bincount(clusters, weights=outcomes, minlength=size)
    rows = np.bincount(clusters, minlength=size)
    present = rows > 0
    per_cluster = list(zip(sums[present].tolist(), rows[present].astype(np.float64).tolist(), strict=True))
    return cluster_bootstrap(per_cluster, seed, resamples)


def rate_interval(outcomes: Iterable[tuple[str, float]], seed: int, resamples: int) -> Interval:
    """Interval of a rate from (cluster, outcome) pairs, one per counted row (outcome 1 = hit, or a
    paired difference in -1..1)."""
    values, rows = _totals(outcomes)
    return cluster_bootstrap(list(zip(values.tolist(), rows.tolist(), strict=True)), seed, resamples)
