"""A config's rows as the gallery's page reads them, written as data, not drawn: the page draws each row's
boxes over the image store's own file (``gallery.js``, ``overlay.js``), so the gallery writes no image.

* the **index** (``<config>/rows.js``): every row's id, facets, caption, image and the parts its thumbnail
  draws, in row order, with every repeated string (facet values, tag lists) stored once;
* the **details** (``<config>/details/<k>.js``): rows ``k * rows_per_file`` onwards, every field the row's
  view shows (the parts without their mask run lengths, the image as its path and size) and the prompt of
  every valid condition, each distinct prompt paragraph stored once per file.

Both are JavaScript calls (``groundbenchGallery.index({...})``), not JSON files: a page opened from disk
(file://) may load a script but not fetch a file. Compact JSON, tables in order of first appearance, floats
as Python writes them: the same rows give the same bytes.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from groundbench.loaders.prompts import build_prompts
from groundbench.review.preview import (
    COLORS,
    DASHES,
    MAX_UPSCALE,
    NO_TARGET,
    NO_TARGET_BAND,
    OBJECT_BOX,
    ORIGINAL,
    OTHER,
    OUTLINE,
    TARGET,
    gui_region,
    role_of,
)
from groundbench.review.report.collect import RowSummary
from groundbench.review.sheet import thumbnail_view
from groundbench.schemas.request_conditions import conditions_of

# What a row's view shows of each part: the columns of its parts table (and what the overlay draws).
PART_FIELDS = (
    "part_id",
    "category",
    "action",
    "box_quality",
    "bbox_xyxy",
    "point_xy",
    "joint_type",
    "mask_area",
    "motion_axis_2d",
    "motion_axis_3d",
    "secondary_actions",
)
ROLES = (OTHER, ORIGINAL, TARGET)  # a part's role code is its index here (and its drawing order)
DASH_STYLES = (None, *sorted({d for d in DASHES.values() if d is not None}))
MAX_ID_TAGS = 40  # a row's view labels parts with their ids up to this many parts, with numbers above
INDEX_COLUMNS = (  # a row's line of the index; the facets are numbers into the index's tables of values
    "id",
    "image",  # path inside the image store, or null: the row carries no image
    "width",
    "height",
    "stratum",
    "action",
    "class",
    "quality",
    "tags",
    "excluded",
    "reask",
    "answer",
    "instruction",
    "object_box",
    "parts",  # what the thumbnail draws: [number, role, dash, box, point] per part
    "numbered",  # 1 when the thumbnail labels its parts with their numbers
)
FACETS = ("stratum", "action", "class", "quality", "answer", "tags")


def _hex(color: tuple[int, int, int]) -> str:
    return "#" + "".join(f"{c:02x}" for c in color)


def style() -> dict[str, Any]:
    """The drawing's encoding, from ``preview`` (previews and contact sheets draw the same)."""
    return {
        "colors": [_hex(COLORS[role]) for role in ROLES],
        "outline": _hex(OUTLINE),
        "objectBox": _hex(OBJECT_BOX),
        "dashes": [list(d) if d else None for d in DASH_STYLES],
        "dashOf": {quality: DASH_STYLES.index(dash) for quality, dash in sorted(DASHES.items())},
        "maxUpscale": MAX_UPSCALE,
        "maxIdTags": MAX_ID_TAGS,
        "noTarget": _hex(NO_TARGET_BAND),
        "noTargetText": NO_TARGET,
    }


def slim(batch: pa.RecordBatch) -> pa.RecordBatch:
    """``batch`` as the gallery reads it: the image as its path and byte count (no bytes), each part as its
    ``PART_FIELDS`` (no mask run lengths, which are most of a row and which no view shows)."""
    columns = dict(zip(batch.schema.names, batch.columns, strict=True))
    image = columns.get("image")
    if image is not None:
        path, data = image.field("path"), image.field("bytes")
        columns["image"] = pa.StructArray.from_arrays(
            [path, pc.binary_length(data)], names=["path", "bytes"], mask=image.is_null()
        )
    parts = columns["parts"]
    if parts.null_count and parts.offset:  # from_arrays takes a null mask with unsliced offsets only
        parts = pa.concat_arrays([parts])
    values = parts.values
    kept = [name for name in PART_FIELDS if values.type.get_field_index(name) >= 0]
    items = pa.StructArray.from_arrays([values.field(n) for n in kept], names=kept, mask=values.is_null())
    nulls = parts.is_null() if parts.null_count else None
    columns["parts"] = pa.ListArray.from_arrays(parts.offsets, items, mask=nulls)
    return pa.RecordBatch.from_pydict(columns)


def records(batches: Iterable[pa.RecordBatch]) -> Iterator[dict[str, Any]]:
    """Every row of ``batches`` as a plain dict, slimmed (``slim``), in order."""
    for batch in batches:
        yield from slim(batch).to_pylist()


