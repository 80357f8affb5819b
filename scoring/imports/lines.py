"""The prediction line of one matched row (pure): an ordinary GUI predictions line plus ``imported``.

``--answer raw`` (the default): the file's raw answer becomes ``response``, read later in the format the user
declares (``--answer-format``, stored as the line's ``answer_format``; none declared: the line names none and
``score`` reads it in its own ``--answer-format``). ``--answer stored``: the framework's own parsed click
instead, in the row's pixels (``point``; a box row's parsed box as ``box``), ``answer_format`` ``pixels``; a row
where the framework parsed nothing gets ``"response": null`` (malformed, a failure, as ``wrong_format`` is).
"""

from __future__ import annotations

from typing import Any

from groundbench.scoring.imports.join import Match
from groundbench.scoring.imports.source import SourceRow

RAW, STORED = "raw", "stored"
ANSWERS = (RAW, STORED)
STORED_FORMAT = "pixels"
CONDITION = "gui"


def stored_point(source: SourceRow, row: Any) -> list[float] | None:
    if source.stored is None:
        return None
    x, y = source.stored.pixels(float(row["width"]), float(row["height"]))
    return [x, y]


def imported(kind: str, source: SourceRow, row: Any) -> dict[str, Any]:
    """The ``imported`` object every imported line carries (docs/importing.md; scoring ignores it)."""
    return {
        "from": kind,
        "file": source.file,
        "index": source.index,
        "verdict": source.verdict,
        "stored_point": stored_point(source, row),
    }


def prediction_line(match: Match, kind: str, model: str, answer: str, answer_format: str | None) -> dict[str, Any]:
    source, row = match.source, match.row
    line: dict[str, Any] = {"example_id": row["example_id"], "condition": CONDITION, "model": model}
    if answer == STORED:
        point = stored_point(source, row)
        if row.get("answer_type") == "box" and source.stored_box is not None:
            line["box"] = list(source.stored_box)
        elif row.get("answer_type") != "box" and point is not None:
            line["point"] = point
        else:
            line["response"] = None
        line["answer_format"] = STORED_FORMAT
    else:
        line["response"] = source.response
        if answer_format is not None:
            line["answer_format"] = answer_format
    line["imported"] = imported(kind, source, row)
    return line
