"""Parse a model's raw response: strict first, then a separate, counted lenient recovery path.

- strict: the whole response, stripped of surrounding whitespace, is one JSON object (the format
  every prompt asks for) whose fields give this row's answer (:func:`settle`);
- lenient: a JSON object inside a code fence, or the first JSON object embedded in prose (never
  tried under ``strict=True``: seed 001's gate, strict JSON only, no fallback extraction);
- malformed: neither, or an object without a usable answer for the row (``{"answer": "top left"}``),
  or one whose point or box cannot be read (``"point": "top left"``, a NaN or Infinity coordinate):
  the answer is a failure (no part, action ``none``, no point, no box), never a strict answer with
  a null point; a line whose ``response`` is null (what a failed API call writes) is malformed too;
- fields: the prediction line carried parsed fields and no raw response: its own status, never
  counted as strict;
- missing: no prediction for a row that was expected (a failure, as PointerBench counts it);
- point_only: a pointing family's own syntax (``scoring.formats.pointing``) on an object-part row: a point and
  no part, no action (its localization scores; the other figures count it as naming nothing);
- refused: under a declared answer format (``scoring.formats``), the family's documented "no target"
  answer (UI-Venus-2's ``[-1, -1]``, InfiGUI-G1's ``[]``): no coordinates, counted apart
  (``refusal_rate``), a failure on a row that has a target.

Coordinates are read the way the GUI rule reads them (``scoring.gui_rules``): numbers, or numbers
inside strings (``"point": ["142.5", "166.5"]``, ``"point": "[170, 50]"``, ``"box": "10 20 30 40"``);
the first two (point) or four (box) are taken. An answer read from strings is counted as such
(``string_numbers_rate``), beside the strict and lenient counts.

Both paths are counted per model and condition (paper section 5: one model's numbers used a
recovery path the others never touched). The raw response is always kept beside the parse.
An action outside the 11-action vocabulary normalizes to ``none`` and is counted as out-of-vocabulary.
"""

from __future__ import annotations

import json
import math
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any

from groundbench.schemas.vocab import NO_ACTION, normalize_action
from groundbench.scoring.gui_rules import NUMBER_IN_TEXT

STRICT = "strict"
LENIENT = "lenient"
MALFORMED = "malformed"
FIELDS = "fields"  # the prediction line carried parsed fields and no raw response
FREE_TEXT = "free_text"  # a free-form answer: prose, scored by keywords
MISSING = "missing"  # an expected row without a prediction
REFUSED = "refused"  # the declared family's documented "no target" answer (UI-Venus-2's [-1, -1], InfiGUI-G1's [])
# A pointing family's answer on an object-part row, read strictly in its own syntax: a point (or box) and no
# part, no action. It scores the localization metrics and fails the others, counted as its own column.
POINT_ONLY = "point_only"

_FENCE = re.compile(r"```[A-Za-z0-9_-]*\s*\n?(.*?)```", re.DOTALL)


@dataclass(frozen=True, slots=True)
class Answer:
    status: str
    part: str | None = None
    action: str = NO_ACTION
    action_raw: str | None = None
    point: tuple[float, float] | None = None
    box: tuple[float, float, float, float] | None = None
    text: str | None = None
    record: Mapping[str, Any] | None = field(default=None, compare=False)  # the JSON object it was read from
    from_strings: bool = False  # a coordinate was read from a string ("142.5", "[170, 50]")
    unreadable: bool = False  # a point or box was given but cannot be read (settle makes it malformed)
    # Every point (x, y) or box (x0, y0, x1, y1) of an answer giving several, in row pixels, in the family's order
    # (``point`` / ``box`` hold the first, the one the headline reads); empty for any other answer.
    shapes: tuple[tuple[float, ...], ...] = ()

    @property
    def out_of_vocabulary(self) -> bool:
        """An action was given but is not in the vocabulary (so it was normalized to ``none``)."""
        return self.action_raw is not None and self.action == NO_ACTION and self.action_raw.strip().lower() != NO_ACTION

    @property
    def location(self) -> tuple[float, float] | None:
        """The answer's point, or its box centre when only a box was given."""
        if self.point is not None:
            return self.point
        if self.box is not None:
            return ((self.box[0] + self.box[2]) / 2.0, (self.box[1] + self.box[3]) / 2.0)
        return None


