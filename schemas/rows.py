"""Accessors on one GroundBench row (a record of ``features.py``), shared by prompts, scoring and review."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def target_part(row: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The part the row asks about (``target_part_id`` among ``parts``); None when it is not there."""
    target = row.get("target_part_id")
    return next((p for p in row.get("parts") or [] if p.get("part_id") == target), None)
