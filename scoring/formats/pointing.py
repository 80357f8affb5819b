"""The pointing families' answer syntaxes: Molmo, RoboPoint and Gemini, each read as its own official code reads it
(restated, not copied).

A pointing answer may hold several points (or boxes). :class:`Pointed` keeps every one, in the order the family's
reader yields them, as ``shapes``; its ``coords`` is the first, the one the headline reads (the first, or the only
one). The others are kept for the figure a family's own benchmark computes over every point given (RoboPoint's
Where2Place: the share of the points inside the target's mask, ``scoring.points_in_mask``).

- Molmo (allenai/molmo): strict is its pointing evaluator (``olmo/eval/evaluators.py`` ``PointingEval``): the whole
  stripped answer must pass ``is_valid_format`` (one ``<point x=".." y=".." alt="..">..</point>``, one
  ``<points x1=".." y1=".." ... alt="..">..</points>``, lines of ``(x, y)``, or the ``p=xxx,yyy`` form), else it
  scores 0 there; its points are ``olmo/util.py`` ``extract_points``: every ``Click(x, y)``, then every ``(x, y)``,
  then every ``x..="" y..=""`` attribute pair, then every ``p=xxx,yyy`` (tenths), a point with a coordinate above 100
  dropped. The frame is percent of the image (``extract_points`` divides by 100 and multiplies by the image size;
  ``olmo/data/data_formatter.py`` ``points_to_text`` writes the training targets that way, sorted by x).
  Lenient: the tags inside prose, as Ai2's chat UI reads them (allenai/olmo-ui
  ``src/components/thread/points/molmo1/extractPointData.ts``: its ``pointRegex`` per line, the matches parsed
  as XML, nothing when the XML is broken; ``<point>`` elements first, then ``<points>``, as there).
- RoboPoint (wentaoyuan/RoboPoint ``robopoint/eval/summarize_vqa.py`` ``text2pts``): every parenthesised group of
  comma-separated numbers anywhere in the answer; two numbers a point, four a box, any other count ignored. A
  number written with a decimal point is a 0-1 fraction of the image (``int(x * width)``), one without is a pixel:
  decided by how it is written, not by its value (a pair is scaled when either number has a point, a box when its
  first number has). No tuple: no answer.
- Gemini (google-gemini/cookbook ``examples/Spatial_understanding_3d.ipynb`` and
  ``quickstarts/Spatial_understanding.ipynb``): ``parse_json`` cuts the answer after a line that is exactly
  ```` ```json ```` and before the next ```` ``` ````; the rest must be one JSON array (the pointing code iterates
  it); each entry's ``point`` is ``[y, x]`` and its ``box_2d`` ``[ymin, xmin, ymax, xmax]``, both on 0-1000, **y
  first**; an entry without coordinates is skipped, as there. The rest is read with ``json.loads``, as the box code
  reads it (the pointing page pastes it into JavaScript as a literal, which would also take a trailing comma).
  Lenient: a JSON array or object anywhere in the answer (another fence, prose around it), read the same way, y
  first.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any
from xml.etree.ElementTree import ParseError

from defusedxml.ElementTree import fromstring

from groundbench.scoring.formats.syntax import Found

Shape = tuple[float, ...]


@dataclass(frozen=True)
class Pointed(Found):
    """Every point or box of the answer (``shapes``, in reading order; ``coords`` is the first). ``pixels`` says,
    per shape, that it was written in pixels of the image sent rather than in the family's frame (RoboPoint's
    integers)."""

    shapes: tuple[Shape, ...] = ()
    pixels: tuple[bool, ...] = ()


def _pointed(shapes: list[Shape], pixels: list[bool] | None = None) -> Pointed | None:
    if not shapes:
        return None
    flags = tuple(pixels) if pixels is not None else (False,) * len(shapes)
    return Pointed(shapes[0], tuple(shapes), flags)


def _finite(values: Any, length: int) -> Shape | None:
    """Exactly ``length`` finite JSON numbers (booleans are no coordinates)."""
    if not isinstance(values, list) or len(values) != length:
        return None
    if not all(isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v) for v in values):
        return None
    return tuple(float(v) for v in values)


# --- Molmo ----------------------------------------------------------------------------------------------

# allenai/molmo olmo/eval/evaluators.py is_valid_format: the whole stripped answer, one of five shapes.
_MOLMO_VALID = re.compile(
    r"^(\(\s*-?\d+(\.\d+)?\s*,\s*-?\d+(\.\d+)?\s*\)\n?)+$|"
    r'^<point\s+x="\s*\d+(\.\d+)?"\s+y="\s*\d+(\.\d+)?"\s+alt="[\s\S]*?">[\s\S]*?</point>$|'
    r'^<points\s+(x\d+="\s*\d+(\.\d+)?"\s+y\d+="\s*\d+(\.\d+)?"\s+)+alt="[\s\S]*?">[\s\S]*?</points>$|'
    r'^<point\s+p=\s*\d{3}\s*,\s*\d{3}\s+alt="[\s\S]*?">[\s\S]*?</point>$|'
    r'^<points\s+(\d+=\s*\d{3}\s*,\s*\d{3}\s+)+alt="[\s\S]*?">[\s\S]*?</points>$'
)
# olmo/util.py extract_points: four passes over the text, in this order; coordinates in percent.
_MOLMO_PASSES = (
    (re.compile(r"Click\(([0-9]+\.[0-9]), ?([0-9]+\.[0-9])\)"), 1.0),
    (re.compile(r"\(([0-9]+\.[0-9]),? ?([0-9]+\.[0-9])\)"), 1.0),
    (re.compile(r'x\d*="\s*([0-9]+(?:\.[0-9]+)?)"\s+y\d*="\s*([0-9]+(?:\.[0-9]+)?)"'), 1.0),
    (re.compile(r"(?:\d+|p)\s*=\s*([0-9]{3})\s*,\s*([0-9]{3})"), 10.0),
)


def molmo_points(text: str) -> list[Shape]:
    """``extract_points``' points, in percent (a point with a coordinate above 100 is dropped there)."""
    points: list[Shape] = []
    for pattern, divisor in _MOLMO_PASSES:
        for match in pattern.finditer(text):
            x, y = float(match.group(1)) / divisor, float(match.group(2)) / divisor
            if max(x, y) <= 100:
                points.append((x, y))
    return points


