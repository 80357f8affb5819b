"""Draw one row: every candidate part's box and point over the image, labelled, the target emphasised.

Encoding (the same in previews, contact sheets and the gallery):
- colour = role: target red, the original target of a re-ask blue, every other candidate yellow;
- line style = box quality: exact solid, approximate dashed, from-mask dotted;
- the point is a filled disc (target: larger, with a cross-hair); the object's box a thin grey dotted line;
- each part carries its number n (1-based, the order of ``parts``); the legend under a preview lists
  n, role, part id, class, action, box quality, box and point;
- a GUI target annotated as a polygon (``extras.gui.eval_polygon``, OSWorld-G) is drawn as that polygon, not
  its bounding box; a refusal row (no target: the element is not on the screen) carries a "NO TARGET" band.

Pure: a record dict in, a Pillow image or PNG bytes out. Deterministic: a fixed font shipped inside
the pinned Pillow (``ImageFont.load_default``), fixed resampling, PNG without metadata.
"""

from __future__ import annotations

import io
import math
import textwrap
from collections.abc import Sequence
from functools import cache
from typing import Any

from PIL import Image, ImageDraw, ImageFont

from groundbench.core.images import inspect_image
from groundbench.review.rows import facets_of

Color = tuple[int, int, int]
Font = ImageFont.FreeTypeFont | ImageFont.ImageFont

TARGET, ORIGINAL, OTHER = "target", "original", "other"
COLORS: dict[str, Color] = {TARGET: (230, 25, 75), ORIGINAL: (0, 130, 200), OTHER: (255, 225, 25)}
OUTLINE: Color = (0, 0, 0)
OBJECT_BOX: Color = (190, 190, 190)
EXCLUDED_BANNER: Color = (150, 0, 30)
PANEL: Color = (24, 24, 24)
TEXT: Color = (240, 240, 240)
# (on, off) pixel lengths; None = solid. Unknown qualities draw solid, as exact.
DASHES: dict[str, tuple[int, int] | None] = {"exact": None, "approximate": (9, 6), "from-mask": (2, 4)}
ROLE_ORDER = {OTHER: 0, ORIGINAL: 1, TARGET: 2}  # drawn last = on top
MAX_UPSCALE = 2.0
KEY = (
    "red = target · blue = original target (re-ask) · yellow = other candidates · "
    "box solid = exact, dashed = approximate, dotted = from-mask · grey dotted = object box · "
    "a GUI polygon target is drawn as its polygon · NO TARGET band = refusal row"
)
NO_TARGET = "NO TARGET · refusal row: only an answer that there is none is right"
NO_TARGET_BAND: Color = (90, 30, 140)


def gui_region(record: dict[str, Any]) -> tuple[str, list[float]]:
    """(region kind, polygon vertices) of a GUI row: ("box", []), ("polygon", flat vertices) or ("none", [])."""
    gui = (record.get("extras") or {}).get("gui") or {}
    return str(gui.get("region_kind") or "box"), list(gui.get("eval_polygon") or [])


def draw_polygon(draw: ImageDraw.ImageDraw, vertices: Sequence[float], color: Color, width: int) -> None:
    """A closed polygon through flat [x1, y1, x2, y2, ...] (two vertices: the segment between them)."""
    points = list(zip(vertices[0::2], vertices[1::2], strict=True))
    ring = [*points, points[0]]
    for stroke, fill in ((width + 2, OUTLINE), (width, color)):
        draw.line(ring, fill=fill, width=stroke, joint="curve")


def draw_no_target(draw: ImageDraw.ImageDraw, size: tuple[int, int], text_size: int) -> None:
    """The refusal row's band across the top of the image."""
    height = text_size + 8
    draw.rectangle([0, 0, size[0], height], fill=NO_TARGET_BAND, outline=OUTLINE)
    draw.text((4, 3), NO_TARGET, fill=TEXT, font=font(text_size))


@cache
def font(size: int) -> Font:
    return ImageFont.load_default(size=size)


def role_of(record: dict[str, Any], part_id: str | None) -> str:
    if part_id is not None and part_id == record.get("target_part_id"):
        return TARGET
    if part_id is not None and part_id == record.get("original_target_part_id"):
        return ORIGINAL
    return OTHER


