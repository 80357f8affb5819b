"""Contact sheets: grids of overlaid thumbnails with a caption each, so an auditor sees many rows at once
(for example every row tagged ``box_projection_mismatch``). Pure: rows in, PNG pages out."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from PIL import Image, ImageDraw

from groundbench.review.preview import EXCLUDED_BANNER, PANEL, TEXT, font, overlay, png_bytes
from groundbench.review.rows import facets_of

CAPTION_LINES = 3
LINE = 15
MAX_TAGGED_PARTS = 12  # more parts than this: numbers would only clutter a thumbnail


@dataclass(frozen=True)
class SheetLayout:
    side: int = 256  # thumbnail cell, pixels
    columns: int = 6
    rows: int = 8  # per page; a page holds columns * rows thumbnails

    @property
    def per_page(self) -> int:
        return self.columns * self.rows


def thumbnail_tags(parts: int) -> str:
    """The part tags a thumbnail of a row with ``parts`` parts shows (``overlay``'s ``tags``)."""
    return "number" if parts <= MAX_TAGGED_PARTS else "none"


def thumbnail(record: dict[str, Any], side: int, base: Image.Image | None = None) -> Image.Image:
    return overlay(record, side, tags=thumbnail_tags(len(record.get("parts") or [])), base=base)


def _fit(text: str, width: int, size: int) -> str:
    """Cut ``text`` with an ellipsis to fit ``width`` pixels (the left part of an id is its least telling)."""
    f = font(size)
    if f.getlength(text) <= width:
        return text
    while text and f.getlength("…" + text) > width:
        text = text[1:]
    return "…" + text


def caption(record: dict[str, Any]) -> list[str]:
    facets = facets_of(record)
    target = f"{facets.action} · {facets.part_class} · {facets.box_quality}"
    if facets.reask:
        target = f"re-ask {record.get('original_action')}→{facets.action} · {facets.part_class}"
    third = ", ".join(facets.tags) if facets.tags else str(record.get("instruction") or facets.stratum)
    return [str(record.get("example_id")), target, third]


def cell(record: dict[str, Any], side: int) -> Image.Image:
    height = side + CAPTION_LINES * LINE + 6
    tile = Image.new("RGB", (side, height), PANEL)
    picture = thumbnail(record, side)
    tile.paste(picture, ((side - picture.width) // 2, (side - picture.height) // 2))
    draw = ImageDraw.Draw(tile)
    excluded = bool(record.get("excluded") or record.get("exclusion_tags"))
    if excluded:
        draw.rectangle([0, side, side, height], fill=EXCLUDED_BANNER)
    for index, text in enumerate(caption(record)):
        draw.text((3, side + 3 + index * LINE), _fit(text, side - 6, 12), fill=TEXT, font=font(12))
    return tile


def pages(records: Iterable[dict[str, Any]], layout: SheetLayout) -> Iterator[bytes]:
    """One PNG per ``layout.per_page`` rows, in row order; nothing for no rows."""
    batch: list[dict[str, Any]] = []
    for record in records:
        batch.append(record)
        if len(batch) == layout.per_page:
            yield page(batch, layout)
            batch = []
    if batch:
        yield page(batch, layout)


def page(records: list[dict[str, Any]], layout: SheetLayout) -> bytes:
    gap = 4
    cell_h = layout.side + CAPTION_LINES * LINE + 6
    columns = min(layout.columns, len(records))
    rows = -(-len(records) // layout.columns)
    sheet = Image.new("RGB", (gap + columns * (layout.side + gap), gap + rows * (cell_h + gap)), (0, 0, 0))
    for index, record in enumerate(records):
        row, column = divmod(index, layout.columns)
        sheet.paste(cell(record, layout.side), (gap + column * (layout.side + gap), gap + row * (cell_h + gap)))
    return png_bytes(sheet)
