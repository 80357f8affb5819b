"""The ``table``, ``plot`` and ``results export`` commands: argument parsing and I/O around the pure modules.

``groundbench/cli.py`` registers each with one call (``register_table(sub)`` ...).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape

from groundbench.core.atomic import write_bytes, write_text
from groundbench.core.errors import GroundBenchError

err = Console(stderr=True)
DATA_HELP = "the published GroundBench folder or Hub repo id the runs were scored on (default: data/groundbench)"


def _root(args: argparse.Namespace) -> Path:
    return Path(args.root).resolve()


def _folder(args: argparse.Namespace) -> Callable[[], Path]:
    def resolve() -> Path:
        from groundbench.core.published import resolve_folder

        return resolve_folder(args.data, _root(args))

    return resolve


def _runs(args: argparse.Namespace) -> list[Any]:
    from groundbench.results.runs import load_runs

    return load_runs([Path(p) for p in args.runs], _folder(args))


def terminal_console() -> Console:
    """Width from $COLUMNS when set (rich reads it too), else the terminal's; 160 when piped."""
    columns = os.environ.get("COLUMNS", "")
    width = int(columns) if columns.isdigit() else (None if sys.stdout.isatty() else 160)
    return Console(width=width)


def cmd_table(args: argparse.Namespace) -> int:
    from groundbench.results import table

    runs = _runs(args)
    built = table.build_table(runs)
    if not built.rows:
        raise GroundBenchError(args.runs[0], "metrics", "no headline metric in the given runs")
    if args.format == "terminal":
        if args.out is not None:
            raise GroundBenchError("--out", "--format", "the terminal table prints only; use markdown, latex or csv")
        for notice in built.notices:
            err.print(escape(notice), style="bold red")
        terminal_console().print(table.terminal(built))
        return 0
    text = {"markdown": table.markdown, "latex": table.latex, "csv": table.to_csv}[args.format](built)
    if args.out is None:
        sys.stdout.write(text)
    else:
        write_text(Path(args.out), text)
        err.print(f"{args.format} table of {len(built.columns)} models x {len(built.rows)} rows -> {args.out}")
    for notice in built.notices:
        err.print(escape(notice), style="bold red")
    return 0


def register_table(sub: Any) -> None:
    p = sub.add_parser(
        "table",
        help="Models x (config, condition): headline figures with 95% intervals and the baselines of the same rows.",
        description="Read runs (scores.json files or `groundbench eval` run folders) and print models x (config, "
        "condition) with each headline metric, its 95%% interval and the baselines of the same rows; a dagger "
        "marks an interval that includes a baseline. Runs gated to different data are refused.",
    )
    p.set_defaults(func=cmd_table)
    p.add_argument("runs", nargs="+", metavar="RUN_OR_SCORES", help="scores.json files or run folders")
    p.add_argument("--format", choices=["terminal", "markdown", "latex", "csv"], default="terminal")
    p.add_argument("--out", help="write the table here (markdown, latex, csv); default: standard output")
    p.add_argument("--data", default="data/groundbench", help=DATA_HELP)


def _comparisons(paths: list[str]) -> list[tuple[str, dict[str, Any]]]:
    out = []
    for given in paths:
        path = Path(given)
        try:
            payload = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise GroundBenchError(path, "json", f"expected the JSON of `groundbench compare --json` ({exc})") from exc
        if not isinstance(payload, dict) or not isinstance(payload.get("differences"), list):
            raise GroundBenchError(path, "differences", "expected the JSON of `groundbench compare --json`")
        label = f"A = {Path(str(payload.get('a'))).parent.name or payload.get('a')}, "
        label += f"B = {Path(str(payload.get('b'))).parent.name or payload.get('b')}"
        out.append((label, payload))
    return out


def _compare_notice(args: argparse.Namespace, comparisons: list[tuple[str, dict[str, Any]]]) -> str | None:
    from groundbench.cards.render import synthetic_notice
    from groundbench.results.runs import card_synthetic_configs

    compared = {e["config"] for _, payload in comparisons for e in payload["differences"]}
    return synthetic_notice(sorted(set(card_synthetic_configs(_folder(args)())) & compared)) or None


def cmd_plot(args: argparse.Namespace) -> int:
    from groundbench.results import plots
    from groundbench.results.runs import check_same_data, gate_differences

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
    out = Path(args.out)
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


def register_plot(sub: Any) -> None:
    p = sub.add_parser(
        "plot",
        help="Figures of runs (PNG + SVG, deterministic): headline figures with intervals and baselines, GUI "
        "breakdowns, a paired-difference forest plot.",
        description="Write, for the runs (scores.json files or run folders): one figure per headline metric "
        "(each model's value and 95%% interval per config and condition, baselines as reference lines), GUI "
        "success per target type and per frame size, and with --compare the forest plot of `groundbench compare "
        "--json` files; plus plots.json, every plotted number.",
    )
    p.set_defaults(func=cmd_plot)
    p.add_argument("runs", nargs="*", metavar="RUN_OR_SCORES", help="scores.json files or run folders")
    p.add_argument(
        "--compare", action="append", default=[], metavar="COMPARE_JSON", help="`groundbench compare --json` output"
    )
    p.add_argument("--out", default="build/plots", help="folder for the figures (default: build/plots)")
    p.add_argument("--data", default="data/groundbench", help=DATA_HELP)


def cmd_results_export(args: argparse.Namespace) -> int:
    from groundbench.results.export import export_run

    return export_run(args, _folder(args)(), err)


def register_results(sub: Any) -> None:
    p = sub.add_parser("results", help="Publish results: `groundbench results export RUN --model-repo ORG/MODEL`.")
    actions = p.add_subparsers(dest="results_command", required=True, metavar="ACTION")
    e = actions.add_parser(
        "export",
        help="Write a run's Hub eval results (.eval_results/*.yaml, one per task headline); --push opens them "
        "as a pull request on the model repository.",
        description="Write the Hugging Face Hub eval-results entries of one run (.eval_results/*.yaml, one per task "
        "the dataset's eval.yaml declares), with the dataset revision, the gate fields and a link to the dataset; "
        "--push opens a pull request with them on the model repository (huggingface_hub create_commit).",
    )
    e.set_defaults(func=cmd_results_export)
    e.add_argument("run", metavar="RUN_OR_SCORES", help="a scores.json or a run folder")
    e.add_argument("--model-repo", required=True, help="ORG/MODEL: the model repository on the Hub")
    e.add_argument("--dataset", required=True, help="ORG/NAME: the published GroundBench dataset on the Hub")
    e.add_argument("--dataset-revision", help="the dataset's tag or commit (default: v<dataset_version>)")
    e.add_argument("--model", help="which model of the run (needed when the run holds several)")
    e.add_argument("--out", help="folder for .eval_results/ (default: <run folder>/hub)")
    e.add_argument("--push", action="store_true", help="open a pull request with the files on --model-repo")
    e.add_argument("--allow-synthetic", action="store_true", help="export scores on a synthetic sample build anyway")
    e.add_argument("--allow-subset", action="store_true", help="export the scores of a deliberate subset anyway")
    e.add_argument("--data", default="data/groundbench", help=DATA_HELP)
