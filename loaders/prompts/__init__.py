"""Deterministic prompts for every condition, from versioned templates whose hash goes into each request.

One template per condition (``templates/<condition>.txt``) plus the shared answer block
(``answer.txt``: the fixed 11-action vocabulary, the JSON answer schema with part, action, point
and box, and the absolute-pixel convention). ``<condition>/text_only`` reuses its base prompt word
for word; only the image is withheld. Changing any template file changes its hash; bump
``TEMPLATE_VERSION`` with it so a request always names the wording it was asked with.

The documented answer schema (one bare JSON object)::

    {"part": str, "action": one of ACTIONS, "point": [x, y], "box": [x0, y0, x1, y1]}

GUI rows ask for ``{"point": [x, y]}`` or ``{"box": [x0, y0, x1, y1]}`` according to their
``answer_type``; the free-form variant asks for plain prose.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from functools import cache, lru_cache
from importlib import resources
from string import Template
from typing import Any

from groundbench.errors import GroundBenchError
from groundbench.schemas.request_conditions import (
    FREE_FORM,
    GUI,
    base_condition,
    check_condition,
    is_text_only,
    row_allows,
)
from groundbench.schemas.rows import target_part
from groundbench.schemas.vocab import ACTIONS

TEMPLATE_VERSION = "v1"
ANSWER_BLOCK = "answer"


@cache
def template_text(name: str) -> str:
    return resources.files("groundbench.loaders.prompts").joinpath("templates", f"{name}.txt").read_text("utf-8")


@cache
def _template(name: str) -> tuple[Template, tuple[str, ...]]:
    """A template and the placeholders it uses."""
    template = Template(template_text(name))
    return template, tuple(template.get_identifiers())


@lru_cache(maxsize=4096)
def _filled(name: str, values: tuple[str, ...]) -> str:
    """A template filled with ``values`` (of its placeholders, in order): rows that share them share the text."""
    template, keys = _template(name)
    return template.substitute(dict(zip(keys, values, strict=True))).strip()


def template_names(condition: str) -> tuple[str, ...]:
    """The template files a condition's prompt is made of, in order."""
    base = base_condition(condition)
    return (base,) if base in (GUI, FREE_FORM) else (base, ANSWER_BLOCK)


@cache  # the templates are the package's own files, read once (template_text): one hash per condition
def template_hash(condition: str) -> str:
    """sha256 over the version and the exact bytes of every template the prompt uses."""
    digest = hashlib.sha256(TEMPLATE_VERSION.encode())
    for name in template_names(condition):
        digest.update(b"\0" + name.encode() + b"\0" + template_text(name).encode())
    return digest.hexdigest()


def _num(value: float) -> str:
    """Integers print without a decimal point; anything else with two decimals (deterministic)."""
    value = float(value)
    return str(int(value)) if value.is_integer() else f"{value:.2f}"


def _vector(values: Sequence[float]) -> str:
    return "[" + ", ".join(_num(v) for v in values) + "]"


def _motion_axis(part: Mapping[str, Any]) -> str:
    if part.get("motion_axis_3d"):
        return f"the 3-D direction {_vector(part['motion_axis_3d'])}"
    if part.get("motion_axis_2d"):
        return f"the image direction {_vector(part['motion_axis_2d'])} (x right, y down)"
    return "unknown"


def fields(row: Mapping[str, Any]) -> dict[str, str]:
    """Every placeholder a template may use, for one row."""
    part = target_part(row) or {}
    answer_type = row.get("answer_type") or "point"
    return {
        "actions": ", ".join(ACTIONS),
        "width": str(row["width"]),
        "height": str(row["height"]),
        "object_category": str(row.get("object_category") or "object").replace("_", " "),
        "part_id": str(row.get("target_part_id")),
        "part_category": str(part.get("category")),
        "point": _vector(part["point_xy"]) if part.get("point_xy") else "unknown",
        "box": _vector(part["bbox_xyxy"]) if part.get("bbox_xyxy") else "unknown",
        "joint_type": str(part.get("joint_type") or "unknown"),
        "motion_axis": _motion_axis(part),
        "instruction": str(row.get("instruction") or ""),
        "answer_shape": '{"box": [x0, y0, x1, y1]} (left, top, right, bottom)'
        if answer_type == "box"
        else '{"point": [x, y]}' + (REFUSAL_CLAUSE if allows_refusal(row) else ""),
    }


# Configs with rows whose element is not on the screen (OSWorld-G's refusal rows) tell every row how to say so,
# in the answer's own syntax: the official rule credits a refusal row only for a click with both coordinates
# below 0, and the same sentence on every row of the config gives nothing away.
REFUSAL_CLAUSE = ', or {"point": [-1, -1]} if nothing on the screen matches the instruction'
REFUSAL_SOURCES = ("grounding_eval",)  # extras.gui.eval_type of sources with refusal rows (OSWorld-G)


def allows_refusal(row: Mapping[str, Any]) -> bool:
    return ((row.get("extras") or {}).get("gui") or {}).get("eval_type") in REFUSAL_SOURCES


def build_prompt(row: Mapping[str, Any], condition: str) -> str:
    return build_prompts(row, [condition])[0]


def build_prompts(row: Mapping[str, Any], conditions: Sequence[str]) -> list[str]:
    """``build_prompt`` of one row under each of ``conditions``. A template is filled once for the placeholder
    values it uses (conditions share the answer block, rows their object's wording): the gallery builds the
    prompts of every row."""
    names = [template_names(check_condition(c, "request")) for c in conditions]
    values = fields(row)
    texts = {name: _filled(name, tuple(map(values.__getitem__, _template(name)[1]))) for name in set().union(*names)}
    return ["\n\n".join(texts[n] for n in condition) for condition in names]


def request(row: Mapping[str, Any], config: str, condition: str, image_path: str | None) -> dict[str, Any]:
    """One request line: what any harness needs to ask a model, with the template's hash."""
    if not row_allows(row, condition):
        raise GroundBenchError(config, "condition", f"{row['example_id']}: {condition} is not valid for this row")
    withheld = is_text_only(condition)
    return {
        "example_id": row["example_id"],
        "config": config,
        "condition": condition,
        "prompt": build_prompt(row, condition),
        "image": None
        if withheld
        else {"sha256": row["image_sha256"], "path": image_path, "width": row["width"], "height": row["height"]},
        "template_version": TEMPLATE_VERSION,
        "template_sha256": template_hash(condition),
    }
