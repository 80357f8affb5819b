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

import csv
import json
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field, replace
from functools import lru_cache
from itertools import chain
from json.encoder import encode_basestring  # type: ignore[attr-defined]  # json's own C function
from pathlib import Path
from typing import Any

from groundbench.core.jsonindent import dumps_flat_object
from groundbench.errors import GroundBenchError, closest_name
from groundbench.loaders.prompts import template_hash
from groundbench.loaders.records import config_names, read_scored
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
from groundbench.scoring.gate import GATE_FIELDS, Gate, line_gate_fields, mismatches
from groundbench.scoring.gui import official_answer, usable
from groundbench.scoring.gui_rules import BOX_KEYS, FLAT_BOX_KEYS, POINT_KEYS, TEXT_KEYS
from groundbench.scoring.kept import KeptRecords
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
from groundbench.scoring.recent import RecentByIdentity
from groundbench.scoring.scored_items import GroupKey, ScoredItems
from groundbench.scoring.seen import SeenKeys

# Parsed answer fields a line may carry: the documented schema, plus for GUI rows eval.py's own keys.
ANSWER_FIELDS = (
    tuple(
        dict.fromkeys(("part", "action", "point", "box", "bbox", "text", *POINT_KEYS, *BOX_KEYS, *TEXT_KEYS, "x", "y"))
    )
    + FLAT_BOX_KEYS
)
ANSWER_FIELD_SET = frozenset(ANSWER_FIELDS)
Rows = dict[str, tuple[str, dict[str, Any]]]


def read_rows(folder: Path, configs: list[str] | None = None) -> Rows:
    """example_id -> (config, row as score reads it: ``loaders.records.read_scored``), for the folder's record
    configs (or ``configs``)."""
    rows: Rows = {}
    for name in configs or config_names(folder):
        for row in read_scored(folder, name):
            rows[row["example_id"]] = (name, row)
    return rows


class Unreadable:
    """A line that is not one JSON value (reported with every other bad line, not on its own)."""

    def __init__(self, reason: str) -> None:
        self.reason = reason


def read_prediction_lines(path: Path) -> Iterator[tuple[str, Any]]:
    """(where, parsed JSON value, or :class:`Unreadable`) per non-blank line of a predictions JSONL file; a
    file that is not JSON Lines at all (CSV, one JSON array or object) is one error (:func:`not_json_lines`).

    Read a line at a time (a predictions file is never held whole): lines are what ``str.splitlines`` makes of
    the file's text. Only a file whose first line is no JSON object is read whole, to say what it is."""
    try:
        with open(path, encoding="utf-8", newline="") as handle:
            first = _first_line(handle)
            if first is not None and not isinstance(first, Mapping):
                text = _whole(path)
                problem = not_json_lines(text)
                if problem is not None:
                    raise GroundBenchError(path, "file", problem)
                yield from _parsed(path, text.splitlines())
                return
            handle.seek(0)
            yield from _parsed(path, chain.from_iterable(map(str.splitlines, handle)))
    except (OSError, UnicodeDecodeError) as exc:
        _whole(path)  # the error whole-file reading gives (a decode error's position in the file, not the buffer)
        raise GroundBenchError(path, "file", f"expected a readable UTF-8 JSONL file ({exc})") from exc


