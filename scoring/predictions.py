"""Join prediction lines to the rows they refer to, check the gate, and expand to every expected row.

A prediction is one JSON object: ``example_id``, ``condition`` and ``model`` (all required), and the
raw ``response`` (a string) and/or parsed fields (``part``, ``action``, ``point``, ``box``, ``text``
and, for GUI rows, any answer shape PointerBench's eval.py reads; at the top level or under
``parsed``). A raw response is what gets parsed (strict, then lenient unless ``strict``) and it is
kept; parsed fields alone are used as given and counted as their own status (``fields``). For the
free-form variant the prose is ``text``, else the raw response. Optional gate fields:
``dataset_version``, ``manifest_sha256``, ``template_sha256`` (as every request line carries them)
and ``image_sha256``.

``"response": null`` (what a failed API call writes) is a malformed answer: a failure, counted.
The whole input is read before anything is scored: every bad line (not JSON, no model, an unknown
example id or condition, a duplicate, a gate mismatch, a wrong type) is reported at once, the first
20 listed and a count per kind, and nothing is scored; an empty input is an error too.

The gate counts every line before anything is dropped. Predictions for excluded rows (GAPartNet
re-asks that failed a check, ``exclusion_tags``) are gated, counted, reported and not scored; GUI
rows are never excluded (each suite is scored on every row its source publishes). Every valid,
non-excluded row of a scored (model, config, condition) without a prediction is added as a
``missing`` answer (a failure), unless the caller scores a deliberate subset.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from groundbench.errors import GroundBenchError
from groundbench.loaders.prompts import template_hash
from groundbench.loaders.records import config_names, read_records
from groundbench.schemas.request_conditions import (
    FREE_FORM,
    GUI,
    base_condition,
    is_known,
    row_allows,
    unknown_condition,
)
from groundbench.scoring.formats import DEFAULT, AnswerFormat, parse_format
from groundbench.scoring.formats.read import gui_answer, part_answer
from groundbench.scoring.gate import Gate, line_gate_fields, mismatches
from groundbench.scoring.gui import official_answer, usable
from groundbench.scoring.gui_rules import BOX_KEYS, FLAT_BOX_KEYS, POINT_KEYS, TEXT_KEYS
from groundbench.scoring.metrics import Scored
from groundbench.scoring.parse import (
    FIELDS,
    FREE_TEXT,
    MALFORMED,
    MISSING,
    Answer,
    answer_from_fields,
    finite_json,
    has_answer_fields,
    parse_response,
    settle,
)

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
        for row in read_records(folder, name):
            rows[row["example_id"]] = (name, row)
    return rows


class Unreadable:
    """A line that is not one JSON value (reported with every other bad line, not on its own)."""

    def __init__(self, reason: str) -> None:
        self.reason = reason


def read_prediction_lines(path: Path) -> Iterator[tuple[str, Any]]:
    """(where, parsed JSON value, or :class:`Unreadable`) per non-blank line of a predictions JSONL file."""
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
            yield where, Unreadable(f"expected one JSON object ({exc})")


class BadLine(Exception):
    """One problem of one prediction line: collected, never raised past :func:`join`."""

    def __init__(self, kind: str, reason: str) -> None:
        super().__init__(reason)
        self.kind, self.reason = kind, reason


SHOWN = 20  # bad lines listed in the error; the counts per kind cover the rest


def bad_lines_error(source: str, total: int, problems: list[tuple[str, BadLine]]) -> GroundBenchError:
    """Every bad line at once: a count per kind, then the first :data:`SHOWN` with where and why."""
    kinds = Counter(problem.kind for _, problem in problems)
    counts = ", ".join(f"{kind} {n}" for kind, n in sorted(kinds.items(), key=lambda item: (-item[1], item[0])))
    shown = [f"  {where}: {problem.kind}: {problem.reason}" for where, problem in problems[:SHOWN]]
    more = [f"  ... and {len(problems) - SHOWN} more"] if len(problems) > SHOWN else []
    head = f"{len(problems)} of {total} prediction lines are bad ({counts}); nothing was scored. First {len(shown)}:"
    return GroundBenchError(source, "lines", "\n".join([head, *shown, *more]))


def _seen(line: Mapping[str, Any], row: Mapping[str, Any]) -> tuple[int, int]:
    """The size of the image the model was sent: the line's recorded resize, else the row's own frame."""
    resize = line.get("resize")
    sent = resize.get("sent_size") if isinstance(resize, Mapping) else None
    if sent is None:
        return int(row["width"]), int(row["height"])
    if not (isinstance(sent, list) and len(sent) == 2 and all(isinstance(v, int) and v > 0 for v in sent)):
        raise BadLine("resize", "expected resize.sent_size as [width, height] in positive integers")
    return sent[0], sent[1]


def _answer(
    line: Mapping[str, Any], condition: str, row: Mapping[str, Any], strict: bool, fmt: AnswerFormat | None = None
) -> Answer:
    present = "response" in line
    response = line.get("response")
    if response is not None and not isinstance(response, str):
        raise BadLine("response", "expected the raw response as a string (or null for a failed request)")
    parsed = line.get("parsed")
    if parsed is not None and not isinstance(parsed, dict):
        raise BadLine("parsed", "expected an object of answer fields")
    fields = {**{k: line[k] for k in ANSWER_FIELDS if k in line}, **(parsed or {})}
    base = base_condition(condition)
    if base == FREE_FORM:
        text = fields.get("text", response)
        if isinstance(text, str):
            return Answer(status=FREE_TEXT, text=text)
        if present and response is None:
            return Answer(status=MALFORMED)  # a failed request: no prose, a failure
        raise BadLine("text", "a free-form prediction needs `text` or a raw `response`")
    if response is not None and fmt is not None and not fmt.is_default:
        seen = _seen(line, row)
        if base == GUI:
            answer = gui_answer(fmt, response, row, seen, strict)
            answer = official_answer(answer, row)
            return settle(answer, usable(answer.record, row))
        answer = part_answer(fmt, response, row, seen, strict)
        return settle(answer, has_answer_fields(answer))
    if response is not None:
        answer = parse_response(response, strict_only=strict)
    elif fields:
        answer = answer_from_fields(fields, FIELDS)
    elif present:
        return Answer(status=MALFORMED)  # "response": null, what a failed API call writes: a failure
    else:
        raise BadLine("response", f"expected a raw `response` or parsed fields {list(ANSWER_FIELDS)}")
    if base == GUI:
        answer = official_answer(answer, row)
        return settle(answer, usable(answer.record, row))
    return settle(answer, has_answer_fields(answer))


@dataclass
class Joined:
    """Prediction lines joined to their rows, with what the report must say about them."""

    items: list[Scored] = field(default_factory=list)
    kept: list[dict[str, Any]] = field(default_factory=list)
    excluded: list[dict[str, str]] = field(default_factory=list)  # predictions for excluded rows (gated, not scored)
    lines: int = 0  # every line read, before anything is dropped
    gated_lines: int = 0  # lines carrying at least one gate field (counted over every line)
    mismatches: list[str] = field(default_factory=list)  # only when the override allowed them
    templates: dict[str, str] = field(default_factory=dict)  # condition -> template sha256 scored against
    formats: dict[str, AnswerFormat] = field(default_factory=dict)  # model -> the answer format its lines use
    profiles: dict[str, str] = field(default_factory=dict)  # model -> the profile its lines were asked under
    format_conflict: str | None = None  # the first model whose lines use two answer formats


def _identify(line: Any, rows: Rows) -> tuple[str, str, str]:
    """(model, example_id, condition) of a line, or the first reason it names none of the dataset's."""
    if isinstance(line, Unreadable):
        raise BadLine("json", line.reason)
    if not isinstance(line, Mapping):
        raise BadLine("json", "expected one JSON object")
    example_id, condition, model = line.get("example_id"), line.get("condition"), line.get("model")
    if not isinstance(model, str) or not model.strip():
        raise BadLine("model", "expected the model's name (a non-empty string) on every line")
    if not isinstance(example_id, str) or example_id not in rows:
        raise BadLine("example_id", f"expected an example id of the dataset, got {example_id!r}")
    if not isinstance(condition, str) or not is_known(condition):
        raise BadLine("condition", unknown_condition("", str(condition)).reason)
    return model, example_id, condition


