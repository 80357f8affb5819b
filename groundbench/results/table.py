"""``groundbench table``: models x (config, condition) with the headline figure, its 95% interval and the
baselines of the same rows beside it, as a terminal table, Markdown, LaTeX (booktabs) or CSV.

A cell is ``value [ci_low, ci_high]``; a dagger marks a model whose interval includes a baseline of its
row (it is not shown to beat that baseline). Baseline cells show the value all models share; where runs
scored different rows of the same group (a ``--limit`` subset), their baselines differ and the cell says
``varies`` (each model's mark uses its own; the CSV has every model's). Pure: runs in, text out.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass, field

from rich.markup import escape
from rich.table import Table

from groundbench.core.latex import tex
from groundbench.results.runs import Run, notices
from groundbench.scoring.headline import BASELINES, Headline, headlines

MARK = "†"
KEY = f"{MARK} = the model's 95% interval includes a baseline of the same rows; — = none / not measurable"
HEAD = ("config", "stratum", "condition", "metric", "n")
VARIES = "varies"


@dataclass
class Row:
    config: str
    stratum: str
    condition: str
    metric: str
    cells: dict[str, Headline] = field(default_factory=dict)  # column label -> the model's headline

    def n(self) -> str:
        counts = sorted({h.n for h in self.cells.values()})
        return "/".join(str(c) for c in counts)

    def baseline(self, column: str) -> float | str | None:
        values = {h.baselines[column] for h in self.cells.values() if column in h.baselines}
        if not values:
            return None
        return values.pop() if len(values) == 1 else VARIES


@dataclass(frozen=True)
class ResultsTable:
    columns: list[str]  # one per (run, model)
    rows: list[Row]
    notices: list[str]
    dataset_version: str | None
    runs: list[Run]
    column_runs: dict[str, Run]

    @property
    def baseline_columns(self) -> list[tuple[str, str]]:
        return [(key, label) for key, label in BASELINES if any(r.baseline(key) is not None for r in self.rows)]


def column_label(model: str, run: Run, ambiguous: bool) -> str:
    return f"{model} ({run.label})" if ambiguous else model


def build_table(runs: Sequence[Run]) -> ResultsTable:
    pairs = [(run, model) for run in runs for model in run.models]
    names = [model for _, model in pairs]
    columns, owners = [], {}
    rows: dict[tuple[str, str, str, str], Row] = {}
    for run, model in pairs:
        label = column_label(model, run, names.count(model) > 1)
        columns.append(label)
        owners[label] = run
        for h in headlines(m for m in run.metrics if m["model"] == model):
            row = rows.setdefault(h.row_key, Row(h.config, h.stratum, h.condition, h.metric))
            row.cells[label] = h
    version = next((r.gate.get("dataset_version") for r in runs), None)
    return ResultsTable(columns, list(rows.values()), notices(runs), version, list(runs), owners)


def number(value: float | str | None) -> str:
    if value is None:
        return "—"
    return value if isinstance(value, str) else f"{value:.3f}"


def cell(h: Headline | None, mark: str = MARK) -> str:
    if h is None or h.value is None:
        return "—"
    text = number(h.value)
    if h.ci_low is not None and h.ci_high is not None:
        text += f" [{number(h.ci_low)}, {number(h.ci_high)}]"
    return text + (f" {mark}" if h.includes_baseline else "")


def _lines(table: ResultsTable) -> tuple[list[str], list[list[str]]]:
    """Header and body cells, as text (shared by the terminal and Markdown forms)."""
    header = [*HEAD, *table.columns, *(label for _, label in table.baseline_columns)]
    body = [
        [
            r.config,
            r.stratum,
            r.condition,
            r.metric,
            r.n(),
            *(cell(r.cells.get(c)) for c in table.columns),
            *(number(r.baseline(key)) for key, _ in table.baseline_columns),
        ]
        for r in table.rows
    ]
    return header, body


def provenance(table: ResultsTable) -> str:
    runs = ", ".join(f"{run.label} ({run.path})" for run in table.runs)
    formats = ", ".join(
        f"{label}: {table.column_runs[label].answer_format(model_of(table, label))}" for label in table.columns
    )
    return f"dataset version {table.dataset_version}; runs: {runs}; answer formats: {formats}"


def model_of(table: ResultsTable, label: str) -> str:
    """The model a column shows (its label, less the run it is told apart by)."""
    run = table.column_runs[label]
    return next(m for m in run.models if column_label(m, run, label != m) == label)


def terminal(table: ResultsTable) -> Table:
    header, body = _lines(table)
    out = Table(title="GroundBench results (headline figures, 95% CI)", caption=escape(f"{KEY}. {provenance(table)}"))
    for index, name in enumerate(header):
        out.add_column(escape(name), justify="right" if index >= 4 else "left", overflow="fold")
    for line in body:
        out.add_row(*(escape(c) for c in line))
    return out


def markdown(table: ResultsTable) -> str:
    header, body = _lines(table)

    def line(cells: Sequence[str]) -> str:
        return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"

    rule = ["---" if i < 4 else "---:" for i in range(len(header))]
    parts = [f"> **⚠️ {n}**\n" for n in table.notices]
    parts += [line(header), line(rule), *(line(b) for b in body)]
    parts += ["", f"{KEY}. {provenance(table)}"]
    return "\n".join(parts) + "\n"


def latex(table: ResultsTable) -> str:
    """A booktabs ``tabular`` (needs ``\\usepackage{booktabs}``); the notices and the key close the table."""
    header, body = _lines(table)
    width = len(header)
    spec = "l" * 4 + "r" * (width - 4)
    out = [
        f"% GroundBench results: {tex(provenance(table))}",
        f"\\begin{{tabular}}{{{spec}}}",
        "\\toprule",
        " & ".join(tex(h) for h in header) + r" \\",
        "\\midrule",
    ]
    for line in body:
        cells = [tex(c).replace(MARK, r"$^\dagger$") for c in line]
        out.append(" & ".join(cells) + r" \\")
    out.append("\\bottomrule")
    for text in [*table.notices, KEY]:
        note = tex(text).replace(MARK, r"$^\dagger$")
        out.append(f"\\multicolumn{{{width}}}{{p{{0.95\\linewidth}}}}{{\\footnotesize {note}}} \\\\")
    out.append("\\end{tabular}")
    return "\n".join(out) + "\n"


CSV_COLUMNS = (
    "model",
    "run",
    "config",
    "stratum",
    "condition",
    "metric",
    "n",
    "count",
    "value",
    "ci_low",
    "ci_high",
    "includes_baseline",
    *(key for key, _ in BASELINES),
    "tau",
    "ambiguous",
    "dataset_version",
    "manifest_sha256",
    "template_sha256",
    "synthetic",
    "answer_format",
)


def to_csv(table: ResultsTable) -> str:
    """One line per (model, row); numbers at full precision (``repr``), so they equal the scores.json values."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=CSV_COLUMNS, lineterminator="\n")
    writer.writeheader()
    for row in table.rows:
        for label in table.columns:
            h = row.cells.get(label)
            if h is None:
                continue
            run = table.column_runs[label]
            gate = run.gate
            line: dict[str, object] = {
                "model": h.model,
                "run": run.label,
                "config": h.config,
                "stratum": h.stratum,
                "condition": h.condition,
                "metric": h.metric,
                "n": h.n,
                "count": h.count,
                "value": h.value,
                "ci_low": h.ci_low,
                "ci_high": h.ci_high,
                "includes_baseline": h.includes_baseline,
                **{key: h.baselines.get(key) for key, _ in BASELINES},
                "tau": h.tau,
                "ambiguous": h.ambiguous,  # free form: answers naming several actions (failures)
                "dataset_version": gate.get("dataset_version"),
                "manifest_sha256": (gate.get("manifest_sha256") or {}).get(h.config),
                "template_sha256": (gate.get("template_sha256") or {}).get(h.condition),
                "synthetic": h.config in run.synthetic_configs,
                "answer_format": run.answer_format(h.model),
            }
            writer.writerow({k: "" if v is None else v for k, v in line.items()})
    return buffer.getvalue()


FORMATS = ("terminal", "markdown", "latex", "csv")
