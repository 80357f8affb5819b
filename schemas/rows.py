"""Accessors on one GroundBench row (a record of ``features.py``), shared by prompts, scoring and review."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

REFUSAL_RULE = "refusal"  # success_rule.kind of a GUI row whose element is not on the screen (OSWorld-G)
NO_TARGET = "no target (refusal)"  # such a row's target type, as the card's GUI facts name it


def target_absent(row: Mapping[str, Any]) -> bool:
    """Does the row ask for something the screenshot does not hold? Its ``success_rule.kind`` is ``refusal``
    (it has no parts and a null ``target_part_id`` too): only an answer that there is none is right on it."""
    return ((row.get("success_rule") or {}).get("kind")) == REFUSAL_RULE


def target_part(row: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The part the row asks about (``target_part_id`` among ``parts``); None when it is not there."""
    target = row.get("target_part_id")
    for part in row.get("parts") or []:  # a plain loop: asked for every row, several times over
        if part.get("part_id") == target:
            return part
    return None


def target_type(row: Mapping[str, Any]) -> str:
    """What ``summary`` and ``score`` call the target's type: a GUI source's ``data_type``, else ``ui_type``, else
    ``element_type``, else the target part's category (``unknown`` when there is none); a row without a target
    is ``no target (refusal)``."""
    if target_absent(row):
        return NO_TARGET
    gui = (row.get("extras") or {}).get("gui") or {}
    part = target_part(row) or {}
    kind = gui.get("data_type") or gui.get("ui_type") or gui.get("element_type") or part.get("category")
    return str(kind or "unknown")