def join(
    lines: Iterable[tuple[str, Any]],
    rows: Rows,
    gate: Gate,
    *,
    strict: bool = False,
    allow_gate_mismatch: bool = False,
    source: str = "predictions",
    answer_format: AnswerFormat | None = None,
) -> Joined:
    """Every line joined to its row; every bad line of the whole input reported at once (exit 2), an
    empty input refused. ``answer_format`` reads every line that names none (default: ``groundbench``)."""
    out = Joined()
    default = answer_format or parse_format(DEFAULT)
    seen: set[tuple[str, str, str]] = set()
    problems: list[tuple[str, BadLine]] = []
    for where, line in lines:
        out.lines += 1
        try:
            _join_line(out, where, line, rows, gate, seen, strict, allow_gate_mismatch, default)
        except BadLine as problem:
            problems.append((where, problem))
    if problems:
        raise bad_lines_error(source, out.lines, problems)
    if not out.lines:
        raise GroundBenchError(source, "lines", "expected at least one prediction line, found none (empty input)")
    if out.format_conflict is not None:
        raise GroundBenchError(source, "answer_format", out.format_conflict)
    return out


def _line_format(line: Mapping[str, Any], default: AnswerFormat) -> tuple[AnswerFormat, Any]:
    """(the format that reads the line, its profile or None): its own ``answer_format``, else its profile's."""
    from groundbench.scoring.profiles import parse_profile

    profile = None
    try:
        if line.get("profile") is not None:
            profile = parse_profile(str(line["profile"]), "line", "profile")
        if line.get("answer_format") is not None:
            return parse_format(line["answer_format"], "line", "answer_format"), profile
    except GroundBenchError as exc:
        raise BadLine(exc.field, exc.reason) from exc
    return (default if profile is None else profile.format), profile


