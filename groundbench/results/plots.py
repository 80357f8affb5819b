"""``groundbench plot``: figures of score reports, each as PNG and SVG with deterministic bytes (the gallery's
matplotlib settings: Agg, fixed SVG hash salt, no dates), plus ``plots.json``, every plotted number.

- ``<metric>``: one figure per headline metric (``scoring.headline``): per (config, condition) each
  model's value with its 95% interval as whiskers, and the baselines of the same rows as reference lines
  across that condition's slot (one panel per config; one panel over the configs when each scored one
  condition, as GUI suites do);
- ``gui_by_target_type``, ``gui_by_frame``: GUI success per target type and per frame size, per suite,
  with the centre-click rate of the same rows;
- ``forest``: the paired differences of ``groundbench compare --json`` files, A - B with intervals.

Each figure is drawn from a :class:`FigureSpec`, and ``plots.json`` is those specs: what the figures show,
number for number. Pure: specs in, bytes out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import matplotlib
import numpy as np
from matplotlib.figure import Figure

from groundbench.core.figures import RC, Plot, new_figure, render
from groundbench.results.runs import Run, notices
from groundbench.scoring.headline import BASELINES, Headline, breakdown, headlines

BASELINE_STYLE = {  # report column -> (line style, colour)
    "baseline_majority": ("--", "#555555"),
    "blind_bound": (":", "#b2182b"),
    "baseline_image_center": ("-.", "#2166ac"),
    "baseline_best_constant": ((0, (5, 1, 1, 1, 1, 1)), "#1b7837"),
    "baseline_center_click": ("--", "#762a83"),
    "baseline_every_keyword": ((0, (1, 2)), "#b35806"),  # free form: an answer naming every action (0)
}
BASELINE_LABEL = dict(BASELINES)
PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22")
SYNTHETIC_TITLE = "SYNTHETIC SAMPLE BUILD, NOT THE BENCHMARK"
GUI_BREAKDOWNS = (("gui_by_target_type", "gui_success_by_target_type", "target type"),
                  ("gui_by_frame", "gui_success_by_frame", "frame (width x height)"))  # fmt: skip


@dataclass(frozen=True)
class Point:
    series: str  # the model (or the compared pair)
    x: str
    value: float | None
    ci_low: float | None
    ci_high: float | None
    n: int


@dataclass(frozen=True)
class Reference:
    baseline: str  # report column, e.g. baseline_majority
    x: str
    value: float


@dataclass
class Panel:
    title: str
    x: list[str]
    points: list[Point] = field(default_factory=list)
    references: list[Reference] = field(default_factory=list)


@dataclass
class FigureSpec:
    name: str  # file stem
    title: str
    axis: str  # what the value axis measures
    panels: list[Panel]
    notice: str | None = None
    horizontal: bool = False  # the forest plot: differences along x
    answer_formats: dict[str, str] = field(default_factory=dict)  # series -> the answer format it was read in

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _series_label(model: str, run: Run, models: Sequence[str]) -> str:
    return f"{model} ({run.label})" if list(models).count(model) > 1 else model


def _labelled(runs: Sequence[Run]) -> list[tuple[str, Run, str]]:
    models = [m for run in runs for m in run.models]
    return [(_series_label(m, run, models), run, m) for run in runs for m in run.models]


def _references(entries: Sequence[tuple[str, Mapping[str, float]]]) -> list[Reference]:
    """One reference per (x, baseline), from the first entry that carries it (the rows' own baselines)."""
    seen: dict[tuple[str, str], Reference] = {}
    for x, baselines in entries:
        for key, value in baselines.items():
            seen.setdefault((x, key), Reference(key, x, value))
    return list(seen.values())


def notice_of(runs: Sequence[Run]) -> str | None:
    found = notices(runs)
    return " ".join(found) if found else None


def headline_specs(runs: Sequence[Run]) -> list[FigureSpec]:
    by_metric: dict[str, list[tuple[str, Headline]]] = {}
    for label, run, model in _labelled(runs):
        for h in headlines(m for m in run.metrics if m["model"] == model):
            if h.ci_low is not None:  # the mean of suites has no interval: the table carries it
                by_metric.setdefault(h.metric, []).append((label, h))
    specs = []
    for metric, entries in by_metric.items():
        conditions: dict[str, set[str]] = {}
        for _, h in entries:
            conditions.setdefault(h.config, set()).add(h.condition)
        single = all(len(found) == 1 for found in conditions.values())
        groups: dict[str, list[tuple[str, Headline]]] = {}
        for label, h in entries:
            groups.setdefault("" if single else f"{h.config} ({h.stratum})", []).append((label, h))
        panels = []
        for title, members in groups.items():
            slots = [f"{h.config} / {h.condition}" if single else h.condition for _, h in members]
            panel = Panel(title or "every config", list(dict.fromkeys(slots)))
            panel.points = [
                Point(label, x, h.value, h.ci_low, h.ci_high, h.n) for (label, h), x in zip(members, slots, strict=True)
            ]
            panel.references = _references([(x, h.baselines) for (_, h), x in zip(members, slots, strict=True)])
            panels.append(panel)
        specs.append(
            FigureSpec(metric, f"{metric} with 95% intervals", metric, panels, notice_of(runs), False, formats_of(runs))
        )
    return specs


def formats_of(runs: Sequence[Run]) -> dict[str, str]:
    return {label: run.answer_format(model) for label, run, model in _labelled(runs)}


def gui_specs(runs: Sequence[Run]) -> list[FigureSpec]:
    specs = []
    for name, metric, axis in GUI_BREAKDOWNS:
        groups: dict[str, Panel] = {}
        for label, run, model in _labelled(runs):
            for m in breakdown((m for m in run.metrics if m["model"] == model), metric):
                panel = groups.setdefault(str(m["config"]), Panel(str(m["config"]), []))
                x = str(m["detail"])
                if x not in panel.x:
                    panel.x.append(x)
                panel.points.append(Point(label, x, m["value"], m.get("ci_low"), m.get("ci_high"), int(m["n"])))
                click = m.get("baseline_center_click")
                if click is not None and not any(r.x == x for r in panel.references):
                    panel.references.append(Reference("baseline_center_click", x, float(click)))
        if groups:
            title = f"GUI success per {axis} (official rule, 95% intervals)"
            specs.append(
                FigureSpec(name, title, "gui_success", list(groups.values()), notice_of(runs), False, formats_of(runs))
            )
    return specs


def forest_spec(comparisons: Sequence[tuple[str, Mapping[str, Any]]], notice: str | None) -> FigureSpec:
    """One panel per ``groundbench compare --json`` file: every (config, condition, metric) difference A - B."""
    panels = []
    for label, payload in comparisons:
        entries = payload["differences"]
        keys = [f"{e['config']} / {e['condition']} / {e['metric']}" for e in entries]
        points = [
            Point(label, key, e["difference"], e.get("ci_low"), e.get("ci_high"), int(e["n"]))
            for key, e in zip(keys, entries, strict=True)
        ]
        panels.append(Panel(label, keys, points))
    return FigureSpec("forest", "Paired difference A - B with 95% intervals", "difference A - B", panels, notice, True)


def _colour(series: str, order: Sequence[str]) -> str:
    return PALETTE[order.index(series) % len(PALETTE)]


def _bounds(p: Point) -> tuple[float, float, float]:
    """(interval low, value, interval high); a figure without an interval has whiskers of length 0."""
    value = float(p.value or 0.0)
    low, high = p.ci_low, p.ci_high
    return (value if low is None else low), value, (value if high is None else high)


SLOT = 0.42  # a reference line spans its condition's slot, x - SLOT to x + SLOT
COINCIDE = 0.015  # reference values closer than this (on the 0-1 axis) would draw one over the other


def coinciding(references: Sequence[Reference]) -> list[list[Reference]]:
    """The references of a panel grouped per slot into lines that coincide (values within ``COINCIDE``); a
    group of several is drawn side by side along the slot, so every one of them shows."""
    groups: list[list[Reference]] = []
    for ref in references:
        same = next(
            (g for g in groups if g[0].x == ref.x and any(abs(r.value - ref.value) < COINCIDE for r in g)), None
        )
        if same is None:
            groups.append([ref])
        else:
            same.append(ref)
    return groups


def segments(start: float, end: float, count: int) -> list[tuple[float, float]]:
    """``count`` equal, disjoint pieces of [start, end], with a small gap between neighbours."""
    step = (end - start) / count
    gap = 0.04 * step if count > 1 else 0.0
    return [(start + i * step + (gap if i else 0.0), start + (i + 1) * step - (gap if i < count - 1 else 0.0))
            for i in range(count)]  # fmt: skip


def _draw_panel(ax: Any, panel: Panel, spec: FigureSpec, order: Sequence[str], labelled: set[str]) -> None:
    positions = {x: float(i) for i, x in enumerate(panel.x)}
    series = list(dict.fromkeys(p.series for p in panel.points))
    width = 0.7 / max(1, len(series))
    for index, name in enumerate(series):
        mine = [p for p in panel.points if p.series == name and p.value is not None]
        offset = -0.35 + width * (index + 0.5) if len(series) > 1 else 0.0
        at = np.array([positions[p.x] + offset for p in mine])
        bounds = np.array([_bounds(p) for p in mine], dtype=float).reshape(-1, 3)
        values, low, high = bounds[:, 1], bounds[:, 1] - bounds[:, 0], bounds[:, 2] - bounds[:, 1]
        label = None if name in labelled else name
        labelled.add(name)
        if spec.horizontal:
            ax.errorbar(values, at, xerr=[low, high], fmt="o", capsize=3, color=_colour(name, order), label=label)
        else:
            ax.errorbar(at, values, yerr=[low, high], fmt="o", capsize=3, color=_colour(name, order), label=label)
    for group in coinciding(panel.references):
        x = positions[group[0].x]
        for (start, end), ref in zip(segments(x - SLOT, x + SLOT, len(group)), group, strict=True):
            style, colour = BASELINE_STYLE[ref.baseline]
            label = None if ref.baseline in labelled else BASELINE_LABEL[ref.baseline]
            labelled.add(ref.baseline)
            ax.hlines(ref.value, start, end, linestyles=style, colors=colour, linewidth=1.4, label=label)
        if len(group) > 1 and not spec.horizontal:  # side by side on one level: say which are equal
            names = " = ".join(BASELINE_LABEL[ref.baseline] for ref in group)
            above = group[0].value < 0.9
            ax.annotate(
                f"{names} {group[0].value:.2f}",
                (x, group[0].value),
                xytext=(0, 3 if above else -3),
                textcoords="offset points",
                ha="center",
                va="bottom" if above else "top",
                fontsize=7,
                color="#333333",
            )
    ticks = [positions[x] for x in panel.x]
    if spec.horizontal:
        ax.axvline(0.0, color="#999999", linewidth=1)
        ax.set_yticks(ticks, panel.x)
        ax.set_ylim(len(panel.x) - 0.5, -0.5)
        ax.set_xlabel(spec.axis)
    else:
        crowded = len(panel.x) > 3
        ax.set_xticks(ticks, panel.x, rotation=20 if crowded else 0, ha="right" if crowded else "center")
        ax.set_xlim(-0.6, len(panel.x) - 0.4)
        ax.set_ylim(-0.02, 1.02)
        ax.set_ylabel(spec.axis)
    ax.set_title(panel.title)


def draw(spec: FigureSpec) -> Figure:
    """The figure of a spec (the artists a test may read back)."""
    with matplotlib.rc_context(RC):
        rows = max(1, len(spec.panels))
        tallest = max((len(p.x) for p in spec.panels), default=1)
        height = (0.45 * tallest + 1.4) if spec.horizontal else 3.0
        figure = new_figure(9.0, height * rows + (0.6 if spec.notice else 0.3))
        axes = figure.subplots(rows, 1, squeeze=False)[:, 0]
        order = list(dict.fromkeys(p.series for panel in spec.panels for p in panel.points))
        labelled: set[str] = set()
        for ax, panel in zip(axes, spec.panels, strict=True):
            _draw_panel(ax, panel, spec, order, labelled)
        # The key beside the panels, never over a point or a reference line.
        figure.legend(fontsize=8, loc="outside right upper")
        title = spec.title if not spec.notice else f"{SYNTHETIC_TITLE}\n{spec.title}"
        figure.suptitle(title, color="#96001e" if spec.notice else "black")
        return figure


def render_spec(spec: FigureSpec) -> Plot:
    return render(spec.name, spec.title, draw(spec))


def all_specs(runs: Sequence[Run], comparisons: Sequence[tuple[str, Mapping[str, Any]]]) -> list[FigureSpec]:
    specs = headline_specs(runs) + gui_specs(runs)
    if comparisons:
        specs.append(forest_spec(comparisons, notice_of(runs)))
    return specs
