"""The image and the geometry a model is sent when its frame is not the row's own (a profile's resize, --max-side)."""

from __future__ import annotations

import copy
import io
from collections.abc import Mapping
from typing import Any

from PIL import Image


def resized_png(data: bytes, width: int, height: int) -> bytes:
    """The image at ``width`` x ``height`` (Lanczos), as PNG: lossless, so no second lossy step is added, and the
    same pixels give the same bytes."""
    with Image.open(io.BytesIO(data)) as image:
        small = image.convert("RGB" if image.mode not in ("RGB", "RGBA", "L") else image.mode)
        small = small.resize((width, height), Image.Resampling.LANCZOS)
        buffer = io.BytesIO()
        small.save(buffer, format="PNG", optimize=False)
    return buffer.getvalue()


def scaled_row(row: Mapping[str, Any], width: int, height: int) -> dict[str, Any]:
    """A copy of the row whose size and part geometry are those of the image sent at ``width`` x ``height``."""
    w, h = row["width"], row["height"]
    scaled = copy.deepcopy(dict(row))
    scaled["width"], scaled["height"] = width, height
    for part in scaled.get("parts") or []:
        if part.get("point_xy"):
            x, y = part["point_xy"]
            part["point_xy"] = [x * width / w, y * height / h]
        if part.get("bbox_xyxy"):
            x0, y0, x1, y1 = part["bbox_xyxy"]
            part["bbox_xyxy"] = [x0 * width / w, y0 * height / h, x1 * width / w, y1 * height / h]
    return scaled
