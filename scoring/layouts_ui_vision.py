"""UI-Vision element grounding's official table: per instruction kind (basic, functional, spatial), accuracy by
category and overall, then the final average (the mean of the three kinds' overall accuracies), one table row per
model, and the centre-click baseline in the same layout (the paper's table, uivision.github.io).

A pure module like ``scoring/layouts_osworld_g.py`` (whose Cell and Table it shares); ``ui_vision_table`` can be
registered in ``scoring/layouts.py`` under ``ui-vision``. Denominators: every row of a kind's file, and of those
the rows whose application the release's ``mapdict_cat2platform.json`` puts in the category (a row whose
application it lists in none counts in its kind's overall only). The verdict is ``scoring.gui_rules.judge``:
eval_uivision.py's ``eval_sample_positive_gt``, the click inside the box with reversed corners swapped, edges in.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from groundbench.scoring.gui import headline_record
from groundbench.scoring.gui_rules import centre_record, judge
from groundbench.scoring.layouts_osworld_g import Cell, Table, _cell
from groundbench.scoring.metrics import Scored

CONFIG = "gui_ui_vision"
KINDS = ("basic", "functional", "spatial")
FINAL = "final_average"
Row = Mapping[str, Any]


def _gui(row: Row) -> Mapping[str, Any]:
    return (row.get("extras") or {}).get("gui") or {}


def columns_of(rows: Sequence[Row]) -> tuple[str, ...]:
    """``<kind>/<category>`` for every category present, ``<kind>/overall``, then ``final_average``."""
    categories = sorted({str(_gui(r)["category"]) for r in rows if _gui(r).get("category") is not None})
    return (*(f"{k}/{c}" for k in KINDS for c in (*categories, "overall")), FINAL)


def members(rows: Sequence[Row], column: str) -> list[int]:
    kind, _, category = column.partition("/")
    return [
        i
        for i, r in enumerate(rows)
        if _gui(r).get("subset") == kind and (category == "overall" or _gui(r).get("category") == category)
    ]


def _line(hits: Sequence[bool], rows: Sequence[Row], seed: int, resamples: int) -> tuple[Cell, ...]:
    cells = [_cell(hits, rows, members(rows, c), seed, resamples) for c in columns_of(rows)[:-1]]
    overall = [cells[i] for i, c in enumerate(columns_of(rows)[:-1]) if c.endswith("/overall")]
    shares = [c.percent for c in overall if c.percent is not None]
    final = Cell(
        k=sum(c.k for c in overall),
        n=sum(c.n for c in overall),
        percent=sum(shares) / len(shares) if shares else None,  # the mean of the kinds, as the paper averages
        low=None,
        high=None,
    )
    return (*cells, final)


def ui_vision_table(scored: Sequence[Scored], seed: int = 0, resamples: int = 1000) -> Table:
    """One row per model over its ``gui_ui_vision`` predictions (after ``expand``), then the centre click."""
    by_model: dict[str, list[Scored]] = {}
    for item in scored:
        if item.config == CONFIG:
            by_model.setdefault(item.model, []).append(item)
    lines: list[tuple[str, tuple[Cell, ...]]] = []
    rows: list[Row] = []
    for model, items in sorted(by_model.items()):
        items = sorted(items, key=lambda s: str(s.row["example_id"]))
        rows = [s.row for s in items]
        lines.append(
            (model, _line([judge(headline_record(s.answer), s.row).success for s in items], rows, seed, resamples))
        )
    if rows:
        centre = [judge(centre_record(r), r).success for r in rows]
        lines.append(("baseline: centre click", _line(centre, rows, seed, resamples)))
    return Table("UI-Vision element grounding accuracy (%)", columns_of(rows), tuple(lines))
