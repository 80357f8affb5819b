"""The official table layouts (``scoring.layouts``) as text: a terminal table (rich), Markdown, LaTeX (booktabs) and
CSV. Pure: layout tables in, text out; ``score --layout`` prints the terminal form, ``table --layout`` any form.

A cell reads ``value [ci_low, ci_high] k/n``: the value in percent rounded as the published table rounds it, its
95% interval, and the rows it counts; a cell that averages several rates says ``mean of P, n=N`` instead of k/n.
Where the prediction lines carried the framework's own verdicts, the count reads ``ours k/n · theirs k'/n'``.
Each model's rows are followed by the centre-click baseline's, scored on the same rows in the same layout.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass

from rich.markup import escape
from rich.table import Table

from groundbench.core.latex import tex
from groundbench.scoring.layouts import BASELINE, LAYOUTS, Cell, Layout, LayoutTable, TableRow

OURS, THEIRS = "ours", "theirs"


@dataclass(frozen=True)
class Block:
    """One model's rows of a layout (or the baseline's), as a table shows them."""

    label: str  # the model (with its run when two runs share a model name), or the baseline's label
    model: str
    run: str
    rows: list[TableRow]
    baseline: bool = False


@dataclass(frozen=True)
class View:
    """One layout over one config (or its configs): every block, models first, the baseline last."""

    layout: Layout
    configs: tuple[str, ...]
    blocks: list[Block]

    @property
    def theirs(self) -> bool:
        return any(c.theirs is not None for b in self.blocks for r in b.rows for c in r.cells.values())

    @property
    def title(self) -> str:
        return f"{self.layout.title}: {', '.join(self.configs)}"


def views(runs: Sequence[tuple[str, dict[str, list[LayoutTable]]]], name: str) -> list[View]:
    """The views of layout ``name`` over runs given as (run label, their layout tables). A model name two runs
    share is told apart by its run; the baseline is shown once when every run scored the same rows, else once
    per run."""
    models = [m for _, tables in runs for t in tables.get(name, []) for m in t.models]
    by_configs: dict[tuple[str, ...], list[tuple[str, LayoutTable]]] = {}
    for label, tables in runs:
        for t in tables.get(name, []):
            by_configs.setdefault(t.configs, []).append((label, t))
    out = []
    for configs, found in by_configs.items():
        blocks = []
        for run, t in found:
            for model, rows in t.models.items():
                shown = f"{model} ({run})" if models.count(model) > 1 and run else model
                blocks.append(Block(shown, model, run, rows))
        baselines = {str([r.to_dict() for r in t.baseline]): (run, t) for run, t in found}
        for run, t in baselines.values():
            shown = BASELINE if len(baselines) == 1 or not run else f"{BASELINE} ({run})"
            blocks.append(Block(shown, BASELINE, run, t.baseline, baseline=True))
        out.append(View(LAYOUTS[name], configs, blocks))
    return out


def number(value: float | None, decimals: int) -> str:
    return "—" if value is None else f"{value:.{decimals}f}"


def cell_text(c: Cell | None, decimals: int, theirs: bool = False) -> str:
    """``value [low, high] k/n`` (see the module docstring); empty where the row has no such cell."""
    if c is None:
        return ""
    count = f"{c.k}/{c.n}" if c.k is not None else f"mean of {c.parts}, n={c.n}"
    if c.value is None:
        return "— (n=0)" if c.n == 0 else f"— ({count}: a part has no row)"
    text = number(c.value, decimals)
    if c.ci_low is not None and c.ci_high is not None:
        text += f" [{number(c.ci_low, decimals)}, {number(c.ci_high, decimals)}]"
    if not theirs:
        return f"{text} {count}"
    text += f" {OURS} {count}"
    if c.theirs is None:
        return text + f" · {THEIRS} —"
    t = c.theirs
    their_count = f"{t.k}/{t.n}" if t.k is not None else f"{number(t.value, decimals)} (n={t.n})"
    return text + f" · {THEIRS} {their_count}"


def _body(view: View) -> tuple[list[str], list[list[str]]]:
    header = ["model", "row", *view.layout.columns]
    body = []
    for block in view.blocks:
        theirs = view.theirs and not block.baseline  # a baseline has no framework's verdicts
        for index, row in enumerate(block.rows):
            cells = [cell_text(row.cells.get(c), view.layout.decimals, theirs) for c in view.layout.columns]
            body.append([block.label if index == 0 else "", row.label, *cells])
    return header, body


def key(view: View) -> str:
    """What a cell says, and where the layout's rules come from."""
    d = view.layout.decimals
    parts = [
        f"value in percent ({d} decimal{'s' if d != 1 else ''}, as published) [95% interval resampled by screenshot] "
        "correct/rows (a missing or unreadable answer counts as a miss, as the official scripts count it)",
        f"{BASELINE}: a click at the frame's centre, scored by the same rule on the same rows",
    ]
    if view.theirs:
        parts.append(f"{THEIRS}: the framework's own verdicts (imported.verdict), over the rows it judged")
    parts.append("rules: " + "; ".join(view.layout.sources))
    return ". ".join(parts)