def _join_line(
    out: Joined,
    where: str,
    line: Any,
    rows: Rows,
    gate: Gate,
    seen: set[tuple[str, str, str]],
    strict: bool,
    allow_gate_mismatch: bool,
    default: AnswerFormat,
) -> None:
    if isinstance(line, Mapping) and line_gate_fields(line):
        out.gated_lines += 1  # counted before anything can drop the line
    model, example_id, condition = _identify(line, rows)
    key = (model, example_id, condition)
    if key in seen:
        raise BadLine("duplicate", f"a second prediction for {key}")
    seen.add(key)
    config, row = rows[example_id]
    fmt, profile = _line_format(line, default)
    first = out.formats.setdefault(model, fmt)
    if first.spec != fmt.spec and out.format_conflict is None:
        out.format_conflict = (
            f"model {model!r} has lines in two answer formats ({first.spec} and {fmt.spec}, {where}): "
            "one model, one format (give each format's lines their own model name)"
        )
    if profile is not None:
        out.profiles.setdefault(model, profile.spec)
    template = template_hash(condition) if profile is None else profile.template_hash(condition)
    out.templates.setdefault(condition, template)
    carried = line_gate_fields(line)
    if carried:
        wrong = mismatches(carried, gate, config, template, str(row["image_sha256"]))
        if wrong and not allow_gate_mismatch:
            raise BadLine("gate", "prediction does not match the data scored: " + "; ".join(wrong))
        out.mismatches += [f"{where}: {w}" for w in wrong]
    if row.get("excluded"):
        out.excluded.append({"model": model, "config": config, "condition": condition, "example_id": example_id})
        return
    if not row_allows(row, condition):
        raise BadLine("condition", f"{condition} is not valid for {example_id}")
    answer = _answer(line, condition, row, strict, fmt)
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
            "numbers_from_strings": answer.from_strings,
            "record": None if record is None else finite_json(dict(record)),
            "answer_format": fmt.spec,
        }
    )


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
