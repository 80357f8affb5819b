"""Validation: exact Arrow schema equality, then value rules as a ``pandera.polars`` schema.

Each rule is one check with a name that says what it demands; a failure names the shard, the
check and the first offending example ids.
"""

from __future__ import annotations

import pandera.polars as pa
import polars as pl
import pyarrow

from groundbench.errors import GroundBenchError
from groundbench.schemas.conditions import ALL_CONDITIONS, HIGHLIGHT_SAFE
from groundbench.schemas.features import arrow_schema
from groundbench.schemas.folders import row_sources
from groundbench.schemas.rows import REFUSAL_RULE
from groundbench.schemas.vocab import (
    ACTIONS,
    BOX_QUALITIES,
    EXCLUSION_TAGS,
    FLAGS,
    JOINT_TYPES,
    NO_ACTION,
    RENDER_KINDS,
    STRATA,
)

# The row `source` values, as the source folders' columns declare them (converters/<name>/columns.py).
SOURCES: tuple[str, ...] = row_sources()
ACTION_VALUES = [*ACTIONS, NO_ACTION]


def _parts(data: pa.PolarsData) -> pl.LazyFrame:
    """One row per (record, candidate part), with the record's image size and target."""
    return (
        data.lazyframe.with_row_index("_row")
        .select("_row", "example_id", "width", "height", "target_part_id", "target_action", "parts")
        .explode("parts")
        .unnest("parts")
    )


def _all_parts(data: pa.PolarsData, ok: pl.Expr) -> pl.LazyFrame:
    """Per record: does every candidate part satisfy ``ok``? (one output row per record, in order)"""
    return _parts(data).group_by("_row").agg(ok.fill_null(False).all().alias("ok")).sort("_row").select("ok")


def _per_row(data: pa.PolarsData, expr: pl.Expr) -> pl.LazyFrame:
    return data.lazyframe.select(expr.alias("ok"))


def _refusal() -> pl.Expr:
    return (pl.col("success_rule").struct.field("kind") == REFUSAL_RULE).fill_null(False)


def parts_not_empty(data: pa.PolarsData) -> pl.LazyFrame:
    """Every row offers candidate parts, except a refusal row, which has no target and none at all."""
    return _per_row(data, (pl.col("parts").list.len() > 0) | (_refusal() & (pl.col("parts").list.len() == 0)))


def part_boxes_inside_image(data: pa.PolarsData) -> pl.LazyFrame:
    box = pl.col("bbox_xyxy")
    x0, y0, x1, y1 = (box.arr.get(i) for i in range(4))
    ok = (x0 >= 0) & (y0 >= 0) & (x0 < x1) & (y0 < y1) & (x1 <= pl.col("width")) & (y1 <= pl.col("height"))
    return _all_parts(data, ok)


def part_points_inside_image(data: pa.PolarsData) -> pl.LazyFrame:
    x, y = pl.col("point_xy").arr.get(0), pl.col("point_xy").arr.get(1)
    ok = (x >= 0) & (y >= 0) & (x <= pl.col("width")) & (y <= pl.col("height"))
    return _all_parts(data, ok)


def part_masks_cover_their_box(data: pa.PolarsData) -> pl.LazyFrame:
    """A part's ``mask_rle`` (schemas/mask_rle.py) needs its visible box: runs >= 0 adding up to the box's
    pixels, 1-runs adding up to ``mask_area``."""
    rle, box = pl.col("mask_rle"), pl.col("visible_bbox_xyxy")
    pixels = (box.list.get(2, null_on_oob=True) - box.list.get(0, null_on_oob=True)) * (
        box.list.get(3, null_on_oob=True) - box.list.get(1, null_on_oob=True)
    )
    ok = (
        (rle.list.min() >= 0)
        & (rle.list.sum() == pixels)
        & (rle.list.gather_every(2, offset=1).list.sum() == pl.col("mask_area"))
    )
    return _all_parts(data, rle.is_null() | ok)


