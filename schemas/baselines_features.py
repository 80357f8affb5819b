"""Features of the ``baselines`` config: one row per (config, stratum, condition, baseline).

Its rows are not records, so it has its own schema (the record schema is ``features.py``). The
definitions of every baseline live in ``scoring/baselines.py``.
"""

from __future__ import annotations

import json

import pyarrow as pa
from datasets import Features, List, Value

from groundbench.schemas.features import FORMAT_METADATA_KEY, FORMAT_VERSION

BASELINES_CONFIG = "baselines"
BASELINES_KEY = "baseline_id"  # "<config>/<stratum>/<condition>/<baseline>": the sort key

BASELINE_FEATURES = Features(
    {
        "baseline_id": Value("string"),
        "config": Value("string"),
        "stratum": Value("string"),
        "condition": Value("string"),
        "baseline": Value("string"),  # majority_action, text_only_blind_bound, localization_tau, ...
        "value": Value("float64"),  # null where undefined (no rows, or no object box)
        "n": Value("int64"),  # rows the value is computed over
        "leakage": Value("bool"),  # text_only_blind_bound only: the bound is exactly 1.00
        "tau": Value("float64"),  # the threshold a hit rate was taken at
        "supplied_keys": List(Value("string")),  # the categorical text fields the bound is keyed on
        "detail": Value("string"),  # the majority action; "correct/N" of the bound
    }
)


def baselines_arrow_schema() -> pa.Schema:
    schema = BASELINE_FEATURES.arrow_schema
    metadata = dict(schema.metadata or {})
    metadata[FORMAT_METADATA_KEY] = json.dumps({"format_version": FORMAT_VERSION}, sort_keys=True).encode()
    return schema.with_metadata(metadata)