def _whole(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise GroundBenchError(path, "file", f"expected a readable UTF-8 JSONL file ({exc})") from exc


def _first_line(handle: Any) -> Any:
    """The first non-blank line's JSON value (:class:`Unreadable` if it is none), or None when every line is blank."""
    for physical in handle:
        for line in physical.splitlines():
            if line.strip():
                try:
                    return json.loads(line)
                except ValueError:
                    return Unreadable("")
    return None


def _parsed(path: Path, lines: Iterable[str]) -> Iterator[tuple[str, Any]]:
    prefix = f"{path}: line "
    for number, raw_line in enumerate(lines, start=1):
        if not raw_line.strip():
            continue
        where = prefix + str(number)
        try:
            yield where, _loads(raw_line)
        except ValueError as exc:
            yield where, Unreadable(f"expected one JSON object ({exc})")


# The C scanner json.loads runs, without its two Python layers around it.
_scan = json.JSONDecoder().scan_once  # type: ignore[attr-defined]  # set by JSONDecoder.__init__


def _loads(text: str) -> Any:
    """``json.loads(text)``: a line that is one object with nothing around it is scanned at once, as ``json.loads``
    scans it; any other (or a scan that fails) is left to ``json.loads``, which gives its own value or error."""
    if text[:1] == "{":
        try:
            value, end = _scan(text, 0)
        except (ValueError, StopIteration):
            return json.loads(text)
        if end == len(text):
            return value
    return json.loads(text)


JSON_LINES = (
    'expected JSON Lines, one prediction object per line ({"example_id": ..., "condition": ..., "model": ..., '
    '"response": ...})'
)


def not_json_lines(text: str) -> str | None:
    """Why a whole file is not JSON Lines, or None (its lines are then read, and judged, one by one): one JSON
    array (on one line or spread over many), one JSON object spread over many lines, or comma- or tab-separated
    values. Only a file whose first line is no JSON object is looked at as a whole."""
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        return None
    try:
        first: Any = json.loads(lines[0])
    except ValueError:
        first = Unreadable("")
    if isinstance(first, Mapping) or (not isinstance(first, Unreadable) and len(lines) > 1):
        return None  # JSON Lines (a line that is no object is reported as a bad line)
    try:
        whole: Any = json.loads(text)
    except ValueError:
        whole = None
    if isinstance(whole, list):
        return f"the file is one JSON array of {len(whole)} items, not JSON Lines; {JSON_LINES}, e.g. jq -c '.[]'"
    if isinstance(whole, Mapping):
        keys = ", ".join(map(str, list(whole)[:5])) + (", ..." if len(whole) > 5 else "")
        return f"the file is one JSON object (keys: {keys}) over {len(lines)} lines, not JSON Lines; {JSON_LINES}"
    return _separated_values(lines) if isinstance(first, Unreadable) else None


def _separated_values(lines: list[str]) -> str | None:
    """The error for a CSV or TSV file (its first line splits into two or more named columns), or None."""
    delimiter = "\t" if "\t" in lines[0] else ","
    header = next(csv.reader([lines[0]], delimiter=delimiter), [])
    if len(header) < 2 or not all(name.strip() for name in header):
        return None
    kind = "TSV" if delimiter == "\t" else "CSV"
    shown = ", ".join(name.strip() for name in header[:6]) + (", ..." if len(header) > 6 else "")
    return f"the file looks like {kind} (first line: {shown}), not JSON Lines; {JSON_LINES}"


# Every key a predictions line may carry. Our own files carry nothing else: groundbench eval's lines
# (groundbench/evaluate/predictions.py), a `requests` line with the answer added (scoring/requests.py and
# loaders/prompts request()) and groundbench import's lines (`imported`: the framework's own row and verdict).
IDENTITY_KEYS = ("example_id", "condition", "model")
READING_KEYS = ("response", "parsed", *ANSWER_FIELDS, "answer_format", "profile", "resize")
EVAL_KEYS = ("raw_response", "raw_parse")
REQUEST_KEYS = ("config", "prompt", "image", "system", "request_body", "template_version")
GATE_KEYS = (*GATE_FIELDS, "image_sha256")
KNOWN_KEYS = frozenset((*IDENTITY_KEYS, *READING_KEYS, *GATE_KEYS, *EVAL_KEYS, *REQUEST_KEYS, "imported"))
NOT_READ = "keys GroundBench does not read"


@dataclass
class UnknownKeys:
    """Keys no line should carry, counted over the whole input: a misspelt known key is an error of its own
    (``exmaple_id``: did you mean ``example_id``?); any other unknown key is ignored and said once."""

    lines: Counter[str] = field(default_factory=Counter)  # key -> lines carrying it
    first: dict[str, str] = field(default_factory=dict)  # key -> where it first appears

    def note(self, where: str, line: Mapping[str, Any]) -> None:
        parsed = line.get("parsed")
        if KNOWN_KEYS.issuperset(line) and not isinstance(parsed, Mapping):
            return  # every key known (most lines)
        keys = [str(k) for k in line if k not in KNOWN_KEYS]
        if isinstance(parsed, Mapping):
            keys += [f"parsed.{k}" for k in parsed if k not in ANSWER_FIELDS]
        for key in keys:
            self.lines[key] += 1
            self.first.setdefault(key, where)

    @staticmethod
    def closest(key: str) -> str | None:
        """The known key ``key`` most likely misspells (case aside), or None."""
        if key.startswith("parsed."):
            close = closest_name(key.removeprefix("parsed."), ANSWER_FIELDS)
            return None if close is None else f"parsed.{close}"
        return closest_name(key, sorted(KNOWN_KEYS))

    def misspelt(self) -> list[str]:
        return [key for key in self.lines if self.closest(key) is not None]

    def describe(self, keys: list[str], total: int) -> str:
        """The one error line for misspelt keys: each with its count, where it first appears and the key meant."""
        parts = [
            f"unknown key {key!r} on {self.lines[key]} of {total} lines (first: {self.first[key]}); "
            f"did you mean {self.closest(key)!r}?"
            for key in keys
        ]
        return "; ".join(parts) + " (a line's keys: docs/scoring.md, Predictions lines)"

    def summary(self, total: int) -> str | None:
        """Every unknown key with how many lines carry it, or None when there is none."""
        if not self.lines:
            return None
        counts = ", ".join(f"{key!r} ({n} of {total} lines)" for key, n in self.lines.most_common())
        return f"{NOT_READ}: {counts}"


class BadLine(Exception):
    """One problem of one prediction line: collected, never raised past :func:`join`."""

    def __init__(self, kind: str, reason: str) -> None:
        super().__init__(reason)
        self.kind, self.reason = kind, reason


SHOWN = 20  # bad lines listed in the error; the counts per kind cover the rest


def bad_lines_error(
    source: str, total: int, problems: list[tuple[str, BadLine]], note: str | None = None
) -> GroundBenchError:
    """Every bad line at once: a count per kind, then the first :data:`SHOWN` problems with where and why (lines
    with the same problem as one entry, saying how many more share it); ``note``: unknown keys, said once."""
    kinds = Counter(problem.kind for _, problem in problems)
    counts = ", ".join(f"{kind} {n}" for kind, n in sorted(kinds.items(), key=lambda item: (-item[1], item[0])))
    same: dict[tuple[str, str], list[str]] = {}
    for where, problem in problems:
        same.setdefault((problem.kind, problem.reason), []).append(where)
    groups = list(same.items())[:SHOWN]
    shown = [
        f"  {wheres[0]}{f' and {len(wheres) - 1} more lines' if len(wheres) > 1 else ''}: {kind}: {reason}"
        for (kind, reason), wheres in groups
    ]
    listed = sum(len(wheres) for _, wheres in groups)
    more = [f"  ... and {len(problems) - listed} more"] if len(problems) > listed else []
    also = f" The lines carry {note}." if note else ""
    head = f"{len(problems)} of {total} prediction lines are bad ({counts}); nothing was scored.{also}"
    head += f" First {len(shown)}:"
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


def answer_of(
    line: Mapping[str, Any], condition: str, row: Mapping[str, Any], strict: bool, fmt: AnswerFormat | None = None
) -> Answer:
    present = "response" in line
    response = line.get("response")
    if response is not None and not isinstance(response, str):
        raise BadLine("response", "expected the raw response as a string (or null for a failed request)")
    parsed = line.get("parsed")
    if parsed is not None and not isinstance(parsed, dict):
        raise BadLine("parsed", "expected an object of answer fields")
    carries = parsed or not ANSWER_FIELD_SET.isdisjoint(line)  # most lines carry a raw response only
    fields = {**{k: line[k] for k in ANSWER_FIELDS if k in line}, **(parsed or {})} if carries else {}
    base = base_condition(condition)
    if base == FREE_FORM:
        text = fields.get("text", response)
        if isinstance(text, str):
            return _free_text(text)
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
        answer = _parsed_response(response, strict)
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


@lru_cache(maxsize=256)
def _free_text(text: str) -> Answer:
    """A free-form answer, one object for recent texts (every line of an every-keyword or refusal text shares it:
    its kept record's text is then written once, ``Joined._kept_text``)."""
    return Answer(status=FREE_TEXT, text=text)


@lru_cache(maxsize=256)
def _parsed_response(response: str, strict: bool) -> Answer:
    """``parse_response``, remembered for recent texts: lines repeat answers (a row's one answer under each of
    its conditions, a refusal, an every-keyword text) and an Answer is immutable (its ``record`` is only read)."""
    return parse_response(response, strict_only=strict)


@dataclass(frozen=True)
class Context:
    """What every line is joined against: the rows, the gate, and how answers are read."""

    rows: Rows
    gate: Gate
    strict: bool
    allow_gate_mismatch: bool
    default: AnswerFormat  # reads every line that names no format of its own
    compared: dict[Any, list[str]] = field(default_factory=dict)  # gate values compared -> their mismatches


COMPARED = 4096  # gate value combinations remembered (a file's lines carry a few)


@dataclass(slots=True)  # not frozen: made for every line, and a frozen dataclass costs three times as much to make
class Key:
    """Who a line is about: one prediction per (model, example, condition); never changed once made."""

    model: str
    example_id: str
    condition: str

    def as_tuple(self) -> tuple[str, str, str]:
        return (self.model, self.example_id, self.condition)


@dataclass(slots=True)  # not frozen, as Key
class ReadLine:
    """One good line, read: its row, how it was read and the answer (None for an excluded row's line); never
    changed once made."""

    where: str
    line: Mapping[str, Any]
    key: Key
    config: str
    row: Mapping[str, Any]
    fmt: AnswerFormat
    profile: Any  # the line's profile (scoring.profiles.Profile) or None
    template: str  # the sha256 of the prompt template the line was asked with
    mismatches: list[str]  # gate mismatches the override allowed
    answer: Answer | None


RUNS_BUDGET = 1 << 23  # characters of recent answers' record text remembered (8 M: a few tens of MB at most)


def _runs_length(runs: tuple[str, str]) -> int:
    return len(runs[0]) + len(runs[1])


SAMPLE = 25  # malformed lines kept per model for the syntax hint (scoring/syntax_hint.py): a bounded cost


@dataclass
class Joined:
    """Prediction lines joined to their rows, with what the report must say about them."""

    items: ScoredItems = field(default_factory=ScoredItems)  # by group, in a temporary file: read one group at a time
    kept: KeptRecords = field(default_factory=KeptRecords)  # the report's record of each item, as JSON text
    excluded: list[dict[str, str]] = field(default_factory=list)  # predictions for excluded rows (gated, not scored)
    lines: int = 0  # every line read, before anything is dropped
    gated_lines: int = 0  # lines carrying at least one gate field (counted over every line)
    mismatches: list[str] = field(default_factory=list)  # only when the override allowed them
    templates: dict[str, str] = field(default_factory=dict)  # condition -> template sha256 scored against
    formats: dict[str, AnswerFormat] = field(default_factory=dict)  # model -> the answer format its lines use
    profiles: dict[str, str] = field(default_factory=dict)  # model -> the profile its lines were asked under
    format_conflict: str | None = None  # the first model whose lines use two answer formats
    seen: SeenKeys = field(default_factory=SeenKeys)  # (model, example id, condition) of every line
    unknown_keys: UnknownKeys = field(default_factory=UnknownKeys)
    malformed: dict[str, list[ReadLine]] = field(default_factory=dict)  # model -> its first SAMPLE malformed lines
    # Recent answers without their record: lines repeating an answer share one object.
    _bare: RecentByIdentity[Answer] = field(default_factory=RecentByIdentity, repr=False, compare=False)
    # Recent answers' (format, response) -> the text of their record's fields around the line's own three keys
    # (at most RUNS_BUDGET characters of it: long responses are not held by the thousand).
    _runs: RecentByIdentity[tuple[str, str]] = field(
        default_factory=lambda: RecentByIdentity(weight=_runs_length, budget=RUNS_BUDGET), repr=False, compare=False
    )

    def count(self, where: str, line: Any) -> dict[str, Any]:
        """Every line is counted (and its gate fields and keys seen) before anything can drop it; its gate fields
        are returned (read once)."""
        self.lines += 1
        carried: dict[str, Any] = {}
        if type(line) is dict or isinstance(line, Mapping):
            carried = line_gate_fields(line)
            self.gated_lines += bool(carried)
            self.unknown_keys.note(where, line)
        return carried

    def claim(self, key: Key) -> Key:
        """The line's key, unless an earlier line had it (then the line is a duplicate)."""
        if not self.seen.add_new(key.as_tuple()):
            raise BadLine("duplicate", f"a second prediction for {key.as_tuple()}")
        return key

    def add(self, read: ReadLine) -> None:
        """Record a good line: its model's format and profile, its template, and its answer (or its exclusion)."""
        model, condition = read.key.model, read.key.condition
        first = self.formats.setdefault(model, read.fmt)
        if first is not read.fmt and first.spec != read.fmt.spec and self.format_conflict is None:
            self.format_conflict = (
                f"model {model!r} has lines in two answer formats ({first.spec} and {read.fmt.spec}, {read.where}): "
                "one model, one format (give each format's lines their own model name)"
            )
        if read.profile is not None:
            self.profiles.setdefault(model, read.profile.spec)
        self.templates.setdefault(condition, read.template)
        if read.mismatches:
            self.mismatches += [f"{read.where}: {wrong}" for wrong in read.mismatches]
        if read.answer is None:
            self.excluded.append(
                {"model": model, "config": read.config, "condition": condition, "example_id": read.key.example_id}
            )
            return
        self.kept.append_text(self._kept_text(read))
        answer = read.answer
        if answer.record is not None and base_condition(condition) != GUI:
            # read again only by the GUI rules; the report has it already
            full = answer
            answer = self._bare.get(full, None, lambda: replace(full, record=None))
        self.items.add(model, read.config, condition, read.row, answer)
        if read.answer.status == MALFORMED and isinstance(read.line.get("response"), str):
            sample = self.malformed.setdefault(model, [])
            if len(sample) < SAMPLE:
                sample.append(read)

    def _kept_text(self, read: ReadLine) -> str:
        """The report's record of the line as its JSON text (``KeptRecords``): ``_kept`` written with its keys
        sorted, in three runs: the answer's fields before the line's own three keys (condition, example_id,
        model), those three, and the answer's after them. A line repeating a recent line's answer (the same
        answer object, format and response) reuses the answer's two runs: they are made of nothing else."""
        answer, spec, response = read.answer, read.fmt.spec, read.line.get("response")
        assert answer is not None
        before, after = self._runs.get(answer, (spec, response), lambda: _answer_runs(read, answer))
        key = read.key
        own = (
            f' "condition": {encode_basestring(key.condition)},\n "example_id": {encode_basestring(key.example_id)},'
            f'\n "model": {encode_basestring(key.model)}'
        )
        return "{\n" + before + ",\n" + own + ",\n" + after + "\n}"


def _answer_runs(read: ReadLine, answer: Answer) -> tuple[str, str]:
    """The text of the kept record's fields before and after the line's own three keys (sorted order)."""
    fields = _kept(read, answer)
    before = {k: fields[k] for k in ("action", "action_raw", "answer_format", "box")}
    after = {k: fields[k] for k in ("numbers_from_strings", "parse", "part", "point", "record", "response")}
    return _inner(before), _inner(after)


def _inner(fields: dict[str, Any]) -> str:
    """The lines of ``fields``' indented JSON text between its braces (each starts with its one-space indent)."""
    return dumps_flat_object(fields, KeptRecords.indent, finite=True)[2:-2]


def _kept(read: ReadLine, answer: Answer) -> dict[str, Any]:
    """What the report keeps of a scored line: the raw response beside its parse."""
    record = answer.record if answer.status != FREE_TEXT else None
    return {
        "model": read.key.model,
        "example_id": read.key.example_id,
        "condition": read.key.condition,
        "response": read.line.get("response"),
        "parse": answer.status,
        "part": answer.part,
        "action": answer.action,
        "action_raw": answer.action_raw,
        "point": None if answer.point is None else list(answer.point),
        "box": None if answer.box is None else list(answer.box),
        "numbers_from_strings": answer.from_strings,
        "record": None if record is None else finite_json(dict(record)),
        "answer_format": read.fmt.spec,
    }


def _identify(line: Any, rows: Rows) -> Key:
    """(model, example_id, condition) of a line, or the first reason it names none of the dataset's."""
    if type(line) is not dict:  # a parsed line is a dict: the two general checks only for anything else
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
    # One string object per model, row and condition, however many lines name them (memory, not meaning).
    return Key(
        _SHARED.setdefault(model, model), rows[example_id][1]["example_id"], _SHARED.setdefault(condition, condition)
    )


_SHARED: dict[str, str] = {}  # the model and condition names lines use: a few strings


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
    empty input refused. ``answer_format`` reads every line that names none (default: ``groundbench``).
    A key that looks like a misspelt known key is one error of its own, before any bad line."""
    context = Context(rows, gate, strict, allow_gate_mismatch, answer_format or parse_format(DEFAULT))
    out = Joined(seen=SeenKeys(rows))
    problems: list[tuple[str, BadLine]] = []
    for where, line in lines:
        carried = out.count(where, line)
        try:
            key = out.claim(_identify(line, rows))
            out.add(_read_line(where, line, key, context, carried))
        except BadLine as problem:
            problems.append((where, problem))
    misspelt = out.unknown_keys.misspelt()
    if misspelt:
        raise GroundBenchError(source, "keys", out.unknown_keys.describe(misspelt, out.lines))
    if problems:
        raise bad_lines_error(source, out.lines, problems, out.unknown_keys.summary(out.lines))
    if not out.lines:
        raise GroundBenchError(source, "lines", "expected at least one prediction line, found none (empty input)")
    if out.format_conflict is not None:
        raise GroundBenchError(source, "answer_format", out.format_conflict)
    return out


def _read_line(
    where: str, line: Mapping[str, Any], key: Key, context: Context, carried: dict[str, Any] | None = None
) -> ReadLine:
    """One identified line, top-down: its row, the format that reads it, the gate, then its answer."""
    config, row = context.rows[key.example_id]
    fmt, profile = _line_format(line, context.default)
    template = template_hash(key.condition) if profile is None else profile.template_hash(key.condition)
    wrong = _gate_mismatches(line_gate_fields(line) if carried is None else carried, context, config, template, row)
    answer = None
    if not row.get("excluded"):  # an excluded row's line is gated and counted, never scored
        if not row_allows(row, key.condition):
            raise BadLine("condition", f"{key.condition} is not valid for {key.example_id}")
        answer = answer_of(line, key.condition, row, context.strict, fmt)
    return ReadLine(where, line, key, config, row, fmt, profile, template, wrong, answer)


def _gate_mismatches(
    carried: Mapping[str, Any], context: Context, config: str, template: str, row: Mapping[str, Any]
) -> list[str]:
    """What the line's gate fields (``carried``) say that differs from the data (allowed only by the override)."""
    if not carried:
        return []
    image = str(row["image_sha256"])
    # Lines carry the same few gate values: each combination of strings compared once (other values, whose
    # equality is not their text's, 1 and True or 0.0 and -0.0, are compared on their own).
    key: Any = None
    wrong = None
    if all(type(value) is str for value in carried.values()):
        key = (tuple(carried.items()), config, template, image if "image_sha256" in carried else None)
        wrong = context.compared.get(key)
    if wrong is None:
        wrong = mismatches(carried, context.gate, config, template, image)
        if key is not None and len(context.compared) < COMPARED:
            context.compared[key] = wrong
    if wrong and not context.allow_gate_mismatch:
        raise BadLine("gate", "prediction does not match the data scored: " + "; ".join(wrong))
    return wrong


def _line_format(line: Mapping[str, Any], default: AnswerFormat) -> tuple[AnswerFormat, Any]:
    """(the format that reads the line, its profile or None): its own ``answer_format``, else its profile's."""
    if line.get("profile") is None and line.get("answer_format") is None:
        return default, None  # most lines name neither
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


def expand(
    items: Iterable[Scored], rows: Rows, seen: AbstractSet[tuple[str, str, str]] | None = None
) -> tuple[list[Scored], list[dict[str, str]]]:
    """Every expected row of each scored (model, config, condition) as one list: the predictions, then ``missing``
    answers (``score`` reads the groups one at a time instead: :func:`expanded_groups`).
    ``seen``: the join's (model, example id, condition) of every line, if at hand (not built again)."""
    full = list(items)
    predicted = seen if seen is not None else {(s.model, s.row["example_id"], s.condition) for s in full}
    absent = absent_rows(sorted({(s.model, s.config, s.condition) for s in full}), rows, predicted)
    for (model, config, condition), found in absent.items():
        full += [Scored(model, config, condition, row, Answer(status=MISSING)) for row in found]
    return full, missing_records(absent)


def absent_rows(
    groups: Iterable[GroupKey], rows: Rows, predicted: AbstractSet[tuple[str, str, str]]
) -> dict[GroupKey, list[dict[str, Any]]]:
    """Each group's expected rows that no line predicted (valid for its condition), in example id order."""
    by_config: dict[str, list[dict[str, Any]]] = {}
    for config, row in rows.values():
        by_config.setdefault(config, []).append(row)
    in_order = {config: sorted(found, key=lambda r: r["example_id"]) for config, found in by_config.items()}
    return {
        (model, config, condition): [
            row
            for row in in_order.get(config, [])
            if row_allows(row, condition) and (model, row["example_id"], condition) not in predicted
        ]
        for model, config, condition in groups
    }


def missing_records(absent: Mapping[GroupKey, list[dict[str, Any]]]) -> list[dict[str, str]]:
    """The report's ``missing``: one record per expected row without a prediction."""
    return [
        {"model": model, "config": config, "condition": condition, "example_id": row["example_id"]}
        for (model, config, condition), found in absent.items()
        for row in found
    ]


def expanded_groups(
    items: ScoredItems, absent: Mapping[GroupKey, list[dict[str, Any]]]
) -> Iterator[tuple[GroupKey, list[Scored]]]:
    """Each group's items read back (the groups in sorted order), its ``absent`` rows after them as ``missing``
    answers: what :func:`expand` makes, one group at a time."""
    for key in items.group_keys():
        model, config, condition = key
        missing = Answer(status=MISSING)
        group = items.group(key)
        group += [Scored(model, config, condition, row, missing) for row in absent.get(key, ())]
        yield key, group
