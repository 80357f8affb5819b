"""``--from screenspot-pro-eval``: the output of the official ScreenSpot-Pro script and its forks.

Layout (likaixin2000/ScreenSpot-Pro-GUI-Grounding ``eval_screenspot_pro.py`` and ``eval_screenspot_pro_parallel.py``,
``main`` / ``worker_function`` then ``evaluate``): one JSON object ``{"details": [...], "metrics": {...}}``; per
detail row ``img_path`` (``--screenspot_imgs`` joined with the annotation's ``img_filename``),
``prompt_to_evaluate`` (the ``instruction``, or ``instruction_cn`` with ``--language cn``), ``raw_response``,
``pred`` (the adapter's 0-1 click times the annotation's ``img_size``: pixels of the original screenshot; null
when the adapter parsed none), ``bbox`` (xyxy pixels, positive rows only), ``gt_type``, ``ui_type``, ``group``
(null for ScreenSpot v1/v2 runs), ``correctness`` (``correct`` / ``wrong`` / ``wrong_format``: a null click),
and ``id`` (the annotation's id; the parallel script leaves it out). Negative-instruction rows (``gt_type``
``negative``: the model must answer that the target is absent) have no GroundBench row.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from groundbench.errors import GroundBenchError
from groundbench.scoring.imports.source import (
    VERDICTS,
    Click,
    SourceRow,
    TargetBox,
    box4,
    need,
    optional_point,
    optional_text,
    text,
)

KIND = "screenspot-pro-eval"


def _verdict(detail: Mapping[str, Any], where: str) -> str:
    value = need(detail, "correctness", where, f"one of {', '.join(VERDICTS)}")
    if value not in VERDICTS:
        raise GroundBenchError(where, "correctness", f"expected one of {', '.join(VERDICTS)}, found {value!r}")
    return str(value)


def _row(detail: Any, file: str, index: int) -> SourceRow:
    where = f"{file}: details[{index}]"
    image = text(detail, "img_path", where)
    prompt = text(detail, "prompt_to_evaluate", where)
    raw = need(detail, "raw_response", where, "the raw answer (a string, or null)")
    if raw is not None and not isinstance(raw, str):
        raise GroundBenchError(where, "raw_response", f"expected the raw answer as a string or null, found {raw!r}")
    pred = optional_point(need(detail, "pred", where, "[x, y] in pixels, or null"), where, "pred")
    verdict = _verdict(detail, where)
    negative = detail.get("gt_type") == "negative"
    box = None
    if not negative:
        box = TargetBox(box4(need(detail, "bbox", where, "the target box [x0, y0, x1, y1]"), where, "bbox"))
    return SourceRow(
        file=file,
        index=index,
        image=image,
        instruction=prompt,
        source_id=optional_text(detail, "id", where),
        response=raw,
        verdict=verdict,
        stored=None if pred is None else Click(*pred),
        box=box,
        skip="a negative instruction (gt_type negative): GroundBench has no such rows" if negative else None,
        task=optional_text(detail, "task_filename", where),
    )


def read(data: Any, file: str) -> list[SourceRow]:
    """The detail rows of one parsed output file, in file order."""
    if not isinstance(data, Mapping):
        raise GroundBenchError(file, "file", 'expected one JSON object {"details": [...], "metrics": {...}}')
    details = need(data, "details", file, "the per-sample rows (a list)")
    if not isinstance(details, list):
        raise GroundBenchError(file, "details", f"expected a list of per-sample rows, found {type(details).__name__}")
    return [_row(detail, file, index) for index, detail in enumerate(details)]