def part_vocabularies(data: pa.PolarsData) -> pl.LazyFrame:
    ok = (
        pl.col("action").is_in(ACTION_VALUES)
        & pl.col("box_quality").is_in(list(BOX_QUALITIES))
        & pl.col("joint_type").is_in(list(JOINT_TYPES))
        & pl.col("part_id").is_not_null()
    )
    return _all_parts(data, ok)


def part_ids_unique_per_row(data: pa.PolarsData) -> pl.LazyFrame:
    ids = pl.col("parts").list.eval(pl.element().struct.field("part_id"))
    return _per_row(data, ids.list.n_unique() == ids.list.len())


def target_names_one_part(data: pa.PolarsData) -> pl.LazyFrame:
    """``target_part_id`` matches exactly one candidate part, and ``target_action`` is that part's; a refusal
    row has no parts and a null ``target_part_id`` instead (its ``target_action`` is ``none``, as every GUI row's)."""
    matches = (
        data.lazyframe.with_row_index("_row")
        .with_columns((_refusal() & pl.col("target_part_id").is_null()).alias("_none"))
        .select("_row", "_none", "target_part_id", "target_action", "parts")
        .explode("parts")  # an empty list gives one row of nulls: no hit
        .unnest("parts")
        .group_by("_row")
        .agg(
            pl.col("_none").first().alias("none"),
            (pl.col("part_id") == pl.col("target_part_id")).fill_null(False).sum().alias("hits"),
            ((pl.col("part_id") == pl.col("target_part_id")) & (pl.col("action") == pl.col("target_action")))
            .fill_null(False)
            .sum()
            .alias("agree"),
        )
    )
    ok = ((pl.col("hits") == 1) & (pl.col("agree") == 1)) | (pl.col("none") & (pl.col("hits") == 0))
    return matches.sort("_row").select(ok.alias("ok"))


def conditions_valid_for_stratum(data: pa.PolarsData) -> pl.LazyFrame:
    highlighted = pl.col("render").struct.field("kind") == "highlighted"
    suite = pl.col("stratum") == "suite"
    all_ok = pl.col("conditions").list.eval(pl.element().is_in(list(ALL_CONDITIONS))).list.all()
    safe_ok = pl.col("conditions").list.eval(pl.element().is_in(list(HIGHLIGHT_SAFE))).list.all()
    ok = pl.when(suite).then(pl.col("conditions").list.len() == 0).when(highlighted).then(safe_ok).otherwise(all_ok)
    return _per_row(data, ok.fill_null(False))


def excluded_iff_tagged(data: pa.PolarsData) -> pl.LazyFrame:
    tagged = pl.col("exclusion_tags").list.len() > 0
    known = pl.col("exclusion_tags").list.eval(pl.element().is_in(list(EXCLUSION_TAGS))).list.all()
    return _per_row(data, ((pl.col("excluded") == tagged) & known).fill_null(False))


def flags_known(data: pa.PolarsData) -> pl.LazyFrame:
    known = pl.col("flags").list.eval(pl.element().is_in(list(FLAGS))).list.all()
    return _per_row(data, known.fill_null(True))


def object_box_inside_image(data: pa.PolarsData) -> pl.LazyFrame:
    box = pl.col("object_bbox_xyxy")
    x0, y0, x1, y1 = (box.arr.get(i) for i in range(4))
    ok = (x0 >= 0) & (y0 >= 0) & (x0 < x1) & (y0 < y1) & (x1 <= pl.col("width")) & (y1 <= pl.col("height"))
    return _per_row(data, box.is_null() | ok.fill_null(False))


def render_kind_known(data: pa.PolarsData) -> pl.LazyFrame:
    return _per_row(data, pl.col("render").struct.field("kind").is_in(list(RENDER_KINDS)).fill_null(False))


