"""Accessors on one GroundBench row (a record of ``features.py``), shared by prompts, scoring and review."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def target_part(row: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The part the row asks about (``target_part_id`` among ``parts``); None when it is not there."""
    target = row.get("target_part_id")
    return next((p for p in row.get("parts") or [] if p.get("part_id") == target), None)


def target_type(row: Mapping[str, Any]) -> str:
    """What ``summary`` and ``score`` call the target's type: a GUI source's ``data_type``, else ``ui_type``, else
    ``element_type``, else the target part's category (``unknown`` when there is none)."""
    gui = (row.get("extras") or {}).get("gui") or {}
    part = target_part(row) or {}
    kind = gui.get("data_type") or gui.get("ui_type") or gui.get("element_type") or part.get("category")
    return str(kind or "unknown")
