"""A part's mask for users: the boolean mask in the image frame, and COCO RLE for pycocotools.

A row stores each part's mask losslessly as run lengths over the part's visible box
(``parts.mask_rle`` inside ``parts.visible_bbox_xyxy``, row-major; ``groundbench.schemas.mask_rle``).
Numpy only::

    from groundbench.masks import decode, coco_rle
    mask = decode(part, row["height"], row["width"])   # (height, width) bool, None without a mask
    rle = coco_rle(part, row["height"], row["width"])  # pycocotools.mask.decode(rle) gives the same pixels

COCO's RLE runs column-major over the whole frame, starting with a run of 0s; its compressed
``counts`` string is the LEB128-like text of ``maskApi.c`` (``rleToString`` / ``rleFrString``),
restated here so no compiled dependency is needed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from groundbench.errors import GroundBenchError
from groundbench.schemas import mask_rle

Part = Mapping[str, Any]


def decode(part: Part, height: int, width: int) -> np.ndarray | None:
    """The part's mask as a (height, width) bool array in the image frame; None when the part has no mask."""
    counts, box = part.get("mask_rle"), part.get("visible_bbox_xyxy")
    if counts is None or box is None:
        return None
    where = f"part {part.get('part_id')}"
    crop = mask_rle.decode(counts, box, where)
    x0, y0, x1, y1 = (int(v) for v in box)
    if x0 < 0 or y0 < 0 or x1 > width or y1 > height:
        raise GroundBenchError(where, "parts.visible_bbox_xyxy", f"expected a box inside {width}x{height}, got {box}")
    frame = np.zeros((height, width), dtype=bool)
    frame[y0:y1, x0:x1] = crop
    return frame


def row_mask(row: Mapping[str, Any], part_id: str | None = None) -> np.ndarray | None:
    """The mask of one part of a row (default: its target part), in the row's frame."""
    wanted = row["target_part_id"] if part_id is None else part_id
    part = next((p for p in row["parts"] if p["part_id"] == wanted), None)
    if part is None:
        raise GroundBenchError(str(row.get("example_id")), "parts.part_id", f"no part {wanted!r} in this row")
    return decode(part, int(row["height"]), int(row["width"]))


def column_runs(mask: np.ndarray) -> list[int]:
    """COCO's uncompressed counts: runs over the frame in column-major order, starting with a 0-run."""
    return mask_rle.encode(np.asarray(mask, dtype=bool).T)


def _to_string(counts: Sequence[int]) -> str:
    """maskApi.c ``rleToString``: each count (after the third, minus the count two before) in 5-bit groups."""
    out = []
    for index, count in enumerate(counts):
        x = int(count) - (int(counts[index - 2]) if index > 2 else 0)
        more = True
        while more:
            c = x & 0x1F
            x >>= 5  # arithmetic shift, as C's on a signed long
            more = x != -1 if c & 0x10 else x != 0
            out.append(chr((c | 0x20 if more else c) + 48))
    return "".join(out)


def _from_string(text: str) -> list[int]:
    """maskApi.c ``rleFrString``, the inverse of :func:`_to_string`."""
    counts: list[int] = []
    position = 0
    while position < len(text):
        x = shift = 0
        more = True
        while more:
            c = ord(text[position]) - 48
            x |= (c & 0x1F) << shift
            more = bool(c & 0x20)
            position += 1
            shift += 5
            if not more and c & 0x10:
                x |= -1 << shift
        counts.append(x + (counts[-2] if len(counts) > 2 else 0))
    return counts


def encode_coco(mask: np.ndarray, compressed: bool = True) -> dict[str, Any]:
    """A (height, width) mask as COCO RLE: ``{"size": [h, w], "counts": str}`` (a list of ints if not compressed)."""
    height, width = mask.shape
    runs = column_runs(mask) or [0]
    return {"size": [int(height), int(width)], "counts": _to_string(runs) if compressed else runs}


def coco_rle(part: Part, height: int, width: int, compressed: bool = True) -> dict[str, Any] | None:
    """The part's mask as COCO RLE (what ``pycocotools.mask.decode`` reads); None when the part has no mask."""
    frame = decode(part, height, width)
    return None if frame is None else encode_coco(frame, compressed)


def decode_coco(rle: Mapping[str, Any]) -> np.ndarray:
    """COCO RLE (compressed or not) back to a (height, width) bool mask."""
    height, width = (int(v) for v in rle["size"])
    counts = rle["counts"]
    if isinstance(counts, bytes):
        counts = counts.decode("ascii")
    runs = _from_string(counts) if isinstance(counts, str) else [int(c) for c in counts]
    if any(r < 0 for r in runs) or sum(runs) != height * width:
        raise GroundBenchError("rle", "counts", f"expected runs adding up to {height}x{width}, got {sum(runs)}")
    flat = np.repeat(np.arange(len(runs)) % 2 == 1, runs)
    return flat.reshape(width, height).T.copy()