def terminal(view: View) -> Table:
    header, body = _body(view)
    table = Table(title=escape(view.title), caption=escape(key(view)))
    for index, name in enumerate(header):
        table.add_column(escape(name), justify="left" if index < 2 else "right", overflow="fold")
    for line in body:
        table.add_row(*(escape(c) for c in line))
    return table


def markdown(views_: Sequence[View], notices: Sequence[str] = ()) -> str:
    def line(cells: Sequence[str]) -> str:
        return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"

    parts = [f"> **⚠️ {n}**\n" for n in notices]
    for view in views_:
        header, body = _body(view)
        rule = ["---" if i < 2 else "---:" for i in range(len(header))]
        parts += [f"**{view.title}**", "", line(header), line(rule), *(line(b) for b in body), "", key(view), ""]
    return "\n".join(parts)


def latex(views_: Sequence[View], notices: Sequence[str] = ()) -> str:
    """One booktabs ``tabular`` per view (``\\usepackage{booktabs}``); the notices and the key close each."""
    out = []
    for view in views_:
        header, body = _body(view)
        width = len(header)
        out += [
            f"% {tex(view.title)}",
            f"\\begin{{tabular}}{{ll{'r' * (width - 2)}}}",
            "\\toprule",
            " & ".join(tex(h) for h in header) + r" \\",
            "\\midrule",
        ]
        for index, line in enumerate(body):
            if index and line[0]:
                out.append("\\midrule")
            out.append(" & ".join(tex(c) for c in line) + r" \\")
        out.append("\\bottomrule")
        for text in [*notices, key(view)]:
            out.append(f"\\multicolumn{{{width}}}{{p{{0.95\\linewidth}}}}{{\\footnotesize {tex(text)}}} \\\\")
        out.append("\\end{tabular}")
    return "\n".join(out) + "\n"


CSV_HEAD = ("model", "run", "configs", "kind", "row")


def to_csv(views_: Sequence[View]) -> str:
    """One line per (model, table row) with one column per published column, in percent at full precision
    (``repr``, so it equals scores.json's ``layouts``); ``kind`` is ours, theirs (the framework's own count, where
    the lines carried it) or the centre-click baseline. The layouts' columns are the union, in order."""
    columns = list(dict.fromkeys(c for v in views_ for c in v.layout.columns))
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow([*CSV_HEAD, *columns])
    for view in views_:
        configs = "+".join(view.configs)
        for block in view.blocks:
            kinds = [BASELINE] if block.baseline else [OURS, *([THEIRS] if view.theirs else [])]
            for kind in kinds:
                for row in block.rows:
                    values = [_csv_value(row.cells.get(c), kind) for c in columns]
                    writer.writerow([block.model, block.run, configs, kind, row.label, *values])
    return buffer.getvalue()


def _csv_value(c: Cell | None, kind: str) -> str:
    if c is None:
        return ""
    value = (c.theirs.value if c.theirs is not None else None) if kind == THEIRS else c.value
    return "" if value is None else repr(value)


FORMATS = ("terminal", "markdown", "latex", "csv")
