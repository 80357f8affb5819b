"""The GUI specialists' and general VLMs' answer syntaxes, each read exactly as its official adapter reads it
(restated, not copied; each reader names its source). A reasoning block is removed only where, and only as, the
family's own parser removes it. Coordinates are returned in the family's own frame (``registry`` maps them).
"""

from __future__ import annotations

import ast
import json
import math
import re
from typing import Any

from groundbench.scoring.formats.syntax import Found, Read, Refusal

# --- boxes on a 0-1000 grid: GLM-4.xV, InternVL, CogAgent, MiniCPM-V ----------------------------------------

_GLM_BOX = re.compile(r"<\|begin_of_box\|>(.*?)<\|end_of_box\|>")
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def glmv_answer(text: str) -> Found | None:
    """GLM-4.5V / GLM-4.1V (zai-org/GLM-V README, "Grounding"): the box is marked by ``<|begin_of_box|>`` and
    ``<|end_of_box|>``, the bracket style free ("[], [[]], (), <>"). As the repository's own parser
    (``examples/gui-agent/glm-45v/gui_agent_45v.py`` ``parse_pc_response``) finds it: the FIRST span between the
    tokens, over the whole response; its numbers, four a box, two a point."""
    span = _GLM_BOX.search(text)
    if span is None:
        return None
    numbers = [float(n) for n in _NUMBER.findall(span.group(1))]
    return Found(tuple(numbers)) if len(numbers) in (2, 4) else None


_INTERNVL_POINT = re.compile(r"\[\[(\d+),(\d+)\]\]")
_INTERNVL_BOX = re.compile(r"\[\[(\d+),(\d+),(\d+),(\d+)\]\]")


def internvl_answer(text: str) -> Found | None:
    """ScreenSpot-Pro's ``models/internvl.py``: the FIRST ``[[x,y]]`` is the click; without one, the LAST
    ``[[x1,y1,x2,y2]]`` (clicked at its centre). Integers, no spaces, as its regexes read them. (That adapter raises
    on a box, calling ``.group`` on findall's tuple; here the box is read as the adapter means to.)"""
    point = _INTERNVL_POINT.search(text)
    if point is not None:
        return Found((float(point.group(1)), float(point.group(2))))
    boxes = _INTERNVL_BOX.findall(text)
    return Found(tuple(float(v) for v in boxes[-1])) if boxes else None


_COGAGENT_BOX = re.compile(r"box=\[\[?(\d+),(\d+),(\d+),(\d+)\]?\]")


def cogagent_answer(text: str) -> Found | None:
    """ScreenSpot-Pro's ``models/cogagent24.py`` (CogAgent-9B-20241220): the FIRST ``box=[[x1,y1,x2,y2]]`` (the inner
    brackets optional), integers without spaces."""
    match = _COGAGENT_BOX.search(text)
    return None if match is None else Found(tuple(float(v) for v in match.groups()))


_MINICPM_BOX = re.compile(r"<box>(\d+) (\d+) (\d+) (\d+)</box>")
_MINICPM_PAIR = re.compile(r"(\d+) (\d+)")


def minicpmv_answer(text: str) -> Found | None:
    """ScreenSpot-Pro's ``models/minicpmv.py`` (MiniCPM-V 2.6): the FIRST ``<box>x1 y1 x2 y2</box>``; without one,
    the first two integers separated by one space, as a point."""
    box = _MINICPM_BOX.search(text)
    if box is not None:
        return Found(tuple(float(v) for v in box.groups()))
    pair = _MINICPM_PAIR.search(text)
    return None if pair is None else Found((float(pair.group(1)), float(pair.group(2))))


# --- Kimi-VL-Thinking: 0-1 after its think block -----------------------------------------------------------

KIMI_THINK = ("◁think▷", "◁/think▷")
_KIMI_CLICK = re.compile(r"x=(0(?:\.\d+)?|1(?:\.0+)?), y=(0(?:\.\d+)?|1(?:\.0+)?)")


