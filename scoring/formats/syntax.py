"""Each family's answer syntax, read exactly as that family's official adapter reads it (restated, not copied).

A reader takes the raw response and returns the :class:`Found` coordinates in the family's own frame
(two numbers: a point; four: a box), or None where the adapter finds no answer (its ``wrong_format``).
Where an adapter reads beyond the documented syntax (Qwen2-VL's bare-number fallback), so do we: the
headline must count what the adapter counted. Each reader names its source.

A reader may also return a :class:`Refusal`: the family's documented "no target" answer, as its adapter tells it
apart from coordinates. Lenient recoveries (anything an adapter does not read) are :func:`recover`, counted
separately.
"""

from __future__ import annotations

import ast
import json
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from groundbench.scoring.gui_rules import read_box, read_point

POINT = "point"
BOX = "box"


@dataclass(frozen=True)
class Found:
    """Coordinates as the model wrote them, in its format's frame: a point (x, y) or a box (x0, y0, x1, y1)."""

    coords: tuple[float, ...]

    @property
    def kind(self) -> str:
        return BOX if len(self.coords) == 4 else POINT

    @property
    def centre(self) -> tuple[float, float]:
        """The point, or the box's centre (how every official adapter clicks a box)."""
        c = self.coords
        return (c[0], c[1]) if len(c) == 2 else ((c[0] + c[2]) / 2, (c[1] + c[3]) / 2)


@dataclass(frozen=True)
class Refusal:
    """The family's documented "no such target" answer (UI-Venus-2's ``[-1, -1]``, InfiGUI-G1's ``[]``): read, and
    recorded as a refusal, never as coordinates."""

    text: str


Read = Found | Refusal | None  # what a reader gives: coordinates, the family's refusal, or no answer
Reader = Callable[[str], Read]


def _numbers(values: Any, lengths: Sequence[int] = (2, 4)) -> Found | None:
    """A JSON list of 2 or 4 finite numbers (booleans are no coordinates)."""
    if not isinstance(values, list) or len(values) not in lengths:
        return None
    if not all(isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v) for v in values):
        return None
    return Found(tuple(float(v) for v in values))


# --- Qwen2.5-VL / Qwen3-VL -----------------------------------------------------------------------------


def qwen_tool_call(text: str) -> Found | None:
    """ScreenSpot-Pro's ``models/qwen2_5vl.py`` (the Qwen2.5-VL cookbook ``computer_use`` parse): cut after the
    last ``}``, take what follows the first ``<tool_call>\\n`` up to ``\\n</tool_call>``, ``json.loads`` it and read
    ``arguments.coordinate``: two numbers are the point, four a box (its centre is clicked), anything else fails."""
    cut = text.rfind("}")
    if cut != -1:
        text = text[: cut + 1]
    parts = text.split("<tool_call>\n")
    if len(parts) < 2:
        return None
    try:
        action = json.loads(parts[1].split("\n</tool_call>")[0])
    except ValueError:
        return None
    arguments = action.get("arguments") if isinstance(action, dict) else None
    return _numbers(arguments.get("coordinate")) if isinstance(arguments, dict) else None


QWEN_POINT_KEYS = ("point_2d", "coordinate", "point")
QWEN_BOX_KEYS = ("bbox_2d", "bbox", "box")


def _qwen_object(value: Any) -> Found | None:
    """Qwen's grounding JSON: ``{"point_2d": [x, y]}`` / ``{"bbox_2d": [...]}`` (or a one-element list of it)."""
    if isinstance(value, list) and len(value) == 1:
        value = value[0]
    if not isinstance(value, dict):
        return None
    for key in QWEN_POINT_KEYS:
        if key in value:
            return _numbers(value[key], (2,))
    for key in QWEN_BOX_KEYS:
        if key in value:
            return _numbers(value[key], (4,))
    return None


def _whole_json(text: str) -> Any:
    try:
        return json.loads(text.strip())
    except ValueError:
        return None


def _literal(text: str) -> Any:
    """The whole response as a Python literal (``ast.literal_eval``, which evaluates nothing), or None."""
    try:
        return ast.literal_eval(text.strip())
    except (SyntaxError, ValueError, TypeError, MemoryError, RecursionError):
        return None