RECORD_SCHEMA = pa.DataFrameSchema(
    {
        "example_id": pa.Column(pl.String, unique=True, nullable=False, checks=pa.Check.str_length(min_value=1)),
        "source": pa.Column(pl.String, checks=pa.Check.isin(list(SOURCES))),
        "stratum": pa.Column(pl.String, checks=pa.Check.isin(list(STRATA))),
        "object_id": pa.Column(pl.String, nullable=False),
        "image_sha256": pa.Column(pl.String, checks=pa.Check.str_matches(r"^[0-9a-f]{64}$")),
        "width": pa.Column(pl.Int32, checks=pa.Check.gt(0)),
        "height": pa.Column(pl.Int32, checks=pa.Check.gt(0)),
        "target_part_id": pa.Column(pl.String, nullable=True),  # null only on refusal rows (target_names_one_part)
        "target_action": pa.Column(pl.String, checks=pa.Check.isin(ACTION_VALUES)),
        "excluded": pa.Column(pl.Boolean, nullable=False),
        # Derived from the image column (its bytes stay out of validation: nothing to check there
        # but presence, and copying them into polars would double the memory).
        "image_has_bytes": pa.Column(pl.Boolean, checks=pa.Check.eq(True)),
    },
    checks=[
        pa.Check(check, name=check.__name__)
        for check in (
            parts_not_empty,
            part_boxes_inside_image,
            part_points_inside_image,
            part_masks_cover_their_box,
            part_vocabularies,
            part_ids_unique_per_row,
            target_names_one_part,
            conditions_valid_for_stratum,
            excluded_iff_tagged,
            flags_known,
            object_box_inside_image,
            render_kind_known,
        )
    ],
    strict=False,  # column set and types are enforced exactly by the Arrow schema comparison
)


def check_arrow_schema(schema: pyarrow.Schema, where: str) -> None:
    expected = arrow_schema()
    if not schema.equals(expected, check_metadata=True):
        differing = [f.name for f in expected if f.name not in schema.names or schema.field(f.name).type != f.type]
        extra = [name for name in schema.names if name not in expected.names]
        detail = f"columns differing: {differing}, unexpected: {extra}" if differing or extra else "metadata differs"
        raise GroundBenchError(where, "schema", f"expected the exact GroundBench record schema; {detail}")


def validate_table(table: pyarrow.Table, where: str) -> None:
    """Raise ``GroundBenchError`` naming the failed rule and offending rows, or return quietly."""
    check_arrow_schema(table.schema, where)
    # Chunk by chunk: combine_chunks() would copy every image's bytes into one buffer first.
    has_bytes = pyarrow.chunked_array(
        [chunk.field("bytes").is_valid() for chunk in table.column("image").chunks], pyarrow.bool_()
    )
    frame = pl.from_arrow(table.drop_columns(["image"]).append_column("image_has_bytes", has_bytes))
    assert isinstance(frame, pl.DataFrame)
    try:
        RECORD_SCHEMA.validate(frame, lazy=True)
    except (pa.errors.SchemaErrors, pa.errors.SchemaError) as exc:
        raise GroundBenchError(where, "value rules", _summarise(exc, frame)) from exc


def _summarise(exc: Exception, frame: pl.DataFrame) -> str:
    failures = getattr(exc, "failure_cases", None)
    if not isinstance(failures, pl.DataFrame) or failures.is_empty():
        return str(exc).splitlines()[0]
    ids = frame["example_id"]
    failures = failures.with_columns(
        pl.when(pl.col("schema_context") == "Column")
        .then(pl.col("column").cast(pl.String) + ": " + pl.col("check").cast(pl.String))
        .otherwise(pl.col("check").cast(pl.String))
        .alias("rule")
    )
    lines = []
    for rule in sorted(set(failures["rule"].to_list())):
        rows = failures.filter(pl.col("rule") == rule)
        index = [i for i in rows["index"].to_list() if i is not None][:3]
        where = ", ".join(str(ids[i]) for i in index if i < len(ids)) or "whole table"
        lines.append(f"{rule} failed on {rows.height} row(s), e.g. {where}")
    return "; ".join(lines)