def decode(record: dict[str, Any]) -> Image.Image:
    """The row's image as RGB; a grey canvas of the row's size when the row has no image (``no_render``)."""
    image = record.get("image") or {}
    data = image.get("bytes")
    width, height = int(record.get("width") or 640), int(record.get("height") or 480)
    if not data:
        canvas = Image.new("RGB", (width, height), (96, 96, 96))
        size = max(12, width // 24)
        ImageDraw.Draw(canvas).text((10, height - size - 10), "no image in this row", fill=TEXT, font=font(size))
        return canvas
    inspect_image(data, str(record.get("example_id")))  # refuses decompression bombs before decoding
    opened = Image.open(io.BytesIO(data))
    opened.load()
    return opened if opened.mode == "RGB" else opened.convert("RGB")  # an RGB image needs no copy


def scaled_size(size: tuple[int, int], max_side: int) -> tuple[float, tuple[int, int]]:
    """(scale, size) of an image of ``size`` scaled so its longest side is ``max_side`` (at most MAX_UPSCALE)."""
    scale = min(max_side / max(size), MAX_UPSCALE)
    return scale, (max(1, round(size[0] * scale)), max(1, round(size[1] * scale)))


def scale_to(image: Image.Image, max_side: int) -> tuple[Image.Image, float]:
    scale, size = scaled_size(image.size, max_side)
    if size == image.size:
        return image.copy(), 1.0
    return image.resize(size, Image.Resampling.LANCZOS), scale


def _lerp(a: tuple[float, float], b: tuple[float, float], t: float) -> tuple[float, float]:
    return (a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t)


def _segments(a: tuple[float, float], b: tuple[float, float], dash: tuple[int, int] | None) -> list[tuple]:
    if dash is None:
        return [(a, b)]
    length = math.dist(a, b)
    if length == 0:
        return []
    on, off = dash
    out = []
    start = 0.0
    while start < length:
        end = min(start + on, length)
        out.append((_lerp(a, b, start / length), _lerp(a, b, end / length)))
        start += on + off
    return out


def draw_box(
    draw: ImageDraw.ImageDraw, box: Sequence[float], color: Color, width: int, dash: tuple[int, int] | None
) -> None:
    """A box on the continuous pixel plane: edges at x0 and x1 (drawn just inside x1, y1), outlined for contrast."""
    x0, y0, x1, y1 = box[0], box[1], max(box[0], box[2] - 1), max(box[1], box[3] - 1)
    corners = [(x0, y0), (x1, y0), (x1, y1), (x0, y1), (x0, y0)]
    for stroke, fill in ((width + 2, OUTLINE), (width, color)):
        for a, b in zip(corners, corners[1:], strict=False):
            for p, q in _segments(a, b, dash):
                draw.line([p, q], fill=fill, width=stroke)


def draw_point(draw: ImageDraw.ImageDraw, point: Sequence[float], color: Color, radius: int, cross: bool) -> None:
    x, y = point[0], point[1]
    if cross:
        arm = round(radius * 2.5)
        for stroke, fill in ((4, OUTLINE), (2, color)):
            draw.line([(x - arm, y), (x + arm, y)], fill=fill, width=stroke)
            draw.line([(x, y - arm), (x, y + arm)], fill=fill, width=stroke)
    draw.ellipse([x - radius, y - radius, x + radius, y + radius], fill=color, outline=OUTLINE, width=2)


Rect = tuple[float, float, float, float]


def _overlaps(a: Rect, b: Rect) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _overlap_area(a: Rect, b: Rect) -> float:
    return max(0.0, min(a[2], b[2]) - max(a[0], b[0])) * max(0.0, min(a[3], b[3]) - max(a[1], b[1]))


def around(rect: Rect, margin: float) -> Rect:
    return (rect[0] - margin, rect[1] - margin, rect[2] + margin, rect[3] + margin)


def place_tag(
    draw: ImageDraw.ImageDraw, anchor: Rect, text: str, size: int, bounds: tuple[int, int], taken: list[Rect]
) -> tuple[Rect, tuple[float, float]]:
    """Where a label chip goes: above, below, then beside ``anchor``, the first spot inside the image that
    covers no chip or kept-clear area already placed (else the spot that covers least of them)."""
    left, top, right, bottom = draw.textbbox((0, 0), text, font=font(size))
    w, h = right - left + 6, bottom - top + 4
    x0, y0, x1, y1 = anchor
    spots = [(x0, y0 - h), (x0, y1), (x1 - w, y0 - h), (x1 - w, y1), (x1 + 1, y0), (x0 - w - 1, y0)]
    spots += [(x1 + 1, y1 - h), (x0 - w - 1, y1 - h), (x0, y0)]
    chips = []
    for x, y in spots:
        x = min(max(0.0, x), bounds[0] - w)
        y = min(max(0.0, y), bounds[1] - h)
        chips.append((x, y, x + w, y + h))
    chip = min(chips, key=lambda c: sum(_overlap_area(c, t) for t in [*taken, anchor]))  # the first of the least
    taken.append(chip)
    return chip, (chip[0] + 3 - left, chip[1] + 2 - top)


def draw_tag(
    draw: ImageDraw.ImageDraw, chip: Rect, origin: tuple[float, float], text: str, color: Color, size: int
) -> None:
    draw.rectangle(chip, fill=color, outline=OUTLINE)
    ink = OUTLINE if sum(color) > 380 else (255, 255, 255)
    draw.text(origin, text, fill=ink, font=font(size))


def numbered_parts(record: dict[str, Any]) -> list[tuple[int, dict[str, Any], str]]:
    """(number, part, role), in drawing order: other candidates first, the target last (on top)."""
    parts = [(n, part, role_of(record, part.get("part_id"))) for n, part in enumerate(record.get("parts") or [], 1)]
    return sorted(parts, key=lambda item: (ROLE_ORDER[item[2]], item[0]))


def overlay(
    record: dict[str, Any], max_side: int, tags: str = "number", base: Image.Image | None = None
) -> Image.Image:
    """The image scaled to ``max_side``, with the object's box and every part drawn.

    ``tags``: "number" (n only), "id" (n and part id), or "none". ``base``: the row's image already
    decoded (callers drawing one row at several sizes decode it once).
    """
    image, scale = scale_to(base if base is not None else decode(record), max_side)
    draw = ImageDraw.Draw(image)
    line = max(1, round(max_side / 400))
    tag_size = max(10, round(max_side / 45))
    object_box = record.get("object_bbox_xyxy")
    if object_box:
        draw_box(draw, [v * scale for v in object_box], OBJECT_BOX, 1, (2, 3))
    parts = numbered_parts(record)
    region, vertices = gui_region(record)
    for _number, part, role in parts:
        color = COLORS[role]
        dash = DASHES.get(str(part.get("box_quality")))
        box = part.get("bbox_xyxy")
        point = part.get("point_xy")
        emphasis = role != OTHER
        if role == TARGET and region == "polygon" and len(vertices) >= 4:
            draw_polygon(draw, [v * scale for v in vertices], color, line * 3)  # what the rule reads
        elif box:
            draw_box(draw, [v * scale for v in box], color, line * (3 if emphasis else 1), dash)
        if point:
            draw_point(draw, [v * scale for v in point], color, line * (4 if emphasis else 2) + 1, role == TARGET)
    if region == "none":
        draw_no_target(draw, image.size, tag_size)
    if tags == "none":
        return image
    # Labels last, placed target first so that no other label hides the target or its own label. Around an
    # emphasised part a label's height is kept clear too: a small target (a GUI cell corner, a few pixels)
    # is read with what surrounds it, and its own label goes beyond that, not against its marker.
    clear = tag_size + line * 4
    taken = [around(a, clear) for _n, p, role in parts if role != OTHER and (a := _anchor(p, scale)) is not None]
    chips = []
    for number, part, role in reversed(parts):
        anchor = _anchor(part, scale)
        if anchor is None:
            continue
        if role != OTHER:
            anchor = around(anchor, clear)
        label = str(number) if tags == "number" else f"{number} {part.get('part_id')}"
        chip, origin = place_tag(draw, anchor, label, tag_size, image.size, taken)
        chips.append((chip, origin, label, COLORS[role]))
    for chip, origin, label, color in reversed(chips):  # the target's chip drawn last, on top
        draw_tag(draw, chip, origin, label, color, tag_size)
    return image


def _anchor(part: dict[str, Any], scale: float) -> Rect | None:
    """The rectangle a part's label sits beside: its box, else a small square around its point."""
    box, point = part.get("bbox_xyxy"), part.get("point_xy")
    if box:
        return (box[0] * scale, box[1] * scale, box[2] * scale, box[3] * scale)
    if point:
        return (point[0] * scale - 6, point[1] * scale - 6, point[0] * scale + 6, point[1] * scale + 6)
    return None


def _fmt_box(values: Sequence[float] | None) -> str:
    if not values:
        return "-"
    return "[" + ", ".join(f"{v:g}" for v in values) + "]"


def header_lines(record: dict[str, Any]) -> list[str]:
    facets = facets_of(record)
    lines = [
        f"{record.get('example_id')}",
        f"stratum {facets.stratum} · source {facets.source} · object {record.get('object_id')} "
        f"({facets.object_category}) · {record.get('width')}x{record.get('height')} · "
        f"render {(record.get('render') or {}).get('kind')}",
        f"target {record.get('target_part_id')} ({record.get('target_action')})"
        if gui_region(record)[0] != "none"
        else "NO TARGET: refusal row (the element is not on the screen)",
    ]
    region, vertices = gui_region(record)
    if region == "polygon":
        lines.append(f"target region: polygon {_fmt_box(vertices)} (drawn as annotated)")
    if facets.reask:
        lines[-1] += f" · re-ask of original {record.get('original_target_part_id')} ({record.get('original_action')})"
    if record.get("instruction"):
        lines.append(f"instruction: {record.get('instruction')}")
    if record.get("answer_type"):
        rule = record.get("success_rule") or {}
        thresholds = (("coverage_min", "coverage"), ("precision_min", "precision"))
        limits = [f"{name} >= {rule[key]:g}" for key, name in thresholds if rule.get(key) is not None]
        lines.append(
            f"answer {record.get('answer_type')} · success rule {rule.get('kind')}"
            + (f" ({', '.join(limits)})" if limits else "")
        )
    highlighted = (record.get("render") or {}).get("highlighted_part_id")
    if highlighted:
        lines.append(f"render highlights part {highlighted}")
    return lines


def legend_lines(record: dict[str, Any]) -> list[tuple[Color, str]]:
    lines = []
    for number, part in enumerate(record.get("parts") or [], 1):
        role = role_of(record, part.get("part_id"))
        name = {TARGET: "TARGET", ORIGINAL: "ORIGINAL", OTHER: ""}[role]
        lines.append(
            (
                COLORS[role],
                f"{number:>3} {name:<8} {part.get('part_id')} · {part.get('category')} · {part.get('action')} · "
                f"{part.get('box_quality')} · box {_fmt_box(part.get('bbox_xyxy'))} · "
                f"point {_fmt_box(part.get('point_xy'))}",
            )
        )
    return lines


def _wrap(text: str, f: Font, width: int) -> list[str]:
    """Greedy wrap by measured width (the font is proportional)."""
    chars = max(10, int(width / max(1.0, f.getlength("n"))))
    while chars > 10 and any(f.getlength(line) > width for line in textwrap.wrap(text, chars)):
        chars -= 4
    return textwrap.wrap(text, chars) or [""]


def preview_image(record: dict[str, Any], max_side: int = 960) -> Image.Image:
    """Header (ids, target, re-ask, instruction, exclusions), the overlay, and the numbered legend."""
    picture = overlay(record, max_side, tags="id" if len(record.get("parts") or []) <= 40 else "number")
    width = max(picture.width, 640)
    f = font(14)
    pad, step = 8, 19
    head = [(TEXT, text) for line in header_lines(record) for text in _wrap(line, f, width - 2 * pad)]
    tags = sorted(record.get("exclusion_tags") or [])
    if record.get("excluded") or tags:
        head.append(((255, 200, 200), f"EXCLUDED: {', '.join(tags) or '(no tag)'}"))
    # (swatch colour or None, text): the swatch marks the first line of a part's entry only.
    legend: list[tuple[Color | None, str]] = [
        (color if index == 0 else None, text)
        for color, line in legend_lines(record)
        for index, text in enumerate(_wrap(line, f, width - 2 * pad - 14))
    ]
    legend += [(None, text) for text in _wrap(KEY, f, width - 2 * pad - 14)]
    top = pad + step * len(head) + pad
    height = top + picture.height + pad + step * len(legend) + pad
    sheet = Image.new("RGB", (width, height), PANEL)
    draw = ImageDraw.Draw(sheet)
    if record.get("excluded") or tags:
        draw.rectangle([0, 0, width, top - 1], fill=EXCLUDED_BANNER)
    y = pad
    for color, text in head:
        draw.text((pad, y), text, fill=color, font=f)
        y += step
    sheet.paste(picture, (0, top))
    y = top + picture.height + pad
    for swatch, text in legend:
        if swatch is not None:
            draw.rectangle([pad, y + 4, pad + 9, y + 13], fill=swatch, outline=OUTLINE)
        draw.text((pad + 14, y), text, fill=TEXT, font=f)
        y += step
    return sheet


def png_bytes(image: Image.Image) -> bytes:
    """PNG with no metadata chunks and fixed compression: the same pixels give the same bytes."""
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", compress_level=6)
    return buffer.getvalue()


def preview_png(record: dict[str, Any], max_side: int = 960) -> bytes:
    return png_bytes(preview_image(record, max_side))