def qwen_answer(text: str) -> Found | None:
    """Qwen2.5-VL / Qwen3-VL: the tool call (as the official adapter reads it), else the whole response as a
    bare ``[x, y]`` (or four numbers) read as ZonUI's ScreenSpot-Pro adapter (``models/zonui.py``) reads it, with
    ``ast.literal_eval``, so ``(x, y)`` and ``x, y`` count too; else Qwen's grounding JSON object."""
    found = qwen_tool_call(text)
    if found is not None:
        return found
    value = _literal(text)
    return (_numbers(list(value)) if isinstance(value, list | tuple) else None) or _qwen_object(_whole_json(text))


# --- Qwen2-VL, OS-Atlas (box tokens on 0-1000) ----------------------------------------------------------

BOX_TOKENS = ("<|box_start|>", "<|box_end|>")
_QWEN2VL_BOX = re.compile(r"<\|box_start\|\>\((\d+),(\d+)\),\((\d+),(\d+)\)<\|box_end\|\>")
_FLOAT = re.compile(r"-?\d+\.?\d*")


def _pred_2_point(text: str) -> Found | None:
    """The adapters' ``pred_2_point``: every number in the text; two are a point, four a box, else nothing."""
    numbers = [float(n) for n in _FLOAT.findall(text)]
    return Found(tuple(numbers)) if len(numbers) in (2, 4) else None


def qwen2vl_answer(text: str) -> Found | None:
    """ScreenSpot-Pro's ``models/qwen2vl.py``: with both box tokens present, the LAST
    ``<|box_start|>(x1,y1),(x2,y2)<|box_end|>``; without them, ``pred_2_point`` over the whole response."""
    if all(token in text for token in BOX_TOKENS):
        matches = _QWEN2VL_BOX.findall(text)
        return Found(tuple(float(v) for v in matches[-1])) if matches else None
    return _pred_2_point(text)


_OSATLAS_SPAN = re.compile(r"<\|box_start\|\>(.*?)<\|box_end\|\>")
_OSATLAS_FOUR = re.compile(r"(\d+),\s*(\d+),\s*(\d+),\s*(\d+)")


def osatlas_answer(text: str) -> Found | None:
    """ScreenSpot-Pro's ``models/osatlas7b.py`` (``OSAtlas7BModel``): with both box tokens present, the FIRST
    span between them, brackets removed, its first four integers, kept only when every one /1000 lies strictly
    inside (0, 1); without them, ``pred_2_point``'s point kept only when both numbers lie strictly inside (0, 1)."""
    if all(token in text for token in BOX_TOKENS):
        span = _OSATLAS_SPAN.search(text)
        if span is None:
            return None
        four = _OSATLAS_FOUR.findall(re.sub(r"[()\[\]]", "", span.group(1)))
        if not four:
            return None
        box = tuple(float(v) for v in four[0])
        return Found(box) if all(0 < v / 1000 < 1 for v in box) else None
    found = _pred_2_point(text)
    if found is None:
        return None
    x, y = found.centre
    return Found((x, y)) if 0 < x < 1 and 0 < y < 1 else None


# --- UGround-V1, AGUVIS, ShowUI, SeeClick ---------------------------------------------------------------


def uground_answer(text: str) -> Found | None:
    """OSU-NLP-Group/UGround ``grounding/uground_qwen2vl_serve.py``: the whole stripped response is the literal
    ``(x, y)`` (its ``eval``; here ``ast.literal_eval``, which reads the same literals and runs nothing)."""
    try:
        value = ast.literal_eval(text.strip())
    except (SyntaxError, ValueError, TypeError, MemoryError, RecursionError):
        return None
    return _numbers(list(value), (2,)) if isinstance(value, tuple | list) else None


_PYAUTOGUI = re.compile(r"pyautogui\.click\((?:x=)?(\d+\.\d+)(?:,\s*y=|,\s*)(\d+\.\d+)\)")


def aguvis_answer(text: str) -> Found | None:
    """The ScreenSpot-Pro adapter for AGUVIS (``models/aguvis.py``, ZonUI/ZeonLap's ScreenSpot-Pro fork): the first
    ``pyautogui.click(x=0.1175, y=0.0725)`` with decimal numbers (that adapter clicks (0, 0) when none is
    found; here that is no answer)."""
    match = _PYAUTOGUI.search(text)
    return None if match is None else Found((float(match.group(1)), float(match.group(2))))


