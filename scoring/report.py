"""Write score results: a terminal table, ``--json`` (``{"metrics": [...], ...}``) and ``--csv``."""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from rich.markup import escape
from rich.table import Table

from groundbench.core.atomic import atomic_file, write_text
from groundbench.core.jsonindent import write_indented
from groundbench.scoring.gui import MEAN_OF_SUITES, POINTERBENCH_CONFIGS
from groundbench.scoring.headline import BASELINES, headlines

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
    "blind_estimate_loo",
    "singleton_keys",
    "leakage",
    "baseline_image_center",
    "baseline_object_center",
    "baseline_best_constant",
    "baseline_center_click",
    "baseline_every_keyword",
    "ambiguous",
    "ci_low",
    "ci_high",
    "measures",
    "note",
    "answer_format",
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
        singletons = _cell(m.get("singleton_keys"))
        parts.append(f"blind bound {_cell(m['blind_bound'])} (in-sample; singleton keys {singletons})")
        parts.append(f"held-out estimate {_cell(m.get('blind_estimate_loo'))} (leave-one-object-out, not a bound)")
    if m.get("leakage"):
        parts.append("LEAKAGE (the supplied target category determines the action across objects)")
    if m.get("tau") is not None:
        parts.append(f"τ {_cell(m['tau'])}")
    if m.get("baseline_image_center") is not None:
        parts.append(f"image-centre {_cell(m['baseline_image_center'])}")
    if m.get("baseline_object_center") is not None:
        parts.append(f"object-centre {_cell(m['baseline_object_center'])}")
    if m.get("baseline_best_constant") is not None:
        parts.append(f"best constant {_cell(m['baseline_best_constant'])}")
    if m.get("baseline_center_click") is not None:
        parts.append(f"center-click {_cell(m['baseline_center_click'])}")
    if m.get("baseline_every_keyword") is not None:
        parts.append(f"an answer naming every action {_cell(m['baseline_every_keyword'])}")
    if m.get("ambiguous") is not None:
        parts.append(f"ambiguous {m['ambiguous']} (answers naming several actions: failures)")
    if m.get("ci_low") is not None:
        parts.append(f"95% CI [{_cell(m['ci_low'])}, {_cell(m['ci_high'])}]")
    if m.get("measures") == "echo":
        parts.append("region was supplied: measures copying, not localization")
    if m.get("value") is None and m.get("note"):
        parts.append(str(m["note"]).split(":")[0])
    if str(m.get("note") or "").startswith("SUBSET"):
        parts.append("SUBSET")
    return "; ".join(parts)


def terminal_table(
    metrics: Sequence[Mapping[str, Any]], title: str = "GroundBench score", caption: str | None = None
) -> Table:
    """Every label is escaped: GUI details such as ``[caret_between]`` are text, never Rich markup."""
    caption = caption or "baselines over the same rows; strata never pooled; — = none / not measurable"
    table = Table(title=escape(title), caption=escape(caption))
    for column in ("model / config / stratum / condition", "metric", "value", "n", "beside it"):
        table.add_column(column, justify="right" if column in ("value", "n") else "left")
    last = None
    for m in metrics:
        group = f"{m['model']} / {m['config']} / {m['stratum']} / {m['condition']}"
        metric = m["metric"] + (f" [{m['detail']}]" if m.get("detail") else "")
        cells = (group if group != last else "", metric, _cell(m["value"]), str(m["n"]), beside(m))
        table.add_row(*(escape(c) for c in cells))
        last = group
    return table


def _interval(low: float | None, high: float | None) -> str:
    return "—" if low is None or high is None else f"[{low:.3f}, {high:.3f}]"


