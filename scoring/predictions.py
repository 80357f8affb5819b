"""Join prediction lines to the rows they refer to, check the gate, and expand to every expected row.

A prediction is one JSON object: ``example_id``, ``condition`` and ``model`` (all required), and the
raw ``response`` (a string) and/or parsed fields (``part``, ``action``, ``point``, ``box``, ``text``
and, for GUI rows, any answer shape PointerBench's eval.py reads; at the top level or under
``parsed``). A raw response is what gets parsed (strict, then lenient unless ``strict``) and it is
kept; parsed fields alone are used as given and counted as their own status (``fields``). For the
free-form variant the prose is ``text``, else the raw response. Optional gate fields:
``dataset_version``, ``manifest_sha256``, ``template_sha256`` (as every request line carries them)
and ``image_sha256``.

Predictions for excluded rows are counted, reported and ignored. Every valid, non-excluded row of a
scored (model, config, condition) without a prediction is added as a ``missing`` answer (a
failure), unless the caller scores a deliberate subset.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from groundbench.core.errors import GroundBenchError
from groundbench.loaders.prompts import template_hash
from groundbench.schemas.request_conditions import FREE_FORM, GUI, base_condition, is_known, row_allows
from groundbench.scoring.gate import Gate, line_gate_fields, mismatches
from groundbench.scoring.gui import usable
from groundbench.scoring.gui_rules import BOX_KEYS, FLAT_BOX_KEYS, POINT_KEYS, TEXT_KEYS
from groundbench.scoring.metrics import Scored
from groundbench.scoring.parse import (
    FIELDS,
    FREE_TEXT,
    MISSING,
    Answer,
    answer_from_fields,
    has_answer_fields,
    parse_response,
    settle,
)
from groundbench.scoring.published import config_names, read_config

# Parsed answer fields a line may carry: the documented schema, plus for GUI rows eval.py's own keys.
ANSWER_FIELDS = (
    tuple(
        dict.fromkeys(("part", "action", "point", "box", "bbox", "text", *POINT_KEYS, *BOX_KEYS, *TEXT_KEYS, "x", "y"))
    )
    + FLAT_BOX_KEYS
)
Rows = dict[str, tuple[str, dict[str, Any]]]


def read_rows(folder: Path, configs: list[str] | None = None) -> Rows:
    """example_id -> (config, row without image bytes), for the folder's record configs (or ``configs``)."""
    rows: Rows = {}
    for name in configs or config_names(folder):
        for row in read_config(folder, name):
            rows[row["example_id"]] = (name, row)
    return rows