def script(call: str, *arguments: Any) -> bytes:
    """``groundbenchGallery.<call>(<arguments as JSON>);``: compact, key order as given, floats as Python
    writes them (a NaN stays NaN, which JavaScript reads). Rows hold no cycles: not checked for them."""
    text = ",".join(json.dumps(a, ensure_ascii=False, separators=(",", ":"), check_circular=False) for a in arguments)
    return f"groundbenchGallery.{call}({text});\n".encode()


class Codes:
    """Each distinct value once, numbered in order of first appearance."""

    def __init__(self) -> None:
        self.values: list[Any] = []
        self._numbers: dict[Any, int] = {}

    def __call__(self, value: Any) -> int:
        key = tuple(value) if isinstance(value, list) else value
        number = self._numbers.get(key)
        if number is None:
            number = self._numbers[key] = len(self.values)
            self.values.append(value)
        return number


def index_entry(record: dict[str, Any], summary: RowSummary) -> list[Any]:
    """A row's line of the index before ``RowIndex`` encodes it: the image as its sha256 (None when the row
    carries no image), facets as text."""
    f = summary.facets
    image = record.get("image") or {}
    return [
        summary.example_id,
        str(record.get("image_sha256")) if image.get("bytes") else None,
        record.get("width"),
        record.get("height"),
        f.stratum,
        f.action,
        f.part_class,
        f.box_quality,
        list(f.tags),
        int(f.excluded),
        int(f.reask),
        f.answer_type,
        summary.instruction,
        record.get("object_bbox_xyxy"),
        *thumbnail_parts(record),
    ]


class RowIndex:
    """The index of one config: add ``index_entry`` lines in row order, then ``payload``."""

    def __init__(self, images: Mapping[str, str]) -> None:
        self.images = images  # image sha256 -> its path inside the store
        self.codes = {facet: Codes() for facet in FACETS}
        self.rows: list[list[Any]] = []
        self._facets = [(INDEX_COLUMNS.index(facet), self.codes[facet]) for facet in FACETS]

    def add(self, entry: list[Any]) -> None:
        row = list(entry)
        row[1] = None if row[1] is None else self.images[row[1]]
        for at, codes in self._facets:
            row[at] = codes(row[at])
        self.rows.append(row)

    def payload(self, **settings: Any) -> dict[str, Any]:
        return {
            **settings,
            "style": style(),
            "values": {facet: codes.values for facet, codes in self.codes.items()},
            "columns": list(INDEX_COLUMNS),
            "rows": self.rows,
        }


def drawn_part(record: dict[str, Any], number: int, part: dict[str, Any]) -> list[Any]:
    """[number, role, dash, box, point] of one part, as the overlay draws it; a GUI polygon target adds
    [id slot (null), vertices], which the overlay draws instead of the box."""
    dash = DASHES.get(str(part.get("box_quality")))
    role = role_of(record, part.get("part_id"))
    drawn = [number, ROLES.index(role), DASH_STYLES.index(dash), part.get("bbox_xyxy"), part.get("point_xy")]
    region, vertices = gui_region(record)
    if role == TARGET and region == "polygon" and len(vertices) >= 4:
        drawn += [None, vertices]
    return drawn


def thumbnail_parts(record: dict[str, Any]) -> tuple[list[list[Any]], int]:
    """(the parts a row's thumbnail draws, 1 if it numbers them): what a contact sheet's thumbnail draws
    (``sheet.thumbnail_view``: a GUI suite row's target alone, unnumbered), each part with its number in
    the row's ``parts``."""
    shown, tags = thumbnail_view(record)
    kept = shown.get("parts") or []
    parts = [drawn_part(record, n, p) for n, p in enumerate(record.get("parts") or [], 1) if p in kept]
    return parts, int(tags == "number")


def prompts_of(record: dict[str, Any]) -> list[tuple[str, str]]:
    """(condition, prompt) of every condition the row is valid under, as the model receives it: the row's
    own ``prompts`` when it carries them, else built from the same templates."""
    own = record.get("prompts")
    if own is not None:
        return [(str(p["condition"]), str(p["text"])) for p in own]
    conditions = conditions_of(record)
    return list(zip(conditions, build_prompts(record, conditions), strict=True))


class DetailFile:
    """One details file: its rows' fields and prompts, each distinct prompt paragraph stored once."""

    def __init__(self) -> None:
        self.paragraphs = Codes()
        self.rows: list[dict[str, Any]] = []
        self.prompts: list[list[Any]] = []

    def add(self, record: dict[str, Any]) -> None:
        fields = {key: value for key, value in record.items() if key != "prompts"}
        self.rows.append(fields)
        # Paragraphs, not whole prompts: a row's conditions share the answer block, and rows their wording.
        self.prompts.append(
            [[condition, [self.paragraphs(p) for p in text.split("\n\n")]] for condition, text in prompts_of(record)]
        )

    def __len__(self) -> int:
        return len(self.rows)

    def payload(self) -> dict[str, Any]:
        return {"paragraphs": self.paragraphs.values, "rows": self.rows, "prompts": self.prompts}
