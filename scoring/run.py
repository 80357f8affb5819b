"""The ``score`` command's two modes, with their output: scoring a predictions file, and the sanity self-test."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.table import Table

from groundbench.errors import GroundBenchError
from groundbench.schemas.baselines_features import BASELINES_CONFIG
from groundbench.scoring.metrics import keyword_table, score
from groundbench.scoring.predictions import read_predictions, read_rows
from groundbench.scoring.published import read_config
from groundbench.scoring.report import terminal_table, write_csv, write_json
from groundbench.scoring.sanity import sanity


def run_score(
    folder: Path,
    predictions: Path,
    json_out: Path | None,
    csv_out: Path | None,
    seed: int,
    resamples: int,
    out: Console,
    err: Console,
) -> int:
    rows = read_rows(folder)
    items, kept = read_predictions(predictions, rows)
    metrics = score(items, seed=seed, resamples=resamples)
    out.print(terminal_table(metrics))
    if json_out is not None:
        write_json(
            json_out,
            metrics,
            predictions=kept,
            bootstrap={"seed": seed, "resamples": resamples, "unit": "object"},
            keywords_notes=keyword_table()["notes"],
        )
    if csv_out is not None:
        write_csv(csv_out, metrics)
    err.print(f"scored {len(items)} predictions into {len(metrics)} metric rows")
    return 0


def baseline_rows(folder: Path) -> list[dict]:
    return read_config(folder, BASELINES_CONFIG, required=False)


def run_sanity(folder: Path, config: str, out: Console, err: Console) -> int:
    if config == BASELINES_CONFIG:
        raise GroundBenchError(folder, "config", "the baselines config holds no records to score")
    rows = [row for name, row in read_rows(folder, [config]).values() if name == config]
    deviations, groups = sanity(config, rows, baseline_rows(folder))
    table = Table(title=f"sanity self-test: {config}")
    table.add_column("result")
    for line in deviations:
        table.add_row(f"DEVIATION {line}")
    if not deviations:
        emitters = "oracle, geometry, constant and echo emitters"
        table.add_row(f"ok: {emitters} behave as required on {groups} condition groups")
    out.print(table)
    return 1 if deviations else 0