def read_prediction_lines(path: Path) -> Iterator[tuple[str, Any]]:
    """(where, parsed JSON value) per non-blank line of a predictions JSONL file."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise GroundBenchError(path, "file", f"expected a readable UTF-8 JSONL file ({exc})") from exc
    for number, raw_line in enumerate(text.splitlines(), start=1):
        if not raw_line.strip():
            continue
        where = f"{path}: line {number}"
        try:
            yield where, json.loads(raw_line)
        except ValueError as exc:
            raise GroundBenchError(where, "line", f"expected one JSON object ({exc})") from exc


def _answer(line: Mapping[str, Any], condition: str, row: Mapping[str, Any], where: str, strict: bool) -> Answer:
    response = line.get("response")
    if response is not None and not isinstance(response, str):
        raise GroundBenchError(where, "response", "expected the raw response as a string")
    parsed = line.get("parsed")
    if parsed is not None and not isinstance(parsed, dict):
        raise GroundBenchError(where, "parsed", "expected an object of answer fields")
    fields = {**{k: line[k] for k in ANSWER_FIELDS if k in line}, **(parsed or {})}
    base = base_condition(condition)
    if base == FREE_FORM:
        text = fields.get("text", response)
        if not isinstance(text, str):
            raise GroundBenchError(where, "text", "a free-form prediction needs `text` or a raw `response`")
        return Answer(status=FREE_TEXT, text=text)
    if response is not None:
        answer = parse_response(response, strict_only=strict)
    elif fields:
        answer = answer_from_fields(fields, FIELDS)
    else:
        raise GroundBenchError(where, "response", f"expected a raw `response` or parsed fields {list(ANSWER_FIELDS)}")
    return settle(answer, usable(answer.record, row) if base == GUI else has_answer_fields(answer))


@dataclass
class Joined:
    """Prediction lines joined to their rows, with what the report must say about them."""

    items: list[Scored] = field(default_factory=list)
    kept: list[dict[str, Any]] = field(default_factory=list)
    excluded: list[dict[str, str]] = field(default_factory=list)  # predictions for excluded rows (ignored)
    lines: int = 0
    gated_lines: int = 0  # lines carrying at least one gate field
    mismatches: list[str] = field(default_factory=list)  # only when the override allowed them
    templates: dict[str, str] = field(default_factory=dict)  # condition -> template sha256 scored against


def join(
    lines: Iterable[tuple[str, Any]], rows: Rows, gate: Gate, *, strict: bool = False, allow_gate_mismatch: bool = False
) -> Joined:
    out = Joined()
    seen: set[tuple[str, str, str]] = set()
    for where, line in lines:
        out.lines += 1
        if not isinstance(line, Mapping):
            raise GroundBenchError(where, "line", "expected one JSON object")
        example_id, condition, model = line.get("example_id"), line.get("condition"), line.get("model")
        if not isinstance(model, str) or not model.strip():
            raise GroundBenchError(where, "model", "expected the model's name (a non-empty string) on every line")
        if not isinstance(example_id, str) or example_id not in rows:
            raise GroundBenchError(where, "example_id", f"expected an example id of the dataset, got {example_id!r}")
        if not isinstance(condition, str) or not is_known(condition):
            raise GroundBenchError(where, "condition", f"unknown condition {condition!r}")
        key = (model, example_id, condition)
        if key in seen:
            raise GroundBenchError(where, "example_id", f"a second prediction for {key}")
        seen.add(key)
        config, row = rows[example_id]
        if row.get("excluded"):
            out.excluded.append({"model": model, "config": config, "condition": condition, "example_id": example_id})
            continue
        if not row_allows(row, condition):
            raise GroundBenchError(where, "condition", f"{condition} is not valid for {example_id}")
        carried = line_gate_fields(line)
        template = out.templates.setdefault(condition, template_hash(condition))
        if carried:
            out.gated_lines += 1
            wrong = mismatches(carried, gate, config, template, str(row["image_sha256"]))
            if wrong and not allow_gate_mismatch:
                raise GroundBenchError(where, "gate", "prediction does not match the data scored: " + "; ".join(wrong))
            out.mismatches += [f"{where}: {w}" for w in wrong]
        answer = _answer(line, condition, row, where, strict)
        out.items.append(Scored(model=model, config=config, condition=condition, row=row, answer=answer))
        record = answer.record if answer.status != FREE_TEXT else None
        out.kept.append(
            {
                "model": model,
                "example_id": example_id,
                "condition": condition,
                "response": line.get("response"),
                "parse": answer.status,
                "part": answer.part,
                "action": answer.action,
                "action_raw": answer.action_raw,
                "point": None if answer.point is None else list(answer.point),
                "box": None if answer.box is None else list(answer.box),
                "record": None if record is None else dict(record),
            }
        )
    return out


def expand(items: list[Scored], rows: Rows) -> tuple[list[Scored], list[dict[str, str]]]:
    """Every expected row of each scored (model, config, condition): the predictions plus ``missing`` answers."""
    predicted = {(s.model, s.config, s.condition, s.row["example_id"]) for s in items}
    groups = sorted({(s.model, s.config, s.condition) for s in items})
    by_config: dict[str, list[dict[str, Any]]] = {}
    for config, row in rows.values():
        by_config.setdefault(config, []).append(row)
    full = list(items)
    missing: list[dict[str, str]] = []
    for model, config, condition in groups:
        for row in sorted(by_config.get(config, []), key=lambda r: r["example_id"]):
            if row_allows(row, condition) and (model, config, condition, row["example_id"]) not in predicted:
                full.append(Scored(model, config, condition, row, Answer(status=MISSING)))
                missing.append(
                    {"model": model, "config": config, "condition": condition, "example_id": row["example_id"]}
                )
    return full, missing
