"""Features of the ``baselines`` config: one row per (config, stratum, condition, baseline).

Its rows are not records, so it has its own schema (the record schema is ``features.py``). The
definitions of every baseline live in ``scoring/baselines.py``.
"""

from __future__ import annotations

import functools

import pyarrow as pa

from groundbench.errors import GroundBenchError
from groundbench.schemas.features import stamped
from groundbench.schemas.types import Columns, List, Value

BASELINES_CONFIG = "baselines"
BASELINES_KEY = "baseline_id"  # "<config>/<stratum>/<condition>/<baseline>": the sort key


def configs_counted(rows: int, baselines: bool) -> str:
    """How every command counts a folder's configs: its configs of rows, and the baselines config apart (it holds
    each row's baseline answers, not rows to ask), so ``list``, ``assemble``, ``verify`` and ``load_dataset``'s
    config list agree."""
    counted = f"{rows} config{'s' if rows != 1 else ''} of rows"
    return f"{counted} and the {BASELINES_CONFIG} config" if baselines else counted


BASELINE_FEATURES = Columns(
    {
        "baseline_id": Value("string"),
        "config": Value("string"),
        "stratum": Value("string"),
        "condition": Value("string"),
        "baseline": Value("string"),  # majority_action, text_only_blind_bound, localization_tau, ...
        "value": Value("float64"),  # null where undefined (no rows, or no object box)
        "n": Value("int64"),  # rows the value is computed over
        "leakage": Value("bool"),  # text_only_blind_bound only: the target category determines the action
        "tau": Value("float64"),  # the threshold a hit rate was taken at
        "supplied_keys": List(Value("string")),  # the categorical text fields the bound is keyed on
        "detail": Value("string"),  # the majority action; "correct/N" of the bound or the estimate
    }
)


BASELINE_DOC = {
    "baseline_id": "<config>/<stratum>/<condition>/<baseline>: the row's key.",
    "config": "The record config the baseline is computed on.",
    "stratum": "Its stratum.",
    "condition": "The condition the baseline applies to.",
    "baseline": "majority_action, text_only_blind_bound (never below the majority), text_only_blind_estimate_loo "
    "(held-out estimate, not a bound), localization_tau, image/object_center_hit_rate_at_tau or center_click; on GUI "
    "configs with rows without a target also center_click_target_rows, always_refuse, always_refuse_refusal_rows "
    "and never_refuse_refusal_rows.",
    "value": "The baseline's value; null where undefined (no rows, or no object box).",
    "n": "Rows the value is computed over.",
    "leakage": "text_only_blind_bound only: the condition supplies the target part's category and it determines the "
    "action across objects (paper 4.1).",
    "tau": "The localization threshold a hit rate was taken at.",
    "supplied_keys": "The categorical text fields the blind bound is keyed on.",
    "detail": "The majority action, or correct/N of the bound or the estimate.",
}


def baseline_description(path: str) -> str | None:
    return BASELINE_DOC.get(path)


@functools.cache  # one schema object per version: shards compare it on every batch
def baselines_arrow_schema(dataset_version: str | None = None) -> pa.Schema:
    """The Arrow schema of a ``baselines`` shard; published copies also carry the dataset version."""
    return stamped(BASELINE_FEATURES, dataset_version)


def validate_baselines_table(table: pa.Table, where: str) -> None:
    """Exact schema (metadata aside) and well-formed ids; the values are checked by recomputing them (check-card)."""
    expected = baselines_arrow_schema()
    if not table.schema.equals(expected, check_metadata=False):
        raise GroundBenchError(where, "schema", f"expected the baselines schema {expected.names}, found {table.schema}")
    ids = table.column(BASELINES_KEY).to_pylist()
    if ids != sorted(set(ids)):
        raise GroundBenchError(where, BASELINES_KEY, "expected unique ids in ascending order")
    for row in table.select([BASELINES_KEY, "config", "stratum", "condition", "baseline"]).to_pylist():
        joined = "/".join(str(row[k]) for k in ("config", "stratum", "condition", "baseline"))
        if row[BASELINES_KEY] != joined:
            raise GroundBenchError(where, BASELINES_KEY, f"expected {joined!r}, found {row[BASELINES_KEY]!r}")
