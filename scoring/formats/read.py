"""One raw response read through a declared format, for one row: an :class:`Answer` in the row's own pixels.

- GUI rows: strict is the family's official reading (``syntax``), handed to the official rule as a record
  in the row's pixels (a box answer on a point row is clicked at its centre, as the adapters click it);
  anything the adapter does not read, recovered by :func:`syntax.recover`, is lenient; nothing is malformed.
- a family's documented "no target" answer (``syntax.Refusal``) is the answer status ``refused`` on any row;
- object-part rows: the answer is GroundBench's JSON object (the profiles ask for it, in the family's
  frame), strict or lenient exactly as ``scoring.parse`` reads it, its point and box mapped from the frame;
  a family-syntax answer holding only a point or box is a lenient recovery;
- object-part rows, pointing families (``molmo``, ``robopoint``, ``gemini``): the family's own syntax read by its
  official reader is the strict answer, status ``point_only`` (a point, no part, no action); else a GroundBench
  JSON object, strict; else the family's lenient reader, else a lenient JSON object. Every point of a
  several-point answer is kept (``Answer.shapes``); the first is the headline's.

``seen`` is the size of the image the model was sent (the row's own size unless the line records a resize).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from groundbench.scoring.formats.pointing import Pointed
from groundbench.scoring.formats.registry import AnswerFormat, Size
from groundbench.scoring.formats.syntax import BOX, POINT, Found, Refusal, recover
from groundbench.scoring.gui_rules import answer_type
from groundbench.scoring.parse import LENIENT, MALFORMED, POINT_ONLY, REFUSED, STRICT, Answer, parse_response


def _in_pixels(found: Found) -> bool:
    """The headline shape was written in pixels of the image sent (RoboPoint's integers), not the family's frame."""
    return isinstance(found, Pointed) and bool(found.pixels) and found.pixels[0]


def _to_row(fmt: AnswerFormat, coords: tuple[float, ...], pixels: bool, size: Size, seen: Size) -> tuple[float, ...]:
    """Coordinates in the row's pixels: from the format's frame, or from pixels of the image sent."""
    if not pixels:
        return fmt.to_row(coords, size, seen)
    out = [v * size[i % 2] / seen[i % 2] for i, v in enumerate(coords)]
    return tuple(float(math.trunc(v)) if fmt.family.truncate else v for v in out)


def _shapes(fmt: AnswerFormat, found: Found, size: Size, seen: Size) -> tuple[tuple[float, ...], ...]:
    """Every point or box of a several-point answer, in row pixels (empty for a one-shape reader)."""
    if not isinstance(found, Pointed):
        return ()
    return tuple(_to_row(fmt, s, p, size, seen) for s, p in zip(found.shapes, found.pixels, strict=True))


def _gui_record(found: Found, fmt: AnswerFormat, row: Mapping[str, Any], seen: Size) -> dict[str, list[float]]:
    size = (int(row["width"]), int(row["height"]))
    pixels = _in_pixels(found)
    if answer_type(row) == BOX and found.kind == BOX:
        return {"bbox": list(_to_row(fmt, found.coords, pixels, size, seen))}
    if answer_type(row) == BOX:
        return {"point": list(_to_row(fmt, found.coords, pixels, size, seen))}  # a point never solves a box row
    return {"point": list(_to_row(fmt, found.centre, pixels, size, seen))}


def gui_answer(fmt: AnswerFormat, response: str, row: Mapping[str, Any], seen: Size, strict_only: bool) -> Answer:
    """GUI rows: the family's reader (strict), else its lenient reader (``recover`` unless it has its own). A
    several-point answer clicks its first point, as the families' readers give it first; the family's documented
    "no target" answer is a refusal."""
    kind = answer_type(row)
    found, status = fmt.read(response, kind), STRICT
    if isinstance(found, Refusal):  # the family's documented "no target" answer: its own status, no coordinates
        return Answer(status=REFUSED)
    if found is None and not strict_only:
        lenient = fmt.family.lenient
        found, status = (lenient(response) if lenient else recover(response, kind)), LENIENT
    if found is None:
        return Answer(status=MALFORMED)
    size = (int(row["width"]), int(row["height"]))
    return Answer(status=status, record=_gui_record(found, fmt, row, seen), shapes=_shapes(fmt, found, size, seen))


def _located(status: str, fmt: AnswerFormat, found: Found, size: Size, seen: Size) -> Answer:
    """A point or box answer on an object-part row, in row pixels: the first shape, every shape kept."""
    mapped = _to_row(fmt, found.coords, _in_pixels(found), size, seen)
    shapes = _shapes(fmt, found, size, seen)
    if found.kind == BOX:
        box = (mapped[0], mapped[1], mapped[2], mapped[3])
        return Answer(status=status, box=box, record={"box": list(mapped)}, shapes=shapes)
    return Answer(status=status, point=(mapped[0], mapped[1]), record={"point": list(mapped)}, shapes=shapes)


def _pointing_part_answer(fmt: AnswerFormat, response: str, size: Size, seen: Size, strict_only: bool) -> Answer | None:
    """A pointing family on an object-part row: its own syntax (``point_only``); else a GroundBench JSON object
    naming a part or an action (None: read as any other format); else, unless strict, its lenient reader. A
    bare object holding only coordinates is the family's own shape (Gemini's ``{"point": [y, x]}``), never read
    as GroundBench's x-first point."""
    reader = fmt.family.reader
    assert reader is not None
    found = reader(response, POINT)
    if isinstance(found, Found):  # a pointing family documents no refusal
        return _located(POINT_ONLY, fmt, found, size, seen)
    own = parse_response(response, strict_only=True)
    if own.status != MALFORMED and (own.part or own.action_raw):
        return None
    if strict_only:
        return Answer(status=MALFORMED)
    lenient = fmt.family.lenient or (lambda text: recover(text, POINT))
    found = lenient(response)
    if found is not None:
        return _located(LENIENT, fmt, found, size, seen)
    embedded = parse_response(response)  # a fenced or embedded GroundBench object naming a part or an action
    return None if embedded.part or embedded.action_raw else Answer(status=MALFORMED)


def part_answer(fmt: AnswerFormat, response: str, row: Mapping[str, Any], seen: Size, strict_only: bool) -> Answer:
    size = (int(row["width"]), int(row["height"]))
    if fmt.family.points_only:
        pointed = _pointing_part_answer(fmt, response, size, seen, strict_only)
        if pointed is not None:
            return pointed  # already in the row's pixels (or malformed)
    answer = parse_response(response, strict_only=strict_only)
    family = None if fmt.is_default or answer.status != MALFORMED else fmt.read(response, POINT)
    if isinstance(family, Refusal):
        return Answer(status=REFUSED)
    if answer.status == MALFORMED and not strict_only:
        found = family or recover(response, POINT)
        if found is None:
            return answer
        return _located(LENIENT, fmt, found, size, seen)
    point = None if answer.point is None else fmt.to_row(answer.point, size, seen)
    box = None if answer.box is None else fmt.to_row(answer.box, size, seen)
    return replace(
        answer,
        point=None if point is None else (point[0], point[1]),
        box=None if box is None else (box[0], box[1], box[2], box[3]),
    )
