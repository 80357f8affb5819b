"""Contact sheets: grids of overlaid thumbnails with a caption each, so an auditor sees many rows at once
(for example every row tagged ``box_projection_mismatch``). Pure: rows in, PNG pages out.

Captions are drawn in DejaVu Sans (inside the pinned matplotlib wheel, as the GUI generator's text): it
has every glyph a caption uses ("→", "·", accents), where Pillow's built-in font draws a box. A sheet
cuts long captions to one line each; with ``wrap`` (the card's teaser) they wrap instead, whole."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from PIL import Image, ImageDraw, ImageFont

from groundbench.core.fonts import font as dejavu
from groundbench.review.preview import EXCLUDED_BANNER, PANEL, TEXT, overlay, png_bytes
from groundbench.review.rows import facets_of

CAPTION_LINES = 3
LINE = 15
FONT_SIZE = 12
MAX_TAGGED_PARTS = 12  # more parts than this: numbers would only clutter a thumbnail
SUITE = "suite"  # the stratum of the GUI suites (schemas/vocab.py STRATA)


@dataclass(frozen=True)
class SheetLayout:
    side: int = 256  # thumbnail cell, pixels
    columns: int = 6
    rows: int = 8  # per page; a page holds columns * rows thumbnails
    wrap: bool = False  # wrap captions over as many lines as they need instead of cutting them

    @property
    def per_page(self) -> int:
        return self.columns * self.rows


def thumbnail_tags(parts: int) -> str:
    """The part tags a thumbnail of a row with ``parts`` parts shows (``overlay``'s ``tags``)."""
    return "number" if parts <= MAX_TAGGED_PARTS else "none"


def thumbnail_view(record: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """(the row as a thumbnail draws it, its tags). A GUI suite row: its target alone, untagged (on a screenshot
    at thumbnail size, the neighbours' boxes and numbers pile up over the target; the preview and the
    gallery's detail view draw them). Any other row: every part, numbered up to ``MAX_TAGGED_PARTS``."""
    parts = record.get("parts") or []
    if record.get("stratum") == SUITE:
        target = record.get("target_part_id")
        return {**record, "parts": [p for p in parts if p.get("part_id") == target]}, "none"
    return record, thumbnail_tags(len(parts))


def thumbnail(record: dict[str, Any], side: int, base: Image.Image | None = None) -> Image.Image:
    shown, tags = thumbnail_view(record)
    return overlay(shown, side, tags=tags, base=base)


def caption_font(size: int = FONT_SIZE) -> ImageFont.FreeTypeFont:
    return dejavu("sans", size)


def _fit(text: str, width: int, size: int) -> str:
    """Cut ``text`` with an ellipsis to fit ``width`` pixels (the left part of an id is its least telling)."""
    f = caption_font(size)
    if f.getlength(text) <= width:
        return text
    while text and f.getlength("…" + text) > width:
        text = text[1:]
    return "…" + text


NOTDEF_PROBE = "\U0010fffd"  # a private-use code point no font maps: Pillow draws the .notdef box for it
UNDRAWABLE = "[?]"  # a run of characters the caption font has no glyph for ("…" means a cut caption)


@functools.lru_cache(maxsize=4096)
def _has_glyph(char: str) -> bool:
    face = caption_font()
    probe, mask = face.getmask(NOTDEF_PROBE), face.getmask(char)
    return char.isspace() or (mask.size, bytes(mask)) != (probe.size, bytes(probe))


def drawable(text: str) -> str:
    """``text`` with each run of characters the pinned DejaVu face lacks (a Chinese instruction: ScreenSpot-Pro's
    ``instruction_cn``) replaced by ``[?]``, so a caption never shows a row of .notdef boxes."""
    return re.sub(r"(?:[^\x00-\x7f])+", lambda m: _runs(m.group(0)), text)


def _runs(text: str) -> str:
    out: list[str] = []
    for char in text:
        if _has_glyph(char):
            out.append(char)
        elif not out or not "".join(out).endswith(UNDRAWABLE):
            out.append(UNDRAWABLE)
    return "".join(out)


def caption(record: dict[str, Any]) -> list[str]:
    facets = facets_of(record)
    target = f"{facets.action} · {facets.part_class} · {facets.box_quality}"
    if record.get("instruction"):  # GUI: every target's action is "none"; the answer type says more
        target = f"{facets.answer_type} answer · {facets.part_class} · {facets.box_quality}"
    if facets.reask:
        target = f"re-ask {record.get('original_action')}→{facets.action} · {facets.part_class}"
    third = ", ".join(facets.tags) if facets.tags else str(record.get("instruction") or facets.stratum)
    return [drawable(text) for text in (str(record.get("example_id")), target, third)]


def wrap(text: str, width: int, size: int = FONT_SIZE) -> list[str]:
    """``text`` in lines of at most ``width`` pixels, broken after a space or "/" where one is near, else
    anywhere; nothing is dropped but the spaces a line ends on."""
    f = caption_font(size)
    lines: list[str] = []
    rest = text
    while f.getlength(rest) > width:
        cut = max(1, max((i for i in range(1, len(rest) + 1) if f.getlength(rest[:i]) <= width), default=1))
        soft = max((i + 1 for i, c in enumerate(rest[:cut]) if c in " /"), default=0)
        cut = soft if soft > cut // 2 else cut
        lines.append(rest[:cut].rstrip(" "))
        rest = rest[cut:].lstrip(" ")
    return [*lines, rest] if rest or not lines else lines


def caption_lines(record: dict[str, Any], side: int, wrapped: bool) -> list[str]:
    """The caption as drawn: each part cut to one line, or (``wrapped``) wrapped whole."""
    width = side - 6
    if wrapped:
        return [line for text in caption(record) for line in wrap(text, width)]
    return [_fit(text, width, FONT_SIZE) for text in caption(record)]


def cell(record: dict[str, Any], side: int, lines: int = CAPTION_LINES, wrapped: bool = False) -> Image.Image:
    height = side + lines * LINE + 6
    tile = Image.new("RGB", (side, height), PANEL)
    picture = thumbnail(record, side)
    tile.paste(picture, ((side - picture.width) // 2, (side - picture.height) // 2))
    draw = ImageDraw.Draw(tile)
    excluded = bool(record.get("excluded") or record.get("exclusion_tags"))
    if excluded:
        draw.rectangle([0, side, side, height], fill=EXCLUDED_BANNER)
    for index, text in enumerate(caption_lines(record, side, wrapped)):
        draw.text((3, side + 3 + index * LINE), text, fill=TEXT, font=caption_font())
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
    lines = max((len(caption_lines(r, layout.side, True)) for r in records), default=0) if layout.wrap else 0
    lines = max(lines, CAPTION_LINES)
    cell_h = layout.side + lines * LINE + 6
    columns = min(layout.columns, len(records))
    rows = -(-len(records) // layout.columns)
    sheet = Image.new("RGB", (gap + columns * (layout.side + gap), gap + rows * (cell_h + gap)), (0, 0, 0))
    for index, record in enumerate(records):
        row, column = divmod(index, layout.columns)
        tile = cell(record, layout.side, lines, layout.wrap)
        sheet.paste(tile, (gap + column * (layout.side + gap), gap + row * (cell_h + gap)))
    return png_bytes(sheet)
