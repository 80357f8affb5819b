"""UI-TARS's action syntax, read as ``ui_tars.action_parser.parse_action_to_structure_output`` reads it
(bytedance/UI-TARS ``codes/ui_tars/action_parser.py``; restated, not copied).

The parser is all-or-nothing: one action it cannot parse, one keyword whose value is not a string constant,
or one ``start_box`` / ``end_box`` holding something other than numbers fails the whole answer, so the click
it holds is not counted either. The steps, in its order:

1. strip; where ``<point>`` occurs, drop ``[EOS]`` and write each ``<point>x y</point>`` (whole numbers) as
   ``(x,y)``; rename ``start_point=`` / ``end_point=`` / ``point=`` to ``start_box=`` / ``end_box=`` /
   ``start_box=``;
2. ``Action:`` must occur; the text after the last ``Action: `` is split into actions at ``)\\n\\n``;
3. an action mentioning ``type(content`` is rebuilt around its content with its single quotes escaped (no
   ``type(content='...')`` in it fails); an action not ending in ``)`` is stripped and closed with one (one that
   does end in ``)`` is left as it is, so a stray newline before it fails the parse, as it does there);
4. each action, newlines written as ``\\n`` and left-stripped, is parsed as one Python call; its keywords
   whose value is the empty string are skipped, every other value must be a string;
5. each ``start_box`` / ``end_box`` value loses its parentheses and is split at commas, every piece a number.

The answer is the first action's ``start_box``: two numbers a point, four a box (clicked at its centre).
"""

from __future__ import annotations

import ast
import math
import re
from typing import Any

from groundbench.scoring.formats.syntax import Found

_POINT_TAG = re.compile(r"<point>(\d+)\s+(\d+)</point>")
_TYPE_CONTENT = re.compile(r"type\(content='(.*?)'\)")
_UNESCAPED_QUOTE = re.compile(r"(?<!\\)'")
BOX_KEYS = ("start_box", "end_box")


class _Unparsable(Exception):
    """Where the official parser raises: the answer holds no action."""


def _keywords(action: str) -> dict[str | None, Any]:
    """``parse_action``: one call expression; its keyword arguments (a value that is no constant is None)."""
    try:
        call = ast.parse(action, mode="eval").body
    except (SyntaxError, ValueError, MemoryError, RecursionError) as exc:
        raise _Unparsable from exc
    if not isinstance(call, ast.Call):
        raise _Unparsable
    return {kw.arg: kw.value.value if isinstance(kw.value, ast.Constant) else None for kw in call.keywords}


def _rebuilt_type(piece: str) -> str:
    if not piece.strip().endswith(")"):
        piece = piece.strip() + ")"
    if _TYPE_CONTENT.search(piece) is None:
        raise _Unparsable
    content = _TYPE_CONTENT.sub(lambda m: m.group(1), piece)
    return "type(content='" + _UNESCAPED_QUOTE.sub(r"\\'", content) + "')"


def _numbers(value: str) -> tuple[float, ...]:
    try:
        return tuple(float(n) for n in value.replace("(", "").replace(")", "").split(","))
    except ValueError as exc:
        raise _Unparsable from exc


def _actions(text: str) -> list[dict[str, Any]]:
    text = text.strip()
    if "<point>" in text:
        text = _POINT_TAG.sub(lambda m: f"({int(m.group(1))},{int(m.group(2))})", text.replace("[EOS]", "")).strip()
    text = text.replace("start_point=", "start_box=").replace("end_point=", "end_box=").replace("point=", "start_box=")
    if "Action:" not in text:
        raise _Unparsable
    actions = []
    for piece in text.split("Action: ")[-1].split(")\n\n"):
        if "type(content" in piece:
            piece = _rebuilt_type(piece)
        if not piece.strip().endswith(")"):
            piece = piece.strip() + ")"
        inputs: dict[str, Any] = {}
        for name, value in _keywords(piece.replace("\n", "\\n").lstrip()).items():
            if value == "":
                continue
            if not isinstance(name, str) or not isinstance(value, str):
                raise _Unparsable  # its ``value.lstrip()`` (or ``name.strip()``) raises
            value = value.lstrip()
            inputs[name.strip()] = _numbers(value) if any(key in name for key in BOX_KEYS) else value
        actions.append(inputs)
    return actions


def uitars_answer(text: str) -> Found | None:
    """The first action's ``start_box`` in the model's frame, or None where the official parser finds no action
    (a NaN or infinite number is no answer either, as everywhere in GroundBench)."""
    try:
        actions = _actions(text)
    except _Unparsable:
        return None
    box = actions[0].get("start_box") if actions else None
    if not isinstance(box, tuple) or len(box) not in (2, 4) or not all(math.isfinite(v) for v in box):
        return None
    return Found(box)