def kimivl_answer(text: str) -> Found | None:
    """ScreenSpot-Pro's ``models/kimivl.py``: ``extract_thinking_and_summary`` keeps only the text after the first
    ``◁/think▷`` (an opened block never closed leaves nothing), then the first ``x=.., y=..`` whose numbers lie in
    0-1 (``pyautogui.click(x=0.204, y=0.149)``). (Where ``◁/think▷`` comes without ``◁think▷`` the adapter's
    ``index`` raises; here the text after it is read.)"""
    opened, closed = KIMI_THINK
    if closed in text:
        text = text[text.index(closed) + len(closed) :].strip()
    elif opened in text:
        return None
    match = _KIMI_CLICK.search(text)
    return None if match is None else Found((float(match.group(1)), float(match.group(2))))


# --- AgentCPM-GUI: {"POINT": [x, y]} on 0-1000 -------------------------------------------------------------


def agentcpm_answer(text: str) -> Found | None:
    """OpenBMB/AgentCPM-GUI ``eval/grounding_eval/code/minicpm/fun2bbox_eval_minicpm.py`` (``call_Qwenvl`` then
    ``verify``): newlines stripped from both ends and every space removed, the whole answer ``json.loads``-ed, its
    ``POINT``'s first two numbers (a ``thought`` beside it is allowed, as the README's action schema shows)."""
    try:
        action = json.loads(text.strip("\n").replace(" ", ""))
    except ValueError:
        return None
    point = action.get("POINT") if isinstance(action, dict) else None
    if not isinstance(point, list) or len(point) < 2 or not all(_finite(v) for v in point[:2]):
        return None
    return Found((float(point[0]), float(point[1])))


