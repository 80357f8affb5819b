"""The ``table``, ``plot`` and ``results export`` commands: arguments in, I/O around the pure modules
(``results.table``, ``results.plots``, ``results.export``). Their command modules (``groundbench/commands/table.py``,
``plot.py``, ``results_export.py``) import this one when the command runs.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.console import Console

from groundbench.cards.notice import synthetic_notice
from groundbench.core.atomic import write_bytes, write_text
from groundbench.core.project import find_project
from groundbench.core.terminal import ResultConsole
from groundbench.errors import GroundBenchError
from groundbench.loaders.published import resolve_folder
from groundbench.results import table
from groundbench.results.export import export_run
from groundbench.results.runs import (
    Run,
    card_synthetic_configs,
    check_same_data,
    gate_differences,
    load_runs,
    read_json,
)
from groundbench.results.runs import notices as run_notices
from groundbench.scoring import layout_render
from groundbench.scoring.layouts import LayoutTable
from groundbench.scoring.notice import say_notice

err = Console(stderr=True)


def _folder(args: argparse.Namespace) -> Callable[[], Path]:
    def resolve() -> Path:
        return resolve_folder(args.data, None if args.root is None else Path(args.root).resolve())

    return resolve


def _runs(args: argparse.Namespace) -> list[Run]:
    return load_runs([Path(p) for p in args.runs], _folder(args))


def cmd_table(args: argparse.Namespace) -> int:
    runs = _runs(args)
    if args.layout is not None:
        return _layout_table(args, runs)
    built = table.build_table(runs)
    if not built.rows:
        raise GroundBenchError(args.runs[0], "metrics", "no headline metric in the given runs")
    if args.format == "terminal":
        if args.out is not None:
            raise GroundBenchError("--out", "--format", "the terminal table prints only; use markdown, latex or csv")
        for notice in built.notices:
            say_notice(err, notice)
        ResultConsole().print(table.terminal(built))
        return 0
    text = {"markdown": table.markdown, "latex": table.latex, "csv": table.to_csv}[args.format](built)
    if args.out is None:
        sys.stdout.write(text)
    else:
        write_text(Path(args.out), text)
        err.print(f"{args.format} table of {len(built.columns)} models x {len(built.rows)} rows -> {args.out}")
    for notice in built.notices:
        say_notice(err, notice)
    return 0


def _layout_table(args: argparse.Namespace, runs: list[Run]) -> int:
    """``table --layout NAME``: the official layout of every run, from the tables ``score --layout`` stored."""
    found = [(run.label, {args.layout: stored_layout(run, args.layout)}) for run in runs]
    views = layout_render.views(found, args.layout)
    notices = run_notices(runs)
    if args.format == "terminal":
        if args.out is not None:
            raise GroundBenchError("--out", "--format", "the terminal table prints only; use markdown, latex or csv")
        for notice in notices:
            say_notice(err, notice)
        console = ResultConsole()
        for view in views:
            console.print(layout_render.terminal(view))
        return 0
    render = {"markdown": layout_render.markdown, "latex": layout_render.latex}
    text = layout_render.to_csv(views) if args.format == "csv" else render[args.format](views, notices)
    if args.out is None:
        sys.stdout.write(text)
    else:
        write_text(Path(args.out), text)
        err.print(f"{args.format} {args.layout} table of {len(runs)} runs -> {args.out}")
    for notice in notices:
        say_notice(err, notice)
    return 0


def stored_layout(run: Run, name: str) -> list[LayoutTable]:
    """The run's ``layouts.NAME`` tables; a run scored without ``--layout NAME`` is refused with the command that
    stores them (the scores do not hold the per-row verdicts a layout needs)."""
    stored = (run.report.get("layouts") or {}).get(name)
    if not isinstance(stored, list):
        predictions = run.path.parent / "predictions.jsonl"
        given = predictions if predictions.is_file() else Path("PREDICTIONS")
        subset = " --subset" if (run.report.get("settings") or {}).get("subset") else ""
        how = f"groundbench score {given} --layout {name}{subset} --json {run.path}"
        raise GroundBenchError(run.path, f"layouts.{name}", f"expected the {name} tables; score with them: {how}")
    try:
        return [LayoutTable.from_dict(t) for t in stored]
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        reason = f"expected the tables `score --layout` writes ({exc})"
        raise GroundBenchError(run.path, f"layouts.{name}", reason) from exc


def _comparisons(paths: list[str]) -> list[tuple[str, dict[str, Any]]]:
    out = []
    for given in paths:
        payload = read_json(Path(given), "groundbench compare --json", "differences")
        label = f"A = {Path(str(payload.get('a'))).parent.name or payload.get('a')}, "
        label += f"B = {Path(str(payload.get('b'))).parent.name or payload.get('b')}"
        out.append((label, payload))
    return out


def _compare_notice(args: argparse.Namespace, comparisons: list[tuple[str, dict[str, Any]]]) -> str | None:
    compared = {e["config"] for _, payload in comparisons for e in payload["differences"]}
    return synthetic_notice(sorted(set(card_synthetic_configs(_folder(args)())) & compared)) or None


def cmd_plot(args: argparse.Namespace) -> int:
    from groundbench.results import plots  # matplotlib (the plots extra): only this command draws

    runs = _runs(args) if args.runs else []
    comparisons = _comparisons(args.compare)
    for path, (_, payload) in zip(args.compare, comparisons, strict=True):
        if runs and gate_differences(runs[0].gate, payload.get("gate") or {}):
            found = gate_differences(runs[0].gate, payload["gate"])[0]
            raise GroundBenchError(f"{runs[0].path} vs {path}", found.split(":")[0], f"different data ({found})")
    check_same_data(runs)
    if not runs and not comparisons:
        raise GroundBenchError("command line", "RUN", "give runs to plot, or --compare files")
    specs = plots.headline_specs(runs) + plots.gui_specs(runs)
    if comparisons:
        notice = plots.notice_of(runs) if runs else _compare_notice(args, comparisons)
        specs.append(plots.forest_spec(comparisons, notice))
    out = Path(args.out) if args.out else (find_project(args.root) or Path.cwd()) / "build" / "plots"
    written = []
    for spec in specs:
        plot = plots.render_spec(spec)
        write_bytes(out / f"{spec.name}.png", plot.png)
        write_bytes(out / f"{spec.name}.svg", plot.svg)
        written.append(spec.name)
    sidecar = {"figures": [{**spec.to_dict(), "files": [f"{spec.name}.png", f"{spec.name}.svg"]} for spec in specs]}
    write_text(out / "plots.json", json.dumps(sidecar, indent=1, sort_keys=True, ensure_ascii=False) + "\n")
    err.print(f"{len(written)} figures (PNG + SVG) and plots.json -> {out}: {', '.join(written)}")
    return 0


def cmd_results_export(args: argparse.Namespace) -> int:
    return export_run(args, _folder(args)(), err)
