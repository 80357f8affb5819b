"""``--from pointerbench``: PointerBench's own predictions files, as its scorers read them.

Layout (warmwindOS/pointerbench ``README.md`` "Prediction Format" and ``pointerbench-*/eval.py``, ``_load_jsonl``
and ``main``): JSONL, or one JSON array, one object per example: ``id`` (``pbs_`` / ``pbt_`` / ``pbp_``, the
metadata's own id) and the answer, ``point`` / ``pred`` / ``coordinate`` / ``prediction`` or flat ``x``, ``y``;
box rows ``bbox`` / ``box`` / ``pred`` / ``prediction``, flat ``x0..y1``, or numbers in ``text`` / ``raw`` /
``answer``; absolute pixels of the 1024 x 768 screenshot. ``eval.py`` keeps only objects with an ``id`` and,
for a repeated id, the last one (a dict built in file order): the earlier ones are reported, never scored. The
file holds no raw model text and no verdict: the object is the answer, which GroundBench's GUI rule
(``scoring/gui_rules.py``, eval.py restated) reads as it is.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from groundbench.errors import GroundBenchError
from groundbench.scoring.gui_rules import official_box, official_point
from groundbench.scoring.imports.source import Click, SourceRow

KIND = "pointerbench"


def _row(record: Any, file: str, index: int, last: dict[str, int]) -> SourceRow:
    where = f"{file}: row {index + 1}"
    if not isinstance(record, Mapping):
        raise GroundBenchError(where, "row", f"expected one JSON object per example, found {type(record).__name__}")
    row_id = record.get("id")
    skip = None
    if row_id is None:
        skip = "no id: eval.py ignores it"
    elif not isinstance(row_id, str):
        raise GroundBenchError(where, "id", f"expected the example's id (a string such as pbs_0001), found {row_id!r}")
    elif last[row_id] != index:
        skip = f"a later row ({last[row_id] + 1}) has the same id, and eval.py scores the last"
    answer = {key: value for key, value in record.items() if key != "id"}
    point = official_point(answer)
    return SourceRow(
        file=file,
        index=index,
        image=None,
        instruction=None,
        source_id=row_id,
        response=json.dumps(answer, ensure_ascii=False),
        verdict=None,
        stored=None if point is None else Click(*point),
        stored_box=official_box(answer),
        skip=skip,
    )


def read(records: list[Any], file: str) -> list[SourceRow]:
    """Every object of one predictions file, in file order."""
    last = {r["id"]: i for i, r in enumerate(records) if isinstance(r, Mapping) and isinstance(r.get("id"), str)}
    return [_row(record, file, index, last) for index, record in enumerate(records)]
