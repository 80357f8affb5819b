"""Write score results: a terminal table, ``--json`` (``{"metrics": [...], ...}``) and ``--csv``."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from rich.table import Table

from groundbench.atomic import write_text

COLUMNS: tuple[str, ...] = (
    "model",
    "config",
    "stratum",
    "condition",
    "metric",
    "value",
    "n",
    "count",
    "detail",
    "tau",
    "baseline_majority",
    "blind_bound",
    "leakage",
    "baseline_image_center",
    "baseline_object_center",
    "baseline_center_click",
    "ci_low",
    "ci_high",
    "measures",
    "note",
)


def _cell(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)


def beside(m: Mapping[str, Any]) -> str:
    """The baselines and qualifiers printed in the same row as a metric."""
    parts = []
    if m.get("baseline_majority") is not None:
        parts.append(f"majority {_cell(m['baseline_majority'])}")
    if m.get("blind_bound") is not None:
        parts.append(f"blind bound {_cell(m['blind_bound'])}" + (" LEAKAGE" if m.get("leakage") else ""))
    if m.get("tau") is not None:
        parts.append(f"τ {_cell(m['tau'])}")
    if m.get("baseline_image_center") is not None:
        parts.append(f"image-centre {_cell(m['baseline_image_center'])}")
    if m.get("baseline_object_center") is not None:
        parts.append(f"object-centre {_cell(m['baseline_object_center'])}")
    if m.get("baseline_center_click") is not None:
        parts.append(f"center-click {_cell(m['baseline_center_click'])}")
    if m.get("ci_low") is not None:
        parts.append(f"95% CI [{_cell(m['ci_low'])}, {_cell(m['ci_high'])}]")
    if m.get("measures") == "echo":
        parts.append("region was supplied: measures copying, not localization")
    if m.get("value") is None and m.get("note"):
        parts.append(str(m["note"]).split(":")[0])
    return "; ".join(parts)


def terminal_table(metrics: Sequence[Mapping[str, Any]], title: str = "GroundBench score") -> Table:
    table = Table(title=title, caption="baselines over the same rows; strata never pooled; — = none / not measurable")
    for column in ("model / config / stratum / condition", "metric", "value", "n", "beside it"):
        table.add_column(column, justify="right" if column in ("value", "n") else "left")
    last = None
    for m in metrics:
        group = f"{m['model']} / {m['config']} / {m['stratum']} / {m['condition']}"
        metric = m["metric"] + (f" [{m['detail']}]" if m.get("detail") else "")
        table.add_row(group if group != last else "", metric, _cell(m["value"]), str(m["n"]), beside(m))
        last = group
    return table


def write_json(path: Path, metrics: Sequence[Mapping[str, Any]], **extra: Any) -> None:
    payload = {"metrics": [{c: m.get(c) for c in COLUMNS} for m in metrics], **extra}
    write_text(path, json.dumps(payload, indent=1, sort_keys=True, ensure_ascii=False) + "\n")


def write_csv(path: Path, metrics: Sequence[Mapping[str, Any]]) -> None:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(COLUMNS), lineterminator="\n")
    writer.writeheader()
    for m in metrics:
        writer.writerow({c: "" if m.get(c) is None else m.get(c) for c in COLUMNS})
    write_text(path, buffer.getvalue())