def molmo_answer(text: str) -> Pointed | None:
    """Molmo's pointing evaluator: a valid whole answer, then its points (none valid: no answer)."""
    if _MOLMO_VALID.fullmatch(text.strip()) is None:
        return None
    return _pointed(molmo_points(text))


# allenai/olmo-ui molmo1/pointRegex.ts (``.`` stops at a line end, as in JavaScript).
_OLMO_UI_TAG = re.compile(r'<points?(?:\s+x\d?="\d+\.?\d*"\s+y\d?="\d+\.?\d*")+.*>(?P<text>.*)</points?>')
_X_ATTRIBUTE = re.compile(r"x(\d*)$")


def molmo_embedded(text: str) -> Pointed | None:
    """Ai2's chat UI reading (olmo-ui ``extractPointData``): the tags found in the text, parsed as one XML document
    (broken XML: nothing); the ``<point>`` elements, then the ``<points>`` ones, each ``xN`` with its ``yN``."""
    tags = [m.group(0) for m in _OLMO_UI_TAG.finditer(text)]
    if not tags:
        return None
    try:
        document = fromstring("<xml>" + "".join(tags) + "</xml>")
    except (ParseError, ValueError):
        return None
    points: list[Shape] = []
    for element in [*document.iter("point"), *document.iter("points")]:
        for name in element.attrib:
            index = _X_ATTRIBUTE.match(name)
            y = element.get("y" + index.group(1)) if index else None
            if index is None or y is None:
                continue  # a coordinate without its pair is skipped, as there
            try:
                points.append((float(element.attrib[name]), float(y)))
            except ValueError:
                continue
    return _pointed([p for p in points if all(math.isfinite(v) for v in p)])


# --- RoboPoint ------------------------------------------------------------------------------------------

# robopoint/eval/summarize_vqa.py text2pts
_ROBOPOINT_TUPLE = re.compile(r"\(([-+]?\d+\.?\d*(?:,\s*[-+]?\d+\.?\d*)*?)\)")


def robopoint_answer(text: str) -> Pointed | None:
    """Every 2- or 4-number tuple, in order; written with a decimal point: a 0-1 fraction, else pixels."""
    shapes: list[Shape] = []
    pixels: list[bool] = []
    for match in _ROBOPOINT_TUPLE.findall(text):
        numbers = [n.strip() for n in match.split(",")]
        if len(numbers) == 2:
            fraction = "." in numbers[0] or "." in numbers[1]
        elif len(numbers) == 4:
            fraction = "." in numbers[0]  # text2pts tests the first number only
        else:
            continue
        shapes.append(tuple(float(n) for n in numbers))
        pixels.append(not fraction)
    return _pointed(shapes, pixels)


# --- Gemini ---------------------------------------------------------------------------------------------


def gemini_fence(text: str) -> str:
    """The cookbook's ``parse_json``: after a line that is exactly ```` ```json ````, up to the next ```` ``` ````."""
    lines = text.splitlines()
    for index, line in enumerate(lines):
        if line == "```json":
            return "\n".join(lines[index + 1 :]).split("```")[0]
    return text


def _gemini_entry(entry: Any) -> Shape | None:
    """One entry: ``point`` [y, x] -> (x, y); else ``box_2d`` [ymin, xmin, ymax, xmax] -> (x0, y0, x1, y1),
    ordered as the cookbook swaps reversed corners."""
    if not isinstance(entry, dict):
        return None
    point = _finite(entry.get("point"), 2)
    if point is not None:
        return (point[1], point[0])
    box = _finite(entry.get("box_2d"), 4)
    if box is None:
        return None
    ymin, xmin, ymax, xmax = box
    return (min(xmin, xmax), min(ymin, ymax), max(xmin, xmax), max(ymin, ymax))


def _gemini_list(value: Any) -> Pointed | None:
    if not isinstance(value, list):
        return None
    return _pointed([s for s in map(_gemini_entry, value) if s is not None])


def gemini_answer(text: str) -> Pointed | None:
    """The cookbook's reading: ``parse_json``, then one JSON array of entries, y first."""
    try:
        value = json.loads(gemini_fence(text))
    except ValueError:
        return None
    return _gemini_list(value)


def gemini_embedded(text: str) -> Pointed | None:
    """Lenient: the first JSON array (or single entry object) anywhere in the answer that gives coordinates, y first."""
    decoder = json.JSONDecoder()
    for match in re.finditer(r"[\[{]", text):
        try:
            value, _ = decoder.raw_decode(text, match.start())
        except ValueError:
            continue
        found = _gemini_list(value if isinstance(value, list) else [value])
        if found is not None:
            return found
    return None
