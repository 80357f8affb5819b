"""Per-object annotation files: ``link_annotation_gapartnet.json``, ``semantics_gapartnet.txt``,
``meta.json`` and the category id lists (GAPartNet release format).

Unknown keys are ignored (derived variants add ``children``/``parents``); missing required keys are
errors naming the file and the key.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np

from groundbench.converters.gapartnet.numbers import real_array
from groundbench.errors import GroundBenchError

# TARGET_GAPARTS of the render tools: the index is the rendered semantic id / bbox category_id.
PART_CLASSES: tuple[str, ...] = (
    "line_fixed_handle",
    "round_fixed_handle",
    "slider_button",
    "hinge_door",
    "slider_drawer",
    "slider_lid",
    "hinge_lid",
    "hinge_knob",
    "hinge_handle",
)


@dataclass(frozen=True)
class LinkAnnotation:
    link_name: str
    is_gapart: bool
    category: str  # one of PART_CLASSES, or "" when not a GAPart
    bbox: np.ndarray | None  # (8, 3) float64 world corners at rest (all qpos 0), GAPartNet order


def _json(data: bytes, where: str) -> object:
    try:
        return json.loads(data.decode("utf-8"))
    # RecursionError: arrays nested deeper than Python's recursion limit.
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise GroundBenchError(where, "file", f"expected UTF-8 JSON ({exc})") from exc


def _corners(value: object, where: str, field: str) -> np.ndarray:
    array = real_array(value, where, field, "8 [x, y, z] lists of finite numbers")
    if array.shape != (8, 3):
        raise GroundBenchError(where, field, f"expected 8 finite [x, y, z] corners, got shape {array.shape}")
    return array


def parse_link_annotations(data: bytes, where: str) -> tuple[LinkAnnotation, ...]:
    """The JSON list, in file order; a GAPart needs a known class and 8 corners."""
    raw = _json(data, where)
    if not isinstance(raw, list):
        raise GroundBenchError(where, "file", "expected a JSON list of link entries")
    links: list[LinkAnnotation] = []
    seen: set[str] = set()
    for index, item in enumerate(raw):
        field = f"[{index}]"
        if not isinstance(item, dict):
            raise GroundBenchError(where, field, "expected an object with link_name, is_gapart, category, bbox")
        for key in ("link_name", "is_gapart", "category", "bbox"):
            if key not in item:
                raise GroundBenchError(where, f"{field}.{key}", "missing required key")
        name, is_gapart, category = item["link_name"], item["is_gapart"], item["category"]
        if not isinstance(name, str) or not name:
            raise GroundBenchError(where, f"{field}.link_name", f"expected a link name, got {name!r}")
        if name in seen:
            raise GroundBenchError(where, f"{field}.link_name", f"link {name} annotated twice")
        seen.add(name)
        if not isinstance(is_gapart, bool):
            raise GroundBenchError(where, f"{field}.is_gapart", f"expected true or false, got {is_gapart!r}")
        if not isinstance(category, str):
            raise GroundBenchError(where, f"{field}.category", f"expected a string, got {category!r}")
        if is_gapart:
            if category not in PART_CLASSES:
                raise GroundBenchError(
                    where, f"{field}.category", f"unknown part class {category!r}; expected one of {PART_CLASSES}"
                )
            bbox = _corners(item["bbox"], where, f"{field}.bbox")
        else:
            bbox = None
        links.append(LinkAnnotation(name, is_gapart, category if is_gapart else "", bbox))
    return tuple(links)


@dataclass(frozen=True)
class SemanticsLine:
    link_name: str
    joint_word: str  # PartNet-Mobility word: hinge / slider / fixed / heavy / static / free / slider+
    label: str


def parse_semantics(data: bytes, where: str) -> tuple[SemanticsLine, ...]:
    """``<link_name> <joint_type> <label>`` per line."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise GroundBenchError(where, f"byte {exc.start}", "expected UTF-8 text") from exc
    lines = []
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        fields = line.strip().split()
        if len(fields) != 3:
            raise GroundBenchError(where, f"line {number}", f"expected '<link> <joint type> <label>', got {line!r}")
        lines.append(SemanticsLine(*fields))
    return tuple(lines)


def parse_meta(data: bytes, where: str) -> str | None:
    """The object category (``model_cat``) of a PartNet-Mobility ``meta.json``; None when absent."""
    raw = _json(data, where)
    if not isinstance(raw, dict):
        raise GroundBenchError(where, "file", "expected a JSON object")
    category = raw.get("model_cat")
    if category is None:
        return None
    if not isinstance(category, str) or not category or "_" in category or " " in category:
        raise GroundBenchError(where, "model_cat", f"expected a category name without '_' or spaces, got {category!r}")
    return category


def parse_id_list(data: bytes, where: str) -> dict[str, str]:
    """``<Category> <model_id>`` per line (``meta/*_all_id_list.txt``) -> {model_id: category}."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise GroundBenchError(where, f"byte {exc.start}", "expected UTF-8 text") from exc
    result: dict[str, str] = {}
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        fields = line.split()
        if len(fields) != 2 or not fields[1].isdigit():
            raise GroundBenchError(where, f"line {number}", f"expected '<Category> <model_id>', got {line!r}")
        category, model_id = fields
        if result.get(model_id, category) != category:
            raise GroundBenchError(where, f"line {number}", f"model {model_id} listed under two categories")
        result[model_id] = category
    return result