def summary_table(metrics: Sequence[Mapping[str, Any]]) -> Table:
    """What a score comes to, first: each (config, condition)'s headline figure with its interval and the
    baselines of the same rows (``scoring.headline``); the breakdown is :func:`terminal_table` (``--verbose``)."""
    found = headlines(metrics)
    models = sorted({h.model for h in found})
    label = dict(BASELINES)
    title = f"GroundBench headline figures of {models[0]}" if len(models) == 1 else "GroundBench headline figures"
    caption = "95% CI resampled by object; strata never pooled; every other metric: --verbose, or the JSON report"
    table = Table(title=escape(title), caption=escape(caption))
    for column in ("config / condition", "metric", "value", "95% CI", "n", "baselines of the same rows"):
        table.add_column(column, justify="right" if column in ("value", "n") else "left")
    last = None
    for h in found:
        group = f"{h.config} / {h.condition}" + (f" ({h.model})" if len(models) > 1 else "")
        baselines = "; ".join(f"{label[key]} {value:.3f}" for key, value in h.baselines.items())
        if h.tau is not None:
            baselines += f" (at τ {h.tau:.3f})"
        if h.ambiguous is not None:
            baselines += f"; {h.ambiguous} ambiguous answers (several actions named: failures)"
        cells = (group if group != last else "", h.metric, _cell(h.value), _interval(h.ci_low, h.ci_high), str(h.n))
        table.add_row(*(escape(c) for c in (*cells, baselines or "—")))
        last = group
    return table


def provenance_lines(gate: Mapping[str, Any]) -> list[str]:
    """What the scores were computed against: dataset version, manifests, templates, package version."""
    lines = [
        f"dataset version {gate.get('dataset_version')}, format {gate.get('format_version')}, "
        f"groundbench {gate.get('package_version')}; gate: {gate.get('status')}"
    ]
    lines += [f"manifest {config}: {sha}" for config, sha in (gate.get("manifest_sha256") or {}).items()]
    lines += [f"template {condition}: {sha}" for condition, sha in (gate.get("template_sha256") or {}).items()]
    return lines


def write_json(path: Path, payload: Mapping[str, Any], finite: bool = False) -> None:
    """Strict JSON, the bytes of ``json.dumps(payload, indent=1, sort_keys=True, ensure_ascii=False) + "\n"``:
    a NaN or infinity is refused (``finite``: written as null, as ``scoring.parse.finite_json`` would make it).

    Written as it is encoded (``groundbench.core.jsonindent``), so a large report is never held whole as text
    and again as bytes; atomically, so a refused value leaves nothing. A reply's lone surrogate (a part name
    the model answered), which has no UTF-8 form, is written as its JSON escape (``\\ud800``), which reads back
    to the same text."""
    with atomic_file(path, "wb") as handle:

        def write(text: str) -> None:
            handle.write(text.encode("utf-8", "backslashreplace"))

        write_indented(payload, write, indent=1, finite=finite)
        write("\n")


GATE_COLUMNS = ("dataset_version", "manifest_sha256", "template_sha256", "package_version")
SYNTHETIC_COLUMN = "synthetic"  # True where the row's config was built from an embedded (synthetic) sample


def is_synthetic(config: str, synthetic: Sequence[str]) -> bool:
    """Is a metric row's config synthetic (the mean of suites: is any of its PointerBench suites)?"""
    if config == MEAN_OF_SUITES:
        return any(c in synthetic for c in POINTERBENCH_CONFIGS)
    return config in synthetic


def write_csv(
    path: Path,
    metrics: Sequence[Mapping[str, Any]],
    gate: Mapping[str, Any] | None = None,
    synthetic: Sequence[str] = (),
) -> None:
    """One line per metric; the gate columns say what each line was scored against, ``synthetic`` whether
    its config is a synthetic sample (the card's ``groundbench.synthetic_configs``)."""
    gate = gate or {}
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=[*COLUMNS, *GATE_COLUMNS, SYNTHETIC_COLUMN], lineterminator="\n")
    writer.writeheader()
    for m in metrics:
        line = {c: "" if m.get(c) is None else m.get(c) for c in COLUMNS}
        line["dataset_version"] = gate.get("dataset_version") or ""
        line["manifest_sha256"] = (gate.get("manifest_sha256") or {}).get(m["config"]) or ""
        line["template_sha256"] = (gate.get("template_sha256") or {}).get(m["condition"]) or ""
        line["package_version"] = gate.get("package_version") or ""
        line[SYNTHETIC_COLUMN] = is_synthetic(str(m["config"]), synthetic)
        writer.writerow(line)
    write_text(path, buffer.getvalue())
