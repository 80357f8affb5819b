"""Baselines baked into the records. Every definition lives here; the card prints them.

Per row (section 3.6 of the paper): the distance from the target's point to the image centre and
to the object's own centre (the centre of its box), each divided by the image diagonal, so a model
that points at "the middle" or "roughly at the object" can be compared with the same row.
"""

from __future__ import annotations

import math

import pyarrow as pa

from groundbench.schemas.features import FEATURES


def _distance(a: tuple[float, float], b: tuple[float, float], diagonal: float) -> float:
    return math.hypot(a[0] - b[0], a[1] - b[1]) / diagonal


def row_baselines(
    width: int, height: int, target_point: tuple[float, float], object_box: list[float] | None
) -> dict[str, float | None]:
    diagonal = math.hypot(width, height)
    image_centre = (width / 2.0, height / 2.0)
    object_centre = None
    if object_box is not None:
        object_centre = ((object_box[0] + object_box[2]) / 2.0, (object_box[1] + object_box[3]) / 2.0)
    return {
        "image_center_distance": _distance(target_point, image_centre, diagonal),
        "object_center_distance": None if object_centre is None else _distance(target_point, object_centre, diagonal),
    }


def target_point(parts: list[dict[str, object]], target_part_id: str) -> tuple[float, float] | None:
    """The target part's point; None when the target is missing (validation then rejects the row)."""
    for part in parts:
        point = part["point_xy"]
        if part["part_id"] == target_part_id and isinstance(point, list):
            return (float(point[0]), float(point[1]))
    return None


def bake_row_baselines(batch: pa.RecordBatch) -> pa.RecordBatch:
    """Replace the ``baselines`` column of a batch with freshly computed per-row values."""
    columns = batch.select(["width", "height", "parts", "target_part_id", "object_bbox_xyxy"]).to_pylist()
    values: list[dict[str, float | None] | None] = []
    for row in columns:
        point = target_point(row["parts"], row["target_part_id"])
        values.append(
            None if point is None else row_baselines(row["width"], row["height"], point, row["object_bbox_xyxy"])
        )
    index = batch.schema.get_field_index("baselines")
    array = pa.array(values, type=FEATURES.arrow_schema.field("baselines").type)
    return batch.set_column(index, batch.schema.field("baselines"), array)
