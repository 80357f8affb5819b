"""One raw response read through a declared format, for one row: an :class:`Answer` in the row's own pixels.

- GUI rows: strict is the family's official reading (``syntax``), handed to the official rule as a record
  in the row's pixels (a box answer on a point row is clicked at its centre, as the adapters click it);
  anything the adapter does not read, recovered by :func:`syntax.recover`, is lenient; nothing is malformed.
- a family's documented "no target" answer (``syntax.Refusal``) is the answer status ``refused`` on any row;
- object-part rows: the answer is GroundBench's JSON object (the profiles ask for it, in the family's
  frame), strict or lenient exactly as ``scoring.parse`` reads it, its point and box mapped from the frame;
  a family-syntax answer holding only a point or box is a lenient recovery.

``seen`` is the size of the image the model was sent (the row's own size unless the line records a resize).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from groundbench.scoring.formats.registry import AnswerFormat, Size
from groundbench.scoring.formats.syntax import BOX, POINT, Found, Refusal, recover
from groundbench.scoring.gui_rules import answer_type
from groundbench.scoring.parse import LENIENT, MALFORMED, REFUSED, STRICT, Answer, parse_response


def _gui_record(found: Found, fmt: AnswerFormat, row: Mapping[str, Any], seen: Size) -> dict[str, list[float]]:
    size = (int(row["width"]), int(row["height"]))
    if answer_type(row) == BOX and found.kind == BOX:
        return {"bbox": list(fmt.to_row(found.coords, size, seen))}
    if answer_type(row) == BOX:
        return {"point": list(fmt.to_row(found.coords, size, seen))}  # a point never solves a box row
    return {"point": list(fmt.to_row(found.centre, size, seen))}


def gui_answer(fmt: AnswerFormat, response: str, row: Mapping[str, Any], seen: Size, strict_only: bool) -> Answer:
    kind = answer_type(row)
    found, status = fmt.read(response, kind), STRICT
    if isinstance(found, Refusal):  # the family's documented "no target" answer: its own status, no coordinates
        return Answer(status=REFUSED)
    if found is None and not strict_only:
        found, status = recover(response, kind), LENIENT
    if found is None:
        return Answer(status=MALFORMED)
    return Answer(status=status, record=_gui_record(found, fmt, row, seen))


def part_answer(fmt: AnswerFormat, response: str, row: Mapping[str, Any], seen: Size, strict_only: bool) -> Answer:
    size = (int(row["width"]), int(row["height"]))
    answer = parse_response(response, strict_only=strict_only)
    family = None if fmt.is_default or answer.status != MALFORMED else fmt.read(response, POINT)
    if isinstance(family, Refusal):
        return Answer(status=REFUSED)
    if answer.status == MALFORMED and not strict_only:
        found = family or recover(response, POINT)
        if found is None:
            return answer
        mapped = fmt.to_row(found.coords, size, seen)
        if found.kind == BOX:
            return Answer(
                status=LENIENT, box=(mapped[0], mapped[1], mapped[2], mapped[3]), record={"box": list(mapped)}
            )
        return Answer(status=LENIENT, point=(mapped[0], mapped[1]), record={"point": list(mapped)})
    point = None if answer.point is None else fmt.to_row(answer.point, size, seen)
    box = None if answer.box is None else fmt.to_row(answer.box, size, seen)
    return replace(
        answer,
        point=None if point is None else (point[0], point[1]),
        box=None if box is None else (box[0], box[1], box[2], box[3]),
    )
