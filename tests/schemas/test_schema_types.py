"""schemas/types.py stands in for ``datasets``' feature types so that stages start without importing it:
what it derives (the Arrow schema with its ``huggingface`` metadata, ``to_dict()``) must equal what
``datasets`` derives from the same columns built from its own types, byte for byte."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import datasets
import pyarrow as pa
import pytest

from groundbench.schemas.baselines_features import BASELINE_FEATURES
from groundbench.schemas.features import FEATURES, PUBLISHED_FEATURES
from groundbench.schemas.types import Columns, Image, List, Value

REPO = Path(__file__).resolve().parents[2]
SCHEMAS = {"record": FEATURES, "published": PUBLISHED_FEATURES, "baselines": BASELINE_FEATURES}
HEAVY = ("datasets", "pandera", "pandas", "polars", "dask", "scipy", "cv2", "matplotlib", "torch")
# What a stage module may bring in when imported: only what the stage itself calls.
STAGE_LIBRARIES = {
    "assemble": {"datasets", "pandas"},  # the card's dataset_info and the Parquet options are datasets' own
    "bake": {"pandera", "pandas", "polars"},  # the row checks are pandera schemas (on polars frames)
}


def _as_datasets(feature: Any) -> Any:
    """The same column built from datasets' own types (independently of types.py's mapping)."""
    if isinstance(feature, Value):
        return datasets.Value(feature.dtype)
    if isinstance(feature, Image):
        return datasets.Image()
    if isinstance(feature, List):
        return datasets.List(_as_datasets(feature.feature), length=feature.length)
    return {name: _as_datasets(sub) for name, sub in feature.items()}


@pytest.mark.parametrize("name", SCHEMAS)
def test_the_schema_is_what_datasets_derives(name: str) -> None:
    ours = SCHEMAS[name]
    theirs = datasets.Features({column: _as_datasets(sub) for column, sub in ours.items()})
    assert ours.to_dict() == theirs.to_dict()
    assert list(ours.to_dict()) == list(theirs.to_dict())
    assert ours.arrow_schema.equals(theirs.arrow_schema, check_metadata=True)
    assert ours.arrow_schema.serialize().to_pybytes() == theirs.arrow_schema.serialize().to_pybytes()
    assert ours.to_datasets() == theirs


def test_every_type_the_schemas_use_maps_as_datasets_maps_it() -> None:
    columns = Columns(
        {
            "s": Value("string"),
            "b": Value("bool"),
            "i": Value("int32"),
            "l": Value("int64"),
            "f": Value("float64"),
            "image": Image(),
            "fixed": List(Value("float64"), length=4),
            "any": List(Value("string")),
            "rows": List({"x": Value("int32"), "inner": List(Value("int64"), length=2)}),
            "struct": {"a": {"b": Value("bool")}},
        }
    )
    theirs = datasets.Features({column: _as_datasets(sub) for column, sub in columns.items()})
    assert columns.arrow_schema.equals(theirs.arrow_schema, check_metadata=True)
    assert columns.arrow_schema.field("fixed").type == pa.list_(pa.float64(), 4)
    # Read back by datasets, the metadata gives the Image feature, not a struct.
    assert datasets.Features.from_arrow_schema(columns.arrow_schema)["image"] == datasets.Image()


def test_an_unknown_dtype_is_refused() -> None:
    with pytest.raises(ValueError, match="float16"):
        Value("float16")


def _stage_modules() -> list[str]:
    return sorted(path.stem for path in (REPO / "groundbench/stages").glob("*.py") if "\nNAME = " in path.read_text())


@pytest.mark.parametrize("stage", _stage_modules())
def test_a_stage_imports_only_the_libraries_it_calls(stage: str) -> None:
    code = (
        f"import sys; import groundbench.stages.{stage}; "
        f"print(' '.join(sorted(m for m in {HEAVY!r} if m in sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert set(out.split()) <= STAGE_LIBRARIES.get(stage, set()), out
