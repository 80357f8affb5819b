"""A row's two gallery images (thumbnail and detail overlay) from one decode and one full-size resize.

``preview.overlay`` scales the full-size image to the side it is asked for; called twice per row, as the
gallery used to, it resized every full-size image twice (up to 2560x1440, the most expensive step of the
report). Here the image is decoded once, resized once to the detail size, and the thumbnail is resized from
that detail image. The overlay is then drawn by ``preview.overlay`` itself on the image already at its final
size, with the row's coordinates scaled as ``overlay`` would scale them: the same boxes, points, labels and
line widths, at the same pixel sizes. Downscales of more than ``REDUCING_GAP`` times first reduce by an
integer factor (Pillow's ``reducing_gap``), which is not visible at these sizes. Upscales (images smaller than
a side, up to ``preview.MAX_UPSCALE``) go through ``overlay`` unchanged.

The preview CLI, contact sheets and the card's teaser keep ``preview.overlay`` as it is: their bytes do
not change. Deterministic: the same row gives the same pixels.
"""

from __future__ import annotations

from typing import Any

from PIL import Image

from groundbench.review.preview import decode, overlay, scaled_size
from groundbench.review.sheet import thumbnail_view

REDUCING_GAP = 1.5  # 2560 -> 800 reduces by 2 first, then Lanczos; 1920 -> 800 and 800 -> 240 likewise


def scaled_record(record: dict[str, Any], scale: float) -> dict[str, Any]:
    """The row with every coordinate ``overlay`` draws (object box, part boxes and points) times ``scale``."""

    def times(values: list[float] | None) -> list[float] | None:
        return [v * scale for v in values] if values else values

    out = dict(record)
    out["object_bbox_xyxy"] = times(record.get("object_bbox_xyxy"))
    out["parts"] = [
        {**part, "bbox_xyxy": times(part.get("bbox_xyxy")), "point_xy": times(part.get("point_xy"))}
        for part in record.get("parts") or []
    ]
    return out


def _resize(image: Image.Image, size: tuple[int, int]) -> Image.Image:
    return image.resize(size, Image.Resampling.LANCZOS, reducing_gap=REDUCING_GAP)


def _draw(
    record: dict[str, Any], full: Image.Image, clean: Image.Image | None, scale: float, side: int, tags: str
) -> Image.Image:
    """``overlay(record, side, tags)``; on ``clean``, the image already scaled by ``scale``, when given."""
    if clean is None:
        return overlay(record, side, tags=tags, base=full)
    return overlay(scaled_record(record, scale), side, tags=tags, base=clean)


def row_images(
    record: dict[str, Any], thumb_side: int, detail_side: int, detail_tags: str
) -> tuple[Image.Image, Image.Image]:
    """(thumbnail, detail), from one decode: the detail ``overlay(record, detail_side, detail_tags)``, the
    thumbnail what a contact sheet's draws (``sheet.thumbnail_view``: a GUI row's target alone)."""
    thumb_record, thumb_tags = thumbnail_view(record)
    full = decode(record)
    detail_scale, detail_size = scaled_size(full.size, detail_side)
    thumb_scale, thumb_size = scaled_size(full.size, thumb_side)
    detail_clean = _resize(full, detail_size) if detail_scale < 1.0 else None
    # The thumbnail from the detail image when that is a downscale at least as large, else from the full one.
    source = detail_clean if detail_clean is not None and detail_scale >= thumb_scale else full
    thumb_clean = _resize(source, thumb_size) if thumb_scale < 1.0 else None
    thumb = _draw(thumb_record, full, thumb_clean, thumb_scale, thumb_side, thumb_tags)
    detail = _draw(record, full, detail_clean, detail_scale, detail_side, detail_tags)
    return thumb, detail
