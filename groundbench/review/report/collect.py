"""What the gallery and the plots need from a row, computed once (pure)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from groundbench.review.rows import Facets, facets_of
from groundbench.schemas.rows import target_part


@dataclass(frozen=True)
class RowSummary:
    example_id: str
    facets: Facets
    parts: int
    part_qualities: tuple[str, ...]  # box quality of every candidate part
    # Target box relative to the image (0..1); None when the target or its box is missing.
    centre: tuple[float, float] | None
    size: tuple[float, float] | None  # (width / image width, height / image height)
    instruction: str | None = None  # a GUI row's command (its caption in the gallery)


def _relative_geometry(record: dict[str, Any]) -> tuple[tuple[float, float] | None, tuple[float, float] | None]:
    target = target_part(record) or {}
    width, height = record.get("width"), record.get("height")
    if not width or not height:
        return None, None
    box, point = target.get("bbox_xyxy"), target.get("point_xy")
    if box:
        x0, y0, x1, y1 = box
        return ((x0 + x1) / 2 / width, (y0 + y1) / 2 / height), ((x1 - x0) / width, (y1 - y0) / height)
    if point:
        return (point[0] / width, point[1] / height), None
    return None, None


def summarize(record: dict[str, Any]) -> RowSummary:
    centre, size = _relative_geometry(record)
    return RowSummary(
        example_id=str(record["example_id"]),
        facets=facets_of(record),
        parts=len(record.get("parts") or []),
        part_qualities=tuple(str(p.get("box_quality")) for p in record.get("parts") or []),
        centre=centre,
        size=size,
        instruction=record.get("instruction") or None,
    )
