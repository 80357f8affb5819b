"""Which annotation format a record is in, decided by its keys (never by the file name alone).

| format           | keys that decide                          | box                          |
| ---------------- | ----------------------------------------- | ---------------------------- |
| pointerbench     | file_name + eval (+ answer_type)          | xyxy pixels                  |
| screenspot_pro   | img_filename + img_size + application     | xyxy pixels                  |
| screenspot_xyxy  | img_filename + img_size (GUI-Actor SSv2)  | xyxy pixels                  |
| screenspot       | img_filename (SeeClick / OS-Atlas)        | xywh pixels, size from image |
| screenspot_jsonl | image + bbox + instruction (UGround)      | xywh pixels, size from image |
"""

from __future__ import annotations

from typing import Any

from groundbench.errors import GroundBenchError

FORMATS = ("pointerbench", "screenspot_pro", "screenspot_xyxy", "screenspot", "screenspot_jsonl")


def detect_format(record: Any, where: str) -> str:
    if not isinstance(record, dict):
        raise GroundBenchError(where, "record", f"expected a JSON object, got {type(record).__name__}")
    keys = set(record)
    if {"file_name", "eval"} <= keys:
        return "pointerbench"
    if "img_filename" in keys:
        if "img_size" in keys:
            return "screenspot_pro" if "application" in keys else "screenspot_xyxy"
        return "screenspot"
    if {"image", "bbox", "instruction"} <= keys:
        return "screenspot_jsonl"
    raise GroundBenchError(
        where,
        "keys",
        f"unknown GUI annotation format {sorted(keys)}: expected PointerBench (file_name, eval), "
        "ScreenSpot (img_filename, bbox, ...) or UGround JSONL (image, bbox, instruction)",
    )
