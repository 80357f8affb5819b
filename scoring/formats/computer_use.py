"""The computer-use APIs' click actions, and the screen sizes their coordinates are in (restated, not copied).

- Claude's computer tool answers a ``tool_use`` whose ``input`` is ``{"action": "left_click", "coordinate": [x, y]}``
  in pixels of the screenshot it was sent. Anthropic's reference implementation (anthropics/anthropic-quickstarts
  ``computer-use-demo/computer_use_demo/tools/computer.py``, ``scale_coordinates``) scales the screenshot down to the
  FIRST of XGA 1024x768, WXGA 1280x800, FWXGA 1366x768 whose aspect ratio is within 0.02 of the screen's, and
  only when that target is narrower than the screen; it maps a coordinate back with ``round(x / (target_w / W))``.
  It accepts a coordinate only as a list of two non-negative integers (``validate_and_get_coordinates``).
- OpenAI's computer-use tool answers a ``computer_call`` item whose ``action`` is ``{"type": "click", "x": .., "y":
  .., "button": ..}`` in pixels of the display size declared with the tool (``display_width`` /
  ``display_height``), the size its screenshots are taken at (https://platform.openai.com/docs/guides/tools-computer-use).

Each reader takes the response as the answer logged from the API: the tool input or action alone, the whole tool
call item, or the list of content / output items (the first click in it is the answer).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from typing import Any, TypeGuard

from groundbench.scoring.formats import providers
from groundbench.scoring.formats.syntax import Found

Size = tuple[int, int]

# computer.py's MAX_SCALING_TARGETS, in its order (the first aspect match is taken, larger or not).
CLAUDE_TARGETS: tuple[tuple[str, int, int], ...] = (("XGA", 1024, 768), ("WXGA", 1280, 800), ("FWXGA", 1366, 768))
CLAUDE_ASPECT_TOLERANCE = 0.02
# The computer tool's click actions that take a coordinate (computer_20250124; computer_20241022 clicks where
# ``mouse_move`` left the cursor, so its ``mouse_move`` is the click's position).
CLAUDE_CLICKS = ("left_click", "right_click", "middle_click", "double_click", "triple_click", "mouse_move")
OPENAI_CLICKS = ("click", "double_click")


def claude_target(width: int, height: int) -> Size | None:
    """The scaling target ``scale_coordinates`` picks for a screen, or None where it leaves the screenshot as it is."""
    ratio = width / height
    for _, target_w, target_h in CLAUDE_TARGETS:
        if abs(target_w / target_h - ratio) < CLAUDE_ASPECT_TOLERANCE:
            return (target_w, target_h) if target_w < width else None
    return None


def claude_frame(width: int, height: int, scaling: bool) -> Size:
    """The screenshot Claude is sent: the scaling target; with no target (or scaling off), the screen as it is,
    kept within the API's documented image limits (computer-use docs: larger images are downsampled by the API,
    so the frame would be unknown), which leaves any screen up to 1568 px and 1.15 megapixels unchanged."""
    target = claude_target(width, height) if scaling else None
    return target if target is not None else providers.anthropic(width, height)


def _items(value: Any) -> Iterable[Any]:
    """The value, or the items of a list of content / output items, or of a response object's own list."""
    if isinstance(value, dict):
        for key in ("content", "output"):  # a Messages API message / a Responses API response
            if isinstance(value.get(key), list):
                return value[key]
        return [value]
    return value if isinstance(value, list) else []


def _whole_json(text: str) -> Any:
    try:
        return json.loads(text.strip())
    except ValueError:
        return None


def _integer(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def claude_answer(text: str) -> Found | None:
    """The first click of the computer tool in the response: its input (``action`` one of the click actions) alone,
    inside a ``tool_use`` block named ``computer``, or in a list of content blocks; the coordinate must be what the
    tool accepts, two non-negative integers (``12.0`` or ``"12"`` raise its ToolError there: no click)."""
    for item in _items(_whole_json(text)):
        if not isinstance(item, dict):
            continue
        if item.get("type") == "tool_use":
            if item.get("name") != "computer" or not isinstance(item.get("input"), dict):
                continue
            item = item["input"]
        if item.get("action") not in CLAUDE_CLICKS or "coordinate" not in item:
            continue
        coordinate = item["coordinate"]
        if isinstance(coordinate, list) and len(coordinate) == 2 and all(_integer(v) for v in coordinate):
            return Found((float(coordinate[0]), float(coordinate[1])))
        return None  # the tool refuses the call: no click
    return None


def _number(value: Any) -> TypeGuard[int | float]:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def openai_answer(text: str) -> Found | None:
    """The first click of the computer-use tool in the response: a ``computer_call`` item (alone, in a list of
    output items or in a response's ``output``) or its ``action`` alone, of type ``click`` or ``double_click``,
    with numbers ``x`` and ``y``."""
    for item in _items(_whole_json(text)):
        if not isinstance(item, dict):
            continue
        if item.get("type") == "computer_call":
            item = item.get("action")
            if not isinstance(item, dict):
                continue
        if item.get("type") not in OPENAI_CLICKS:
            continue
        x, y = item.get("x"), item.get("y")
        if not (_number(x) and _number(y)):
            return None
        return Found((float(x), float(y)))
    return None
