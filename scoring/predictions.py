"""I/O at the edges of scoring: read a predictions JSONL and the rows it refers to, and join them.

A predictions line is one JSON object: ``example_id`` and ``condition`` (required), ``model``
(optional, default ``model``), and the raw ``response`` (a string) and/or parsed fields (``part``,
``action``, ``point``, ``box``, ``text``; at the top level or under ``parsed``). When a raw response
is present it is what gets parsed (strict, then lenient), and it is kept; parsed fields alone are
used as given. For the free-form variant the prose is ``text``, else the raw response.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from groundbench.errors import GroundBenchError
from groundbench.scoring.conditions import FREE_FORM, base_condition, is_known, row_allows
from groundbench.scoring.metrics import Scored
from groundbench.scoring.parse import FIELDS, FREE_TEXT, Answer, answer_from_fields, parse_response
from groundbench.scoring.published import config_names, read_config

ANSWER_FIELDS = ("part", "action", "point", "box", "bbox", "text")
Rows = dict[str, tuple[str, dict[str, Any]]]


def read_rows(folder: Path, configs: list[str] | None = None) -> Rows:
    """example_id -> (config, row without image bytes), from a published folder's ``data/<config>/``."""
    rows: Rows = {}
    for name in configs or config_names(folder):
        for row in read_config(folder, name):
            rows[row["example_id"]] = (name, row)
    return rows


def _answer(line: dict[str, Any], condition: str, where: str) -> tuple[Answer, str | None]:
    response = line.get("response")
    if response is not None and not isinstance(response, str):
        raise GroundBenchError(where, "response", "expected the raw response as a string")
    parsed = line.get("parsed")
    if parsed is not None and not isinstance(parsed, dict):
        raise GroundBenchError(where, "parsed", "expected an object of answer fields")
    fields = {**{k: line[k] for k in ANSWER_FIELDS if k in line}, **(parsed or {})}
    if base_condition(condition) == FREE_FORM:
        text = fields.get("text", response)
        if not isinstance(text, str):
            raise GroundBenchError(where, "text", "a free-form prediction needs `text` or a raw `response`")
        return Answer(status=FREE_TEXT, text=text), response
    if response is not None:
        return parse_response(response), response
    if not fields:
        raise GroundBenchError(where, "response", f"expected a raw `response` or parsed fields {list(ANSWER_FIELDS)}")
    return answer_from_fields(fields, FIELDS), None


def read_predictions(path: Path, rows: Rows) -> tuple[list[Scored], list[dict[str, Any]]]:
    """The joined predictions and, per line, what was kept (raw response, parse status, fields)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise GroundBenchError(path, "file", f"expected a readable UTF-8 JSONL file ({exc})") from exc
    items: list[Scored] = []
    kept: list[dict[str, Any]] = []
    seen: set[tuple[str, str, str]] = set()
    for number, raw_line in enumerate(text.splitlines(), start=1):
        if not raw_line.strip():
            continue
        where = f"{path}: line {number}"
        try:
            line = json.loads(raw_line)
        except ValueError as exc:
            raise GroundBenchError(where, "line", f"expected one JSON object ({exc})") from exc
        if not isinstance(line, dict):
            raise GroundBenchError(where, "line", "expected one JSON object")
        example_id, condition = line.get("example_id"), line.get("condition")
        model = str(line.get("model") or "model")
        if not isinstance(example_id, str) or example_id not in rows:
            raise GroundBenchError(where, "example_id", f"expected an example id of the dataset, got {example_id!r}")
        if not isinstance(condition, str) or not is_known(condition):
            raise GroundBenchError(where, "condition", f"unknown condition {condition!r}")
        config, row = rows[example_id]
        if not row_allows(row, condition):
            raise GroundBenchError(where, "condition", f"{condition} is not valid for {example_id} (or it is excluded)")
        key = (model, example_id, condition)
        if key in seen:
            raise GroundBenchError(where, "example_id", f"a second prediction for {key}")
        seen.add(key)
        answer, response = _answer(line, condition, where)
        items.append(Scored(model=model, config=config, condition=condition, row=row, answer=answer))
        kept.append(
            {
                "model": model,
                "example_id": example_id,
                "condition": condition,
                "response": response,
                "parse": answer.status,
                "part": answer.part,
                "action": answer.action,
                "action_raw": answer.action_raw,
                "point": None if answer.point is None else list(answer.point),
                "box": None if answer.box is None else list(answer.box),
            }
        )
    return items, kept
