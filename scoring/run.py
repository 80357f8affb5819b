"""The ``score`` and ``compare`` commands' output: a thin layer over :mod:`groundbench.scoring.api`."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from groundbench.cards.notice import synthetic_notice
from groundbench.core.atomic import write_text
from groundbench.errors import GroundBenchError
from groundbench.loaders.records import read_config, read_records
from groundbench.schemas.baselines_features import BASELINES_CONFIG
from groundbench.scoring.api import ScoreOptions, ScoreReport, check_resamples, score_path
from groundbench.scoring.compare import compare
from groundbench.scoring.formats import DEFAULT, parse_format
from groundbench.scoring.gate import folder_gate
from groundbench.scoring.layout_render import terminal, views
from groundbench.scoring.layouts import LayoutTable
from groundbench.scoring.notice import say_synthetic
from groundbench.scoring.predictions import expand, join, read_prediction_lines, read_rows
from groundbench.scoring.report import provenance_lines, summary_table, terminal_table, write_csv, write_json
from groundbench.scoring.sanity import sanity


@dataclass(frozen=True)
class ScoreOutputs:
    """The files ``score`` writes besides what it prints (None: not written)."""

    json: Path | None = None  # the whole report (``ScoreReport.to_dict``)
    csv: Path | None = None  # the metrics, with the gate columns
    missing: Path | None = None  # the expected rows without a prediction, one JSON line each


def run_score(
    folder: Path,
    predictions: Path,
    options: ScoreOptions,
    outputs: ScoreOutputs,
    out: Console,
    err: Console,
    verbose: bool = False,
) -> int:
    """Score, write the outputs asked for, and print the result first: the headline figures beside their
    baselines (with ``verbose``, every metric and the gate's hashes too), then the official tables asked for
    (``options.layouts``); notices one line each, once."""
    report = score_path(predictions, folder, options)
    print_banners(report.banners, report.notice, report.synthetic_configs, err)
    if report.warning:
        err.print(escape(report.warning), style="bold yellow", soft_wrap=True)
    write_outputs(report, outputs)
    print_result(report.metrics, report.gate, out, verbose, report.answer_formats)
    print_layouts(report.layouts, out)
    err.print(
        f"scored {len(report.predictions)} predictions ({len(report.missing)} expected rows missing, "
        f"{len(report.excluded_predictions)} for excluded rows not scored) into {len(report.metrics)} metric rows",
        soft_wrap=True,
    )
    return 0


def write_outputs(report: ScoreReport, outputs: ScoreOutputs) -> None:
    if outputs.json is not None:
        write_json(outputs.json, report.parts(), finite=True)
    if outputs.csv is not None:
        write_csv(outputs.csv, report.metrics, report.gate, report.synthetic_configs)
    if outputs.missing is not None:
        write_text(outputs.missing, "".join(json.dumps(m, sort_keys=True) + "\n" for m in report.missing))


def print_layouts(layouts: Mapping[str, list[LayoutTable]], out: Console) -> None:
    """Each official table asked for (``--layout``), in the terminal form of ``scoring.layout_render``."""
    for name in layouts:
        for view in views([("", dict(layouts))], name):
            out.print(terminal(view))


def print_banners(banners: Sequence[str], notice: str | None, synthetic: Sequence[str], err: Console) -> None:
    """The report's banners, one line each; the synthetic notice as its one line (the JSON keeps it whole)."""
    for banner in banners:
        if banner == notice:
            say_synthetic(err, synthetic)
            continue
        loud = any(word in banner for word in ("OVERRIDDEN", "NOT GATED", "SUBSET"))
        err.print(escape(banner), style="bold red" if loud else "bold", soft_wrap=True)


def print_result(
    metrics: Sequence[Mapping[str, Any]],
    gate: Mapping[str, Any],
    out: Console,
    verbose: bool,
    answer_formats: Mapping[str, Mapping[str, Any]] | None = None,
) -> None:
    """The data scored against (one line), each model's answer format, and the headline table; with ``verbose``
    the breakdown after it."""
    out.print(escape(provenance_lines(gate)[0]))
    for model, fmt in (answer_formats or {}).items():
        out.print(escape(f"answer format {model}: {fmt['spec']}"))
    out.print(summary_table(metrics))
    if verbose:
        print_breakdown(metrics, gate, out)


def print_breakdown(metrics: Sequence[Mapping[str, Any]], gate: Mapping[str, Any], out: Console) -> None:
    """Every manifest and template hash the scores were gated to, then every metric."""
    for line in provenance_lines(gate)[1:]:
        out.print(escape(line))
    out.print(terminal_table(metrics))


def run_compare(
    folder: Path,
    a: Path,
    b: Path,
    seed: int,
    resamples: int,
    json_out: Path | None,
    out: Console,
    err: Console | None = None,
    answer_formats: Sequence[str] = (DEFAULT,),
) -> int:
    """The paired differences on ``out``; the synthetic notice on ``err`` (default: standard error).
    ``answer_formats``: one format reading both files' lines that name none, or two (A's, then B's)."""
    check_resamples(resamples)
    formats = [parse_format(spec) for spec in answer_formats]  # a misspelt format fails before any file is read
    if len(formats) not in (1, 2):
        reason = f"given {len(formats)} times: expected once (both files) or twice (A's, then B's)"
        raise GroundBenchError("command line", "--answer-format", reason)
    gate = folder_gate(folder)
    rows = read_rows(folder)
    sides = []
    for path, fmt in zip((a, b), (formats[0], formats[-1]), strict=True):
        joined = join(read_prediction_lines(path), rows, gate, source=str(path), answer_format=fmt)
        sides.append(expand(joined.items, rows, joined.seen)[0])
    entries = compare(sides[0], sides[1], seed, resamples)
    if not entries:
        raise GroundBenchError(b, "condition", f"no (config, condition) is scored by both {a.name} and {b.name}")
    synthetic = sorted({e["config"] for e in entries} & set(gate.synthetic_configs))
    notice = synthetic_notice(synthetic)  # whole in the JSON, one line on the terminal
    say_synthetic(err or Console(stderr=True), synthetic)
    table = Table(title=escape(f"paired difference A - B (A = {a.name}, B = {b.name}); 95% CI resampled by object"))
    for column in ("config / condition", "metric", "n", "A", "B", "A - B", "95% CI"):
        table.add_column(column)
    for e in entries:
        table.add_row(
            *(
                escape(str(c))
                for c in (
                    f"{e['config']} / {e['condition']}",
                    e["metric"],
                    e["n"],
                    f"{e['value_a']:.3f}",
                    f"{e['value_b']:.3f}",
                    f"{e['difference']:+.3f}",
                    f"[{e['ci_low']:+.3f}, {e['ci_high']:+.3f}]" if e["ci_low"] is not None else "—",
                )
            )
        )
    out.print(table)
    if json_out is not None:
        payload = {
            "a": str(a),
            "b": str(b),
            "gate": gate.to_dict(),
            "seed": seed,
            "resamples": resamples,
            "answer_formats": {"a": formats[0].spec, "b": formats[-1].spec},
            "differences": entries,
            "synthetic_configs": synthetic,
            "notice": notice or None,
        }
        write_json(json_out, payload)
    return 0


def run_sanity(folder: Path, config: str, out: Console, err: Console) -> int:
    rows = read_records(folder, config)  # baselines: refused as any name that is not a config of records
    deviations, groups = sanity(config, rows, read_config(folder, BASELINES_CONFIG, required=False))
    table = Table(title=escape(f"sanity self-test: {config}"))
    table.add_column("result")
    for line in deviations:
        table.add_row(escape(f"DEVIATION {line}"))
    if not deviations:
        emitters = "oracle, geometry, constant, centre-click, best-constant, coverage and echo emitters"
        table.add_row(escape(f"ok: {emitters} behave as required on {groups} condition groups"))
    out.print(table)
    return 1 if deviations else 0
