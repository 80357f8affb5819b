"""What the gallery and the plots need from a row, computed once (pure)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from groundbench.review.rows import Facets, facets_of, file_stem
from groundbench.schemas.rows import target_part


@dataclass(frozen=True)
class RowSummary:
    example_id: str
    stem: str  # file name stem of the row's thumbnail, detail image and page
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
        stem=file_stem(str(record["example_id"])),
        facets=facets_of(record),
        parts=len(record.get("parts") or []),
        part_qualities=tuple(str(p.get("box_quality")) for p in record.get("parts") or []),
        centre=centre,
        size=size,
        instruction=record.get("instruction") or None,
    )


def _value(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, str):
        return value
    return json.dumps(value, sort_keys=True)


def flat_fields(record: dict[str, Any], prefix: str = "") -> list[tuple[str, str]]:
    """Every field of a row as (dotted name, text), in schema order; the image as its path, size and hash."""
    out: list[tuple[str, str]] = []
    for key, value in record.items():
        name = f"{prefix}{key}"
        if key == "image" and not prefix:
            image = value or {}
            data = image.get("bytes")
            out.append(("image.path", _value(image.get("path"))))
            out.append(("image.bytes", "null" if data is None else f"{len(data)} bytes (embedded)"))
        elif isinstance(value, dict):
            out.extend(flat_fields(value, f"{name}."))
        else:
            out.append((name, _value(value)))
    return out