def _number(value: Any) -> float | None:
    """A JSON number or a string holding one, as a finite float; None otherwise (booleans are no numbers)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        number = float(value)
    elif isinstance(value, str):
        try:
            number = float(value)
        except ValueError:
            return None
    else:
        return None
    return number if math.isfinite(number) else None


def read_numbers(value: Any, length: int) -> tuple[tuple[float, ...] | None, bool]:
    """(the first ``length`` coordinates of a point or box, read from strings?): a list of at least
    ``length`` numbers or numeric strings, or a string with at least ``length`` numbers in it."""
    if isinstance(value, str):
        found = [float(x) for x in NUMBER_IN_TEXT.findall(value)]
        return (tuple(found[:length]), True) if len(found) >= length else (None, True)
    if not isinstance(value, list | tuple) or len(value) < length:
        return None, False
    numbers = [_number(v) for v in value[:length]]
    strings = any(isinstance(v, str) for v in value[:length])
    if any(n is None for n in numbers):
        return None, strings
    return tuple(n for n in numbers if n is not None), strings


_SCALARS = (str, int, bool, type(None))


def non_finite(value: Any) -> bool:
    """Does a JSON value hold NaN or an infinity anywhere (Python's json reads those bare tokens)?"""
    kind = type(value)
    if kind is float:
        return not math.isfinite(value)
    if kind in _SCALARS:
        return False
    if kind is dict:  # the common case, without the Mapping check's cost
        return any(non_finite(v) for v in value.values() if type(v) not in _SCALARS)
    if kind is list:
        return any(non_finite(v) for v in value if type(v) not in _SCALARS)
    if isinstance(value, float):
        return not math.isfinite(value)
    if isinstance(value, Mapping):
        return any(non_finite(v) for v in value.values())
    if isinstance(value, list | tuple):
        return any(non_finite(v) for v in value)
    return False


def finite_json(value: Any) -> Any:
    """``value`` with every NaN or infinity replaced by null, so the report is strict JSON."""
    kind = type(value)
    if kind in _SCALARS:
        return value
    if kind is float:
        return value if math.isfinite(value) else None
    if kind is dict:
        return {k: v if type(v) in _SCALARS else finite_json(v) for k, v in value.items()}
    if kind is list:
        return [v if type(v) in _SCALARS else finite_json(v) for v in value]
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, Mapping):
        return {k: finite_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [finite_json(v) for v in value]
    return value


@lru_cache(maxsize=1 << 12)
def _action(raw: str | None) -> str:
    return normalize_action(raw)


def _shared(text: str) -> str:
    """One string object per short name, however many answers give it (a million answers: memory, not meaning)."""
    return sys.intern(text) if len(text) <= 64 else text


def answer_from_fields(fields: dict[str, Any], status: str) -> Answer:
    """Read the documented answer schema (part, action, point, box; ``bbox`` accepted for box)."""
    part = fields.get("part")
    action = fields.get("action")
    action_raw = action if isinstance(action, str) else None if action is None else str(action)
    raw_point, raw_box = fields.get("point"), fields.get("box", fields.get("bbox"))
    point, point_strings = read_numbers(raw_point, 2)
    box, box_strings = read_numbers(raw_box, 4)
    unreadable = (raw_point is not None and point is None) or (raw_box is not None and box is None)
    text = fields.get("text")
    return Answer(
        status=status,
        part=None if part is None else _shared(str(part)),
        action=_action(action_raw),
        action_raw=None if action_raw is None else _shared(action_raw),
        point=None if point is None else (point[0], point[1]),
        box=None if box is None else (box[0], box[1], box[2], box[3]),
        text=text if isinstance(text, str) else None,
        record=fields,
        from_strings=(point is not None and point_strings) or (box is not None and box_strings),
        unreadable=unreadable or non_finite(fields),
    )


def _object(text: str) -> dict[str, Any] | None:
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _embedded_object(text: str) -> dict[str, Any] | None:
    decoder = json.JSONDecoder()
    for match in re.finditer(r"\{", text):
        try:
            value, _ = decoder.raw_decode(text, match.start())
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    return None


def parse_response(raw: str, *, strict_only: bool = False) -> Answer:
    """Strict, else (unless ``strict_only``) lenient, else malformed; :func:`settle` then checks the fields."""
    strict = _object(raw.strip())
    if strict is not None:
        return answer_from_fields(strict, STRICT)
    if strict_only:
        return Answer(status=MALFORMED)
    for fenced in _FENCE.findall(raw):
        found = _object(fenced.strip())
        if found is not None:
            return answer_from_fields(found, LENIENT)
    embedded = _embedded_object(raw)
    if embedded is not None:
        return answer_from_fields(embedded, LENIENT)
    return Answer(status=MALFORMED)


def has_answer_fields(answer: Answer) -> bool:
    """Does the object give a usable non-GUI answer (a part, an action, a point or a box)?"""
    return bool(
        (answer.part and answer.part.strip())
        or (answer.action_raw and answer.action_raw.strip())
        or answer.point is not None
        or answer.box is not None
    )


def settle(answer: Answer, usable: bool) -> Answer:
    """A parsed object whose fields give no usable answer for its row, or a point or box that cannot be
    read (parsed fields included), is malformed, not strict/lenient: a failure with nothing in it."""
    if (answer.status in (STRICT, LENIENT) and not usable) or (answer.status in ANSWERED and answer.unreadable):
        return malformed(answer)
    return answer


ANSWERED = (STRICT, LENIENT, FIELDS)


def malformed(answer: Answer) -> Answer:
    """The failure a malformed answer scores as (its raw object kept as ``record`` for the report)."""
    return replace(
        answer,
        status=MALFORMED,
        part=None,
        action=NO_ACTION,
        action_raw=None,
        point=None,
        box=None,
        from_strings=False,
        shapes=(),
    )