_SHOWUI_NUMBER = re.compile(r"\d*\.\d+|\d+")


def showui_answer(text: str) -> Found | None:
    """ScreenSpot-Pro's ``models/showui.py`` ``extract_point``: the first two numbers of the response."""
    numbers = [float(n) for n in _SHOWUI_NUMBER.findall(text.strip())]
    return Found(tuple(numbers[:2])) if len(numbers) >= 2 else None


_SEECLICK_BOX = re.compile(r"<box>\((\d+,\d+)\),\((\d+,\d+)\)</box>")


def seeclick_answer(text: str) -> Found | None:
    """SeeClick's ``pretrain/screenspot_test.py``: a response mentioning ``box`` is Qwen-VL's
    ``<box>(x1,y1),(x2,y2)</box>`` on 0-1000 (its centre / 1000); otherwise ``pred_2_point`` in 0-1."""
    if "box" in text:
        pairs = [tuple(int(v) for v in pair.split(",")) for match in _SEECLICK_BOX.findall(text) for pair in match]
        if len(pairs) < 2:
            return None
        (x1, y1), (x2, y2) = pairs[0], pairs[1]
        return Found(((x1 + x2) / 2 / 1000, (y1 + y2) / 2 / 1000))
    return _pred_2_point(text)


# --- GroundBench's own JSON and plain coordinates -------------------------------------------------------


def json_record(value: Any, answer_type: str) -> Found | None:
    """A JSON object read as PointerBench's eval.py reads a record (``scoring.gui_rules``), or a bare list."""
    if isinstance(value, list):
        return _numbers(value)
    if not isinstance(value, Mapping):
        return None
    if answer_type == BOX:
        box, _ = read_box(value)
        return None if box is None else Found(box)
    point, _ = read_point(value)
    return None if point is None else Found(point)


def plain_answer(answer_type: str) -> Reader:
    """``pixels`` / ``norm1`` / ``norm1000``: the whole response is one JSON object (eval.py's keys) or list."""

    def read(text: str) -> Found | None:
        return json_record(_whole_json(text), answer_type)

    return read


# --- lenient recoveries (counted apart from the headline) -----------------------------------------------

_PAIRS = re.compile(r"\((-?\d+(?:\.\d+)?),\s*(-?\d+(?:\.\d+)?)\)(?:\s*,\s*\((-?\d+(?:\.\d+)?),\s*(-?\d+(?:\.\d+)?)\))?")
_CLICK_XY = re.compile(r"click\(\s*(?:x\s*=\s*)?(-?\d+(?:\.\d+)?)\s*,\s*(?:y\s*=\s*)?(-?\d+(?:\.\d+)?)")


def _objects(text: str) -> list[Any]:
    """Every JSON value starting at a ``{`` or ``[`` of the text (fenced, embedded, after a tool-call tag)."""
    decoder = json.JSONDecoder()
    found = []
    for match in re.finditer(r"[\[{]", text):
        try:
            value, _ = decoder.raw_decode(text, match.start())
        except ValueError:
            continue
        found.append(value)
    return found


def recover(text: str, answer_type: str) -> Found | None:
    """What a tolerant reader finds where the adapter found nothing: a JSON value anywhere (a tool call's
    ``arguments.coordinate``, Qwen's keys, eval.py's keys), else ``(x, y)`` pairs, else ``click(x, y)``."""
    for value in _objects(text):
        arguments = value.get("arguments") if isinstance(value, dict) else None
        if isinstance(arguments, dict):
            found = _numbers(arguments.get("coordinate"))
            if found is not None:
                return found
        found = _qwen_object(value) or json_record(value, answer_type)
        if found is not None:
            return found
    pairs = _PAIRS.search(text)
    if pairs is not None:
        numbers = [float(v) for v in pairs.groups() if v is not None]
        return Found(tuple(numbers))
    click = _CLICK_XY.search(text)
    return None if click is None else Found((float(click.group(1)), float(click.group(2))))