def _finite(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


# --- UI-Venus ------------------------------------------------------------------------------------------------


VENUS_REFUSAL = (-1.0, -1.0, -1.0, -1.0)


def uivenus_answer(text: str) -> Read:
    """inclusionAI/UI-Venus ``models/grounding/ui_venus_ground_7b.py`` and ``models/ui_venus_ground_7b.py`` /
    ``models/ui_venus_ground_72b.py`` (UI-Venus-Ground 7B / 72B): the whole answer is the literal ``[x1,y1,x2,y2]``
    (their ``eval``; here ``ast.literal_eval``), the first four numbers a box in the processor's resized frame.
    ``[-1,-1,-1,-1]`` is the answer their prompts ask for when "the task is infeasible": a refusal (the adapters
    click it as a box off the screen, a miss). (They click (0, 0) when they cannot read a box; here that is no
    answer.)"""
    try:
        value = ast.literal_eval(text.strip())
    except (SyntaxError, ValueError, TypeError, MemoryError, RecursionError):
        return None
    if not isinstance(value, list | tuple) or len(value) < 4 or not all(_finite(v) for v in value[:4]):
        return None
    box = tuple(float(v) for v in value[:4])
    return Refusal(text) if box == VENUS_REFUSAL else Found(box)


_VENUS2_BOX = re.compile(r"\[\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*\]")
_VENUS2_TWO = re.compile(r"\[\s*(\d+)\s*,\s*(\d+)\s*\]\s*,\s*\[\s*(\d+)\s*,\s*(\d+)\s*\]")
_VENUS2_POINT = re.compile(r"\[\s*(-?\d+)\s*,\s*(-?\d+)\s*\]")
_VENUS2_FLOAT = re.compile(r"-?\d+\.?\d*")
VENUS2_REFUSAL = (-1.0, -1.0)


def uivenus2_answer(text: str) -> Read:
    """inclusionAI/UI-Venus ``models/grounding/ui_venus2_gd.py`` ``extract_coordinates_qwen35``, in its order: the
    first ``[x1,y1,x2,y2]`` (its centre), else the first ``[x1,y1], [x2,y2]`` (their centre), else the first
    ``[x, y]``, else every number of the answer (two: a point; four or more: the first four a box); ``[-1, -1]``
    (as the point, or as the first two numbers) is the prompt's "infeasible" answer: a refusal."""
    text = text.strip()
    for pattern in (_VENUS2_BOX, _VENUS2_TWO):
        match = pattern.search(text)
        if match is not None:
            return Found(tuple(float(v) for v in match.groups()))
    point = _VENUS2_POINT.search(text)
    if point is not None:
        xy = (float(point.group(1)), float(point.group(2)))
        return Refusal(text) if xy == VENUS2_REFUSAL else Found(xy)
    numbers = [float(n) for n in _VENUS2_FLOAT.findall(text)]
    if len(numbers) == 2 or len(numbers) >= 4:
        if (numbers[0], numbers[1]) == VENUS2_REFUSAL:
            return Refusal(text)
        return Found(tuple(numbers[:2] if len(numbers) == 2 else numbers[:4]))
    return None


# --- GTA1, Holo1.5, InfiGUI-G1: pixels of the resized frame -------------------------------------------------

_GTA1_PAIR = re.compile(r"\((-?\d*\.?\d+),\s*(-?\d*\.?\d+)\)")


def gta1_answer(text: str) -> Found | None:
    """Yan98/GTA1 README ``extract_coordinates``: the first ``(x,y)``, each number read by ``int`` (a decimal raises
    there and the click falls back to (0, 0); here that is no answer, as for every adapter's fallback click)."""
    match = _GTA1_PAIR.search(text)
    if match is None:
        return None
    try:
        return Found((float(int(match.group(1))), float(int(match.group(2)))))
    except ValueError:
        return None


HOLO_ACTION = "click_absolute"


def _pydantic_int(value: Any) -> int | None:
    """pydantic's lax ``int`` from JSON: an integer, a float without a fraction, or a string holding an integer."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return int(value)
    if isinstance(value, str) and re.fullmatch(r"\s*[+-]?\d+\s*", value):
        return int(value)
    return None


def holo_answer(text: str) -> Found | None:
    """ScreenSpot-Pro's ``models/holo1_5.py``: the stripped answer validated as its ``ClickAbsoluteAction``
    (``model_validate_json``): one JSON object, ``action`` absent or ``"click_absolute"``, integer ``x`` and ``y``
    (pydantic's lax integers). (The adapter asks again at temperature 1 when that fails; a file holds one answer.)"""
    try:
        action = json.loads(text.strip())
    except ValueError:
        return None
    if not isinstance(action, dict) or action.get("action", HOLO_ACTION) != HOLO_ACTION:
        return None
    x, y = _pydantic_int(action.get("x")), _pydantic_int(action.get("y"))
    return None if x is None or y is None else Found((float(x), float(y)))


def infigui_answer(text: str, think: bool = True) -> Read:
    """InfiXAI/InfiGUI-G1 ``eval/prompts.py`` (``extract_coordinates``, ``calculate_metrics``): in think mode the
    text after the LAST ``</think>``; from its first ``[`` to its last ``]``, ``json.loads``-ed; an empty list is the
    documented "no target" answer (credited on its rows without a target): a refusal; otherwise the first
    prediction's ``point_2d`` is the click (the others count only in its ``has_correct``)."""
    if think and "</think>" in text:
        text = text.split("</think>")[-1]
    start, end = text.find("["), text.rfind("]")
    if start == -1 or end == -1 or start >= end:
        return None
    try:
        predictions = json.loads(text[start : end + 1])
    except ValueError:
        return None
    if predictions == []:
        return Refusal(text)
    first = predictions[0] if isinstance(predictions, list) else None
    point = first.get("point_2d") if isinstance(first, dict) else None
    if not isinstance(point, list) or len(point) < 2 or not all(_finite(v) for v in point[:2]):
        return None
    return Found((float(point[0]), float(point[1])))
