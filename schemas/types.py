"""The column types of GroundBench's schemas, without importing ``datasets``.

``Value``, ``List`` and ``Image`` mirror the ``datasets`` feature types of the same names (the subset the
schemas use) and :class:`Columns` mirrors ``datasets.Features``: ``.arrow_schema`` is the Arrow schema
``datasets`` derives, ``huggingface`` metadata included, and ``.to_dict()`` its ``Features.to_dict()``. Every
stage imports the record schema, and importing ``datasets`` costs a stage 1-2 s of start-up; only the stages
that write ``datasets`` objects (the published folder's card YAML) call :meth:`Columns.to_datasets`.
``tests/schemas/test_schema_types.py`` holds both equal to what ``datasets`` makes of the same columns.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeAlias

import pyarrow as pa

if TYPE_CHECKING:
    from datasets import Features

ARROW_TYPES = {
    "string": pa.string(),
    "bool": pa.bool_(),
    "int32": pa.int32(),
    "int64": pa.int64(),
    "float64": pa.float64(),
}


@dataclass(frozen=True)
class Value:
    dtype: str

    def __post_init__(self) -> None:
        if self.dtype not in ARROW_TYPES:
            raise ValueError(f"Value({self.dtype!r}): expected one of {sorted(ARROW_TYPES)}")


@dataclass(frozen=True)
class List:
    feature: Feature
    length: int = -1  # -1: any length; else a fixed-size list


@dataclass(frozen=True)
class Image:
    """Image bytes and path, as ``datasets.Image`` stores them (decoded by ``datasets`` on reading)."""


Feature: TypeAlias = "Value | List | Image | dict[str, Feature]"


def arrow_type(feature: Feature) -> pa.DataType:
    if isinstance(feature, Value):
        return ARROW_TYPES[feature.dtype]
    if isinstance(feature, Image):
        return pa.struct([pa.field("bytes", pa.binary()), pa.field("path", pa.string())])
    if isinstance(feature, List):
        inner = arrow_type(feature.feature)
        return pa.list_(inner, feature.length) if feature.length != -1 else pa.list_(inner)
    return pa.struct([pa.field(name, arrow_type(sub)) for name, sub in feature.items()])


def hf_dict(feature: Feature) -> dict[str, Any]:
    """What ``datasets`` writes for the feature (``Features.to_dict()``'s entry), key order included."""
    if isinstance(feature, Value):
        return {"dtype": feature.dtype, "_type": "Value"}
    if isinstance(feature, Image):
        return {"_type": "Image"}
    if isinstance(feature, List):
        fixed = {"length": feature.length} if feature.length != -1 else {}
        return {"feature": hf_dict(feature.feature), **fixed, "_type": "List"}
    return {name: hf_dict(sub) for name, sub in feature.items()}


class Columns(dict[str, Feature]):
    """A table's columns in order: the record schema, the published one, the baselines'."""

    def to_dict(self) -> dict[str, Any]:
        return hf_dict(dict(self))

    @functools.cached_property  # built once: the columns are not changed after the module defines them
    def arrow_schema(self) -> pa.Schema:
        # datasets keeps its features in the schema metadata: a reader gets Image back, not a struct.
        metadata = {"huggingface": json.dumps({"info": {"features": self.to_dict()}})}
        return pa.schema([pa.field(name, arrow_type(sub)) for name, sub in self.items()], metadata=metadata)

    def to_datasets(self) -> Features:
        from datasets import Features

        return Features.from_dict(self.to_dict())
