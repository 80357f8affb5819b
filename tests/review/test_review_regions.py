"""GUI regions in the drawings: a polygon target is drawn as its polygon (previews, sheets' thumbnails and the
gallery's parts), and a refusal row (no target) carries the NO TARGET band."""

from __future__ import annotations

import io
from typing import Any

from PIL import Image

from groundbench.review.preview import COLORS, NO_TARGET_BAND, TARGET, header_lines, overlay
from groundbench.review.report.rowdata import drawn_part
from groundbench.review.sheet import thumbnail


def _png(size: tuple[int, int]) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size, (255, 255, 255)).save(buffer, "PNG")
    return buffer.getvalue()


def _row(kind: str, polygon: list[float] | None = None) -> dict[str, Any]:
    parts = []
    if kind != "none":
        parts = [
            {
                "part_id": "t",
                "category": "Button",
                "action": "none",
                "bbox_xyxy": [100.0, 100.0, 300.0, 300.0],
                "point_xy": [150.0, 150.0],
                "box_quality": "approximate",
            }
        ]
    return {
        "example_id": f"gui_osworld_g/{kind}",
        "stratum": "suite",
        "source": "osworld_g",
        "object_id": "x.png",
        "width": 400,
        "height": 400,
        "image": {"bytes": _png((400, 400))},
        "parts": parts,
        "target_part_id": "t" if parts else None,
        "target_action": "none",
        "instruction": "Click it",
        "answer_type": "point",
        "success_rule": {"kind": {"box": "point_in_box", "polygon": "point_in_polygon", "none": "refusal"}[kind]},
        "extras": {"gui": {"region_kind": kind, "eval_polygon": polygon or []}},
    }


TRIANGLE = [100.0, 100.0, 300.0, 100.0, 100.0, 300.0]  # its bounding box is [100, 100, 300, 300]


def _red(pixel: tuple[int, ...]) -> bool:
    return tuple(pixel[:3]) == COLORS[TARGET]


def test_a_polygon_target_is_drawn_as_its_polygon_not_its_box() -> None:
    polygon = overlay(_row("polygon", TRIANGLE), 400, tags="none")
    box = overlay(_row("box"), 400, tags="none")
    # The box's right edge (x = 299) is drawn for a box target, not for the triangle, whose hypotenuse
    # passes through (200, 200).
    assert _red(box.getpixel((299, 250))) and not _red(polygon.getpixel((299, 250)))
    assert _red(polygon.getpixel((200, 200))) and not _red(box.getpixel((200, 200)))
    assert _red(thumbnail(_row("polygon", TRIANGLE), 400).getpixel((200, 200)))
    assert any("polygon" in line for line in header_lines(_row("polygon", TRIANGLE)))


def test_a_refusal_row_is_marked() -> None:
    drawn = overlay(_row("none"), 400, tags="none")
    assert drawn.getpixel((200, 2))[:3] == NO_TARGET_BAND
    assert any("NO TARGET" in line for line in header_lines(_row("none")))
    assert overlay(_row("box"), 400, tags="none").getpixel((200, 2))[:3] != NO_TARGET_BAND


def test_the_gallery_gets_the_polygon_of_the_target() -> None:
    row = _row("polygon", TRIANGLE)
    assert drawn_part(row, 1, row["parts"][0])[5:] == [None, TRIANGLE]
    plain = _row("box")
    assert len(drawn_part(plain, 1, plain["parts"][0])) == 5
