"""``--from vlmevalkit``: VLMEvalKit's prediction files of its ScreenSpot, ScreenSpot_v2 and ScreenSpot_Pro datasets.

Layout (open-compass/VLMEvalKit ``vlmeval/inference.py``: the dataset's TSV columns without ``image``, plus
``prediction``; written by ``vlmeval/smp/file.py`` ``dump`` as ``{model}_{dataset}.xlsx``, or ``.tsv`` / ``.json``
with ``PRED_FORMAT``): one row per sample with ``index`` (VLMEvalKit's own 1-based position in its dataset TSV,
not the source's id: the join never uses it), ``image_path``, ``question`` (the instruction), ``bbox`` (a
list written as text), ``prediction`` (the raw answer) and the dataset's other columns (``ui_type``,
``application``, ``category`` for ScreenSpot_Pro; ``data_type``, ``data_source`` for ScreenSpot and v2). The
files hold no verdict: VLMEvalKit scores them afterwards.

Its own click (``vlmeval/dataset/GUI/screenspot.py`` and ``screenspot_pro.py``, ``parse_bbox_aguvis`` then
``evaluate_point``), restated here: ``x=<number>, y=<number>``, else a click at (0, 0); a click with a
coordinate above 1 is pixels of the image, else 0-1 fractions of it. Its target box: ScreenSpot_Pro's ``bbox``
is xyxy pixels; ScreenSpot's and v2's is ``[x, y, w, h]`` read as ``[x, y, x + w - 1, y + h - 1]`` (one pixel
smaller than the official ``x + w``); ``-1`` is read as 0. A row with ``application`` and ``ui_type`` columns is
a ScreenSpot_Pro row.

All three dumps are read: the xlsx sheet (openpyxl) and the TSV give the same cells as text.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from groundbench.errors import GroundBenchError
from groundbench.scoring.imports.source import Click, SourceRow, TargetBox, box4, need, text

KIND = "vlmevalkit"
_CLICK = re.compile(r"x=([\d.]+), y=([\d.]+)")


def aguvis_click(answer: str) -> Click | None:
    """The click VLMEvalKit's GUI datasets score (None where its float() raises: counted a format error there)."""
    match = _CLICK.search(answer)
    if not match:
        return Click(0.0, 0.0, unit=True)  # its default: a click at the top-left corner
    try:
        x, y = float(match.group(1)), float(match.group(2))
    except ValueError:
        return None
    return Click(x, y, unit=not (x > 1 or y > 1))


def _box(row: Mapping[str, Any], pro: bool, where: str) -> TargetBox:
    x0, y0, a, b = (0.0 if v == -1 else v for v in box4(need(row, "bbox", where, "the target box"), where, "bbox"))
    return TargetBox((x0, y0, a, b) if pro else (x0, y0, x0 + a - 1, y0 + b - 1))


def _row(row: Any, file: str, index: int) -> SourceRow:
    where = f"{file}: row {index + 1}"
    pro = isinstance(row, Mapping) and "application" in row and "ui_type" in row
    answer = need(row, "prediction", where, "the model's answer")
    answer = "" if answer is None else str(answer)
    return SourceRow(
        file=file,
        index=index,
        image=text(row, "image_path", where),
        instruction=text(row, "question", where),
        source_id=None,
        response=answer,
        verdict=None,
        stored=aguvis_click(answer),
        box=_box(row, pro, where),
        task="ScreenSpot_Pro" if pro else "ScreenSpot",
    )


def read(rows: list[Any], file: str) -> list[SourceRow]:
    """Every row of one prediction file, in file order (``rows``: the sheet's rows as column -> cell)."""
    if rows and isinstance(rows[0], Mapping) and "index" not in rows[0]:
        raise GroundBenchError(file, "index", "expected VLMEvalKit's index column (a prediction file of a dataset)")
    return [_row(row, file, index) for index, row in enumerate(rows)]
