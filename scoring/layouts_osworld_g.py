"""OSWorld-G's official table: accuracy overall and by the five capabilities (the groups of the release's
``classification_result.json``), plus by region kind (``box_type``: bbox, polygon, refusal), one table row per
model, and the baselines in the same layout.

A pure module: scored rows in, cells out. The ``layouts`` registry (``scoring/layouts.py``) can register
:func:`osworld_g_table` under ``osworld-g``; it needs nothing else from here.

Denominators are the official ones: overall counts every row of the config; a capability counts every
row its group lists (a row listed by two groups counts in both, as the release's tally adds it to each
group it finds), and a row no group lists counts under ``unclassified`` (shown only when there is one);
a region kind counts the rows annotated with it. The verdict is ``scoring.gui_rules.judge``, which applies
the release's ``GroundingEval`` rule (``scoring.osworld_g``) to the strict answers; an unanswered row is a
failure.

Baselines, each a constant answer scored by the same rule: the centre click (a point at the frame's
centre, so it never refuses: what a model that always answers with a target gets on the refusal rows,
0) and always refusing (``[-1, -1]`` on every row: every refusal row right, every target row wrong).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from groundbench.scoring.bootstrap import cluster_of, rate_interval
from groundbench.scoring.gui import headline_record
from groundbench.scoring.gui_rules import judge
from groundbench.scoring.metrics import Scored
from groundbench.scoring.osworld_g import (
    CAPABILITIES,
    REGION_KINDS,
    UNCLASSIFIED,
    box_type,
    capability_groups,
    centre_answer,
    refusal_answer,
)

CONFIG = "gui_osworld_g"
OVERALL = "overall"
Row = Mapping[str, Any]


@dataclass(frozen=True)
class Cell:
    k: int  # rows right
    n: int  # rows counted (the official denominator)
    percent: float | None  # 100 k / n; None when n = 0
    low: float | None  # 95% bootstrap interval in percent, resampled by screenshot
    high: float | None


@dataclass(frozen=True)
class Table:
    title: str
    columns: tuple[str, ...]
    rows: tuple[tuple[str, tuple[Cell, ...]], ...]  # (model or baseline name, one cell per column)


def columns_of(rows: Sequence[Row]) -> tuple[str, ...]:
    """overall, the five capabilities (+ unclassified when a row has no group), then the region kinds."""
    unclassified = any(capability_groups(r) == [UNCLASSIFIED] for r in rows)
    return (OVERALL, *CAPABILITIES, *((UNCLASSIFIED,) if unclassified else ()), *REGION_KINDS)


def members(rows: Sequence[Row], column: str) -> list[int]:
    """The rows a column counts (its official denominator)."""
    if column == OVERALL:
        return list(range(len(rows)))
    if column in REGION_KINDS:
        return [i for i, r in enumerate(rows) if box_type(r) == column]
    return [i for i, r in enumerate(rows) if column in capability_groups(r)]


def _cell(hits: Sequence[bool], rows: Sequence[Row], chosen: list[int], seed: int, resamples: int) -> Cell:
    k, n = sum(hits[i] for i in chosen), len(chosen)
    low, high = rate_interval(((cluster_of(rows[i]), float(hits[i])) for i in chosen), seed, resamples)
    return Cell(
        k=k,
        n=n,
        percent=100.0 * k / n if n else None,
        low=None if low is None else 100.0 * low,
        high=None if high is None else 100.0 * high,
    )


def _line(hits: Sequence[bool], rows: Sequence[Row], columns: Sequence[str], seed: int, resamples: int):
    return tuple(_cell(hits, rows, members(rows, c), seed, resamples) for c in columns)


def osworld_g_table(scored: Sequence[Scored], seed: int = 0, resamples: int = 1000) -> Table:
    """One row per model over its ``gui_osworld_g`` predictions (after ``expand``: every row of the config, a
    missing prediction being a failure), then the baselines over the same rows."""
    by_model: dict[str, list[Scored]] = {}
    for item in scored:
        if item.config == CONFIG:
            by_model.setdefault(item.model, []).append(item)
    lines: list[tuple[str, tuple[Cell, ...]]] = []
    rows: Sequence[Row] = []
    for model, items in sorted(by_model.items()):
        items = sorted(items, key=lambda s: str(s.row["example_id"]))
        rows = [s.row for s in items]
        columns = columns_of(rows)
        hits = [judge(headline_record(s.answer), s.row).success for s in items]
        lines.append((model, _line(hits, rows, columns, seed, resamples)))
    if rows:
        lines += baseline_lines(rows, seed, resamples)
    return Table("OSWorld-G accuracy (%)", columns_of(rows), tuple(lines))


BASELINES: dict[str, Callable[[Row], dict[str, Any]]] = {
    "baseline: centre click (never refuses)": centre_answer,
    "baseline: always refuse": refusal_answer,
}


def baseline_lines(rows: Sequence[Row], seed: int = 0, resamples: int = 1000) -> list[tuple[str, tuple[Cell, ...]]]:
    rows = sorted(rows, key=lambda r: str(r["example_id"]))
    columns = columns_of(rows)
    return [
        (name, _line([judge(answer(r), r).success for r in rows], rows, columns, seed, resamples))
        for name, answer in BASELINES.items()
    ]
